"""The fast simulator plays exactly the reference engine's games with the base variants.

Initiation (no travellers, 7 coins each), Return journey (the reversed road), Gastronomy
(a meal per player at inns) and Preparations (starting coins by departure order), alone,
all together, and with the ``bga`` preset: at every decision the same seat, the same
legal actions and the same count of events, and at the end the same scores and log.
Crafted games check what each rule gives.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations

import pytest

from tokaido_base.fast import BaseGame
from tokaido_rules import Game, PluginInfo, Ruleset, Setup, SetupError, new_game
from tokaido_rules.fast import FastGame, NotCoveredError, _Policy, compare, covers, differential
from tokaido_rules.testing import covered_plugin_sets

VARIANTS = ("initiation", "return-journey", "gastronomy", "preparations")
PRINTED_COINS = {"chuubei": 4, "hiroshige": 3, "hirotada": 8, "kinko": 7, "mitsukuni": 6,
                 "sasayakko": 5, "satsuki": 2, "umegae": 5, "yoshiyasu": 9, "zenemon": 6}
DEPARTURE_COINS = {2: (1, 2), 3: (0, 1, 2), 4: (-1, 0, 1, 2), 5: (-1, -1, 0, 1, 2)}
"""Preparations' adjustment of the 1st, 2nd, ... player to leave the start inn."""


class _Impostor:
    """A third-party plugin that takes the id of a covered variant."""

    tokaido_plugin = PluginInfo("initiation", "9.9.9", requires=("base",))


def test_covers_every_variant_and_combination() -> None:
    """Each base variant alone, every combination of them, and each with the bga
    preset; Gastronomy's option overridden too; an impostor variant is not covered."""
    for size in range(len(VARIANTS) + 1):
        for chosen in combinations(VARIANTS, size):
            for preset in ((), ("bga",)):
                ids = ("base", *chosen, *preset)
                assert covers(Ruleset.build(ids)), ids
    assert covers(Ruleset.build(["base", "gastronomy"],
                                {"base.meal_hand": "players_plus_one"}))
    assert len(covered_plugin_sets()) >= 2 ** (len(VARIANTS) + 1)
    impostor = Ruleset.build(["base", _Impostor()])
    assert not covers(impostor)
    with pytest.raises(NotCoveredError):
        FastGame.new(3, plugins=impostor)


@pytest.mark.parametrize("variants", [
    *((name,) for name in VARIANTS), VARIANTS, (*VARIANTS, "bga"),
])
def test_variant_games_equal_the_reference_at_every_decision(
        variants: tuple[str, ...]) -> None:
    """Random games with offered travellers, then given travellers (Initiation has
    none to give: ``differential`` plays its games as they are) with the seek policy,
    then the eager policy, at 2 to 5 players."""
    ids = ("base", *variants)
    reports = [
        differential((2, 3, 4, 5), range(12), plugins=ids),
        differential((2, 3, 4, 5), range(12, 20), plugins=ids, travellers=True,
                     policy="seek"),
        differential((2, 3, 4, 5), range(20, 28), plugins=ids, policy="eager", logs=False),
    ]
    for report in reports:
        assert report.ok, str(report)
    assert sum(r.games for r in reports) == 112


# --- crafted games -------------------------------------------------------------------------


def _play_until(game: Game, fast: FastGame, done: Callable[[Game], bool],
                choose: Callable[[tuple[object, ...]], int]) -> Game:
    """Apply the same decisions to both games until ``done`` (the same legal actions
    and count of events checked at each); the reference game at that point."""
    while not done(game):
        assert fast.state_seq == game.state.seq
        legal = game.legal_actions()
        assert fast.legal_actions() == legal
        index = choose(legal)
        game = game.apply(legal[index])
        fast.apply(fast.legal_actions()[index])
    assert fast.state_seq == game.state.seq and fast.legal_actions() == game.legal_actions()
    return game


def _finish(game: Game, fast: FastGame) -> None:
    """Play both to the end alike (eager decisions): no difference."""
    policy = _Policy("eager", random.Random(1), game.ruleset.registry.board)
    difference, _ = compare(game, fast, policy)
    assert difference is None, difference


def _furthest(legal: tuple[object, ...]) -> int:
    """The furthest move (to the next inn), otherwise the first action."""
    return len(legal) - 1 if type(legal[0]).__name__ == "Move" else 0


def _to_village(legal: tuple[object, ...]) -> int:
    """A move to a village of the base road (1, 8) if there is one, otherwise the first
    action."""
    for index, action in enumerate(legal):
        if getattr(action, "position", None) in (1, 8):
            return index
    return 0


def _coins(game: Game) -> list[int]:
    return [p.coins for p in game.state.pieces]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_initiation_gives_seven_coins_and_no_traveller(players: int) -> None:
    """Every player starts with 7 coins and no traveller (the neutral traveller with
    none); the first decision is a move; no power applies: all 8 purchases of a village
    offer, none discounted; the scores name no traveller."""
    ids = ("base", "initiation")
    setup = Setup(stacks={"base.souvenirs": ("koma", "netsuke", "shamisen")})
    game = new_game(players, seed=players, plugins=ids, setup=setup)
    fast = FastGame.new(players, seed=players, plugins=ids, setup=setup)
    assert _coins(game) == fast.coins == [7] * players + [0] * (players == 2)
    assert all(p.traveller is None for p in game.state.pieces)
    assert fast.current_kind == "core.move" and fast.legal_actions() == game.legal_actions()
    game = _play_until(game, fast, lambda g: g.current_step is not None
                       and g.current_step.kind == "base.buy_souvenirs",
                       _to_village)
    purchases = fast.legal_actions()
    assert len(purchases) == 8
    assert all(a.discount is None for a in purchases)  # type: ignore[attr-defined]
    _finish(game, fast)
    assert all(s.traveller is None for s in fast.scores())


@pytest.mark.parametrize("arguments", [
    {"travellers": ("kinko", "zenemon", "satsuki")},
    {"setup": Setup(travellers=("kinko", "zenemon", "satsuki"))},
    {"travellers": ("kinko", "kinko", "satsuki")},
    {"travellers": ("kinko",)},
])
def test_initiation_refuses_travellers_as_the_reference_does(
        arguments: dict[str, object]) -> None:
    with pytest.raises(SetupError) as reference_error:
        new_game(3, plugins=("base", "initiation"), **arguments)  # type: ignore[arg-type]
    with pytest.raises(SetupError) as fast_error:
        FastGame.new(3, plugins=("base", "initiation"), **arguments)  # type: ignore[arg-type]
    assert str(fast_error.value) == str(reference_error.value)


def test_initiation_with_crafted_coins_and_queue() -> None:
    """Crafted starting coins replace the 7 (after them, as the reference orders the
    setup steps)."""
    setup = Setup(queue=(1, 3, 0, 2), coins={0: 0, 2: 12},
                  stacks={"base.encounters": ("kuge", "samurai")})
    game = new_game(4, seed=5, plugins=("base", "initiation"), setup=setup)
    fast = FastGame.new(4, seed=5, plugins=("base", "initiation"), setup=setup)
    assert _coins(game) == fast.coins == [0, 7, 12, 7]
    _finish(game, fast)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_preparations_adjusts_the_coins_by_departure(players: int) -> None:
    """The last of the start queue leaves first and gains the first adjustment; the
    neutral traveller (2 players) is skipped; a player never goes below 0 coins (the
    first to leave, crafted to 0 coins, loses nothing at 4 and 5 players)."""
    names = ("satsuki", "hiroshige", "yoshiyasu", "kinko", "umegae")[:players]
    pieces = players + (players == 2)
    queue = tuple(reversed(range(pieces)))  # piece 0 leaves first
    if players == 2:
        queue = (0, 2, 1)  # leaving: piece 1, the neutral 2, piece 0
    leaving = [p for p in reversed(queue) if p < players]
    coins = {leaving[0]: 0}
    setup = Setup(travellers=names, queue=queue, coins=coins)
    ids = ("base", "preparations")
    game = new_game(players, seed=11, plugins=ids, setup=setup)
    fast = FastGame.new(players, seed=11, plugins=ids, setup=setup)
    start = [PRINTED_COINS[n] for n in names]
    start[leaving[0]] = 0
    expected = start[:]
    for rank, piece in enumerate(leaving):
        expected[piece] = max(0, start[piece] + DEPARTURE_COINS[players][rank])
    assert _coins(game)[:players] == fast.coins[:players] == expected
    if players >= 4:
        assert expected[leaving[0]] == 0
    _finish(game, fast)


def test_preparations_follows_the_travellers_chosen() -> None:
    """With offered travellers the adjustment waits for every choice: no coins before,
    then each player's printed coins plus the adjustment of its departure rank."""
    ids = ("base", "preparations")
    setup = Setup(queue=(2, 0, 1))
    game = new_game(3, seed=4, plugins=ids, setup=setup)
    fast = FastGame.new(3, seed=4, plugins=ids, setup=setup)
    assert _coins(game) == fast.coins == [0, 0, 0]
    game = _play_until(game, fast, lambda g: g.current_step is not None
                       and g.current_step.kind == "core.move", lambda legal: 0)
    chosen = [p.traveller for p in game.state.pieces]
    adjustment = {1: 0, 0: 1, 2: 2}  # piece 1 leaves first, then 0, then 2
    assert fast.coins == _coins(game) == [
        PRINTED_COINS[str(name)] + adjustment[i] for i, name in enumerate(chosen)]
    _finish(game, fast)


@pytest.mark.parametrize("players", [2, 5])
def test_initiation_and_preparations_together(players: int) -> None:
    """7 coins each, then the departure adjustment."""
    ids = ("base", "initiation", "preparations")
    queue = tuple(range(players + (players == 2)))  # the last piece leaves first
    setup = Setup(queue=queue)
    game = new_game(players, seed=2, plugins=ids, setup=setup)
    fast = FastGame.new(players, seed=2, plugins=ids, setup=setup)
    leaving = [p for p in reversed(queue) if p < players]
    expected = [0] * players
    for rank, piece in enumerate(leaving):
        expected[piece] = 7 + DEPARTURE_COINS[players][rank]
    assert _coins(game)[:players] == fast.coins[:players] == expected
    _finish(game, fast)


def test_return_journey_walks_the_reversed_road() -> None:
    """The road from Edo: its first spaces are the base road's last ones, the
    intermediate inns are where the reversed road puts them (13, not 14), and
    Hiroshige's panorama and Chuubei's encounter come at that inn."""
    ids = ("base", "return-journey")
    base_board = Ruleset.build(["base"]).registry.board
    setup = Setup(travellers=("hiroshige", "chuubei", "kinko"), queue=(2, 1, 0),
                  stacks={"base.encounters": ("samurai",)})
    game = new_game(3, seed=8, plugins=ids, setup=setup)
    fast = FastGame.new(3, seed=8, plugins=ids, setup=setup)
    board = game.ruleset.registry.board
    assert [s.kind for s in board] == [s.kind for s in reversed(base_board)]
    moves = fast.legal_actions()
    assert moves == game.legal_actions()
    assert [m.position for m in moves] == list(range(1, 14))  # type: ignore[attr-defined]
    # Hiroshige leaves first, for the inn: his panorama choice there
    game = _play_until(game, fast, lambda g: g.current_step is not None
                       and g.current_step.kind == "base.choose_panorama", _furthest)
    assert fast.pos[0] == game.state.pieces[0].position == 13
    assert board[13].inn and not base_board[13].inn
    # Chuubei follows to the inn, and draws the samurai there: 3 points
    game = _play_until(game, fast, lambda g: g.state.pieces[1].position == 13
                       and g.current_step is not None and g.current_step.kind == "base.meal",
                       _furthest)
    assert "samurai" in game.state.collection(1)
    assert fast.scores()[1].categories["encounters"] == 3
    assert game.scores()[1].categories["encounters"] == 3
    _finish(game, fast)


@pytest.mark.parametrize(("options", "hand"), [
    ({}, 3), ({"base.meal_hand": "players_plus_one"}, 4)])
def test_gastronomy_draws_a_meal_per_player(options: dict[str, object], hand: int) -> None:
    """The first arrival at an inn draws as many meals as there are players (3, not 4),
    unless the option is given its printed value explicitly."""
    ruleset = Ruleset.build(["base", "gastronomy"], options)
    meals = ("fugu", "dango", "sushi", "udon", "tofu")
    setup = Setup(travellers=("kinko", "zenemon", "umegae"), stacks={"base.meals": meals})
    game = new_game(3, seed=3, plugins=ruleset, setup=setup)
    fast = FastGame.new(3, seed=3, plugins=ruleset, setup=setup)
    assert isinstance(fast, BaseGame)
    game = _play_until(game, fast, lambda g: bool(g.state.zone("base.inn_hand")), _furthest)
    in_hand = game.state.zone("base.inn_hand")
    assert sorted(in_hand) == sorted(meals[:hand])
    assert sorted(fast.T.names[c] for c in fast.hand) == sorted(in_hand)
    _finish(game, fast)


def test_gastronomy_with_the_neutral_traveller() -> None:
    """2 players: a hand of 2 meals, drawn by the neutral traveller arriving first, which
    then discards one of them at random under the meal deck."""
    ids = ("base", "gastronomy")
    setup = Setup(travellers=("kinko", "umegae"), queue=(0, 1, 2),
                  stacks={"base.meals": ("fugu", "dango", "sushi")})
    game = new_game(2, seed=6, plugins=ids, setup=setup)
    fast = FastGame.new(2, seed=6, plugins=ids, setup=setup)
    assert isinstance(fast, BaseGame)
    game = _play_until(game, fast, lambda g: bool(g.state.zone("base.inn_hand")), _furthest)
    (kept,) = game.state.zone("base.inn_hand")
    discarded = game.state.zone("base.meals")[-1]
    assert sorted((kept, discarded)) == ["dango", "fugu"]
    assert [fast.T.names[c] for c in fast.hand] == [kept]
    assert fast.T.names[fast.meals[-1]] == discarded
    _finish(game, fast)
