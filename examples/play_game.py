"""Play one complete game of Tokaido through the tokaido-rules API and print the table.

Run: ``python examples/play_game.py``. Four bots play the base game with the Crossroads
expansion; each bot sees only its own seat's view. The game is seeded, so the output is
the same on every run.
"""

from __future__ import annotations

from tokaido_rules import Game, new_game
from tokaido_rules.bots import Bot, GreedyBot, RandomBot, next_action

PLAYERS = 4
SEED = 2024
PLUGINS = ("base", "crossroads")


def play(game: Game, bots: list[Bot]) -> tuple[Game, int]:
    """Ask the bot of the deciding seat for an action until the game is over."""
    decisions = 0
    while not game.is_over:
        seat = game.current_player  # the seat that decides now (never None before the end)
        assert seat is not None
        game = game.apply(next_action(bots[seat], game))  # a new game; the old one is intact
        decisions += 1
    return game, decisions


def print_table(game: Game) -> None:
    """One column per seat, one row per score category, then the total and the rank."""
    scores = game.scores()
    labels = game.ruleset.registry.categories  # category -> label, from the plugins
    width = max(len(label) for label in labels.values()) + 2
    print("".ljust(width) + "".join(f"{'seat ' + str(s.seat):>12}" for s in scores))
    print("Traveller".ljust(width) + "".join(f"{s.traveller or '-':>12}" for s in scores))
    for category, label in labels.items():
        row = [s.categories[category] for s in scores]
        if any(row):  # categories nobody scored in are left out
            print(label.ljust(width) + "".join(f"{points:>12}" for points in row))
    print("Total".ljust(width) + "".join(f"{s.total:>12}" for s in scores))
    print("Rank".ljust(width) + "".join(f"{s.rank:>12}" for s in scores))


def main() -> None:
    game = new_game(PLAYERS, seed=SEED, plugins=PLUGINS)
    # Greedy bots at seats 0 and 2, random ones at seats 1 and 3, each with its own seed
    # (bots never draw from the game's random generator).
    bots: list[Bot] = [GreedyBot(1), RandomBot(2), GreedyBot(3), RandomBot(4)]
    game, decisions = play(game, bots)
    print(f"{PLAYERS} players, plugins {', '.join(game.ruleset.ids)}, seed {SEED}")
    print(f"{decisions} decisions, {len(game.events)} events\n")
    print_table(game)
    winners = game.winners()  # several seats in a shared victory
    names = ", ".join(f"seat {seat}" for seat in winners)
    print(f"\n{'Winner' if len(winners) == 1 else 'Shared victory'}: {names}")


if __name__ == "__main__":
    main()
