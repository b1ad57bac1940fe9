"""The base variants on the fast simulator (:mod:`tokaido_rules.fast`): additive rules.

Initiation replaces the traveller offer by 7 coins each (and refuses given travellers,
as its reference does); Preparations adjusts the coins by the order of leaving the start
inn. Return journey (a reversed board, read from the registry), Gastronomy and the
``bga`` preset (option values the base game's fast rules implement) need no rule of
their own: their fast rules only say so.
"""

from __future__ import annotations

from typing import Any

from tokaido_rules.fast import FastGame, FastRules, FastTables, Step

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""

_INITIATION_COINS = 7
"""Initiation: every player's starting coins, there being no travellers."""
_DEPARTURE_COINS = {2: (1, 2), 3: (0, 1, 2), 4: (-1, 0, 1, 2), 5: (-1, -1, 0, 1, 2)}
"""Preparations: the coins gained (or lost) by the 1st, 2nd, ... player to leave the
start inn, by player count."""


class InitiationRules(FastRules):
    """No traveller tiles: every player starts with 7 coins."""

    def prepare(self, T: FastTables) -> object:
        T.takes_travellers = False
        T.offers_travellers = False
        return T.kind_of("initiation.start")

    def setup(self, game: FastGame, working: list[Step]) -> None:
        working.insert(0, (game.T.extra["initiation"], -1, None, 0))

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        for i in range(game.T.players):
            game.coins[i] += _INITIATION_COINS
            game.seq += 1


class PreparationsRules(FastRules):
    """The players' coins adjusted by their order of leaving the start inn."""

    def prepare(self, T: FastTables) -> object:
        return T.kind_of("preparations.adjust")

    def setup(self, game: FastGame, working: list[Step]) -> None:
        working.append((game.T.extra["preparations"], -1, None, 0))

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        """The players' coins by their order of leaving the start inn (the last in its
        queue first), never below 0."""
        coins = game.coins
        slot = game.slot
        players = game.T.players
        leaving = sorted(range(players), key=lambda i: -slot[i])
        for i, gain in zip(leaving, _DEPARTURE_COINS[players], strict=True):
            change = max(gain, -coins[i])
            if change:
                coins[i] += change
                game.seq += 1


def _no_rules(**facts: Any) -> FastRules:
    return FastRules(**facts)


INITIATION = InitiationRules(steps=("initiation.start",), seams=("setup",), setup_order=100,
                             views=True)
PREPARATIONS = PreparationsRules(steps=("preparations.adjust",), seams=("setup",),
                                 setup_order=150, views=True)
RETURN_JOURNEY = _no_rules(views=True)
GASTRONOMY = _no_rules(views=True)
BGA = _no_rules(views=True)
"""The ``bga`` preset's fast rules: nothing of its own (its option values are the base
game's). None of these variants shows anything of its own in a view (no zone, data key
or counter; their steps carry no values), so the direct views know them as they are."""


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    from tokaido_rules.fast import take_compiled

    take_compiled(globals())
