"""The core of a game server, without the network: one table, a view per seat, stale
actions rejected, and a copy of the log for every seat.

Run: ``python examples/server_loop.py``. Three "clients" (bots here) each receive only
their seat's view, as JSON in the wire format, and answer with a JSON message: an action
and the sequence number of the view they chose from. The server decodes the action
(``decode_action``: a malformed one is an ``IllegalActionError`` naming the field) and
applies it with ``expected_seq``, so a message sent for an earlier point of the game is
refused. Each client is sent the new lines of its own copy
of the log, from a ``LogFeed`` that redacts each event once (re-writing every copy after
every decision would cost in proportion to the whole game); the server stores the full
log, the same way, line by line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from tempfile import TemporaryDirectory

from tokaido_rules import (
    Action,
    IllegalActionError,
    Ruleset,
    StaleActionError,
    TokaidoError,
    View,
    decode_action,
    decode_view,
    dump_log,
    encode_action,
    encode_view,
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

    def view_message(self, seat: int) -> str:
        """The view to send the client of ``seat``, as JSON (the wire format)."""
        return json.dumps(encode_view(self.view(seat)))

    def receive(self, seat: int, message: str) -> None:
        """A message from the client of ``seat``, JSON ``{"seq": ..., "action": ...}``:
        an action in the wire format, chosen on its view at ``seq``."""
        try:
            envelope = json.loads(message)
            seq, action = envelope["seq"], envelope["action"]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise IllegalActionError('a message is {"seq": ..., "action": {...}}') from None
        if type(seq) is not int:
            raise IllegalActionError("seq must be an integer")
        # IllegalActionError naming the field if the action is malformed.
        self.submit(seat, decode_action(action, self.game.ruleset), seq)

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


def answer(client: Bot, sent: str, rules: Ruleset) -> str:
    """What a client does with the view it is sent: decode it (with its own copy of the
    rules), choose, and send back the action and the view's seq, as JSON."""
    view = decode_view(sent, rules)
    return json.dumps({"seq": view.seq, "action": encode_action(client.choose(view))})


def main() -> None:
    table = Table(PLAYERS, SEED)
    clients: list[Bot] = [GreedyBot(100), RandomBot(101), GreedyBot(102)]
    rules = Ruleset.build(["base"])  # the clients' own copy of the rules
    received: dict[int, list[str]] = {seat: table.updates(seat) for seat in range(PLAYERS)}

    # Each seat sees its own traveller offer, and nobody else's.
    for seat in range(PLAYERS):
        view = table.view(seat)
        offers = {key: value for key, value in view.data.items() if key.startswith("base.offer.")}
        print(f"seat {seat} sees {offers}, {len(view.legal_actions)} legal actions")

    # Seat 0 chooses, then its client sends the same message again for the old view.
    message = answer(clients[0], table.view_message(0), rules)
    print("seat 0 sends", message)
    table.receive(0, message)
    try:
        table.receive(0, message)
    except StaleActionError as exc:
        print("rejected:", exc)

    # Seat 2's client tries to answer seat 1's decision; another sends a malformed one.
    message = answer(clients[1], table.view_message(1), rules)
    malformed = json.loads(message)
    malformed["action"]["traveller"] = 7
    for seat, text in [(2, message), (1, json.dumps(malformed))]:
        try:
            table.receive(seat, text)
        except IllegalActionError as exc:
            print("rejected:", exc)

    # The server loop: send the deciding seat's client its view, apply its answer, send
    # every seat its new log lines and append the full log's to the server's file. A
    # real server would send each client its fresh view as well.
    folder = TemporaryDirectory()
    stored = Path(folder.name) / "table.jsonl"
    errors = 0
    while not table.game.is_over:
        decider = table.game.current_player
        assert decider is not None
        try:
            table.receive(decider, answer(clients[decider], table.view_message(decider), rules))
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
