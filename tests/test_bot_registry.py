"""Bots from any package (issue #41): the entry-point group ``tokaido_rules.bots``, bot
options, bots given as objects, classes or factories, and the one-line refusal of a bot
that is unknown, raises, answers an action that is not legal, or cannot travel to a
worker process; a table's seat whose bot fails goes to the random bot.

The third party is ``tests/fixtures/botpkg``: a package with a ``.dist-info`` that
registers its bots, put on ``sys.path`` of a ``tokaido`` subprocess (as an installed
distribution would be)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from tokaido_rules import Action, BotError, SetupError, UnknownBotError, View, new_game
from tokaido_rules.bots import (
    BOT_GROUP,
    BOTS,
    BotOption,
    GreedyBot,
    RandomBot,
    bot_name,
    bot_spec,
    check_options,
    make_bot,
    next_action,
    parse_bot_options,
)
from tokaido_rules.fast import FastGame
from tokaido_rules.simulate import simulate
from tokaido_rules.tables import Lobby
from tokaido_rules.wire import encode_action

FIXTURE = Path(__file__).parent / "fixtures" / "botpkg"
TIMEOUT = 240


def tokaido(*args: str, pythonpath: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the command line in a new process with the fixture package installed (on its
    ``sys.path``); killed, failing the test, after :data:`TIMEOUT` seconds."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([str(FIXTURE), env.get("PYTHONPATH", "")])
    env["COLUMNS"] = "100"
    return subprocess.run([sys.executable, "-m", "tokaido_rules", *args], env=env,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def one_line_error(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    """Status 2 and one line ``error: ...`` holding ``words``, no traceback."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0]


# --- a third party's package -----------------------------------------------------------


def test_an_installed_package_s_bots_are_listed_with_their_options() -> None:
    """`tokaido bots` lists the built-in bots and those a package registers, with the
    package's name and each declared option; a registration that cannot be loaded is
    listed as unusable, with why."""
    proc = tokaido("bots", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    bots = {b["name"]: b for b in json.loads(proc.stdout)["bots"]}
    assert {"random", "greedy", "search", "pick", "pick-last", "boom", "cheat"} <= set(bots)
    assert bots["pick"]["package"] == "tokaido-lab-bots"
    assert bots["greedy"]["package"] == "tokaido-rules"
    assert bots["pick"]["options"] == [{"name": "index", "type": "int", "default": 0,
                                        "help": "which legal action to take"}]
    assert bots["pick"]["fast"] and not bots["greedy"]["fast"]
    assert {o["name"] for o in bots["search"]["options"]} >= {"samples", "margin"}
    assert bots["broken"]["summary"].startswith("unusable:")
    text = tokaido("bots")
    assert text.returncode == 0 and "tokaido-lab-bots" in text.stdout


def test_simulate_plays_an_installed_package_s_bot_and_names_it() -> None:
    """A registered bot plays a batch by its name, with its options, and the batch's
    statistics name it so."""
    proc = tokaido("simulate", "--games", "3", "--players", "3", "--bots", "pick,random",
                   "--bot-option", "pick.index=-1", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["summary"]["win_rate_by_bot"]) == {"pick", "random"}
    assert {p["bot"] for g in doc["games"] for p in g["players"]} == {"pick", "random"}


def test_tournament_plays_an_installed_package_s_bot() -> None:
    """A registered bot enters a tournament by name and is rated by that name."""
    proc = tokaido("tournament", "--bots", "pick,random", "--players", "2", "--games", "4",
                   "--seed", "3", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert {s["bot"] for s in doc["standings"]} == {"pick", "random"}
    assert doc["games"] == 4


@pytest.mark.parametrize(("bot", "words"), [
    ("boom", ("bot 'boom'", "raised RuntimeError: boom second line")),
    ("cheat", ("bot 'cheat'", "not legal")),
    ("nobody", ("--bots", "unknown bot 'nobody'")),
    ("broken", ("bot 'broken'", "cannot be loaded")),
])
def test_a_failing_bot_is_one_line_naming_it(bot: str, words: tuple[str, ...]) -> None:
    """A bot that raises, answers an action that is not legal, is not installed or
    cannot be loaded: one line `error: ...` naming it, status 2, no traceback."""
    one_line_error(tokaido("simulate", "--players", "2", "--bots", f"{bot},random"), *words)


def test_a_bad_bot_option_is_one_line() -> None:
    """An option the bot does not declare, a value of the wrong type, or an option of a
    bot not in play: one line naming the bot and the option."""
    one_line_error(tokaido("simulate", "--bots", "search", "--bot-option", "search.depth=2",
                           pythonpath=False), "bot 'search' has no option 'depth'")
    one_line_error(tokaido("simulate", "--bots", "search", "--bot-option",
                           "search.samples=many", pythonpath=False), "samples", "not an int")
    one_line_error(tokaido("simulate", "--bots", "random", "--bot-option",
                           "search.samples=2", pythonpath=False), "not among the bots")


# --- the library ---------------------------------------------------------------------


class FirstBot:
    """Always the first legal action (defined at the top level: it pickles)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        return view.legal_actions[0]


def test_built_in_bots_are_registered_like_any_other() -> None:
    """The built-in bots come from the same registry, with their package and options,
    and BOTS stays a mapping of name to factory."""
    assert BOT_GROUP == "tokaido_rules.bots"
    assert {"random", "greedy", "search"} <= set(BOTS)
    spec = bot_spec("search")
    assert spec.distribution == "tokaido-rules" and not spec.actions_only
    assert [o.name for o in spec.options] == ["samples", "margin", "horizon", "rollout_depth",
                                              "engine"]
    assert bot_spec("random").actions_only
    with pytest.raises(UnknownBotError, match="unknown bot 'nope'"):
        bot_spec("nope")


def test_bot_options_are_typed_and_checked() -> None:
    """Text from the command line is converted to the declared type; an undeclared
    option, a wrong type or a malformed item is refused (a SetupError, before play)."""
    assert check_options("search", {"samples": "2", "margin": "1.5", "horizon": "none"}) == {
        "samples": 2, "margin": 1.5, "horizon": None}
    assert check_options("search", {"margin": 2}) == {"margin": 2.0}
    with pytest.raises(UnknownBotError, match="no option 'speed'"):
        check_options("search", {"speed": "1"})
    with pytest.raises(SetupError, match="not an int"):
        check_options("search", {"samples": 2.5})
    assert parse_bot_options(["search.samples=3", " search.margin = 2"], ["search"]) == {
        "search": {"samples": "3", "margin": "2"}}
    with pytest.raises(UnknownBotError, match=r"NAME\.KEY=VALUE"):
        parse_bot_options(["samples=3"], ["search"])
    assert make_bot("search", 1, {"samples": "2"}).samples == 2  # type: ignore[attr-defined]
    assert BotOption("flag", "bool", False).value("yes") is True
    with pytest.raises(ValueError, match="type must be"):
        BotOption("x", "list", None)


def test_simulate_takes_bot_objects_classes_and_factories(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots given as an object, a class or a factory play a batch; the statistics name
    a registered one by its registered name, another by its class's name; an object
    starts every game alike (it is copied), so a batch is the same however it is
    given."""
    by_name = simulate(2, 2, ("base",), ("random", "random"), seed=4)
    assert set(by_name.summary.win_rate_by_bot) == {"random"}
    as_class = simulate(2, 2, ("base",), (RandomBot, "random"), seed=4)
    assert as_class.results == by_name.results  # the registered class: named "random"
    unnamed = simulate(2, 3, ("base",), (FirstBot(), lambda seed: GreedyBot(seed)), seed=4)
    assert set(unnamed.summary.win_rate_by_bot) == {"FirstBot", "<lambda>"}
    monkeypatch.setitem(BOTS, "first", FirstBot)
    named = simulate(2, 3, ("base",), (FirstBot(), "greedy"), seed=4)
    assert set(named.summary.win_rate_by_bot) == {"first", "greedy"}
    assert bot_name(FirstBot) == "first"


def test_a_bot_for_a_worker_process_must_pickle() -> None:
    """A bot given to a process pool must pickle: one that cannot (a class defined in a
    function) is refused before any game, saying so."""

    class Local(FirstBot):
        pass

    with ProcessPoolExecutor(1) as pool, pytest.raises(UnknownBotError, match="must pickle"):
        simulate(2, 2, ("base",), (Local, "random"), executor=pool)
    with ProcessPoolExecutor(1) as pool:  # a top-level class pickles, and plays there
        played = simulate(2, 2, ("base",), (FirstBot, "random"), executor=pool)
    assert played.results == simulate(2, 2, ("base",), (FirstBot, "random")).results


class Raising:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        raise KeyError("lost")

    def choose_from(self, actions: tuple[Action, ...]) -> Action:
        raise KeyError("lost")


class Wrong:
    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        return "pass"  # type: ignore[return-value]


def test_next_action_refuses_a_failing_bot_and_leaves_the_game() -> None:
    """next_action raises BotError naming the bot (and its seat) when the bot raises or
    answers anything but a legal action; the game, reference or fast, is untouched."""
    game = new_game(2, seed=5)
    before = (game.state, game.events)
    with pytest.raises(BotError, match=r"bot 'mine' \(seat \d\) raised KeyError") as raised:
        next_action(Raising(), game, "mine")
    assert raised.value.bot == "mine"
    with pytest.raises(BotError, match=r"'Wrong'.*not legal"):
        next_action(Wrong(), game)
    assert (game.state, game.events) == before
    fast = FastGame.new(2, seed=5)
    seq = fast.state_seq
    with pytest.raises(BotError, match="raised KeyError"):
        next_action(Raising(), fast, "mine")
    assert fast.state_seq == seq and not fast.decisions
    with pytest.raises(BotError, match="'Raising'"):  # a batch on the fast engine too
        simulate(1, 2, ("base",), (Raising, "random"), engine="fast")


def test_a_bot_error_travels_back_from_a_worker_whole() -> None:
    """A BotError pickles with its bot's name (raised in a worker, it reaches the
    caller as it was)."""
    import pickle

    again = pickle.loads(pickle.dumps(BotError("bot 'x' raised", "x")))
    assert isinstance(again, BotError) and again.bot == "x" and str(again) == "bot 'x' raised"


# --- serve: a failing bot's seat goes to the random bot ----------------------------------


def test_a_table_s_failing_bot_is_replaced_by_the_random_bot(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """At a table, a seat whose bot raises is played by the random bot from then on: the
    game goes on to its end, the decisions are recorded as the random bot's, the host is
    told in the table's document and once on stderr."""
    monkeypatch.setitem(BOTS, "raising", Raising)
    lobby = Lobby()
    table, _host = lobby.create(2, ["base"], {}, {"0": "raising", "1": "random"}, seed=8)
    assert table.game.is_over  # never waits on the broken bot
    doc = json.loads(table.document(None))
    assert set(doc["bot_trouble"]) == {"0"}
    assert "bot 'raising'" in doc["bot_trouble"]["0"] and "random bot" in doc["bot_trouble"]["0"]
    err = capsys.readouterr().err
    assert err.count("bot 'raising'") == 1
    assert {d.played_by for d in table._decisions if d.seat == 0} == {
        "bot:random (for raising)"}


def test_a_stored_table_naming_a_bot_no_longer_installed_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A table stored with a bot that is no longer installed is resumed, and its seat is
    played by the random bot, the host told; the person's game goes on to its end."""
    from tokaido_rules.store import TableStore

    monkeypatch.setitem(BOTS, "ghost", FirstBot)
    path = tmp_path / "t.db"
    table, _ = Lobby(TableStore(path)).create(2, ["base"], {}, {"0": "ghost"}, seed=9)
    table_id = table.id
    monkeypatch.delitem(BOTS, "ghost")
    lobby = Lobby(TableStore(path))
    again = lobby.get(table_id)
    token = again.join(1)
    for _ in range(400):
        lobby.play_bots()
        if again.game.is_over:
            break
        assert again.game.current_player == 1  # never waits on seat 0
        action = again.game.legal_actions()[0]
        again.act(again.seat_for(token) or 1, {"action": encode_action(action),
                                               "expected_seq": again.game.state.seq})
    assert again.game.is_over
    assert "unknown bot 'ghost'" in again.bot_trouble[0]
    assert capsys.readouterr().err.count("unknown bot 'ghost'") == 1


def test_play_saves_the_game_when_a_bot_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`tokaido play` with a bot that raises: one line naming the bot, status 2, and the
    game as it stood before the bot was asked is saved (it loads, and it is not over)."""
    from tokaido_rules import load_log
    from tokaido_rules.cli import main

    monkeypatch.setitem(BOTS, "raising", Raising)
    monkeypatch.setattr("builtins.input", lambda: "1")
    saved = tmp_path / "saved.jsonl"
    assert main(["play", "--players", "2", "--seed", "3", "--bots", "raising",
                 "--save-to", str(saved)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: bot 'raising' (seat 1) raised KeyError")
    game = load_log(saved.read_text(encoding="utf-8"))
    assert not game.is_over and game.current_player == 1


def test_a_registered_class_given_directly_is_named_by_its_entry_point() -> None:
    """A package's bot class handed to simulate (not its name) is still named by the
    name it is registered under, loaded or not."""
    code = ("from tokaido_lab_bots import PickBot\n"
            "from tokaido_rules.simulate import simulate\n"
            "print(sorted(simulate(1, 2, ('base',), (PickBot, 'random')).summary"
            ".win_rate_by_bot))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FIXTURE),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['pick', 'random']"
