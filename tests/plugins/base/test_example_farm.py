"""Farm: gain 3 coins (RULES.md 3.3)."""

from __future__ import annotations

from scenario import coins, move, start


def test_farm_gives_three_coins_and_next_rearmost_moves() -> None:
    # Queue (0, 1, 2, 3): piece 3 is last in the queue, so it moves first.
    game = start(["hiroshige", "chuubei", "kinko", "yoshiyasu"])
    assert game.current_player == 3
    before = coins(game, 3)
    game = move(game, 7)  # position 7 is a Farm
    assert coins(game, 3) == before + 3
    # Piece 2 is now the rearmost (at Kyoto, furthest from the road of those left).
    assert game.current_player == 2
