"""The core: immutability, errors that leave games untouched, setup checks, chance."""

from __future__ import annotations

import gc
import sys
import weakref

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scenario import move, start
from tokaido_rules import (
    FrozenMap,
    Game,
    GameState,
    IllegalActionError,
    Move,
    Piece,
    Ruleset,
    Setup,
    SetupError,
    chance,
    new_game,
    replay,
)
from tokaido_rules.chance import draw_below, event_stream, random_below, shuffle


def test_apply_returns_a_new_game_and_keeps_the_old_one() -> None:
    """Old states stay valid: applying an action never changes the game it is applied to."""
    game = start(["kinko", "satsuki", "hiroshige"])
    state, events = game.state, game.events
    after = move(game, 7)
    assert game.state is state and game.events == events
    assert after.state != state
    assert after.events[: len(events)] == events


def test_state_is_frozen() -> None:
    """State objects and their maps refuse mutation."""
    game = start(["kinko", "satsuki", "hiroshige"])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        game.state.seq = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        game.state.zones["base.meals"] = ()
    with pytest.raises(TypeError):
        FrozenMap({"a": 1}).update({"b": 2})
    assert FrozenMap({"a": 1}).set("b", 2) == {"a": 1, "b": 2}
    assert hash(FrozenMap({"a": 1})) == hash(FrozenMap({"a": 1}))


def test_fast_replace_copies_every_field() -> None:
    """GameState.replace and Piece.replace know every field (none silently dropped)."""
    game = start(["kinko", "satsuki", "hiroshige"])
    state = game.state
    assert state.replace() == state
    for f in attrs.fields(GameState):
        assert getattr(state.replace(), f.name) is getattr(state, f.name)
    piece = state.pieces[0]
    for f in attrs.fields(Piece):
        assert getattr(piece.replace(), f.name) is getattr(piece, f.name)


def test_replace_refuses_unknown_fields_and_leaves_the_original() -> None:
    """A misspelt field is an error, not a silent extra attribute; copies are new objects
    and the original keeps its values."""
    game = start(["kinko", "satsuki", "hiroshige"])
    state = game.state
    with pytest.raises(TypeError, match=r"GameState has no field\(s\) \['coin'\]"):
        state.replace(coin=3)
    with pytest.raises(TypeError, match=r"Piece has no field\(s\) \['coin'\]"):
        state.pieces[0].replace(coin=3)
    moved = state.replace(turn=state.turn + 5)
    assert moved is not state and moved.turn == state.turn + 5
    assert game.state.turn == moved.turn - 5
    richer = state.with_piece(0, coins=99)
    assert richer.pieces[0].coins == 99 and state.pieces[0].coins != 99
    assert richer.pieces[1] is state.pieces[1]


def test_wrong_seat_is_rejected_with_reason() -> None:
    """An action by a seat whose decision it is not raises IllegalActionError."""
    game = start(["kinko", "satsuki", "hiroshige"])
    assert game.current_player == 2
    with pytest.raises(IllegalActionError, match="seat 2's decision"):
        game.apply(Move(0, 2, 7, 0))


def test_non_action_is_rejected() -> None:
    """Anything that is not an action object is rejected, not crashed on."""
    game = start(["kinko", "satsuki", "hiroshige"])
    with pytest.raises(IllegalActionError, match="not an action"):
        game.apply("move to 7")  # type: ignore[arg-type]


def test_finished_game_rejects_actions() -> None:
    """After the end there is no current player and every action is rejected."""
    game = new_game(2, seed=3)
    while not game.is_over:
        game = game.apply(game.legal_actions()[0])
    assert game.current_player is None and game.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(Move(0, 0, 1, 0))


def test_events_fold_to_the_state() -> None:
    """The state is the fold of the events from the initial state."""
    game = new_game(3, seed=11)
    for i in range(40):
        actions = game.legal_actions()
        game = game.apply(actions[i % len(actions)])
    assert replay(game.state.rules, game.seed, game.events) == game.state
    assert game.state.seq == len(game.events)


def test_a_game_keeps_its_events_but_not_the_earlier_states() -> None:
    """A simulation holds only its newest game: the states of earlier games are freed
    (memory per game does not grow with its length), yet every game, old or new, still
    lists all its events, in order."""
    first = new_game(4, seed=5)
    game = first
    for i in range(30):
        actions = game.legal_actions()
        game = game.apply(actions[i % len(actions)])
        if i == 10:
            middle = game
    gone = weakref.ref(middle.state)
    middle_events = middle.events
    del middle
    gc.collect()  # PyPy frees only when it collects
    assert gone() is None  # the newest game does not hold it
    assert game.events[:len(middle_events)] == middle_events
    assert game.events[:len(first.events)] == first.events
    assert replay(game.state.rules, game.seed, game.events) == game.state
    assert len(game.events) == game.state.seq


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1}, "players must be 2 to 5"),
        ({"players": 6}, "players must be 2 to 5"),
        ({"players": True}, "players must be 2 to 5"),
        ({"players": 3, "seed": -1}, "seed"),
        ({"players": 3, "seed": "x"}, "seed"),
        ({"players": 3, "travellers": ["kinko"]}, "3 names needed"),
        ({"players": 2, "travellers": ["kinko", "nobody"]}, "unknown traveller"),
        ({"players": 2, "travellers": ["kinko", "kinko"]}, "once"),
        ({"players": 2, "setup": Setup(queue=(0, 1))}, "queue"),
        ({"players": 2, "setup": Setup(stacks={"base.nope": ("koma",)})}, "unknown deck"),
        ({"players": 2, "setup": Setup(stacks={"base.souvenirs": ("koma", "koma")})}, "koma"),
        ({"players": 2, "setup": Setup(coins={5: 3})}, "no seat"),
        ({"players": 2, "setup": Setup(coins={0: -1})}, "cannot start"),
    ],
)
def test_bad_setup_raises_setup_error(kwargs: dict[str, object], message: str) -> None:
    """Bad game parameters raise SetupError (a ValueError) naming the problem."""
    with pytest.raises(SetupError, match=message):
        new_game(**kwargs)  # type: ignore[arg-type]


def test_stacked_deck_and_start_coins() -> None:
    """Stacked cards are on top in order; the rest of the deck is unchanged in content."""
    game = start(["kinko", "satsuki"], stacks={"base.souvenirs": ["ukiyoe", "koma"]},
                 coins={0: 0, 1: 12})
    deck = game.state.zone("base.souvenirs")
    assert deck[:2] == ("ukiyoe", "koma") and len(deck) == 24
    assert [p.coins for p in game.state.pieces] == [0, 12, 0]


def test_scripted_shuffle_and_queue() -> None:
    """Chance outcomes can be scripted by kind: a deck order and the start queue."""
    order = ("hot_spring.3",) * 6 + ("hot_spring.2",) * 6
    game = new_game(3, setup=Setup(travellers=("kinko", "satsuki", "umegae"), queue=(2, 0, 1),
                                   chance={"shuffle.base.hot_springs": [order]}))
    assert game.state.zone("base.hot_springs") == order
    assert [p.slot for p in game.state.pieces] == [1, 2, 0]
    assert game.current_player == 1  # last in the queue moves first


def test_bad_script_is_a_setup_error() -> None:
    """A scripted outcome that is not possible is refused."""
    with pytest.raises(SetupError, match="not an order"):
        new_game(2, setup=Setup(chance={"shuffle.base.hot_springs": [("hot_spring.2",)]}))


def test_generator_output_is_specified() -> None:
    """The generator's values are fixed by the project, whatever the Python version."""
    values = [random_below(2024, seq, draw, 1000) for seq in range(3) for draw in range(3)]
    assert values == PINNED
    with pytest.raises(ValueError, match="n >= 1"):
        random_below(1, 0, 0, 0)


PINNED = [564, 306, 149, 490, 350, 341, 894, 958, 141]


def test_shuffle_is_fisher_yates_on_the_specified_draws() -> None:
    """chance.shuffle swaps item i (last first) with the one at draw_below(stream, d, i + 1),
    counting draws d up from the given one, and returns the next draw number."""
    stream = event_stream(7, 3)
    expected = list(range(10))
    draw = 4
    for i in range(9, 0, -1):
        j = draw_below(stream, draw, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
        draw += 1
    items = list(range(10))
    assert shuffle(items, stream, 4) == 13
    assert items == expected
    assert shuffle(one := ["x"], stream, 2) == 2 and one == ["x"]


_WORD = 2**64
_EDGES = st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, _WORD - 1])


@given(seed=st.integers(0, _WORD - 1) | _EDGES | st.integers(-(2**70), 2**70),
       seq=st.integers(0, 2**40), draw=st.integers(0, 10_000),
       n=st.integers(1, _WORD) | _EDGES.filter(bool) | st.integers(1, 100),
       size=st.integers(0, 60))
def test_machine_word_route_gives_the_specified_numbers(seed: int, seq: int, draw: int,
                                                        n: int, size: int) -> None:
    """The generator's machine-word route (PyPy's, there with its real word operations,
    here with a model of them) gives exactly the numbers of the big-integer route that
    specifies it, for every seed, range and shuffle length."""
    stream = chance._big_event_stream(seed, seq)
    assert chance._word_event_stream(seed, seq) == stream
    assert chance._word_draw_below(seed, draw, n) == chance._big_draw_below(seed, draw, n)
    assert chance._word_draw_below(stream, draw, n) == chance._big_draw_below(stream, draw, n)
    big, word = list(range(size)), list(range(size))
    assert chance._word_shuffle(word, stream, draw) == chance._big_shuffle(big, stream, draw)
    assert word == big


def test_pypy_runs_the_machine_word_route() -> None:
    """PyPy uses its word operations (ten times faster there); CPython the big integers."""
    on_pypy = sys.implementation.name == "pypy"
    assert chance._MACHINE_WORDS is on_pypy
    assert (event_stream, draw_below, shuffle) == (
        (chance._word_event_stream, chance._word_draw_below, chance._word_shuffle) if on_pypy
        else (chance._big_event_stream, chance._big_draw_below, chance._big_shuffle))
    with pytest.raises(ValueError, match="n >= 1"):
        chance._word_draw_below(1, 0, 0)


def test_deck_census_counts_every_deck_card_once() -> None:
    """Registry.deck_census: each card of the decks once, sorted, with its home deck
    and its number of copies."""
    registry = Ruleset.build(["base"]).registry
    census = registry.deck_census()
    assert [c for c, _, _ in census] == sorted({c for s in registry.decks.values()
                                               for c in s.cards})
    assert all(home == registry.home_deck(c) for c, home, _ in census)
    assert sum(n for _, _, n in census) == sum(len(s.cards) for s in registry.decks.values())


def test_same_seed_same_game() -> None:
    """Same seed and same actions give identical events and states."""
    def play(seed: int) -> Game:
        game = new_game(4, seed=seed)
        for i in range(60):
            actions = game.legal_actions()
            game = game.apply(actions[i % len(actions)])
        return game

    a, b = play(8), play(8)
    assert a.events == b.events and a.state == b.state
    assert play(9).events != a.events


def test_a_refused_move_says_why_and_changes_nothing() -> None:
    """A move the rules refuse raises an IllegalActionError naming the rule it breaks
    (backwards, past the next inn, onto a full space, another slot than the free one, a
    stop a rule forbids), and the game is unchanged. Three players: every road space has
    one slot; nobody has a coin, so temples and villages are closed."""
    game = start(["hiroshige", "kinko", "mitsukuni"], queue=[0, 1, 2],
                 coins={0: 0, 1: 0, 2: 0})
    game = move(game, 4)  # the first traveller takes the paddy field at 4
    step = game.current_step
    assert step is not None and step.seat is not None
    seat, piece = step.seat, step.piece

    def refused(position: int, slot: int = 0) -> str:
        with pytest.raises(IllegalActionError) as info:
            game.apply(Move(seat, piece, position, slot))
        return str(info.value)

    before = game.state
    assert refused(0) == "a move goes forward: 0 is not past 0"
    assert refused(15) == "a move never passes the next inn (14): 15 is past it"
    assert refused(4) == "position 4 is full"
    assert refused(5, 1) == "the free slot at 5 is 0, not 1"
    assert refused(2) == "cannot stop at 2: stopping at a temple needs at least 1 coin"
    assert refused(8) == "cannot stop at 8: stopping at a village needs at least 1 coin"
    assert game.state is before
    assert Move(seat, piece, 5, 0) in game.legal_actions()
    assert all(m.position not in (2, 4, 8, 9) for m in game.legal_actions()
               if isinstance(m, Move))
