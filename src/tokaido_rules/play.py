"""``tokaido play``: a person plays against bots in the terminal, seeing only their seat.

At each of the person's decisions the screen draws the board as their seat sees it
(:func:`tokaido_rules.render.text`: the road with every traveller on it, their own
cards, what is public about the others) and the numbered legal actions. Commands:
a number chooses; ``hint`` prints the analysis of the decision, from the person's view
(:func:`tokaido_rules.analysis.hint`: every action's expected final margin and win
probability, the best one marked); ``save FILE`` writes the game's log (resume it with
``--resume FILE``); ``board`` shows the road again; ``help``; ``quit``. Bad input asks
again. A decision taken after a hint is recorded as such in a :class:`PlayRecord`
(the log records what was decided, not how). Ctrl-C raises
:class:`GameInterrupted`, which holds the game as it stands, so that it can be saved; so
do SIGTERM and SIGHUP inside :func:`stop_on_signals`, which ``tokaido play`` plays in.
"""

from __future__ import annotations

import signal
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any, NoReturn, TextIO

from attrs import Factory, define

from .analysis import DEFAULT_BOT, DecisionAnalysis, hint
from .bots import Bot, BotLike, bot_name, make_bot, next_action
from .chance import bot_seed
from .engine import Game
from .errors import BotError, TokaidoError
from .events import Action, Event, GameOver
from .log import dump_log
from .model import GameState
from .render import describe_action, describe_effects, outcome, score_table, text
from .views import View, redact

HELP = ("Type the number of an action. Other commands: 'hint' scores every action, "
        "'save FILE' writes the log, 'board' shows the road, 'quit' stops.")


@define
class PlayRecord:
    """What :func:`run` records of a session beside the game's log: ``hinted``, the
    ``seq`` of each of the person's decisions taken after a ``hint`` at that decision
    (its action's place in the log), in order. ``tokaido play`` says them at the end."""

    hinted: list[int] = Factory(list)


def hint_lines(found: DecisionAnalysis, bot: str, width: int = 80) -> list[str]:
    """The hint as ``play`` prints it: each action, numbered as in the list of legal
    actions, with its expected final margin and win probability (95% intervals) and
    its playouts; the best one starred."""
    head = (f"Hint from {bot}, from your view only: best is {found.best + 1}, "
            f"win {found.win:.0%}.")
    out = [_fill(head, width - 2, "", "")]  # after the "> " prompt
    for n, (e, label) in enumerate(zip(found.estimates, found.labels, strict=True), 1):
        star = "*" if n - 1 == found.best else " "
        said = (f"{label}: margin {e.margin:+.1f} ({e.margin_low:+.1f} to "
                f"{e.margin_high:+.1f}), win {e.win:.0%} ({e.win_low:.0%} to "
                f"{e.win_high:.0%}), {e.playouts} playouts")
        out.append(_fill(said, width, f" {star}{n:2}. "))
    return out


def _fill(said: str, width: int, first: str = "  ", later: str = "      ") -> str:
    """``said`` wrapped to ``width``, each of its lines starting with ``first``."""
    return "\n".join(textwrap.fill(line.strip(), width, initial_indent=first,
                                   subsequent_indent=later, break_on_hyphens=False)
                     for line in said.splitlines())


def screen(view: View, width: int = 80) -> str:
    """The board and the table as the person's seat sees it, under a rule."""
    return "\n".join(["", "=" * width, text(view, width=width)])


def describe_public(events: Sequence[Event], before: GameState, after: GameState,
                    seat: int) -> str:
    """What ``seat`` may know of a decision by someone else and its effects."""
    if not events:
        return ""
    end = next((i for i, e in enumerate(events) if isinstance(e, GameOver)), None)
    if end is not None:
        ending = describe_effects(events[end + 1:], after, None)
        head = describe_public(events[:end], before, after, seat) if end else ""
        return f"{head}\n  end of the journey: {ending}" if head else f"end: {ending}"
    action = events[0]
    _, withheld = redact(action, after, seat)
    if isinstance(action, Action) and not withheld:
        head = describe_action(before, action)
    else:
        who = getattr(action, "seat", "?")
        head = f"seat {who}: {action.TYPE.split('.')[-1].replace('_', ' ')} (details hidden)"
    effects = describe_effects(events[1:], after,
                               getattr(action, "piece", getattr(action, "seat", None)))
    return head + (f": {effects}" if effects else "")


STOPPING_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that :func:`stop_on_signals` turns into :class:`SessionSignal` (SIGHUP
where the system has it: not on Windows)."""


class SessionSignal(KeyboardInterrupt):
    """A signal that stops a session as Ctrl-C does (raised inside
    :func:`stop_on_signals`); ``signum`` is its number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class GameInterrupted(KeyboardInterrupt):
    """Ctrl-C, or a signal of :data:`STOPPING_SIGNALS` inside :func:`stop_on_signals`,
    during :func:`run`: ``game`` is the game as it stood, ``signum`` the signal's number
    (``signal.SIGINT`` for Ctrl-C)."""

    def __init__(self, game: Game, signum: int = signal.SIGINT) -> None:
        super().__init__()
        self.game = game
        self.signum = signum


class BotFailed(BotError):
    """A bot's seat failed during :func:`run` (it raised, or answered an action that is
    not legal): ``game`` is the game as it stood before the bot was asked, to save."""

    def __init__(self, message: str, bot: str, game: Game) -> None:
        super().__init__(message, bot)
        self.game = game

    def __reduce__(self) -> Any:
        return (type(self), (str(self), self.bot, self.game))


def _raise_signal(signum: int, frame: object) -> NoReturn:
    raise SessionSignal(signum)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`SessionSignal`, which
    :func:`run` turns into :class:`GameInterrupted` as it does Ctrl-C, so that a session
    ended by ``kill`` or a closed terminal can save its game. The previous handlers come
    back after the block. Outside the main thread (where Python takes no handler), the
    signals are left as they are."""
    previous: dict[int, Any] = {}
    with suppress(ValueError):  # not the main thread
        for stopping in STOPPING_SIGNALS:
            previous[stopping] = signal.signal(stopping, _raise_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def signals_ignored() -> Iterator[None]:
    """Within the block, Ctrl-C and the :data:`STOPPING_SIGNALS` are ignored: a second
    signal cannot cut the saving of a game short. The previous handlers come back
    after the block (outside the main thread, nothing changes)."""
    previous: dict[int, Any] = {}
    with suppress(ValueError):  # not the main thread
        for ignored in (signal.SIGINT, *STOPPING_SIGNALS):
            previous[ignored] = signal.signal(ignored, signal.SIG_IGN)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run(game: Game, human: int, bot_names: Sequence[BotLike], seed: int,
        read: Callable[[], str], out: TextIO, *, width: int = 80,
        show_scores: Callable[[Game], None] | None = None,
        bot_options: Mapping[str, Mapping[str, object]] | None = None,
        hint_bot: BotLike = DEFAULT_BOT, record: PlayRecord | None = None) -> Game:
    """Play until the end (or ``quit``); return the game as it stands. ``seed`` seeds
    the bots (:func:`bot_seed`): the same seed, the same bots. ``width``: of the
    screen, in characters. ``show_scores`` shows the final scores (default: the plain
    :func:`~tokaido_rules.render.score_table` on ``out``; ``tokaido play`` draws them
    with ``rich`` at a terminal). Ctrl-C raises :class:`GameInterrupted` with the game
    as it stands, and so does a :class:`SessionSignal` (:func:`stop_on_signals`). The
    end of the input (``read`` raises :exc:`EOFError`) returns the game as it stands,
    as ``quit`` does. ``bot_names``: registered names (or bot objects, classes or
    factories), each made with its options in ``bot_options`` (name -> options); a bot
    that fails raises :class:`~tokaido_rules.BotError` with the game as it stood.
    ``hint_bot`` analyses a decision when the person types ``hint`` (with its options
    in ``bot_options`` and ``seed``; one that cannot is told in one line and play goes
    on); ``record`` (a :class:`PlayRecord`) notes the decisions taken after a hint."""
    given = bot_options or {}
    record = PlayRecord() if record is None else record
    seats = [s for s in range(game.players) if s != human]
    made = [bot_names[i % len(bot_names)] for i in range(len(seats))]
    bots: dict[int, Bot] = {
        seat: make_bot(maker, bot_seed(seed, seat), given.get(bot_name(maker)))
        for seat, maker in zip(seats, made, strict=True)
    }
    names = {seat: bot_name(maker) for seat, maker in zip(seats, made, strict=True)}
    shown_board = False
    try:
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            if seat != human:
                before = game
                try:
                    action = next_action(bots[seat], game, names[seat])
                except BotError as exc:
                    raise BotFailed(str(exc), exc.bot, game) from exc
                game = game.apply(action)
                new = game.events[before.state.seq:]
                print(_fill(describe_public(new, before.state, game.state, human), width),
                      file=out)
                shown_board = False
                continue
            view = game.view(human)
            if not shown_board:
                print(screen(view, width), file=out)
                shown_board = True
            actions = view.legal_actions
            hinted = False
            print("Your decision:", file=out)
            for n, action in enumerate(actions, 1):
                print(_fill(describe_action(game.state, action), width, f"  {n:2}. "), file=out)
            while True:
                out.write("> ")
                out.flush()
                try:
                    typed = read().strip()
                except EOFError:
                    print("\nInput ended; the game is left as it stands.", file=out)
                    return game
                if typed.isascii() and typed.isdigit() and 1 <= int(typed) <= len(actions):
                    before = game
                    game = game.apply(actions[int(typed) - 1])
                    if hinted:
                        record.hinted.append(before.state.seq)
                    new = game.events[before.state.seq:]
                    print(_fill(describe_public(new, before.state, game.state, human), width),
                          file=out)
                    shown_board = False
                    break
                if typed in ("quit", "q", "exit"):
                    print("Stopped. Save first with 'save FILE' to resume later.", file=out)
                    return game
                if typed in ("board", "b"):
                    print(screen(view, width), file=out)
                    continue
                if typed == "hint":
                    try:
                        found = hint(view, hint_bot, seed=seed,
                                     options=given.get(bot_name(hint_bot)))
                    except TokaidoError as exc:
                        print(_fill(f"No hint: {exc}", width - 2, "", ""), file=out)
                        continue
                    hinted = True
                    print("\n".join(hint_lines(found, bot_name(hint_bot), width)), file=out)
                    continue
                if typed.startswith("save "):
                    path = typed[5:].strip()
                    try:
                        with open(path, "w", encoding="utf-8") as f:
                            f.write(dump_log(game))
                    except OSError as exc:
                        print(f"Cannot write {path}: {exc.strerror}", file=out)
                    else:
                        print(f"Saved to {path}; resume with: tokaido play --resume {path}",
                              file=out)
                    continue
                if typed in ("help", "h", "?"):
                    print(_fill(HELP, width - 2, "", ""), file=out)  # after the "> " prompt
                    continue
                print(f"Please type a number from 1 to {len(actions)}, or 'help'.", file=out)
    except KeyboardInterrupt as stop:
        raise GameInterrupted(game, getattr(stop, "signum", signal.SIGINT)) from None
    print("\nThe journey is over.\n", file=out)
    if show_scores is None:
        print(score_table(game, width=width), file=out)
    else:
        out.flush()
        show_scores(game)
    print(f"\n{outcome(game)}", file=out)  # the winners, their points, how they won
    if record.hinted:
        seqs = ", ".join(str(seq) for seq in record.hinted)
        print(f"You took {len(record.hinted)} decision(s) after a hint: seq {seqs}.",
              file=out)
    return game
