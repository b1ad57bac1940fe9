"""``tokaido play``: a person against bots with scripted input, seeing only their seat."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

import pytest

from processes import finished, watched
from tokaido_rules import (
    Action,
    Game,
    Setup,
    View,
    decisions,
    load_log,
    new_game,
    secret_zone,
    verify_log,
)
from tokaido_rules.bots import BOTS
from tokaido_rules.cli import main
from tokaido_rules.log import dump_log
from tokaido_rules.play import HELP, GameInterrupted, SessionSignal, run, stop_on_signals
from tokaido_rules.render import describe_action, road_text
from tokaido_variants.good_luck import BuyLuck

RULE = "=" * 80
BOARD = "   0    1    2    3    4    5    6    7    8    9   10   11   12   13   14"
ASK_AGAIN = "Please type a number from 1 to"


def reader(lines: Iterable[str]) -> Callable[[], str]:
    """A read function over scripted lines; EOFError once they run out."""
    it = iter(lines)

    def read() -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def play(game: Game, lines: Iterable[str], human: int = 0,
         bots: tuple[str, ...] = ("greedy",)) -> tuple[Game, str]:
    """Run a session on ``game``; return the game as left and everything printed."""
    out = io.StringIO()
    end = run(game, human, bots, game.seed, reader(lines), out)
    return end, out.getvalue()


def human_decisions(game: Game, human: int) -> int:
    """The decisions the human made (not those the engine took alone)."""
    return sum(1 for e in decisions(game.events) if e.seat == human)


# --- a whole game --------------------------------------------------------------------


def test_whole_two_player_game_answering_one(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`tokaido play` answered '1' each time plays a 2-player game to the score table."""
    monkeypatch.setattr("builtins.input", reader(["1"] * 500))
    assert main(["play", "--players", "2", "--seed", "5", "--bots", "greedy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tokaido: you are seat 0; plugins base.")
    assert "The journey is over." in out
    table = out.split("The journey is over.")[1]
    rows = [line.split()[0] for line in table.splitlines() if line.strip()]
    assert rows[0] == "seat" and "total" in rows and "rank" in rows
    assert "Winner" in table
    assert "Input ended" not in out


def test_run_plays_to_the_end_and_prompts_once_per_decision() -> None:
    """run() finishes the game, prompting once per decision of the person's seat."""
    end, out = play(new_game(2, seed=9), ["1"] * 500)
    assert end.is_over
    decisions = human_decisions(end, 0)
    assert decisions > 10
    assert out.count("Your decision:") == decisions
    assert out.count("> ") >= decisions
    assert "   1. " in out
    assert "Winner" in out.split("The journey is over.")[1]


def test_choosing_a_number_applies_that_action() -> None:
    """Typing n applies the n-th legal action."""
    game = new_game(2, seed=4)
    actions = game.legal_actions()
    assert game.current_player == 0 and len(actions) >= 2
    end, out = play(game, ["2", "quit"])
    assert end.events[game.state.seq] == actions[1]
    assert f" 2. {describe_action(game.state, actions[1])}" in out


# --- bad input and commands --------------------------------------------------------


def test_bad_input_asks_again_without_changing_the_game() -> None:
    """Bad input ('x', '0', '999', '', '-1', '1.0') asks again; the game is unchanged."""
    game = new_game(2, seed=3)
    n = len(game.legal_actions())
    bad = ["x", "0", "999", "", "-1", "1.0"]
    end, out = play(game, [*bad, "quit"])
    assert end.events == game.events and end.state == game.state
    assert out.count(f"{ASK_AGAIN} {n}, or 'help'.") == len(bad)
    after_bad, _ = play(game, [*bad, "1", "quit"])
    direct, _ = play(game, ["1", "quit"])
    assert after_bad.events == direct.events and len(direct.events) > len(game.events)


def test_non_ascii_digits_ask_again() -> None:
    """Digit characters that int() rejects (superscripts) ask again instead of crashing."""
    game = new_game(2, seed=3)
    end, out = play(game, ["\u00b2", "quit"])
    assert end.events == game.events
    assert ASK_AGAIN in out


def test_help_and_board_print() -> None:
    """'help' prints the commands; 'board' prints the road and table again."""
    game = new_game(2, seed=3)
    end, out = play(game, ["help", "board", "quit"])
    assert end.events == game.events
    assert " ".join(HELP.split()) in " ".join(out.split())
    assert out.count(RULE) == 2
    assert out.count(BOARD) == 2
    assert max(len(line) for line in out.splitlines()) <= 80


def test_the_road_is_drawn_with_every_traveller_in_its_slot() -> None:
    """Seats 3 then 2 leave the start inn for the hot spring at 5 (a double space at 4
    players): the board shows the road from the first inn to the next on one line of 80
    columns, marks the second slots open at this player count, and shows each traveller
    under its position: on a road space line n is slot n (the first arrival on the road,
    the second off it), at an inn the travellers in arrival order."""
    game = new_game(4, seed=1, travellers=("kinko", "chuubei", "mitsukuni", "hirotada"),
                    setup=Setup(queue=(0, 1, 2, 3)))
    game = game.apply(next(a for a in game.legal_actions()
                           if getattr(a, "position", None) == 5))
    game = game.apply(next(a for a in game.legal_actions()
                           if getattr(a, "position", None) == 5))
    road = road_text(game.view(0))
    assert road[:4] == [
        BOARD,
        " Inn Vil*  Tem  Enc  Pad Hot* Mou* Far*  Vil Tem*  Enc Sea*  Mou  Hot  Inn",
        "   0                        3",
        "   1                        2",
    ]
    assert road[5].split()[0] == "15" and road[6].split()[-1] == "Inn"
    ahead = game.apply(next(a for a in game.legal_actions()
                            if getattr(a, "position", None) == 14))
    assert road_text(ahead.view(0))[2:4] == [
        "   0                        3                                            1",
        "                            2"]
    two = new_game(2, seed=1, setup=Setup(queue=(2, 0, 1)))
    assert road_text(two.view(1))[1].split()[:3] == ["Inn", "Vil", "Tem"]  # single slots
    assert road_text(two.view(1))[2:5] == ["   N", "   0", "   1"]


def test_quit_stops_and_eof_ends() -> None:
    """'quit' stops with the game as it stands; so does the end of the input."""
    game = new_game(2, seed=3)
    end, out = play(game, ["1", "quit"])
    assert not end.is_over and len(end.events) > len(game.events)
    assert "Stopped." in out and "The journey is over." not in out
    end, out = play(game, ["1"])
    assert not end.is_over and "Input ended" in out


def test_save_writes_a_log_and_resume_continues_the_same_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """'save FILE' writes a log that `play --resume FILE` continues from the same state."""
    path = tmp_path / "saved.jsonl"
    start = new_game(3, seed=14, plugins=("base", "crossroads"))
    game, out = play(start, ["1", "2", "1", f"save {path}", "quit"], human=1,
                     bots=("greedy", "random"))
    assert f"Saved to {path}" in out
    text = path.read_text(encoding="utf-8")
    assert verify_log(text, allow_unfinished=True).ok  # a game saved half way
    saved = load_log(text)
    assert saved.events == game.events and saved.state == game.state
    assert saved.seed == game.seed and saved.current_player == 1
    assert saved.legal_actions() == game.legal_actions()
    assert saved.view(1) == game.view(1)

    monkeypatch.setattr("builtins.input", reader(["quit"]))
    assert main(["play", "--resume", str(path), "--human", "1",
                 "--bots", "greedy,random"]) == 0
    resumed = capsys.readouterr().out
    listing = resumed.split("Your decision:")[1].split("> ")[0]
    assert [line.strip() for line in listing.strip().splitlines()] == [
        f"{n}. {describe_action(game.state, a)}"
        for n, a in enumerate(game.legal_actions(), 1)]

    script = ["1", "1", "2", "1", "quit"]
    monkeypatch.setattr("builtins.input", reader(script))
    assert main(["play", "--resume", str(path), "--human", "1",
                 "--bots", "greedy,random"]) == 0
    via_cli = capsys.readouterr().out
    direct = io.StringIO()
    continued = run(saved, 1, ["greedy", "random"], saved.seed, reader(script), direct)
    assert via_cli.split("Type 'help' for commands.\n", 1)[1] == direct.getvalue()
    assert len(continued.events) > len(game.events)


def test_save_to_an_unwritable_path_asks_again(tmp_path: Path) -> None:
    """A save that cannot be written says so and keeps the game going."""
    game = new_game(2, seed=3)
    end, out = play(game, [f"save {tmp_path / 'missing' / 'x.jsonl'}", "quit"])
    assert "Cannot write" in out and end.events == game.events


# --- only the person's seat is shown ------------------------------------------------


class LuckyBot:
    """Buys a random amulet when offered, otherwise takes the first legal action."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def choose(self, view: View) -> Action:
        buy = [a for a in view.legal_actions if isinstance(a, BuyLuck) and a.buy]
        return buy[0] if buy else view.legal_actions[0]


@pytest.mark.parametrize("human", [0, 1])
def test_other_seats_amulet_is_never_shown(human: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The person sees their own amulet's name, never the one another seat holds."""
    monkeypatch.setitem(BOTS, "lucky", LuckyBot)
    # Seat 1 leaves first, so it gets the first scripted amulet, seat 0 the second.
    picks = {1: "friendship", 0: "devotion"}
    setup = Setup(travellers=("mitsukuni", "yoshiyasu"), queue=(0, 2, 1),
                  chance={"pick.crossroads.amulets": [picks[1], picks[0]]})
    game = new_game(2, seed=3, plugins=("base", "crossroads", "good-luck"), setup=setup)
    end, out = play(game, ["2"] + ["1"] * 500, human=human, bots=("lucky",))
    assert end.is_over
    mine, theirs = picks[human], picks[1 - human]
    assert end.state.zone(secret_zone(1 - human)) == (theirs,)  # never used, never revealed
    assert end.state.zone(secret_zone(human)) == (mine,)
    text = out.lower()
    assert theirs not in text
    assert f"amulets: {mine}" in text
    assert "amulets: 1 held" in text  # that the other seat holds an amulet is public
    assert f"seat {1 - human}: buy a random amulet" in text  # the purchase is public


# --- command-line errors -------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "2", "--human", "2"], "--human"),
        (["--players", "3", "--human", "-1"], "--human"),
        (["--bots", "nope"], "--bots"),
        (["--bots", "greedy,nope"], "--bots"),
        (["--resume", "no-such-file.jsonl"], "cannot read"),
    ],
)
def test_play_bad_arguments(argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch,
                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad play arguments print one 'error: ...' line and exit with status 2, unasked."""
    monkeypatch.chdir(tmp_path)

    def no_input() -> str:
        raise AssertionError("input was read")

    monkeypatch.setattr("builtins.input", no_input)
    assert main(["play", "--seed", "1", *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert captured.out == ""


def test_play_without_a_seed_draws_64_bits_from_secrets(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    """`tokaido play` with no --seed draws the game's seed from `secrets` (64 bits): a
    32-bit seed was recovered from one seat's view in minutes."""
    import secrets

    monkeypatch.setattr(secrets, "randbits", lambda k: 2**64 - 1 if k == 64 else 0)
    seen: list[int] = []

    def fake_run(game: Game, *args: object, **kwargs: object) -> Game:
        seen.append(game.seed)
        return game

    monkeypatch.setattr("tokaido_rules.play.run", fake_run)
    assert main(["play", "--players", "2"]) == 0
    assert seen == [2**64 - 1]


# --- stopped by a signal or by the end of the input: the game is saved ----------------


def _start_play(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """`python -m tokaido_rules play ARGV` in ``cwd``, its input and outputs pipes."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return watched(subprocess.Popen([sys.executable, "-m", "tokaido_rules", "play", *argv],
                                    cwd=cwd, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))


def _read_until(stream: IO[str], text: str) -> str:
    """Read ``stream`` until ``text`` has come, a character at a time (a prompt has no
    end of line): no sleep, however slow the machine."""
    seen = ""
    while text not in seen:
        char = stream.read(1)
        assert char, f"the output ended before {text!r}: {seen[-300:]!r}"
        seen += char
    return seen


def _read_prompt(stream: IO[str]) -> str:
    """Read a session's output up to its first prompt (``> `` after ``Your decision:``
    and the actions: the board marks whose turn it is with ``> `` too)."""
    shown = _read_until(stream, "Your decision:\n")
    return shown + _read_until(stream, "\n> ")


def _stop(proc: subprocess.Popen[str], how: str) -> tuple[str, str]:
    """Stop a session waiting at its prompt: send the signal ``how`` (with os.kill), or
    close its input (``"EOF"``); return the rest of its output and its stderr. Both
    are read together, with a timeout (the session is killed past it and the test
    fails): a session that does not end cannot hang the suite."""
    stdin, proc.stdin = proc.stdin, None  # communicate() would close it: the end of input
    assert stdin is not None
    try:
        if how == "EOF":
            stdin.close()
        else:
            os.kill(proc.pid, getattr(signal, how))
        return finished(proc, timeout=60)
    finally:
        proc.kill()
        stdin.close()


def _listing(shown: str) -> str:
    """The last decision listed in a session's output: the numbered actions."""
    return shown.rsplit("Your decision:", 1)[1].rsplit("> ", 1)[0]


STOPS = [
    pytest.param("SIGTERM", 143, "Terminated!", id="SIGTERM"),
    pytest.param("SIGHUP", 129, "Hangup!", id="SIGHUP",
                 marks=pytest.mark.skipif(not hasattr(signal, "SIGHUP"),
                                          reason="no SIGHUP on this system")),
    pytest.param("EOF", 0, "Input ended!", id="EOF"),
]


@pytest.mark.parametrize(("how", "status", "said"), STOPS)
def test_a_stopped_session_saves_the_game_and_resumes_at_the_same_seq(
        how: str, status: int, said: str, tmp_path: Path) -> None:
    """SIGTERM, SIGHUP and the end of the input stop `tokaido play` as Ctrl-C does: the
    game's log is saved in tokaido-game-SEQ.jsonl, stderr says why it stopped, where the
    game is and the command that resumes it, and the status is 128 + the signal's
    number (0 for the end of the input). The saved game is the one at the prompt; `play
    --resume` shows the same decision, and stopped there again saves the same game."""
    proc = _start_play(["--players", "3", "--seed", "5", "--width", "80"], tmp_path)
    assert proc.stdout is not None
    shown = _read_prompt(proc.stdout)
    _, err = _stop(proc, how)
    assert proc.returncode == status
    assert "Traceback" not in err and err.count(said) == 1
    saved = sorted(tmp_path.glob("tokaido-game-*.jsonl"))
    assert len(saved) == 1
    name = saved[0].name
    assert f"{said} The game is saved in {name}; resume with: tokaido play --resume {name}" \
        in err
    game = load_log(saved[0])
    assert name == f"tokaido-game-{game.state.seq}.jsonl"
    assert game.seed == 5 and game.players == 3 and not game.is_over
    assert game.current_player == 0  # where the session asked seat 0
    assert verify_log(saved[0], allow_unfinished=True).ok
    assert _listing(shown).split() == " ".join(  # the same words, however wrapped
        f"{n}. {describe_action(game.state, a)}"
        for n, a in enumerate(game.legal_actions(), 1)).split()

    again = _start_play(["--resume", name, "--width", "80"], tmp_path)
    assert again.stdout is not None
    resumed = _read_prompt(again.stdout)
    _, err = _stop(again, "EOF")
    assert again.returncode == 0, err
    assert _listing(resumed) == _listing(shown)
    resaved = tmp_path / f"tokaido-game-{game.state.seq}-1.jsonl"  # the first is kept
    assert f"saved in {resaved.name}" in err
    assert load_log(resaved).events == game.events
    assert load_log(saved[0]).events == game.events


@pytest.mark.parametrize(("how", "status", "said"), STOPS)
def test_a_stopped_session_saves_where_asked(how: str, status: int, said: str,
                                             tmp_path: Path) -> None:
    """--save-to FILE is where SIGTERM, SIGHUP and the end of the input save, as for
    Ctrl-C; the default name is not used."""
    proc = _start_play(["--players", "2", "--seed", "8", "--save-to", "mine.jsonl"],
                       tmp_path)
    assert proc.stdout is not None
    _read_prompt(proc.stdout)
    _, err = _stop(proc, how)
    assert proc.returncode == status
    assert f"{said} The game is saved in mine.jsonl;" in err
    assert "tokaido play --resume mine.jsonl" in err
    assert load_log(tmp_path / "mine.jsonl").seed == 8
    assert not list(tmp_path.glob("tokaido-game-*"))


def test_the_end_of_the_input_saves_in_process(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`main` at the end of the input: status 0 and the game saved after the decisions
    taken; a game that cannot be saved is status 2, and says so. `quit` saves nothing."""
    path = tmp_path / "end.jsonl"
    monkeypatch.setattr("builtins.input", reader(["1", "2"]))
    assert main(["play", "--players", "2", "--seed", "3", "--save-to", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"Input ended! The game is saved in {path}" in err
    game = load_log(path)
    assert human_decisions(game, 0) == 2 and not game.is_over

    missing = tmp_path / "missing" / "x.jsonl"
    monkeypatch.setattr("builtins.input", reader([]))
    assert main(["play", "--players", "2", "--seed", "3", "--save-to", str(missing)]) == 2
    assert f"Input ended! The game could not be saved to {missing}" in capsys.readouterr().err

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("builtins.input", reader(["quit"]))
    assert main(["play", "--players", "2", "--seed", "3"]) == 0
    assert not list(tmp_path.glob("tokaido-game-*"))


def test_stop_on_signals_raises_session_signal_and_restores_the_handlers() -> None:
    """Inside stop_on_signals, SIGTERM (and SIGHUP) raise SessionSignal with its number,
    which run() turns into GameInterrupted holding the game and the signal; outside,
    the previous handlers are back."""
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SessionSignal) as raised, stop_on_signals():
        os.kill(os.getpid(), signal.SIGTERM)  # delivered before kill returns
    assert raised.value.signum == signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before

    def terminated() -> str:
        raise SessionSignal(signal.SIGTERM)

    game = new_game(2, seed=3)
    with pytest.raises(GameInterrupted) as stopped:
        run(game, 0, ("greedy",), game.seed, terminated, io.StringIO())
    assert stopped.value.signum == signal.SIGTERM
    assert stopped.value.game.events == game.events
    with pytest.raises(GameInterrupted) as interrupted:
        run(game, 0, ("greedy",), game.seed, _ctrl_c, io.StringIO())
    assert interrupted.value.signum == signal.SIGINT


def _ctrl_c() -> str:
    """A read that Ctrl-C interrupts."""
    raise KeyboardInterrupt


def test_resuming_a_file_cut_inside_the_setup_is_refused(tmp_path: Path) -> None:
    """``play --resume`` of a log cut before the first decision (a save killed while it
    wrote the setup) says so in one ``error:`` line and exits 2, playing nothing."""
    game = new_game(3, seed=5)
    lines = dump_log(game).splitlines(keepends=True)
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines[:4]), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "tokaido_rules", "play", "--resume",
                           str(path)], input="1\n", capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "before the rules reach their first decision" in done.stderr
    assert "Your decision" not in done.stdout
