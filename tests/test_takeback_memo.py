"""The take-back answers a table carries from seq to seq (:class:`CheckMemo`) are the
answers of :func:`check_take_back` made afresh, reasons included: over whole games of
every built-in plugin, at every seq, for every seat, with bots' decisions that may be
undone with a seat's own, and with take-backs (issue #43)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tokaido_rules import Game, Ruleset, new_game
from tokaido_rules.engine import replay
from tokaido_rules.model import GameState
from tokaido_rules.tables import Lobby
from tokaido_rules.takeback import CheckMemo, TakeBack, check_take_back
from tokaido_rules.wire import encode_action

EVERY_PLUGIN = ("base", "crossroads", "good-luck", "rare-and-precious", "new-encounters",
                "initiation", "return-journey", "gastronomy", "preparations")
RULESETS = [("base",), EVERY_PLUGIN, ("base", "crossroads", "bga", "gastronomy",
                                      "new-encounters")]
KEPT = 12  # as many states as a table keeps


def _kind(answer: TakeBack) -> str:
    """The kind of an answer, for the tally: allowed, or the reason without names."""
    reason = answer.reason
    if reason is None:
        return "allowed"
    for kind in ("has decided since", "decided since, seeing", "chance was drawn",
                 "cards some seat cannot see", "a value some seat cannot see",
                 "shown to some seats only", "no decision", "journey is over"):
        if kind in reason:
            return kind
    return reason


def _walk(plugins: tuple[str, ...], players: int, seed: int, tally: Counter[str]) -> None:
    """One game of random decisions, some seats bots, some take-backs: after every
    decision (and every take-back), each seat's carried answer equals the fresh one."""
    ruleset = Ruleset.build(list(plugins))
    rng = random.Random(seed)
    game = new_game(players, seed=seed, plugins=ruleset)
    bots = {s for s in range(players) if s % 2 == 1}  # their decisions may be undone
    undoable: set[int] = set()
    kept: dict[int, GameState] = {game.state.seq: game.state}
    memo, carried = CheckMemo(), CheckMemo()  # carried: never made anew by the caller
    takebacks = 0

    def compare() -> list[TakeBack]:
        answers = []
        for seat in range(players):
            fresh = check_take_back(game, seat, undoable)
            assert check_take_back(game, seat, undoable, kept) == fresh
            got = memo.check(game, seat, undoable, kept)
            assert got == fresh, (plugins, seed, game.state.seq, seat, got, fresh)
            if not game.is_over:  # asked again: the same answer, not made again
                assert memo.check(game, seat, undoable, kept) is got
            assert carried.check(game, seat, undoable) == fresh
            tally[_kind(fresh)] += 1
            answers.append(fresh)
        return answers

    answers = compare()
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        if seat in bots:
            undoable.add(game.state.seq)
        game = game.apply(rng.choice(game.legal_actions()))
        kept[game.state.seq] = game.state
        while len(kept) > KEPT:
            del kept[next(iter(kept))]
        answers = compare()
        allowed = [a for a in answers if a.allowed and a.seat not in bots]
        if allowed and takebacks < 6 and rng.random() < 0.4:
            to = allowed[0].to_seq
            assert to is not None
            events = game.events[:to]
            game = Game(replay(game.state.rules, game.seed, events), events)
            undoable = {q for q in undoable if q < to}
            kept = {to: game.state}
            memo = CheckMemo()  # as a table makes one at a take-back
            takebacks += 1
            tally["take-back"] += 1
            answers = compare()
    compare()


@pytest.mark.parametrize("plugins", RULESETS, ids="+".join)
@pytest.mark.parametrize("players", [3, 4])
def test_carried_answers_equal_fresh_ones(plugins: tuple[str, ...], players: int) -> None:
    tally: Counter[str] = Counter()
    for seed in (1, 2):
        _walk(plugins, players, seed, tally)
    assert tally["allowed"] > 0 and tally["take-back"] > 0
    assert tally["has decided since"] > 0 and tally["no decision"] > 0
    assert tally["decided since, seeing"] > 0
    assert tally["journey is over"] > 0
    assert sum(tally[k] for k in ("chance was drawn", "cards some seat cannot see",
                                  "a value some seat cannot see",
                                  "shown to some seats only")) > 0


def test_a_tables_answers_equal_fresh_ones_through_bots_and_take_backs() -> None:
    """A table (two people, two bots, take-backs without consent) answers every seat
    as :func:`check_take_back` does afresh with the bots' decisions undoable, after
    each move and each take-back."""
    lobby = Lobby(None)
    table, _ = lobby.create(4, ["base"], bots={1: "random", 3: "random"}, seed=5,
                            takeback="none")
    for seat in (0, 2):
        table.join(seat)
    rng = random.Random(5)
    done = 0
    while not table.game.is_over:
        game = table.game
        undoable = {d.seq for d in table.decisions() if d.played_by.startswith("bot:")}
        for seat in (0, 2):
            assert table.take_back_check(seat) == check_take_back(game, seat, undoable)
        mover = game.current_player
        assert mover in (0, 2)
        ours = [s for s in (0, 2) if table.take_back_check(s).allowed]
        if ours and done < 4 and rng.random() < 0.3:
            assert table.ask_take_back(ours[0])["done"] is True
            done += 1
            continue
        table.act(mover, {"action": encode_action(rng.choice(game.legal_actions())),
                          "expected_seq": game.state.seq})
    assert done == 4
