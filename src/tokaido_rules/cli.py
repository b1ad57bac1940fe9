"""The ``tokaido`` command line.

Bad input prints one line ``error: ...`` on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .bots import RandomBot
from .engine import Game, new_game
from .errors import TokaidoError
from .events import CardsMoved, CoinsChanged, Event, GameOver, Move, Scored
from .model import COLLECTION, GameState, collection_zone
from .ruleset import Ruleset

BOT_SALT = 0x5EED_B075


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _parse_options(items: Sequence[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _UsageError(f"--option takes PLUGIN.NAME=VALUE, got {item!r}")
        options[name] = value
    return options


def _build_parser() -> _Parser:
    parser = _Parser(prog="tokaido", description="Play and inspect games of Tokaido.")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play a complete game with random legal choices")
    sim.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    sim.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    sim.add_argument("--plugins", default="base", help="comma-separated plugin ids")
    sim.add_argument("--option", action="append", default=[], metavar="PLUGIN.NAME=VALUE",
                     help="a rule option (repeatable)")
    sim.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def _label(state: GameState, piece: int) -> str:
    p = state.pieces[piece]
    if p.seat is None:
        return "neutral"
    traveller = state.rules.registry.travellers.get(p.traveller or "")
    name = traveller.label or traveller.name if traveller else "?"
    return f"seat {p.seat} ({name})"


def describe_action(state: GameState, action: Any) -> str:
    """One line for a decision, in the words of the table."""
    if isinstance(action, Move):
        space = state.rules.board[action.position]
        who = _label(state, action.piece)
        by = f" [moved by seat {action.seat}]" if state.pieces[action.piece].seat is None else ""
        return f"{who} moves to {action.position} ({space.kind}){by}"
    return str(action)


def describe_effects(events: Sequence[Event], state: GameState) -> str:
    """A short summary of what followed a decision: coins, points, cards gained."""
    parts: list[str] = []
    for ev in events:
        if isinstance(ev, CoinsChanged):
            parts.append(f"{'+' if ev.delta > 0 else ''}{ev.delta} coins")
        elif isinstance(ev, Scored):
            parts.append(f"{'+' if ev.points > 0 else ''}{ev.points} {ev.category}")
        elif isinstance(ev, CardsMoved) and ev.dst.startswith(COLLECTION + "."):
            parts.append(f"gets {', '.join(ev.cards)}")
    return "; ".join(parts)


def play_random(game: Game, seed: int) -> tuple[Game, list[tuple[int, str]]]:
    """Play to the end with one random bot per seat; return the game and journey lines."""
    bots = [RandomBot(seed ^ BOT_SALT ^ (seat * 0x9E3779B9)) for seat in range(game.players)]
    lines: list[tuple[int, str]] = []
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        action = bots[seat].choose(game)
        before = game.state
        start = before.seq
        nxt = game.apply(action)
        new = nxt.events[start + 1:]
        end = next((i for i, e in enumerate(new) if isinstance(e, GameOver)), len(new))
        effects = describe_effects(new[:end], nxt.state)
        lines.append((seat, describe_action(before, action) + (f": {effects}" if effects else "")))
        if end < len(new):
            lines.append((-1, "end of the journey: " + describe_effects(new[end:], nxt.state)))
        game = nxt
    return game, lines


def result_document(game: Game, decisions: int) -> dict[str, Any]:
    state = game.state
    return {
        "plugins": list(game.ruleset.ids),
        "options": dict(game.ruleset.options),
        "seed": game.seed,
        "players": [
            {
                "seat": s.seat,
                "traveller": s.traveller,
                "score": s.total,
                "rank": s.rank,
                "categories": dict(s.categories),
                "coins": state.pieces[s.seat].coins,
                "cards": len(state.zone(collection_zone(s.seat))),
            }
            for s in game.scores()
        ],
        "winners": list(game.winners()),
        "decisions": decisions,
        "events": len(game.events),
    }


def score_table(game: Game) -> str:
    cats = list(game.ruleset.registry.categories)
    labels = game.ruleset.registry.categories
    headers = ["seat", "traveller", *[labels[c] for c in cats], "total", "rank"]
    rows = [
        [str(s.seat), s.traveller or "-", *[str(s.categories[c]) for c in cats], str(s.total),
         str(s.rank)]
        for s in game.scores()
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:>{w}}}" for w in widths)
    out = [fmt.format(*headers), fmt.format(*["-" * w for w in widths])]
    out.extend(fmt.format(*r) for r in rows)
    return "\n".join(out)


def _simulate(args: argparse.Namespace) -> int:
    plugins = [p.strip() for p in args.plugins.split(",") if p.strip()]
    if not plugins:
        raise _UsageError("--plugins needs at least one plugin id")
    ruleset = Ruleset.build(plugins, _parse_options(args.option))
    game = new_game(args.players, seed=args.seed, plugins=ruleset)
    game, lines = play_random(game, args.seed)
    if args.format == "json":
        decisions = sum(1 for seat, _ in lines if seat >= 0)
        print(json.dumps(result_document(game, decisions), indent=2))
        return 0
    print(f"Tokaido: {args.players} players, seed {args.seed}, plugins {','.join(ruleset.ids)}")
    n = 0
    for seat, text in lines:
        if seat < 0:
            print(f"      {text}")
        else:
            n += 1
            print(f"{n:4d}. {text}")
    print()
    print(score_table(game))
    winners = ", ".join(f"seat {w}" for w in game.winners())
    print(f"\nWinner{'s' if len(game.winners()) > 1 else ''}: {winners}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _build_parser().parse_args(argv)
        if args.command == "simulate":
            return _simulate(args)
        raise _UsageError(f"unknown command {args.command!r}")
    except (_UsageError, TokaidoError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _entry() -> NoReturn:
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # output piped into a program that stopped reading
        status = 0
    sys.exit(status)


if __name__ == "__main__":  # pragma: no cover
    _entry()
