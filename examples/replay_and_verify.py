"""Save a game's event log to a file, load it back, verify it, and show one seat's view.

Run: ``python examples/replay_and_verify.py``. A 3-player game is played halfway, saved
to a temporary file and loaded again: the loaded game equals the live one and can be
continued. ``verify_log`` plays the game again under the current rules from the
header's seed (chance drawn again, every event compared); a game saved halfway is
verified as far as it goes (``allow_unfinished=True``). Then we
look at the game as seat 1 may see it, in its view and in its copy of the log.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from tokaido_rules import Game, View, dump_log, load_log, new_game, verify_log
from tokaido_rules.bots import RandomBot, next_action

SEED = 31
VIEWER = 1


def play(game: Game, decisions: int | None = None) -> Game:
    """Let random bots (one per seat, own seeds) decide: ``decisions`` times, or to the end."""
    bots = [RandomBot(seat) for seat in range(game.players)]
    done = 0
    while not game.is_over and (decisions is None or done < decisions):
        seat = game.current_player
        assert seat is not None
        game = game.apply(next_action(bots[seat], game))
        done += 1
    return game


def show_view(view: View) -> None:
    """What one seat may see: public facts in full, hidden zones only by their size."""
    print(f"Seat {view.seat}'s view at seq {view.seq} (turn {view.turn}):")
    for piece, p in enumerate(view.pieces):
        owner = "neutral" if p.seat is None else f"seat {p.seat}"
        print(f"  piece {piece} ({owner}, {p.traveller}): position {p.position}, "
              f"{p.coins} coins, {p.total} points, {len(view.collection(piece))} cards")
    hidden = sorted(name for name in view.zone_sizes if name not in view.zones)
    print("  hidden zones: " + ", ".join(f"{name} ({view.zone_sizes[name]} cards)"
                                         for name in hidden))
    print(f"  deciding now: seat {view.current_player}; "
          f"my legal actions: {len(view.legal_actions)}")


def main() -> None:
    game = play(new_game(3, seed=SEED), decisions=40)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.jsonl"
        path.write_text(dump_log(game), encoding="utf-8")  # the full log: header + events
        text = path.read_text(encoding="utf-8")
    print(f"Saved {len(text.splitlines())} lines ({len(game.events)} events)")

    loaded = load_log(text)  # folds the events: no rules re-run, no dice rolled
    print("Loaded game equals the live one:", loaded.state == game.state)
    print("Verification:", verify_log(text, allow_unfinished=True).message)

    show_view(loaded.view(VIEWER))
    copy = [json.loads(line) for line in dump_log(loaded, viewer=VIEWER).splitlines()]
    redacted = sum(1 for line in copy[1:] if "withheld" in line)
    print(f"Seat {VIEWER}'s copy of the log: {len(copy) - 1} events, {redacted} with "
          f"fields withheld, seed in header: {'seed' in copy[0]}")

    finished = play(loaded)  # a loaded game continues like the original
    final = verify_log(dump_log(finished))
    print(f"Continued to the end: {len(finished.events)} events, verified: {final.ok}")
    print("Scores:", ", ".join(f"seat {s.seat} {s.traveller} {s.total}"
                               for s in finished.scores()))


if __name__ == "__main__":
    main()
