"""The Crossroads variants on the fast simulator (:mod:`tokaido_rules.fast`): additive
rules acting on Crossroads' state (:class:`tokaido_crossroads.fast.CrossroadsGame`),
which both require.

Rare & Precious thins the Crossroads piles at the setup; Good Luck offers each player,
in departure order, a random amulet for 1 coin.
"""

from __future__ import annotations

from typing import Any

from tokaido_crossroads.content import AMULETS, PILES
from tokaido_crossroads.fast import (
    X_AMULET,
    X_BATH,
    X_CALLIGRAPHY,
    X_CHERRY,
    X_LEGENDARY,
    CrossroadsGame,
)
from tokaido_rules import Action, FrozenMap
from tokaido_rules.fast import (
    FROM_RECORD,
    FastGame,
    FastRules,
    FastTables,
    Step,
    ViewTables,
    draw_below,
)

_BUILT_FROM: str | None = None
"""In the compiled build (:mod:`tokaido_rules.native`), the SHA-256 of the source of
this module it was compiled from; ``None`` in the source itself."""

_RARE_ORDER = (X_BATH, X_LEGENDARY, X_CHERRY, X_AMULET, X_CALLIGRAPHY)
"""The order in which Rare & Precious thins the piles (``PILES``)."""
_RARE_PURPOSES = tuple(f"pick.{pile}" for pile in PILES)
"""The chance kinds (and purposes) of those removals, in that order."""
_LUCK = f"pick.{AMULETS}"
"""The chance kind (and purpose) of a Good Luck amulet."""
_BUY = "good-luck.buy"
_BOX, _IN_PLAY = "rare-and-precious.box", "rare-and-precious.in_play"
"""Rare & Precious' zone of the cards out of play, and its data key of the cards in play."""


class RareAndPreciousRules(FastRules):
    """Fewer cards in the Crossroads piles."""

    def deal(self, game: FastGame) -> None:
        """Random cards of each pile leave the game until 4 (2-3 players) or 5 are left
        (``run_remove``), then the cards in play are noted."""
        assert isinstance(game, CrossroadsGame)
        keep = 4 if game.T.players <= 3 else 5
        box = None
        for x, purpose in zip(_RARE_ORDER, _RARE_PURPOSES, strict=True):
            pile = game.piles[x]
            while len(pile) > keep:
                card = pile[draw_below(game._chance(purpose), 0, len(pile))]
                pile.remove(card)
                game.seq += 1
                if game.records_views:  # the box, which only the records hold
                    if box is None:
                        box = game._recorded_zone(_BOX)
                    assert box is not None
                    box.append(card)
        game.seq += 1
        if game.records_views:
            names = game.T.names
            game._note_data(_IN_PLAY, FrozenMap({
                "amulets": tuple(sorted(names[c] for c in game.piles[X_AMULET])),
                "calligraphy": tuple(sorted(names[c] for c in game.piles[X_CALLIGRAPHY]))}))

    def fill_view(self, game: FastGame, V: ViewTables) -> bool:
        """The box of the cards out of play (its cards are recorded at the deal), and
        the public list of the amulets and calligraphy cards in play (recorded then)."""
        V.add_zone(_BOX, FROM_RECORD, None)
        V.known_zones.add(_BOX)
        V.add_data(_IN_PLAY, None)
        V.known_data.add(_IN_PLAY)
        return True


class _LuckKinds:
    def __init__(self, T: FastTables) -> None:
        self.offer = T.kind_of("good-luck.offer")
        self.buy = T.kind_of(_BUY)


class GoodLuckRules(FastRules):
    """A random amulet for 1 coin at the start."""

    def prepare(self, T: FastTables) -> object:
        return _LuckKinds(T)

    def setup(self, game: FastGame, working: list[Step]) -> None:
        working.append((game.T.extra["good-luck"].offer, -1, None, 0))

    def run(self, game: FastGame, step: Step, new: list[Step]) -> None:
        """The offer, in departure order: the last of the queue first."""
        K: _LuckKinds = game.T.extra["good-luck"]
        seated = sorted(range(game.T.players), key=lambda i: -game.slot[i])
        new += [(K.buy, i, game.seat[i], 0) for i in seated]

    def legal(self, game: FastGame, step: Step) -> tuple[Action, ...]:
        assert isinstance(game, CrossroadsGame)
        _, piece, seat, _ = step
        if game.coins[piece] < 1 or not game.piles[X_AMULET]:
            return ()
        T = game.T
        return (T.action(_BUY, seat, piece, False), T.action(_BUY, seat, piece, True))

    def resolve(self, game: FastGame, step: Step, action: Any, new: list[Step]) -> None:
        assert isinstance(game, CrossroadsGame)
        piece = step[1]
        if action.buy:
            game._pay(piece, 1)
            pile = game.piles[X_AMULET]
            game._take_amulet(piece, pile[draw_below(game._chance(_LUCK), 0, len(pile))])


RARE_AND_PRECIOUS = RareAndPreciousRules(seams=("deal",), views=True)
GOOD_LUCK = GoodLuckRules(steps=("good-luck.offer",), decisions=(_BUY,), seams=("setup",),
                          setup_order=200, views=True)


if not __name__.endswith("_compiled"):  # not in the compiled copy itself
    from tokaido_rules.fast import take_compiled

    take_compiled(globals())
