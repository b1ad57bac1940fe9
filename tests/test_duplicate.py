"""The duplicate format: chance keyed by purpose (``Setup.keying``, the log header's
``chance``), so that games of one seed whose decisions differ get the same chance
outcomes; its games verify and play alike on both engines; ``tokaido tournament
--duplicate`` gives each group of seat rotations one seed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence

import pytest

from tokaido_rules import (
    Context,
    GameState,
    LogFormatError,
    PluginInfo,
    Registry,
    Ruleset,
    Setup,
    SetupError,
    Staged,
    Step,
    decisions,
    dump_log,
    dump_state,
    hookimpl,
    load_log,
    load_state,
    new_game,
    verify_log,
)
from tokaido_rules.engine import Game
from tokaido_rules.fast import FastGame, differential, from_state
from tokaido_rules.simulate import simulate
from tokaido_rules.tournament import game_seeds, group_interval, plan

PURPOSE = Setup(keying="purpose")
CROSSROADS = ("base", "crossroads")
CHANCE_RULESETS = (("base",), CROSSROADS, (*CROSSROADS, "rare-and-precious"),
                   (*CROSSROADS, "good-luck"), ("base", "tea-ceremony", "pilgrim"))
"""Every shipped ruleset that draws in play (the base game, Crossroads' die, Rare &
Precious' removals, Good Luck's amulets), and the example plugins."""


def _played(game: Game, rng: random.Random) -> Game:
    while not game.is_over:
        game = game.apply(rng.choice(game.legal_actions()))
    return game


def _outcomes(game: Game, kind_prefix: str) -> dict[str, list[object]]:
    """Per purpose starting with ``kind_prefix``, the recorded outcomes in order."""
    found: dict[str, list[object]] = {}
    for event in game.events:
        purpose = event.chance_purpose()
        if purpose is not None and purpose.startswith(kind_prefix):
            found.setdefault(purpose, []).append(event.chance_outcome())
    return found


def test_the_header_says_purpose_and_the_games_verify_in_both_keyings() -> None:
    for keying in ("event", "purpose"):
        game = _played(new_game(4, seed=11, plugins=CROSSROADS, chance=keying),
                       random.Random(1))
        text = dump_log(game)
        head = json.loads(text.splitlines()[0])
        assert head.get("chance") == (None if keying == "event" else "purpose")
        assert verify_log(text).ok
        loaded = load_log(text)
        assert loaded.state.rules.setup.keying == keying
        assert dump_log(loaded) == text
        seat_copy = dump_log(game, viewer=1)
        assert json.loads(seat_copy.splitlines()[0]).get("chance") == head.get("chance")
        assert load_state(dump_state(game.state), game.state.rules) == game.state


def test_a_bad_keying_is_refused_in_the_header_the_setup_and_a_batch() -> None:
    game = new_game(3, seed=2, chance="purpose")
    lines = dump_log(game).splitlines()
    for bad in ("dice", 1, None, ["purpose"]):
        head = json.loads(lines[0])
        head["chance"] = bad
        with pytest.raises(LogFormatError, match="chance must be one of event, purpose"):
            load_log("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    with pytest.raises(SetupError, match="chance keying must be one of"):
        Setup(keying="dice")
    with pytest.raises(SetupError, match="chance keying must be one of"):
        new_game(3, chance="dice")
    with pytest.raises(SetupError, match="chance must be one of"):
        simulate(2, 3, chance="dice")
    with pytest.raises(SetupError, match="given twice"):
        new_game(3, setup=PURPOSE, chance="event")


def test_the_same_seed_gives_the_same_chance_whatever_the_decisions() -> None:
    """Two games of one seed, decided differently: the same decks, offers and queue;
    each traveller's n-th die roll the same (the one that rolled fewer times sees a
    prefix of the other's rolls). Under event keying the rolls part."""
    parted = compared = 0
    for seed in range(6):
        games = {keying: [_played(new_game(4, seed=seed, plugins=CROSSROADS, chance=keying),
                                  random.Random(100 * seed + k)) for k in range(2)]
                 for keying in ("event", "purpose")}
        one, two = games["purpose"]
        assert decisions(one.events) != decisions(two.events)
        for prefix in ("shuffle.", "queue", "travellers."):
            assert _outcomes(one, prefix) == _outcomes(two, prefix)
        rolls = [_outcomes(one, "die."), _outcomes(two, "die.")]
        for purpose in set(rolls[0]) & set(rolls[1]):
            a, b = rolls[0][purpose], rolls[1][purpose]
            n = min(len(a), len(b))
            assert a[:n] == b[:n]
            compared += n
        plain = [_outcomes(g, "die.") for g in games["event"]]
        parted += any(plain[0][p][:min(len(plain[0][p]), len(plain[1][p]))]
                      != plain[1][p][:min(len(plain[0][p]), len(plain[1][p]))]
                      for p in set(plain[0]) & set(plain[1]))
    assert compared and parted  # rolls compared; the check would notice event keying's


def test_the_fast_engine_plays_purpose_keyed_games_as_the_reference() -> None:
    for plugins in CHANCE_RULESETS:
        report = differential((2, 3, 4, 5), range(4), plugins=plugins, setup=PURPOSE)
        assert report.ok, report.differences
        report = differential((2, 4), range(4, 7), plugins=plugins, setup=PURPOSE,
                              travellers=True, policy="seek")
        assert report.ok, report.differences


def test_a_fast_game_counts_purposes_as_the_fold_and_goes_on_from_a_state() -> None:
    ruleset = Ruleset.build((*CROSSROADS, "good-luck"))
    for seed in range(3):
        rng = random.Random(seed)
        game = new_game(4, seed=seed, plugins=ruleset, chance="purpose")
        fast = FastGame.new(4, seed=seed, plugins=ruleset, chance="purpose")
        for _ in range(40):
            action = rng.choice(game.legal_actions())
            game, _ = game.apply(action), fast.apply(action)
        assert fast.chances == dict(game.state.chances or {})
        loaded = from_state(game.state, ruleset, 4, seed)
        while not game.is_over:
            assert loaded.legal_actions() == game.legal_actions()
            action = rng.choice(game.legal_actions())
            game, _ = game.apply(action), loaded.apply(action)
        assert loaded.scores() == game.scores()


def test_a_batch_takes_the_keying_and_its_logs_verify() -> None:
    batch = simulate(2, 3, plugins=CROSSROADS, seed=4, keep_logs=True, chance="purpose",
                     engine="auto")
    for result in batch.results:
        assert result.log is not None
        assert json.loads(result.log.splitlines()[0])["chance"] == "purpose"
        assert verify_log(result.log).ok


def test_a_duplicate_group_shares_one_seed_and_rounds_to_groups() -> None:
    dup = plan(["random", "greedy"], players=3, games=4, seed=5, duplicate=True)
    assert dup.games == 6 and dup.duplicate and "duplicate format" in dup.note
    assert "rounded up from 4" in dup.note
    for group in range(dup.groups):
        seats = [s for s in dup.schedule if s.group == group]
        assert len({s.seed for s in seats}) == 1
    assert len({s.seed for s in dup.schedule}) == dup.groups
    plain = plan(["random", "greedy"], players=3, games=4, seed=5)
    assert len({s.seed for s in plain.schedule}) == plain.games
    assert game_seeds(5, [(0, 0, 0), (1, 0, 1)], duplicate=True) == \
        game_seeds(5, [(7, 0, 3), (8, 0, 2)], duplicate=True)


def test_the_group_interval_counts_groups_not_seats() -> None:
    assert group_interval([(3.0, 8)]) == (0.0, 1.0)
    low, high = group_interval([(0.0, 8), (0.0, 8)])
    assert low == 0.0 and high > 0.5  # two groups say little, however many seats
    even = group_interval([(4.0, 8)] * 10)
    spread = group_interval([(0.0, 8), (8.0, 8)] * 5)
    assert even[0] < 0.5 < even[1] and spread[0] < even[0] and spread[1] > even[1]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a new process, killed (failing the test) after 300 s."""
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "tokaido_rules", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_command_line_duplicate_output_is_the_same_on_any_executor() -> None:
    base = ["tournament", "--bots", "random,greedy", "--players", "3", "--games", "4",
            "--seed", "2", "--duplicate"]
    serial = _cli(*base, "--format", "json")
    pooled = _cli(*base, "--format", "json", "--jobs", "2")
    assert serial.returncode == 0, serial.stderr
    assert (serial.stdout, serial.stderr) == (pooled.stdout, pooled.stderr)
    doc = json.loads(serial.stdout)
    assert doc["duplicate"] is True and doc["games"] == 6 and doc["games_asked"] == 4
    assert "rounded up from 4" in doc["note"]
    table = _cli(*base, "--format", "csv")
    assert table.returncode == 0, table.stderr
    rows = table.stdout.splitlines()
    assert rows[0].endswith(",duplicate") and all(r.endswith(",true") for r in rows[1:])
    text = _cli(*base)
    assert "duplicate format" in text.stdout and "interval over groups" in text.stdout


def test_a_purpose_stream_is_specified_by_the_big_integer_route() -> None:
    """The stream of a purpose is the event stream keyed by the purpose's code, then by
    its count, on both arithmetic routes; the code of a purpose is fixed (BLAKE2b)."""
    from tokaido_rules import chance

    code = chance.purpose_code("die.crossroads.fortune.0")
    assert 0 <= code < 2**62 and code == chance.purpose_code("die.crossroads.fortune.0")
    assert code != chance.purpose_code("die.crossroads.fortune.1")
    for seed in (0, 7, 2**64 - 1):
        for count in (0, 1, 5):
            big = chance._big_event_stream(chance._big_event_stream(seed, code), count)
            word = chance._word_event_stream(chance._word_event_stream(seed, code), count)
            assert chance.purpose_stream(seed, "die.crossroads.fortune.0", count) == big
            assert word == big


def test_draws_for_one_purpose_go_on_across_draws_for_another_in_one_event() -> None:
    """Within one event, draws for A, then B, then A again: the k-th draw for a purpose
    is draw k of that purpose's stream (keyed by how many of its events came before),
    whatever was drawn for other purposes in between; a draw without a purpose takes the
    event's stream, its count of draws kept apart as well. Under event keying every
    draw of the event is the next one of the event's stream."""
    from tokaido_rules.chance import draw_below, event_stream, purpose_stream, shuffle

    n = 2**40
    state = new_game(3, seed=9, chance="purpose").state
    assert state.chances is not None and state.chances["queue"] == 1
    seed, seq = state.seed, state.seq
    ctx = Context(state)
    drawn = [ctx.random_below(n, p) for p in ("lottery", "queue", "lottery", None,
                                              "queue", None, "lottery")]
    lottery = purpose_stream(seed, "lottery", 0)
    queue = purpose_stream(seed, "queue", 1)
    plain = event_stream(seed, seq)
    assert drawn == [draw_below(lottery, 0, n), draw_below(queue, 0, n),
                     draw_below(lottery, 1, n), draw_below(plain, 0, n),
                     draw_below(queue, 1, n), draw_below(plain, 1, n),
                     draw_below(lottery, 2, n)]
    ctx = Context(state)  # a permutation goes on from where the purpose's draws stopped
    ctx.random_below(n, "lottery")
    ctx.random_below(n, "queue")
    order = ctx.permute(range(6), "lottery")
    expected = list(range(6))
    shuffle(expected, lottery, 1)
    assert list(order) == expected

    state = new_game(3, seed=9).state
    ctx = Context(state)
    drawn = [ctx.random_below(n, p) for p in ("lottery", "queue", "lottery", None)]
    plain = event_stream(state.seed, state.seq)
    assert drawn == [draw_below(plain, k, n) for k in range(4)]


class _Lottery:
    """A third party's setup step that draws for purpose A, then B, then A again in one
    event, and pays each draw out to a seat as coins (seats 0, 1, 2 in that order)."""

    tokaido_plugin = PluginInfo("lottery", "1", requires=("base",))

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("lottery.draw", run=self.draw)

    @staticmethod
    def draw(ctx: Context, step: Step) -> None:
        drawn = [ctx.random_below(6, p) for p in ("lottery.a", "lottery.b", "lottery.a")]
        for seat, value in enumerate(drawn):
            ctx.coins(seat, 10 + value)

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(150, Step("lottery.draw"))]


def test_a_plugin_drawing_for_a_then_b_then_a_gets_a_s_first_two_draws() -> None:
    """Under purpose keying, the lottery's third draw (A again) is A's second draw, not
    its first again; the coins paid out show it, for several seeds."""
    from tokaido_rules.chance import draw_below, purpose_stream

    travellers = ["kinko", "satsuki", "umegae"]
    repeated = 0
    for seed in range(8):
        plain = new_game(3, seed=seed, travellers=travellers, chance="purpose")
        game = new_game(3, seed=seed, plugins=["base", _Lottery()], travellers=travellers,
                        chance="purpose")
        a = purpose_stream(seed, "lottery.a", 0)
        b = purpose_stream(seed, "lottery.b", 0)
        expected = [draw_below(a, 0, 6), draw_below(b, 0, 6), draw_below(a, 1, 6)]
        paid = [p.coins - q.coins for p, q in zip(game.state.pieces, plain.state.pieces,
                                                  strict=True)]
        assert paid == [10 + v for v in expected]
        repeated += expected[0] != expected[2]
    assert repeated  # some seed tells a second draw from the first one drawn again
