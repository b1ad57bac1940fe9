"""The fast simulator plays exactly the reference engine's base games.

The reference engine is the specification: at every decision of thousands of games the
fast game must ask the same seat the same question (the same tuple of legal actions, in
the same order, at the same count of events), and at the end give the same scores and,
replayed through the reference engine, the same log byte for byte.
"""

from __future__ import annotations

import random

import pytest

from tokaido_rules import (
    Game,
    IllegalActionError,
    Move,
    PluginInfo,
    Ruleset,
    Setup,
    SetupError,
    StaleActionError,
    dump_log,
    new_game,
)
from tokaido_rules.fast import (
    FastGame,
    NotCoveredError,
    _Policy,
    compare,
    covers,
    differential,
)
from tokaido_rules.simulate import decision_count

ALL_OPTIONS = {"base.meal_hand": "players", "base.hirotada_bank_coin": "auto",
               "base.zenemon_discount": "most_expensive",
               "base.panorama_choice_optional": True}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_equal_the_reference_at_every_decision(players: int) -> None:
    """300 games per player count, offered or given travellers, three ways of choosing:
    the same legal actions at every decision, the same scores, the same log."""
    seeds = range(1000 * players, 1000 * players + 300)
    reports = [
        differential(players, seeds[:150]),
        differential(players, seeds[150:240], travellers=True, logs=False),
        differential(players, seeds[240:], policy="seek", travellers=True),
    ]
    for report in reports:
        assert report.ok, str(report)
    assert sum(r.games for r in reports) == 300


@pytest.mark.parametrize("options", [
    {"base.meal_hand": "players"}, {"base.hirotada_bank_coin": "auto"},
    {"base.zenemon_discount": "most_expensive"}, {"base.panorama_choice_optional": True},
    ALL_OPTIONS,
])
def test_every_option_value_is_played_exactly(options: dict[str, object]) -> None:
    """Each value of each base option (and all at once), with the travellers whose
    powers they change given often enough to matter."""
    ruleset = Ruleset.build(["base"], options)
    assert covers(ruleset)
    report = differential((2, 3, 4, 5), range(15), plugins=ruleset, travellers=True,
                          policy="eager")
    assert report.ok, str(report)
    assert report.games == 60


def test_crafted_setups_are_played_exactly() -> None:
    """A crafted queue, stacked decks and starting coins (with offered travellers, the
    coins come after the choices, as the reference's setup step orders them)."""
    setup = Setup(queue=(2, 0, 3, 1), stacks={"base.encounters": ("annaibito.sea",) * 3,
                                              "base.meals": ("fugu", "dango")},
                  coins={0: 0, 2: 12})
    assert differential(4, range(20), setup=setup).ok
    given = Setup(travellers=("yoshiyasu", "satsuki", "hiroshige"), coins={1: 1})
    assert differential(3, range(20), setup=given, policy="eager").ok


def _truncated(game: Game, fast: FastGame, keep: dict[str, int]) -> Game:
    """Both games with their decks cut to the ``keep`` top cards (the reference's state
    changed as the fast game's lists are), so that decks run out during play."""
    state = game.state
    for zone, count in keep.items():
        state = state.with_zone(zone, state.zone(zone)[:count])
        attribute = {"base.souvenirs": "souvenirs", "base.meals": "meals",
                     "base.hot_springs": "springs", "base.encounters": "encounters"}[zone]
        setattr(fast, attribute, getattr(fast, attribute)[:count])
    return Game(state, ())


@pytest.mark.parametrize("seed", range(24))
def test_decks_that_run_out_are_played_exactly(seed: int) -> None:
    """Decks cut short before play, so that villages show fewer than three souvenirs or
    none, inns deal short hands, and encounters, hot springs, Satsuki's and Chuubei's
    draws find an empty deck: still the reference's decisions and scores."""
    rng = random.Random(seed)
    players = 2 + seed % 4
    names = rng.sample(["yoshiyasu", "satsuki", "chuubei", "mitsukuni", "zenemon",
                        "sasayakko", "umegae", "hiroshige", "kinko", "hirotada"], players)
    game = new_game(players, seed=seed, travellers=names)
    fast = FastGame.new(players, seed=seed, travellers=names)
    keep = {zone: rng.randrange(0, 7) for zone in
            ("base.souvenirs", "base.meals", "base.hot_springs", "base.encounters")}
    game = _truncated(game, fast, keep)
    policy = _Policy(rng.choice(["random", "eager", "seek"]), rng, game.ruleset.registry.board)
    difference, made = compare(game, fast, policy, logs=False)
    assert difference is None, difference
    assert made > 0


def test_an_illegal_action_is_refused_as_the_reference_refuses_it() -> None:
    """The same error type and message as the reference engine; nothing changes."""
    fast = FastGame.new(4, seed=11, travellers=("kinko", "umegae", "chuubei", "zenemon"))
    game = new_game(4, seed=11, travellers=("kinko", "umegae", "chuubei", "zenemon"))
    before = (fast.state_seq, fast.legal_actions(), fast.decisions, fast.clone().pos)
    move = fast.legal_actions()[0]
    assert isinstance(move, Move)
    for bad in (Move(move.seat, move.piece, 54, 0),  # past the next inn
                Move((move.seat + 1) % 4, move.piece, move.position, move.slot),  # wrong seat
                Move(move.seat, move.piece, float(move.position), move.slot),  # type: ignore[arg-type]
                "move"):
        with pytest.raises(IllegalActionError) as fast_error:
            fast.apply(bad)  # type: ignore[arg-type]
        with pytest.raises(IllegalActionError) as reference_error:
            game.apply(bad)  # type: ignore[arg-type]
        assert str(fast_error.value) == str(reference_error.value)
        assert (fast.state_seq, fast.legal_actions(), fast.decisions, fast.pos) == before
    with pytest.raises(StaleActionError):
        fast.apply(move, expected_seq=fast.state_seq - 1)
    fast.apply(Move(move.seat, move.piece, move.position, move.slot),
               expected_seq=fast.state_seq)  # an equal action, not the very object
    assert fast.decisions == (move,) and fast.decisions[0] is move


def test_a_finished_game_refuses_every_action() -> None:
    fast = FastGame.new(2, seed=3)
    rng = random.Random(3)
    last = None
    while not fast.is_over:
        last = rng.choice(fast.legal_actions())
        fast.apply(last)
    assert fast.legal_actions() == () and fast.current_player is None
    with pytest.raises(IllegalActionError, match="over"):
        fast.apply(last)  # type: ignore[arg-type]
    assert fast.scores() == fast.to_game().scores()
    assert fast.winners() == fast.to_game().winners()


def test_a_clone_is_independent() -> None:
    """Playing a clone (or ``applied``) never changes the original, and the reverse."""
    fast = FastGame.new(5, seed=8)
    rng = random.Random(8)
    for _ in range(40):
        fast.apply(rng.choice(fast.legal_actions()))
    log_before = dump_log(fast.to_game())
    legal_before = fast.legal_actions()
    twin = fast.clone()
    copy = fast.applied(legal_before[-1])
    assert copy is not fast and copy.decisions[-1] is legal_before[-1]
    while not twin.is_over:
        twin.apply(rng.choice(twin.legal_actions()))
    assert fast.legal_actions() == legal_before
    assert dump_log(fast.to_game()) == log_before
    fast.apply(legal_before[0])
    assert twin.is_over and len(copy.decisions) == len(fast.decisions)
    assert copy.decisions[:-1] == fast.decisions[:-1]


def test_to_game_and_view_are_the_reference_game() -> None:
    fast = FastGame.new(3, seed=21)
    game = new_game(3, seed=21)
    rng = random.Random(21)
    for _ in range(30):
        index = rng.randrange(len(game.legal_actions()))
        game = game.apply(game.legal_actions()[index])
        fast.apply(fast.legal_actions()[index])
    assert dump_log(fast.to_game()) == dump_log(game)
    assert fast.view(1) == game.view(1)
    assert fast.current_player == game.current_player
    assert fast.state_seq == game.state.seq


class _Impostor:
    """A third-party plugin that takes the id of a covered one."""

    tokaido_plugin = PluginInfo("bga", "9.9.9", requires=("base",))


def test_covers_the_built_in_plugins_it_knows_alone(slow_plugin: str) -> None:
    """Base with any option values, and the bga preset; a third-party plugin without
    fast rules (or one that takes a covered plugin's id) is refused, and so is a setup
    that scripts chance outcomes."""
    assert covers(Ruleset.build(["base"]))
    assert covers(Ruleset.build(["base"], ALL_OPTIONS))
    assert covers(Ruleset.build(["base", "bga"]))
    for plugins in (["base", slow_plugin], ["base", _Impostor()]):
        ruleset = Ruleset.build(plugins)
        assert not covers(ruleset)
        with pytest.raises(NotCoveredError):
            FastGame.new(3, plugins=ruleset)
    with pytest.raises(NotCoveredError):
        FastGame.new(3, setup=Setup(chance={"queue": [(0, 1, 2)]}))


@pytest.mark.parametrize("arguments", [
    {"players": 6}, {"players": 4, "seed": -1}, {"players": 3, "travellers": ("kinko",)},
    {"players": 2, "travellers": ("kinko", "kinko")},
    {"players": 2, "travellers": ("kinko", "nobody")},
])
def test_bad_input_gives_the_reference_error(arguments: dict[str, object]) -> None:
    with pytest.raises(SetupError) as reference_error:
        new_game(**arguments)  # type: ignore[arg-type]
    with pytest.raises(SetupError) as fast_error:
        FastGame.new(**arguments)  # type: ignore[arg-type]
    assert str(fast_error.value) == str(reference_error.value)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_decision_kinds_and_counts_are_the_reference_ones(players: int) -> None:
    """``current_kind`` is the reference's ``current_step.kind`` at every decision, and
    the decisions applied plus those the engine took alone (``automatic``) are the
    reference log's decision events; a clone keeps the count."""
    options = {"base.panorama_choice_optional": False}
    automatic = 0
    for seed in range(20):
        fast = FastGame.new(players, seed=seed, options=options)
        game = new_game(players, seed=seed, options=options)
        rng = random.Random(seed)
        while not game.is_over:
            step = game.current_step
            assert step is not None and fast.current_kind == step.kind
            index = rng.randrange(len(game.legal_actions()))
            game = game.apply(game.legal_actions()[index])
            fast.apply(fast.legal_actions()[index])
        assert fast.current_kind is None
        assert len(fast.decisions) + fast.automatic == decision_count(game)
        assert fast.clone().automatic == fast.automatic
        assert fast.state_seq == len(game.events)
        automatic += fast.automatic
    assert automatic > 0


_NOT_STATE = frozenset({"T", "B", "X", "_chronicle", "_replica", "setup", "ruleset"})
"""What :func:`_flat_state` leaves out: the tables and records games share by design."""


def _flat_state(game: FastGame) -> dict[str, object]:
    """Every attribute of a fast game's flat state (of any game class, compiled or
    not), deep-copied: what a copy sharing rows it should not would change."""
    import copy

    state = {}
    for name in dir(game):
        if name.startswith("__") or name in _NOT_STATE:
            continue
        value = getattr(game, name)
        if callable(value):
            continue
        state[name] = copy.deepcopy(value)
    return state


@pytest.mark.parametrize("plugins", [
    ("base",), ("base", "crossroads"), ("base", "new-encounters"),
    ("base", "crossroads", "new-encounters", "good-luck", "gastronomy", "preparations")])
def test_a_clone_shares_nothing_it_changes(plugins: tuple[str, ...]) -> None:
    """A clone played to the end leaves every part of the original's flat state as it
    was (score rows, per-traveller rows, decks, offers, hands, counts), and the original
    played on leaves the clone's: copies share rows only where every rule replaces
    them rather than changing them in place."""
    for seed in range(6):
        rng = random.Random(seed)
        fast = FastGame.new(2 + seed % 4, seed=seed, plugins=plugins)
        for _ in range(rng.randrange(10, 80)):
            if fast.is_over:
                break
            fast.apply(rng.choice(fast.legal_actions()))
        before = _flat_state(fast)
        twin = fast.clone()
        twin_before = _flat_state(twin)
        assert twin_before == before
        while not twin.is_over:
            twin.apply(rng.choice(twin.legal_actions()))
        assert _flat_state(fast) == before
        twin_after = _flat_state(twin)
        while not fast.is_over:
            fast.apply(rng.choice(fast.legal_actions()))
        assert _flat_state(twin) == twin_after
        assert fast.scores() == fast.to_game().scores()
        assert twin.scores() == twin.to_game().scores()
