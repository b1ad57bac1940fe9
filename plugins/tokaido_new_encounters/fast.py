"""New Encounters on the fast simulator (:mod:`tokaido_rules.fast`): additive rules.

The four promo cards' effect is one step of the plugin's own (which card: the step's
data), and the three decisions to pay 1 coin for an effect are its own decisions; the
kernel numbers them. They act on the base game's state through its methods
(:class:`tokaido_base.fast.BaseGame`): a meal Itamae draws is gained from the meal deck
(``_gain_from_deck``: the same seam as the reference's ``source`` of a card gained),
which is how a game class that tells inn meals apart learns it is none.
"""

from __future__ import annotations

from typing import Any, Final

from tokaido_base.fast import _PANORAMA_KINDS, P_ENC, P_HOT, P_MEAL, BaseGame
from tokaido_rules import Action
from tokaido_rules.fast import FastGame, FastRules, FastTables, Step

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""

_PROMOS = ("itamae", "kitoushi", "saru", "takuhatsuso")
"""The promo cards' ids (the plugin registers them)."""
E_ITAMAE: Final = 0
E_KITOUSHI: Final = 0 + 1
E_SARU: Final = 0 + 2
E_TAKUHATSUSO: Final = 0 + 3
PAY_PROMO, KITOUSHI = "new-encounters.pay", "new-encounters.kitoushi"
TAKUHATSUSO_POINTS: Final = 4
_DRAWN = "base.drawn"
"""The base game's zones of the cards a traveller draws privately (Itamae's meal passes
through one: a zone, once made, stays in the views)."""
_EFFECT = "new-encounters.effect"
_ITAMAE, _TAKUHATSUSO, _KITOUSHI = (
    "new-encounters.itamae_choice", "new-encounters.takuhatsuso_choice",
    "new-encounters.kitoushi_choice")


class _Kinds:
    """The kernel's numbers of the plugin's step kinds in one ruleset, and which promo
    card each card is (-1: none)."""

    def __init__(self, T: FastTables) -> None:
        self.itamae = T.kind_of(_ITAMAE)
        self.takuhatsuso = T.kind_of(_TAKUHATSUSO)
        self.kitoushi = T.kind_of(_KITOUSHI)
        registry = T.ruleset.registry
        self.promo = [_PROMOS.index(registry.cards[name].id)
                      if registry.cards[name].effect == _EFFECT else -1 for name in T.names]


class NewEncountersRules(FastRules):
    """The promo cards' effects and payments."""

    def prepare(self, T: FastTables) -> object:
        return _Kinds(T)

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        """A promo card's effect (``run_effect``): Saru's hot spring card at once; the
        others ask for 1 coin if the traveller has one and the effect would give
        something (a meal deck not empty, a panorama not complete)."""
        assert isinstance(game, BaseGame)
        _, piece, seat, card = step
        K: _Kinds = game.T.extra["new-encounters"]
        promo = K.promo[card]
        if promo == E_SARU:
            springs = game.springs
            if springs:
                spring = springs[0]
                game.springs = springs[1:]  # decks are shared by copies: replaced
                game._gain(piece, spring, P_HOT, game.T.points[spring])
        elif game.coins[piece] >= 1:
            if promo == E_TAKUHATSUSO:
                new.append((K.takuhatsuso, piece, seat, 0))
            elif promo == E_ITAMAE:
                if game.meals:
                    new.append((K.itamae, piece, seat, 0))
            elif any(game._panorama_open(piece, k) for k in range(len(_PANORAMA_KINDS))):
                new.append((K.kitoushi, piece, seat, 0))

    def legal(self, game: FastGame, step: Step) -> tuple[Action, ...]:
        assert isinstance(game, BaseGame)
        kind, piece, seat, _ = step
        T = game.T
        K: _Kinds = T.extra["new-encounters"]
        if kind == K.kitoushi:  # declining first, then the open panoramas (sorted)
            return (T.action(KITOUSHI, seat, piece, None), *(
                T.action(KITOUSHI, seat, piece, name) for k, name in enumerate(_PANORAMA_KINDS)
                if game._panorama_open(piece, k)))
        card = _PROMOS[E_ITAMAE if kind == K.itamae else E_TAKUHATSUSO]
        return (T.action(PAY_PROMO, seat, piece, card, False),
                T.action(PAY_PROMO, seat, piece, card, True))

    def resolve(self, game: FastGame, step: Step, action: Any, new: list[Step]) -> None:
        """A promo card's payment (``resolve_pay``, ``resolve_kitoushi``): 1 coin, not a
        card price (no Kinko discount), for 4 points, the top meal (kept if not eaten
        yet, else under the deck; gained from the deck: no inn meal) or the next section
        of a panorama."""
        assert isinstance(game, BaseGame)
        kind, piece, _, _ = step
        K: _Kinds = game.T.extra["new-encounters"]
        if kind == K.kitoushi:
            if action.panorama is not None:
                game.coins[piece] -= 1
                game.seq += 1
                game._take_panorama(piece, _PANORAMA_KINDS.index(action.panorama))
            return
        if not action.pay:
            return
        game.coins[piece] -= 1
        game.seq += 1
        if kind == K.takuhatsuso:
            game._add_points(piece, P_ENC, TAKUHATSUSO_POINTS)
            game.seq += 1
            return
        meals = game.meals
        meal = meals[0]
        game.meals = meals[1:]  # decks are shared by copies: replaced
        game.seq += 1  # drawn privately
        game._note_zone(f"{_DRAWN}.{piece}")
        if game.eaten[piece] >> meal & 1:
            game.meals = [*game.meals, meal]
            game.seq += 1
        else:
            game._gain_from_deck(piece, meal, P_MEAL, game.T.points[meal])


RULES = NewEncountersRules(steps=(_EFFECT,), decisions=(_ITAMAE, _TAKUHATSUSO, _KITOUSHI),
                           effects={_EFFECT: _EFFECT}, views=True)
"""New Encounters' fast rules (what its ``tokaido_fast_rules`` returns)."""


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    from tokaido_rules.fast import take_compiled

    take_compiled(globals())
