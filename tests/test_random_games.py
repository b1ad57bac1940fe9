"""Random complete games at every player count, checked at every step (RULES.md 1-3).

Each game is played by a seeded random bot. After every decision the test checks:
legal actions are non-empty until the end and strictly sorted; a random illegal action
is rejected and leaves the game unchanged; coins are never negative; cards are conserved
(the zones always hold exactly the box contents); plugin invariants hold; the fold of
the new events gives the new state; and the game ends.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tokaido_rules import (
    Action,
    Game,
    IllegalActionError,
    Move,
    Ruleset,
    fold,
    new_game,
    replay,
)
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.testing import box_contents, held_cards

GAMES_PER_COUNT = 200
MAX_DECISIONS = 600


@pytest.fixture(scope="module")
def ruleset() -> Ruleset:
    return Ruleset.build(["base"])


def illegal_variant(game: Game, seed: int) -> Action:
    """An action that is not legal now: a move by a wrong seat, or past the next inn."""
    step = game.current_step
    assert step is not None
    seat = step.seat if step.seat is not None else 0
    if seed % 2:
        return Move((seat + 1) % game.players, step.piece, 54, 0)
    past_inn = game.state.rules.next_inn[game.state.pieces[step.piece].position] + 1
    return Move(seat, step.piece, past_inn, 0)


def play_checked(players: int, seed: int, ruleset: Ruleset) -> Game:
    game = new_game(players, seed=seed, plugins=ruleset)
    bot = RandomBot(seed)
    contents = box_contents(game)
    decisions = 0
    while not game.is_over:
        actions = game.legal_actions()
        assert actions, "no legal action before the end"
        keys = [a.sort_key() for a in actions]
        assert keys == sorted(keys) and len(set(actions)) == len(actions)
        bad = illegal_variant(game, seed + decisions)
        if bad not in actions:
            before = game.state
            with pytest.raises(IllegalActionError):
                game.apply(bad)
            assert game.state is before and game.state.seq == before.seq
        previous = game
        game = game.apply(next_action(bot, game))
        decisions += 1
        assert decisions < MAX_DECISIONS, "the game does not end"
        state = previous.state
        for event in game.events[previous.state.seq:]:
            state = fold(state, event)
        assert state == game.state
        assert all(p.coins >= 0 for p in game.state.pieces)
        assert held_cards(game) == contents
        assert game.ruleset.hooks.invariants(game.state) == []
    assert game.legal_actions() == ()
    assert game.current_player is None
    assert replay(game.state.rules, game.seed, game.events) == game.state
    return game


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_are_legal_and_end(players: int, ruleset: Ruleset) -> None:
    """Every random game ends with all travellers at Edo and passes the step checks."""
    seen: Counter[str] = Counter()
    for seed in range(GAMES_PER_COUNT):
        game = play_checked(players, seed, ruleset)
        end = game.state.rules.end
        assert all(p.position == end for p in game.state.pieces)
        scores = game.scores()
        assert len(scores) == players
        assert min(s.rank for s in scores) == 1
        seen.update(s.traveller or "" for s in scores)
    # Every traveller is dealt many times over the batch.
    assert set(seen) == set(ruleset.registry.travellers)
    assert min(seen.values()) >= GAMES_PER_COUNT * players // 20


def test_same_seed_same_actions_same_events(ruleset: Ruleset) -> None:
    """A game is a function of its seed and actions: identical event sequences."""
    def play(seed: int) -> Game:
        game = new_game(4, seed=seed, plugins=ruleset)
        bot = RandomBot(99)
        while not game.is_over:
            game = game.apply(next_action(bot, game))
        return game

    assert play(5).events == play(5).events
    assert play(5).events != play(6).events
