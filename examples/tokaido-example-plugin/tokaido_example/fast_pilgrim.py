"""The ``pilgrim`` plugin on the fast simulator (:mod:`tokaido_rules.fast`): additive rules.

Basho's power is a reaction to a card gained, so his fast rules use one seam, ``gained``
(the reference's ``tokaido_card_gained``): an encounter card joining his collection pays
him 1 coin, one ``CoinsChanged`` event in the reference, so one event counted here. The
game classes know no power of Basho's (his number is -1, "no power"): everything he
does beyond any traveller is this reaction. Loaded only by the plugin's
``tokaido_fast_rules`` hook, never by the reference engine.
"""

from __future__ import annotations

from tokaido_rules.fast import FastGame, FastRules, FastTables

from .pilgrim import BASHO

_ENCOUNTER = "encounter"
"""The card kind whose gain pays Basho (whichever plugin registers the card)."""


class _Pilgrim:
    """What the rules need of one ruleset and player count: Basho's traveller number and,
    per card code, whether it is an encounter card."""

    __slots__ = ("basho", "encounter")

    def __init__(self, T: FastTables) -> None:
        self.basho = T.traveller_index[BASHO]
        cards = T.ruleset.registry.cards
        self.encounter = [cards[name].kind == _ENCOUNTER for name in T.names]


class PilgrimRules(FastRules):
    """Basho's coin for each encounter card he gains."""

    def prepare(self, T: FastTables) -> object:
        return _Pilgrim(T)

    def gained(self, game: FastGame, piece: int, card: int) -> None:
        K: _Pilgrim = game.T.extra["pilgrim"]
        if game.trav[piece] == K.basho and K.encounter[card]:
            game.coins[piece] += 1
            game.seq += 1  # the reference's CoinsChanged


RULES = PilgrimRules(seams=("gained",), powers={BASHO: -1}, views=True)
"""The pilgrim plugin's fast rules (what its ``tokaido_fast_rules`` returns)."""
