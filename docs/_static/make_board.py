"""Draw the documentation's picture of a board: a 4-player Crossroads game half way,
played by bots from a fixed seed (greedy ones at seats 0 and 2, random ones at 1 and
3), so the picture is the same at every run.

Run it from the repository (``python docs/_static/make_board.py``) after a change to
the pictures (:mod:`tokaido_rules.render`); it writes ``board.svg`` beside itself.
"""

from __future__ import annotations

from pathlib import Path

from tokaido_rules import new_game, render
from tokaido_rules.bots import GreedyBot, RandomBot, next_action
from tokaido_rules.chance import bot_seed

SEED = 2024
DECISIONS = 107
"""How far the bots play: past the second inn, two travellers sharing a double space,
one holding an amulet."""


def board() -> str:
    game = new_game(4, seed=SEED, plugins=("base", "crossroads"))
    bots = [(GreedyBot if seat % 2 == 0 else RandomBot)(bot_seed(SEED, seat))
            for seat in range(4)]
    for _ in range(DECISIONS):
        seat = game.current_player
        assert seat is not None
        game = game.apply(next_action(bots[seat], game))
    return render.svg(game)


if __name__ == "__main__":
    Path(__file__).with_name("board.svg").write_text(board() + "\n", encoding="utf-8")
