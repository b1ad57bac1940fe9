"""Take-backs as safe as the information model (issue #40): with the twin games of the
conformance kit (two games that differ only in one hidden fact), an allowed take-back
lets no seat learn a hidden fact, and whether it is allowed is the same in both twins.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from attrs import evolve

from tokaido_rules import Game, Ruleset, new_game
from tokaido_rules.engine import replay
from tokaido_rules.events import Action, decisions, fold
from tokaido_rules.takeback import TakeBack, check_take_back
from tokaido_rules.testing import Twin, play, twins
from tokaido_rules.views import redact


def _copies(game: Game, start: int, seat: int | None) -> list[Any]:
    """What ``seat`` (``None``: every seat) was shown of the events from ``start`` on."""
    state = replay(game.state.rules, game.seed, game.events[:start])
    out = []
    for event in game.events[start:]:
        state = fold(state, event)
        out.append((event.TYPE, redact(event, state, seat)))
    return out


def _twin_game(game: Game, ruleset: Ruleset, twin: Twin) -> Game:
    setup = evolve(game.state.rules.setup,
                   chance={**game.state.rules.setup.chance, **twin.chance})
    return new_game(game.players, seed=game.seed, plugins=ruleset, setup=setup)


def _public_new(before: Game, after: Game, state: Any) -> tuple[list[Any], Any]:
    """The public copy of the events ``after`` added to ``before`` (``state``: the
    state after ``before``'s events), and the state after them."""
    out = []
    for event in after.events[before.state.seq:]:
        state = fold(state, event)
        out.append((event.TYPE, redact(event, state, None)))
    return out, state


def _compare(ruleset: Ruleset, players: int, seed: int, tally: Counter[str]) -> None:
    """Replay the game's decisions in each twin; after each, every seat's take-back
    answer must be the same in both games as long as no event showed every seat a
    difference, and an allowed one must have shown each seat the same in both."""
    game = play(ruleset, players, seed)
    chosen = decisions(game.events)
    actions: list[Action] = list(chosen)
    for twin in twins(game, seed):
        a = new_game(game.players, seed=game.seed, plugins=ruleset,
                     setup=game.state.rules.setup)
        b = _twin_game(game, ruleset, twin)
        sa = replay(a.state.rules, a.seed, a.events)
        sb = replay(b.state.rules, b.seed, b.events)
        if _copies(a, 0, None) != _copies(b, 0, None):
            continue
        for action in actions:
            if action not in b.legal_actions():
                break  # the games part: a seat saw a difference and chose in it
            a2, b2 = a.apply(action), b.apply(action)
            pa, sa = _public_new(a, a2, sa)
            pb, sb = _public_new(b, b2, sb)
            a, b = a2, b2
            if pa != pb:
                break  # every seat saw a difference (public chance): nothing to compare
            for seat in range(players):
                for undoable in ((), range(len(a.events))):
                    ta, tb = (check_take_back(a, seat, undoable),
                              check_take_back(b, seat, undoable))
                    assert ta == tb, (seed, twin.label, seat, ta, tb)
                    tally["allowed" if ta.allowed else "refused"] += 1
                    if ta.allowed:
                        assert ta.to_seq is not None
                        for viewer in range(players):
                            assert (_copies(a, ta.to_seq, viewer)
                                    == _copies(b, tb.to_seq or 0, viewer)), (
                                f"an allowed take-back showed seat {viewer} a hidden "
                                f"fact (seed {seed}, {twin.label}, by seat {seat})")
                    elif ta.to_seq is not None and any(
                            _copies(a, ta.to_seq, v) != _copies(b, ta.to_seq, v)
                            for v in range(players)):
                        tally["refused, and would have shown a hidden fact"] += 1


@pytest.mark.parametrize(("plugins", "players", "seed"), [
    (["base"], 2, 1), (["base"], 3, 2), (["base", "crossroads"], 2, 3)])
def test_an_allowed_take_back_shows_no_seat_a_hidden_fact(
        plugins: list[str], players: int, seed: int) -> None:
    """In every twin, for every seat after every decision: the same answer, and an
    allowed take-back removes events each seat saw alike in both games. Some are
    allowed, and some refused ones would have shown a seat a hidden fact (the rule is
    not empty either way)."""
    tally: Counter[str] = Counter()
    _compare(Ruleset.build(plugins, {}), players, seed, tally)
    assert tally["allowed"] > 0
    assert tally["refused, and would have shown a hidden fact"] > 0


def _first(ruleset: Ruleset, players: int, seed: int, wanted: str) -> tuple[Game, TakeBack]:
    """The first point of a seeded game where the seat that just decided gets an answer
    whose reason starts with ``wanted`` (``""``: allowed)."""
    found: list[tuple[Game, TakeBack]] = []

    def seen(before: Game, after: Game, action: Action) -> None:
        check = check_take_back(after, action.seat)
        if not found and (check.reason or "").startswith(wanted) and (
                bool(wanted) != check.allowed):
            found.append((after, check))

    play(ruleset, players, seed, seen)
    assert found, f"no take-back answered {wanted!r}"
    return found[0]


def test_the_point_is_before_the_seats_last_decision() -> None:
    """Allowed: the game goes back to the seq of the seat's last decision, which is that
    decision's event, and nothing after it drew chance or touched a hidden zone."""
    ruleset = Ruleset.build(["base"], {})
    game, check = _first(ruleset, 2, 5, "")
    assert check.to_seq is not None
    event = game.events[check.to_seq]
    assert isinstance(event, Action) and event.seat == check.seat
    assert all(e.chance_kind() is None for e in game.events[check.to_seq:])


@pytest.mark.parametrize("why", ["chance was drawn", "cards some seat cannot see moved",
                                 "something was shown to some seats only"])
def test_each_refusal_happens_and_is_said(why: str) -> None:
    ruleset = Ruleset.build(["base"], {})
    _, check = _first(ruleset, 3, 4, why)
    assert not check.allowed and check.reason is not None and why in check.reason


def test_another_persons_decision_since_is_refused_unless_undoable() -> None:
    """A decision of another seat after the seat's last is refused; a caller's undoable
    one (a bot's) is not, when that seat could see nothing the taker could not."""
    ruleset = Ruleset.build(["base"], {})
    game = play(ruleset, 2, 7)
    point = None
    state_game = new_game(2, seed=game.seed, plugins=ruleset)
    for action in decisions(game.events):
        before = state_game.state.seq
        state_game = state_game.apply(action)
        check = check_take_back(state_game, 1 - action.seat)
        if check.reason and check.reason.endswith("has decided since"):
            point = (state_game, check, before)
            break
    assert point is not None
    g, check, seq_other = point
    assert check.reason == f"seat {1 - check.seat} has decided since"
    freed = check_take_back(g, check.seat, {seq_other})
    assert freed.reason is None or not freed.reason.endswith("has decided since")


def test_no_decision_and_over() -> None:
    ruleset = Ruleset.build(["base"], {})
    fresh = new_game(2, seed=3, plugins=ruleset)
    waiting = 1 - (fresh.current_player or 0)
    assert check_take_back(fresh, waiting).reason == (
        f"seat {waiting} has made no decision to take back")
    over = play(ruleset, 2, 3)
    assert check_take_back(over, 0).reason == "the journey is over"
