"""Reproducing a recorded game: every chance outcome scripted, the decisions replayed one
by one, and a clear error at the first decision that is not legal (RULES.md 8)."""

from __future__ import annotations

import pytest

from tokaido_base import BuyMeal, BuySouvenirs, SatsukiMeal
from tokaido_rules import Action, Move, ReproductionError, Setup, SetupError, reproduce

# A short 2-player game written down by hand, as one would transcribe a real one:
# Satsuki (seat 0) and Zen-emon (seat 1); the neutral traveller is piece 2.
RECORD_SETUP = Setup(
    travellers=("satsuki", "zenemon"),
    queue=(0, 2, 1),  # road side first: Zen-emon, last in the queue, leaves first
    stacks={
        "base.souvenirs": ("koma", "sake", "ukiyoe"),
        "base.meals": ("tempura", "dango", "sushi", "udon"),
        "base.hot_springs": ("hot_spring.3",),
    },
    chance={
        "order.base.souvenirs": [("ukiyoe", "koma")],  # the unbought souvenirs go under
        "discard.base.inn_hand": ["sushi"],  # the neutral's random discard at the inn
    },
)
RECORD: list[Action] = [
    Move(1, 1, 1, 0),  # Zen-emon to the village: koma, sake, ukiyoe revealed
    BuySouvenirs(1, 1, ("sake",), "sake"),  # sake for 1 coin (his discount)
    Move(1, 2, 3, 0),  # Zen-emon leads, so he moves the neutral to the encounter
    Move(0, 0, 5, 0),  # Satsuki to the hot spring: a 3
    Move(1, 1, 14, 0),  # Zen-emon first at the inn: tempura, dango, sushi drawn
    BuyMeal(1, 1, "tempura"),
    Move(1, 2, 14, 1),  # the neutral arrives and discards sushi
    Move(0, 0, 14, 2),  # Satsuki arrives last and draws udon for free
    SatsukiMeal(0, 0, True),
]


def test_a_scripted_record_is_reproduced_exactly() -> None:
    """With every chance outcome scripted, the record gives exact coins, cards, points."""
    game = reproduce(2, RECORD, setup=RECORD_SETUP)
    satsuki, zenemon, neutral = game.state.pieces
    assert (satsuki.coins, zenemon.coins) == (2, 6 - 1 - 2)
    assert game.state.collection(0) == ("hot_spring.3", "udon")
    assert game.state.collection(1) == ("sake", "tempura")
    assert (satsuki.total, zenemon.total) == (3 + 6, 1 + 6)
    assert [p.position for p in (satsuki, zenemon, neutral)] == [14, 14, 14]
    assert game.state.zone("base.souvenirs")[-2:] == ("ukiyoe", "koma")
    assert game.state.zone("base.meals")[-2:] == ("sushi", "dango")  # discard, then the rest
    assert game.state.zone("base.inn_hand") == ()
    assert game.current_player == 0  # the last to arrive leaves first


def test_the_first_illegal_decision_is_named() -> None:
    """A decision that does not fit the record stops the reproduction with its index."""
    wrong = [*RECORD[:5], BuyMeal(1, 1, "udon"), *RECORD[6:]]
    with pytest.raises(ReproductionError) as info:
        reproduce(2, wrong, setup=RECORD_SETUP)
    assert info.value.index == 5
    assert info.value.decision == BuyMeal(1, 1, "udon")
    assert "decision 5" in str(info.value) and "not in the inn's hand" in str(info.value)
    assert "buy tempura" in str(info.value)  # what was legal instead
    assert info.value.game.state.seq < reproduce(2, RECORD, setup=RECORD_SETUP).state.seq


def test_a_wrong_script_is_a_setup_error() -> None:
    """A scripted outcome that cannot happen (a card not in the hand) is refused."""
    bad = Setup(RECORD_SETUP.travellers, RECORD_SETUP.queue, RECORD_SETUP.stacks,
                chance={"discard.base.inn_hand": ["fugu"]})
    with pytest.raises(SetupError, match="fugu"):
        reproduce(2, RECORD, setup=bad)


def test_a_scripted_order_that_does_not_fit_fails_where_it_is_used() -> None:
    """A scripted ``order.<deck>`` outcome is checked when it is used: one that is not an
    order of the cards going under the deck there is a ``SetupError`` naming the chance
    kind, the cards expected and the seq, not an error at some later decision."""
    setup = Setup(travellers=RECORD_SETUP.travellers, queue=RECORD_SETUP.queue,
                  stacks=RECORD_SETUP.stacks,
                  chance={"order.base.souvenirs": [("ukiyoe", "sake")]})  # sake is bought
    with pytest.raises(SetupError) as caught:
        reproduce(2, RECORD[:2], setup=setup)
    message = str(caught.value)
    assert "'order.base.souvenirs'" in message
    assert "['ukiyoe', 'sake'] is not an order of ['koma', 'ukiyoe']" in message
    assert "at seq" in message


def test_a_scripted_pick_that_does_not_fit_names_the_seq() -> None:
    """A scripted pick (the neutral's discard) that is not one of the cards at hand fails
    where it is used, naming the seq."""
    setup = Setup(travellers=RECORD_SETUP.travellers, queue=RECORD_SETUP.queue,
                  stacks=RECORD_SETUP.stacks,
                  chance={"discard.base.inn_hand": ["fugu"]})
    with pytest.raises(SetupError, match=r"'fugu' is not one of .* \(at seq \d+\)"):
        reproduce(2, RECORD, setup=setup)
