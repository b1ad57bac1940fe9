"""``tokaido play``: a person plays against bots in the terminal, seeing only their seat.

At each of the person's decisions the screen draws the road with every traveller on it,
shows their own coins and collection, what is public about the others, and the numbered
legal actions. Commands:
a number chooses; ``save FILE`` writes the game's log (resume it with ``--resume FILE``);
``board`` shows the road again; ``help``; ``quit``. Bad input asks again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from .bots import BOTS, Bot, next_action
from .chance import bot_seed
from .engine import Game
from .events import Action, Event
from .log import dump_log
from .model import GameState, collection_zone, secret_zone
from .views import View, redact

HELP = ("Type the number of an action. Other commands: 'save FILE' writes the log, "
        "'board' shows the road, 'quit' stops.")


def _name(state: GameState, piece: int, you: int) -> str:
    p = state.pieces[piece]
    if p.seat is None:
        return "neutral"
    travellers = state.rules.ruleset.registry.travellers
    t = travellers.get(p.traveller or "")
    label = (t.label or t.name) if t is not None else "no traveller"
    return f"seat {p.seat} ({label}){' - you' if p.seat == you else ''}"


ROAD_COLUMNS = 13
"""Positions drawn side by side in the road strip (5 characters each)."""


def draw_road(view: View) -> list[str]:
    """The stretch of road from the rearmost traveller: each position's number and kind
    (first three letters, ``*`` for a space with a second slot at this player count), and
    under it the travellers there
    by seat number (``N`` the neutral traveller), the first arrival on top."""
    board = view.ruleset.registry.board
    slots = view.ruleset.board_for(sum(1 for p in view.pieces if p.seat is not None))[0]
    start = min(p.position for p in view.pieces)
    end = min(len(board), start + ROAD_COLUMNS)
    at: dict[int, list[tuple[int, str]]] = {}
    for p in view.pieces:
        at.setdefault(p.position, []).append((p.slot, "N" if p.seat is None else str(p.seat)))
    rows = max(len(v) for v in at.values())
    columns = range(start, end)
    lines = [
        "Road  " + " ".join(f"{i:>4}" for i in columns),
        "      " + " ".join(f"{board[i].kind[:3] + ('*' if slots[i] > 1 else ''):>4}"
                            for i in columns),
    ]
    for row in range(rows):
        marks = []
        for i in columns:
            here = sorted(at.get(i, ()))
            marks.append(f"{here[row][1]:>4}" if row < len(here) else "    ")
        lines.append("      " + " ".join(marks).rstrip())
    beyond = sorted({p.position for p in view.pieces if p.position >= end})
    if beyond:
        lines.append(f"      (further along: {', '.join(map(str, beyond))})")
    return lines


def render(view: View, state_for_labels: GameState) -> str:
    """The road and the table as the person's seat sees it."""
    board = view.ruleset.registry.board
    lines = ["", "=" * 72, *draw_road(view), ""]
    for i, p in enumerate(view.pieces):
        cards = view.zones.get(collection_zone(i), ())
        held = view.zone_sizes.get(secret_zone(i), 0)
        extra = f"  secret cards {held}" if held else ""
        lines.append(f"{_name(state_for_labels, i, view.seat):32} at {p.position:2} "
                     f"{board[p.position].kind:10} coins {p.coins:2}  points {p.total:3}  "
                     f"cards {len(cards):2}{extra}")
    mine = view.zones.get(collection_zone(view.seat), ())
    lines.append(f"Your collection: {', '.join(mine) or '-'}")
    secret = view.zones.get(secret_zone(view.seat), ())
    if secret:
        lines.append(f"Your secret cards: {', '.join(secret)}")
    for zone in ("base.village", "base.inn_hand"):
        if view.zones.get(zone):
            lines.append(f"{zone.split('.')[-1].replace('_', ' ').title()}: "
                         f"{', '.join(view.zones[zone])}")
    return "\n".join(lines)


def describe_public(events: Sequence[Event], before: GameState, after: GameState,
                    seat: int) -> str:
    """What ``seat`` may know of a decision by someone else and its effects."""
    from .cli import describe_action, describe_effects

    if not events:
        return ""
    from .events import GameOver

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


def run(game: Game, human: int, bot_names: Sequence[str], seed: int,
        read: Callable[[], str], out: TextIO) -> Game:
    """Play until the end (or ``quit``); return the game as it stands. ``seed`` seeds
    the bots (:func:`bot_seed`): the same seed, the same bots."""
    from .cli import score_table

    bots: dict[int, Bot] = {
        seat: BOTS[bot_names[i % len(bot_names)]](bot_seed(seed, seat))
        for i, seat in enumerate(s for s in range(game.players) if s != human)
    }
    shown_board = False
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        if seat != human:
            before = game
            game = game.apply(next_action(bots[seat], game))
            new = game.events[before.state.seq:]
            print("  " + describe_public(new, before.state, game.state, human), file=out)
            shown_board = False
            continue
        view = game.view(human)
        if not shown_board:
            print(render(view, game.state), file=out)
            shown_board = True
        actions = view.legal_actions
        print("Your decision:", file=out)
        for n, action in enumerate(actions, 1):
            from .cli import describe_action

            print(f"  {n:2}. {describe_action(game.state, action)}", file=out)
        while True:
            out.write("> ")
            out.flush()
            try:
                text = read().strip()
            except EOFError:
                print("\nInput ended; the game is left as it stands.", file=out)
                return game
            if text.isascii() and text.isdigit() and 1 <= int(text) <= len(actions):
                before = game
                game = game.apply(actions[int(text) - 1])
                new = game.events[before.state.seq:]
                print("  " + describe_public(new, before.state, game.state, human), file=out)
                shown_board = False
                break
            if text in ("quit", "q", "exit"):
                print("Stopped. Save first with 'save FILE' to resume later.", file=out)
                return game
            if text in ("board", "b"):
                print(render(view, game.state), file=out)
                continue
            if text.startswith("save "):
                path = text[5:].strip()
                try:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(dump_log(game))
                except OSError as exc:
                    print(f"Cannot write {path}: {exc.strerror}", file=out)
                else:
                    print(f"Saved to {path}; resume with: tokaido play --resume {path}", file=out)
                continue
            if text in ("help", "h", "?"):
                print(HELP, file=out)
                continue
            print(f"Please type a number from 1 to {len(actions)}, or 'help'.", file=out)
    print("\nThe journey is over.\n", file=out)
    print(score_table(game), file=out)
    winners = ", ".join(f"seat {w}" for w in game.winners())
    print(f"\nWinner{'s' if len(game.winners()) > 1 else ''}: {winners}", file=out)
    return game
