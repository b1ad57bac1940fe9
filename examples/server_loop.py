"""The core of a game server, without the network: one table, a view per seat, stale
actions rejected, and a copy of the log for every seat.

Run: ``python examples/server_loop.py``. Three "clients" (bots here) each receive only
their seat's view and answer with an action and the sequence number of the view they
chose from. The server applies it with ``expected_seq``, so a message sent for an
earlier point of the game is refused. Each client is sent the new lines of its own copy
of the log, from a ``LogFeed`` that redacts each event once (re-writing every copy after
every decision would cost in proportion to the whole game); the server stores the full
log, the same way, line by line.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from tempfile import TemporaryDirectory

from tokaido_rules import (
    Action,
    IllegalActionError,
    StaleActionError,
    TokaidoError,
    View,
    dump_log,
    load_log,
    new_game,
    verify_log,
)
from tokaido_rules.bots import Bot, GreedyBot, RandomBot
from tokaido_rules.log import LogFeed

PLAYERS = 3
SEED = 11


class Table:
    """One table: its game, each seat's copy of its log as sent so far, and the full log
    as stored so far."""

    def __init__(self, players: int, seed: int, plugins: Iterable[str] = ("base",)) -> None:
        self.game = new_game(players, seed=seed, plugins=plugins)
        self.feeds = [LogFeed(self.game, viewer=seat) for seat in range(players)]
        self.store = LogFeed(self.game)

    def view(self, seat: int) -> View:
        """Everything ``seat`` may see now, with its legal actions if it decides."""
        return self.game.view(seat)

    def submit(self, seat: int, action: Action, seq: int) -> None:
        """A decision from the client of ``seat``, chosen on its view at ``seq``."""
        if action.seat != seat:  # a client decides for its own seat only
            raise IllegalActionError(f"seat {seat} cannot decide for seat {action.seat}")
        # StaleActionError if the game moved on since seq; IllegalActionError if the
        # action is not legal. Either way the game is unchanged.
        self.game = self.game.apply(action, expected_seq=seq)

    def updates(self, seat: int) -> list[str]:
        """The lines of the seat's copy of the log it has not received yet (a line never
        changes once written, so sending only new ones is enough)."""
        return self.feeds[seat].new_lines(self.game)

    def save(self, path: Path) -> None:
        """Append the full log's new lines to the server's own file (it holds the seed);
        the finished game's log ends with its trailer."""
        with path.open("a", encoding="utf-8") as out:
            out.writelines(self.store.new_lines(self.game))


def main() -> None:
    table = Table(PLAYERS, SEED)
    clients: list[Bot] = [GreedyBot(100), RandomBot(101), GreedyBot(102)]
    received: dict[int, list[str]] = {seat: table.updates(seat) for seat in range(PLAYERS)}

    # Each seat sees its own traveller offer, and nobody else's.
    for seat in range(PLAYERS):
        view = table.view(seat)
        offers = {key: value for key, value in view.data.items() if key.startswith("base.offer.")}
        print(f"seat {seat} sees {offers}, {len(view.legal_actions)} legal actions")

    # Seat 0 chooses, then its client sends a second action for the same, old view.
    view = table.view(0)
    table.submit(0, clients[0].choose(view), view.seq)
    try:
        table.submit(0, view.legal_actions[-1], view.seq)
    except StaleActionError as exc:
        print("rejected:", exc)

    # Seat 2's client tries to answer seat 1's decision.
    view = table.view(1)
    try:
        table.submit(2, view.legal_actions[0], view.seq)
    except IllegalActionError as exc:
        print("rejected:", exc)

    # The server loop: ask the client of the deciding seat, apply, send every seat its
    # new log lines and append the full log's to the server's file. A real server would
    # send each client its fresh view as well.
    folder = TemporaryDirectory()
    stored = Path(folder.name) / "table.jsonl"
    errors = 0
    while not table.game.is_over:
        decider = table.game.current_player
        assert decider is not None
        view = table.view(decider)
        try:
            table.submit(decider, clients[decider].choose(view), view.seq)
        except TokaidoError:  # report to the client and send a fresh view
            errors += 1
        for other in range(PLAYERS):
            received[other] += table.updates(other)
        table.save(stored)

    print(f"game over at seq {table.game.state.seq}, {errors} rejected actions in the loop")
    for score in table.game.scores():
        print(f"  seat {score.seat} {score.traveller}: {score.total} points, rank {score.rank}")
    for seat in range(PLAYERS):
        copy = "".join(received[seat])
        withheld = sum(1 for line in received[seat] if '"withheld"' in line)
        print(f"seat {seat} received {len(received[seat])} lines ({withheld} with fields "
              f"withheld); complete copy: {copy == dump_log(table.game, viewer=seat)}")

    text = stored.read_text(encoding="utf-8")
    resumed = load_log(stored)  # after a restart, the table continues from its log
    print(f"stored log: {len(text.splitlines())} lines, the full log: "
          f"{text == dump_log(table.game)}; reloads: {resumed.state == table.game.state}; "
          f"verifies: {verify_log(stored).ok}")
    folder.cleanup()


if __name__ == "__main__":
    main()
