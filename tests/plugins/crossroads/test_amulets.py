"""Crossroads amulets (RULES.md 5.5) and their rulings in sections 7, 8 and 9.

Amulets are given quickly through the Good Luck variant (usable from the first move, 9),
with the amulet scripted, or taken at a temple with the Crossroads option (5.3).
Piece 0 (Mitsukuni, whose power only concerns hot springs and achievements) is the
traveller under test; piece 1 is Yoshiyasu; in 2-player games piece 2 is the neutral.
With ``queue=(1, 2, 0)`` piece 0 leaves Kyoto first, then the neutral, then piece 1.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from scenario import act, coins, collection, legal, lucky, move, moving_piece, points, start
from tokaido_base import BuyMeal, BuySouvenirs, Donate, SatsukiMeal
from tokaido_crossroads import (
    BuyLegendary,
    DieRolled,
    FriendshipMove,
    HospitalityMeal,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseDevotion,
    UseFortune,
    UseVitality,
)
from tokaido_rules import Action, Game, Move, Step, dump_log

CROSSROADS = ("base", "crossroads")
GOOD_LUCK = ("base", "crossroads", "good-luck")
TWO = ["mitsukuni", "yoshiyasu"]
FOUR = ["mitsukuni", "yoshiyasu", "umegae", "zenemon"]
FIRST = (1, 2, 0)  # 2 players: piece 0 leaves Kyoto first, then the neutral, then piece 1
PILE = "crossroads.amulets"
DONATION = "base.donation"
DIE = "die.crossroads.fortune"
ANY_TIME = {"crossroads.fortune_timing": "any_time_in_turn"}
MEALS3 = ["tempura", "dango", "unagi"]


# --- helpers ----------------------------------------------------------------------------


def step(game: Game) -> Step:
    current = game.current_step
    assert current is not None
    return current


def kind(game: Game) -> str:
    return step(game).kind


def positions(game: Game, cls: type[Move] = Move) -> list[int]:
    """The positions of the legal moves of exactly type ``cls``."""
    return sorted(a.position for a in game.legal_actions() if type(a) is cls)


def donated(game: Game, piece: int) -> int:
    return game.state.pieces[piece].counter(DONATION)


def log_lines(game: Game, viewer: int) -> list[dict[str, Any]]:
    """The event entries of ``viewer``'s copy of the log (the header line skipped)."""
    lines = (json.loads(line) for line in dump_log(game, viewer=viewer).splitlines() if line)
    return [e for e in lines if "type" in e]


def buy_souvenirs(game: Game, cards: set[str]) -> Game:
    found = [a for a in legal(game, BuySouvenirs) if set(a.cards) == cards]
    assert len(found) == 1, game.legal_actions()
    return game.apply(found[0])


def take_lone_option(game: Game, option: str) -> Game:
    """A traveller who may use an amulet now is asked even for a lone option (5.5, 7:
    whether it is asked must not tell which amulet it holds)."""
    assert kind(game) == "crossroads.option"
    assert legal(game, TakeOption) == [TakeOption(0, 0, option)]
    return act(game, TakeOption, option=option)


def finish(game: Game) -> Game:
    """Play on to the end: every move to the furthest stop (the next inn), no purchases,
    no amulets."""
    for _ in range(500):
        if game.is_over:
            return game
        actions = game.legal_actions()
        moves = [a for a in actions if type(a) is Move]
        if moves:
            game = game.apply(max(moves, key=lambda a: a.position))
            continue
        passive = [a for a in actions if (isinstance(a, BuyMeal) and a.meal is None)
                   or (isinstance(a, BuySouvenirs) and not a.cards)
                   or (isinstance(a, UseVitality) and not a.use)]
        if passive:
            game = game.apply(passive[0])
            continue
        plain = [a for a in actions if not isinstance(a, UseDevotion | UseFortune)]
        game = game.apply(plain[0])
    raise AssertionError("the game did not end")


# --- Vitality ---------------------------------------------------------------------------


def test_vitality_moves_again_after_the_space_is_resolved() -> None:
    """Vitality: a move into the lead is resolved first, then the traveller may move again
    at once (not the rearmost), and the amulet goes back to the pile."""
    game = lucky(TWO, {0: "vitality"}, queue=FIRST, coins={0: 0, 1: 0})
    game = move(game, 7)  # farm; with 0 coins only the base farm: +3 coins
    game = take_lone_option(game, "base.farm")
    assert kind(game) == "crossroads.vitality" and moving_piece(game) == 0
    assert coins(game, 0) == 3
    assert set(game.legal_actions()) == {UseVitality(0, 0, False), UseVitality(0, 0, True)}
    game = act(game, UseVitality, use=True)
    assert kind(game) == "core.move" and moving_piece(game) == 0
    assert game.state.rearmost() == 2  # the rearmost-moves rule is overridden
    assert positions(game) == list(range(8, 15))  # never past the next inn
    assert game.state.secret(0) == ()
    assert "vitality" in game.state.zone(PILE)
    game = move(game, 11)
    game = act(game, TakeOption, option="base.panorama")
    assert points(game, 0, "panoramas") == 1
    assert game.state.pieces[0].position == 11
    assert kind(game) == "core.move" and moving_piece(game) == 2  # back to the rearmost


def test_vitality_not_offered_when_the_neutral_is_ahead() -> None:
    """Vitality needs the lead over all others, the neutral traveller included (9)."""
    game = lucky(TWO, {0: "vitality"}, coins={0: 0, 1: 0})
    game = move(game, 10)  # the neutral, moved by seat 0
    game = move(game, 4)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 7)  # piece 0: ahead of piece 1, behind the neutral
    game = take_lone_option(game, "base.farm")
    assert coins(game, 0) == 3
    assert not legal(game, UseVitality)
    assert kind(game) == "core.move" and moving_piece(game) == 1
    assert game.state.secret(0) == ("vitality",)


def test_vitality_on_a_shared_space_the_first_arrival_leads() -> None:
    """Arriving second on a double space (4-5 players) is not taking the lead (9)."""
    game = lucky(FOUR, {0: "vitality"}, coins={0: 0, 1: 0, 2: 0, 3: 0})
    game = move(game, 7)  # piece 3: on-road slot, +3 coins
    game = move(game, 4)  # piece 2
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 6)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    game = act(game, Move, position=7, slot=1)  # piece 0: off-road slot behind piece 3
    game = take_lone_option(game, "base.farm")
    assert coins(game, 0) == 3
    assert not legal(game, UseVitality)
    assert game.state.secret(0) == ("vitality",)
    assert kind(game) == "core.move" and moving_piece(game) == 2  # piece 2, at 4, is last


def test_vitality_not_offered_on_arriving_at_an_inn() -> None:
    """Vitality is not usable when the move into the lead ends at an inn."""
    game = lucky(TWO, {0: "vitality"}, queue=FIRST, coins={0: 0, 1: 0})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)  # asked: the others have not seen the hand
    assert game.state.leader() == 0
    assert not legal(game, UseVitality)
    assert kind(game) == "core.move" and moving_piece(game) == 2
    assert game.state.secret(0) == ("vitality",)


def test_declining_vitality_keeps_the_amulet_for_a_later_lead() -> None:
    """Declining Vitality keeps it; it is offered again at the next move into the lead."""
    game = lucky(TWO, {0: "vitality"}, queue=FIRST, coins={0: 0, 1: 0})
    game = take_lone_option(move(game, 7), "base.farm")
    game = act(game, UseVitality, use=False)
    assert game.state.secret(0) == ("vitality",)
    assert PILE in game.state.zones and "vitality" not in game.state.zone(PILE)
    assert kind(game) == "core.move" and moving_piece(game) == 2
    game = move(game, 8)  # the neutral
    game = move(game, 12)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    assert moving_piece(game) == 0
    game = move(game, 13)  # hot spring: piece 0 leads again
    game = act(game, TakeOption, option="base.hot_spring")
    assert kind(game) == "crossroads.vitality" and moving_piece(game) == 0
    game = act(game, UseVitality, use=True)
    assert positions(game) == [14]
    assert game.state.secret(0) == ()


def test_vitality_vacated_slot_is_reused() -> None:
    """The slot a Vitality user leaves can be taken again: the next arrival on that
    double space takes its free on-road slot (3.2, 5.5)."""
    game = lucky(FOUR, {0: "vitality"}, queue=(1, 2, 3, 0), coins={0: 0, 1: 0, 2: 0, 3: 0})
    game = take_lone_option(move(game, 7), "base.farm")
    assert game.state.pieces[0].slot == 0
    game = act(game, UseVitality, use=True)
    game = move(game, 11)
    game = act(game, TakeOption, option="base.panorama")
    assert moving_piece(game) == 3
    assert Move(3, 3, 7, 0) in game.legal_actions()
    game = act(game, Move, position=7, slot=0)
    assert (game.state.pieces[3].position, game.state.pieces[3].slot) == (7, 0)
    assert coins(game, 3) == 3


def test_vitality_not_usable_in_the_turn_it_was_taken() -> None:
    """By default an amulet taken at a temple is not usable in that turn: no Vitality
    after taking the lead at the temple where it was bought."""
    game = start(TWO, plugins=CROSSROADS, queue=FIRST, coins={0: 5, 1: 5})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="vitality")
    assert game.state.leader() == 0
    assert not legal(game, UseVitality)
    assert kind(game) == "core.move" and moving_piece(game) == 2
    assert game.state.secret(0) == ("vitality",)


def test_vitality_same_turn_option_allows_use_at_once() -> None:
    """With crossroads.amulet_same_turn, Vitality taken at a temple while taking the lead
    is usable at once: the traveller may move again (8)."""
    game = start(TWO, plugins=CROSSROADS, queue=FIRST, coins={0: 5, 1: 5},
                 options={"crossroads.amulet_same_turn": True})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="vitality")
    assert coins(game, 0) == 4
    assert kind(game) == "crossroads.vitality" and moving_piece(game) == 0
    game = act(game, UseVitality, use=True)
    assert kind(game) == "core.move" and moving_piece(game) == 0
    assert game.state.secret(0) == ()


# --- Fortune ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start_coins", "face", "after"),
    [(2, 4, 6), (2, 3, 5), (0, 3, 3), (1, 1, 2), (5, 2, 7), (2, 0, 2)],
)
def test_fortune_before_moving_gains_the_face(start_coins: int, face: int, after: int) -> None:
    """Fortune: before moving, roll the die and gain the face in coins (X = 0), with no
    stake; the move decision stays open and the amulet returns to the pile."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: start_coins, 1: 0},
                 chance={DIE: [face]})
    assert kind(game) == "core.move" and moving_piece(game) == 0
    game = act(game, UseFortune)
    assert coins(game, 0) == after
    assert DieRolled(0, face) in game.events
    assert kind(game) == "core.move" and moving_piece(game) == 0
    assert legal(game, Move, position=7)
    assert not legal(game, UseFortune)
    assert game.state.secret(0) == ()
    assert "fortune" in game.state.zone(PILE)


def test_fortune_not_offered_at_the_neutral_move_its_holder_decides() -> None:
    """Fortune is used before the traveller's own move, not the neutral's."""
    game = lucky(TWO, {0: "fortune"}, coins={0: 2, 1: 0})
    assert moving_piece(game) == 2 and step(game).seat == 0
    assert not legal(game, UseFortune)


def test_fortune_default_not_at_the_option_choice() -> None:
    """By default Fortune is used only before moving: not at the option choice (8)."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 2, 1: 0})
    game = move(game, 11)
    assert kind(game) == "crossroads.option"
    assert not legal(game, UseFortune)


def test_fortune_default_not_at_the_meal() -> None:
    """By default Fortune is not usable at the inn meal decision (8)."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 1, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    assert kind(game) == "base.meal"
    assert not legal(game, UseFortune)
    assert game.state.secret(0) == ("fortune",)


def test_fortune_any_time_at_the_option_choice() -> None:
    """With fortune_timing any_time_in_turn, Fortune is usable at the option choice after
    arriving; the choice stays open."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 2, 1: 0}, chance={DIE: [4]},
                 options=ANY_TIME)
    game = move(game, 11)
    assert kind(game) == "crossroads.option"
    game = act(game, UseFortune)
    assert coins(game, 0) == 6
    assert kind(game) == "crossroads.option"
    game = act(game, TakeOption, option="crossroads.cherry_tree")
    assert coins(game, 0) == 7
    assert points(game, 0, "cherry_trees") == 2


def test_fortune_any_time_at_the_meal() -> None:
    """With any_time_in_turn, Fortune at the meal decision pays for a dearer meal."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 1, 1: 0}, chance={DIE: [2]},
                 stacks={"base.meals": MEALS3}, options=ANY_TIME)
    game = move(game, 14)
    assert kind(game) == "base.meal"
    assert not legal(game, BuyMeal, meal="tempura")
    game = act(game, UseFortune)
    assert coins(game, 0) == 3
    game = act(game, BuyMeal, meal="unagi")
    assert coins(game, 0) == 0
    assert points(game, 0, "meals") == 6


def test_fortune_any_time_is_never_compulsory() -> None:
    """Using an amulet is a choice: with no meal affordable, the meal decision must not
    leave Fortune as the only legal action."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 0, 1: 0},
                 stacks={"base.meals": MEALS3}, options=ANY_TIME)
    game = move(game, 14)
    if kind(game) == "base.meal" and moving_piece(game) == 0:
        assert any(not isinstance(a, UseFortune) for a in game.legal_actions())
    assert game.state.secret(0) == ("fortune",)


@pytest.mark.parametrize("same_turn", [False, True])
def test_fortune_any_time_not_in_the_turn_it_was_taken(same_turn: bool) -> None:
    """Fortune bought at a temple (Miyataka: amulet first, then the donation) is not
    usable later in that turn, unless crossroads.amulet_same_turn is set (8)."""
    game = start(["miyataka", "yoshiyasu"], plugins=CROSSROADS, queue=FIRST,
                 coins={0: 5, 1: 0}, chance={DIE: [3]},
                 options={**ANY_TIME, "crossroads.amulet_same_turn": same_turn})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert kind(game) == "crossroads.second_option"
    assert bool(legal(game, UseFortune)) is same_turn
    game = act(game, TakeOption, option="base.temple")
    assert kind(game) == "base.temple"
    assert bool(legal(game, UseFortune)) is same_turn


def test_fortune_usable_at_the_next_move_of_a_still_last_traveller() -> None:
    """A traveller still last moves again in a new turn (9): Fortune taken at the
    previous stop is usable before that move."""
    game = start(TWO, plugins=CROSSROADS, coins={0: 5, 1: 0}, chance={DIE: [4]})
    game = move(game, 10)  # the neutral
    game = move(game, 12)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 2)  # piece 0
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert coins(game, 0) == 4
    assert kind(game) == "core.move" and moving_piece(game) == 0
    game = act(game, UseFortune)
    assert coins(game, 0) == 8


# --- Health -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "cards"),
    [
        ("crossroads.cherry_tree", "base.panorama", ("cherry_tree", "sea.1")),
        ("base.panorama", "crossroads.cherry_tree", ("sea.1", "cherry_tree")),
    ],
)
def test_health_takes_both_options_in_the_order_chosen(
    first: str, second: str, cards: tuple[str, ...]
) -> None:
    """Health: on landing, take both options of the space, in the order chosen."""
    game = lucky(TWO, {0: "health"}, queue=FIRST, coins={0: 0, 1: 0})
    game = move(game, 11)
    assert set(legal(game, TakeOption, health=True)) == {
        TakeOption(0, 0, "base.panorama", True), TakeOption(0, 0, "crossroads.cherry_tree", True)}
    game = act(game, TakeOption, option=first, health=True)
    assert game.state.secret(0) == ()
    assert "health" in game.state.zone(PILE)
    assert kind(game) == "crossroads.second_option"
    assert set(game.legal_actions()) == {TakeOption(0, 0, second), TakeOption(0, 0, None)}
    game = act(game, TakeOption, option=second)
    assert collection(game, 0) == cards
    assert points(game, 0, "cherry_trees") == 2
    assert points(game, 0, "panoramas") == 1
    assert coins(game, 0) == 1
    assert moving_piece(game) == 2


def test_health_second_option_can_be_skipped() -> None:
    """Health: the second option may be skipped."""
    game = lucky(TWO, {0: "health"}, queue=FIRST, coins={0: 0, 1: 0})
    game = move(game, 11)
    game = act(game, TakeOption, option="crossroads.cherry_tree", health=True)
    game = act(game, TakeOption, option=None)
    assert collection(game, 0) == ("cherry_tree",)
    assert points(game, 0) == 2 and coins(game, 0) == 1
    assert kind(game) == "core.move" and moving_piece(game) == 2
    assert game.state.secret(0) == ()


def test_health_donation_first_leaves_no_coin_for_the_amulet() -> None:
    """Health takes the options in the order chosen: with 1 coin, donating first leaves
    nothing to pay for an amulet, so no second option is offered."""
    game = lucky(TWO, {0: "health"}, queue=FIRST, coins={0: 1, 1: 0})
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple", health=True)
    game = act(game, Donate, amount=1)
    assert points(game, 0, "temple_donations") == 1 and donated(game, 0) == 1
    assert not legal(game, TakeOption)
    assert kind(game) == "core.move" and moving_piece(game) == 2
    assert game.state.secret(0) == ()


def test_health_amulet_first_leaves_no_coin_for_the_donation() -> None:
    """Health in the other order: with 1 coin, buying an amulet first leaves no coin, so
    the temple donation (which needs at least 1 coin) is not offered."""
    game = lucky(TWO, {0: "health"}, queue=FIRST, coins={0: 1, 1: 0})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet", health=True)
    game = act(game, TakeAmulet, amulet="fortune")
    assert coins(game, 0) == 0
    assert game.state.secret(0) == ("fortune",)
    assert not legal(game, TakeOption, option="base.temple")
    assert not legal(game, Donate)
    assert kind(game) == "core.move" and moving_piece(game) == 2
    assert points(game, 0, "temple_donations") == 0 and donated(game, 0) == 0


def test_health_not_at_an_inn() -> None:
    """Health is not usable at an inn: the amulet is kept."""
    game = lucky(TWO, {0: "health"}, queue=FIRST, coins={0: 5, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    assert kind(game) == "base.meal"
    assert not legal(game, TakeOption)
    game = act(game, BuyMeal, meal=None)
    assert game.state.secret(0) == ("health",)


# --- Friendship -------------------------------------------------------------------------


def test_friendship_joins_an_occupied_single_space_and_moves_first() -> None:
    """Friendship: stop on a single space another traveller (the neutral too) occupies,
    off-road; never on an empty one; the user counts as further back, so moves next."""
    game = lucky(TWO, {0: "friendship"}, coins={0: 0, 1: 0})
    game = move(game, 10)  # the neutral
    game = move(game, 7)  # piece 1: farm (single with 2 players), +3 coins
    assert moving_piece(game) == 0
    assert positions(game, FriendshipMove) == [7, 10]
    assert all(a.slot == 1 for a in legal(game, FriendshipMove))
    assert 7 not in positions(game) and 10 not in positions(game)
    game = act(game, FriendshipMove, position=7)
    p = game.state.pieces[0]
    assert (p.position, p.slot) == (7, 1)
    assert coins(game, 0) == 3  # the farm is resolved
    assert game.state.secret(0) == ()
    assert "friendship" in game.state.zone(PILE)
    assert game.state.occupants(7) == (1, 0)
    assert kind(game) == "core.move" and moving_piece(game) == 0


def test_friendship_space_then_full_and_the_user_leaves_first() -> None:
    """After Friendship the single space holds two travellers: a traveller behind cannot
    stop there, and the Friendship user, further back, leaves before the occupant."""
    game = lucky(["mitsukuni", "yoshiyasu", "umegae"], {0: "friendship"},
                 coins={0: 0, 1: 0, 2: 0})
    game = move(game, 7)  # piece 2: farm, +3 coins
    game = move(game, 4)  # piece 1: paddy
    game = act(game, TakeOption, option="base.panorama")
    game = act(game, FriendshipMove, position=7)  # piece 0 jumps over piece 1
    assert coins(game, 0) == 3
    assert moving_piece(game) == 1
    assert 7 not in positions(game)
    assert not legal(game, FriendshipMove)
    game = move(game, 11)  # piece 1: sea
    game = act(game, TakeOption, option="base.panorama")
    assert kind(game) == "core.move" and moving_piece(game) == 0  # before piece 2


def test_friendship_in_four_players_a_double_space_is_not_single() -> None:
    """With 4-5 players Friendship works only on single spaces: a double space with one
    traveller is reached by an ordinary move to its off-road slot."""
    game = lucky(FOUR, {0: "friendship"}, coins={0: 0, 1: 0, 2: 0, 3: 0})
    game = move(game, 5)  # piece 3: hot spring (double)
    game = move(game, 4)  # piece 2: paddy (single)
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 12)  # piece 1: mountain (single)
    game = act(game, TakeOption, option="base.panorama")
    assert moving_piece(game) == 0
    assert positions(game, FriendshipMove) == [4, 12]
    assert Move(0, 0, 5, 1) in game.legal_actions()
    game = act(game, FriendshipMove, position=4)
    assert (game.state.pieces[0].position, game.state.pieces[0].slot) == (4, 1)


def test_friendship_not_offered_when_nothing_is_occupied() -> None:
    """Friendship needs an occupied space: with every road space empty it is not offered."""
    game = lucky(TWO, {0: "friendship"}, queue=FIRST, coins={0: 0, 1: 0})
    assert moving_piece(game) == 0
    assert not legal(game, FriendshipMove)
    assert game.state.secret(0) == ("friendship",)


# --- Hospitality ------------------------------------------------------------------------


def test_hospitality_takes_the_inn_meal_free() -> None:
    """Hospitality: take a meal of the inn hand for free (+6 points)."""
    game = lucky(TWO, {0: "hospitality"}, queue=FIRST, coins={0: 5, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    assert kind(game) == "base.meal"
    assert {a.meal for a in legal(game, HospitalityMeal)} == set(MEALS3)
    game = act(game, HospitalityMeal, meal="unagi")
    assert coins(game, 0) == 5
    assert points(game, 0, "meals") == 6
    assert collection(game, 0) == ("unagi",)
    assert game.state.secret(0) == ()
    assert "hospitality" in game.state.zone(PILE)
    assert kind(game) == "core.move" and moving_piece(game) == 2


def test_hospitality_usable_with_no_coins() -> None:
    """Hospitality works with an empty purse."""
    game = lucky(TWO, {0: "hospitality"}, queue=FIRST, coins={0: 0, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    assert kind(game) == "base.meal" and moving_piece(game) == 0
    assert not legal(game, BuyMeal, meal="dango")
    game = act(game, HospitalityMeal, meal="tempura")
    assert coins(game, 0) == 0
    assert points(game, 0, "meals") == 6


def test_hospitality_never_the_same_meal_twice() -> None:
    """Hospitality never gives a meal the traveller has already eaten."""
    meals = ["dango", "tofu", "sushi", "dango", "unagi", "tempura"]
    game = lucky(TWO, {0: "hospitality"}, queue=FIRST, coins={0: 5, 1: 0},
                 stacks={"base.meals": meals})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    game = move(game, 14)  # the neutral
    game = move(game, 14)  # piece 1 (no coins: no meal)
    assert moving_piece(game) == 1  # the last to arrive leaves first
    game = move(game, 27)  # first at inn 2: dango, unagi, tempura
    game = act(game, BuyMeal, meal=None)  # no coin, but asked: seat 0 has not seen the hand
    assert moving_piece(game) == 2
    game = move(game, 26)  # the neutral stops at a farm
    assert moving_piece(game) == 0
    game = move(game, 27)
    assert kind(game) == "base.meal"
    assert sorted(game.state.zone("base.inn_hand")) == ["dango", "tempura", "unagi"]
    assert {a.meal for a in legal(game, HospitalityMeal)} == {"tempura", "unagi"}
    game = act(game, HospitalityMeal, meal="tempura")
    assert points(game, 0, "meals") == 12
    assert coins(game, 0) == 4


def test_hospitality_one_meal_per_inn() -> None:
    """At most one meal per inn: after Satsuki keeps her free meal, Hospitality is not
    offered there and the amulet is kept."""
    game = lucky(["satsuki", "yoshiyasu"], {0: "hospitality"}, queue=FIRST,
                 coins={0: 5, 1: 0}, stacks={"base.meals": ["dango", *MEALS3]})
    game = move(game, 14)
    game = act(game, SatsukiMeal, keep=True)
    assert points(game, 0, "meals") == 6
    assert not legal(game, HospitalityMeal)
    assert not legal(game, BuyMeal)
    assert game.state.secret(0) == ("hospitality",)


def test_hospitality_meal_counts_for_nampo() -> None:
    """Nampo's bonus follows a meal taken with Hospitality (printed price, 9)."""
    game = lucky(["nampo", "yoshiyasu"], {0: "hospitality"}, queue=FIRST,
                 coins={0: 0, 1: 0}, stacks={"base.meals": MEALS3})
    game = move(game, 14)
    game = act(game, HospitalityMeal, meal="unagi")
    assert points(game, 0, "meals") == 6
    assert points(game, 0, "traveller_powers") == 3
    assert coins(game, 0) == 0


# --- Devotion ---------------------------------------------------------------------------


def test_devotion_village_souvenirs_become_a_donation() -> None:
    """Devotion: every coin paid for the souvenirs of one village stop goes onto the temple
    donation (+1 point each, counted for the ranking)."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 6, 1: 0},
                 stacks={"base.souvenirs": ["koma", "daifuku", "haori"]})
    game = move(game, 1)
    assert kind(game) == "crossroads.option"
    game = act(game, UseDevotion)
    assert kind(game) == "crossroads.option"  # the decision stays open
    assert game.state.secret(0) == ()
    assert "devotion" in game.state.zone(PILE)
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"koma", "daifuku", "haori"})
    assert coins(game, 0) == 1
    assert points(game, 0, "souvenirs") == 9
    assert points(game, 0, "temple_donations") == 5
    assert donated(game, 0) == 5
    assert points(game, 0) == 14


def test_devotion_at_the_souvenir_decision() -> None:
    """Devotion may also be switched on at the souvenir purchase itself."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 6, 1: 0},
                 stacks={"base.souvenirs": ["koma", "daifuku", "haori"]})
    game = move(game, 1)
    game = act(game, TakeOption, option="base.village")
    game = act(game, UseDevotion)
    game = buy_souvenirs(game, {"koma", "haori"})
    assert coins(game, 0) == 3
    assert points(game, 0, "temple_donations") == 3 and donated(game, 0) == 3
    assert points(game, 0, "souvenirs") == 4


def test_devotion_meal() -> None:
    """Devotion: the price of an inn meal becomes a donation."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 5, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    game = act(game, UseDevotion)
    game = act(game, BuyMeal, meal="tempura")
    assert coins(game, 0) == 3
    assert points(game, 0, "meals") == 6
    assert points(game, 0, "temple_donations") == 2 and donated(game, 0) == 2


@pytest.mark.parametrize(
    ("position", "option", "cls", "fields", "price", "category", "gained"),
    [
        (8, "crossroads.legendary", BuyLegendary, {"card": "murasame"}, 3,
         "legendary_objects", 8),
        (5, "crossroads.bath_house", None, {}, 1, "bath_houses", 4),
        (3, "crossroads.calligraphy", TakeCalligraphy, {"card": "foresight"}, 1,
         "calligraphy", 0),
        (2, "crossroads.amulet", TakeAmulet, {"amulet": "health"}, 1, "temple_donations", 1),
    ],
)
def test_devotion_crossroads_purchases(
    position: int, option: str, cls: type[Action] | None, fields: dict[str, Any],
    price: int, category: str, gained: int,
) -> None:
    """Devotion covers legendary objects, bath houses, calligraphy and amulets: the price
    goes onto the temple donation (+1 point per coin)."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 5, 1: 0})
    game = move(game, position)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option=option)
    if cls is not None:
        game = act(game, cls, **fields)
    assert coins(game, 0) == 5 - price
    assert donated(game, 0) == price
    assert points(game, 0, category) == gained
    if category != "temple_donations":
        assert points(game, 0, "temple_donations") == price


def test_devotion_with_health_covers_both_purchases_of_the_stop() -> None:
    """Devotion covers every purchase of one stop: with Health at a village, both the
    legendary object and the souvenirs become donations (9)."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 10, 1: 0},
                 stacks={"base.souvenirs": ["koma", "daifuku", "haori"]})
    game = move(game, 2)  # temple: take Health
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="health")
    assert coins(game, 0) == 9 and donated(game, 0) == 0
    # In the lead with an amulet it may use (Devotion): asked about Vitality, whichever
    # amulet it holds, and it can only decline.
    assert game.legal_actions() == (UseVitality(0, 0, False),)
    game = act(game, UseVitality, use=False)
    game = move(game, 14)  # the neutral
    game = move(game, 4)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    assert moving_piece(game) == 0
    game = move(game, 8)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option="crossroads.legendary", health=True)
    game = act(game, BuyLegendary, card="murasame")
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"koma", "daifuku"})
    assert coins(game, 0) == 3
    assert donated(game, 0) == 6
    assert points(game, 0, "temple_donations") == 6
    assert points(game, 0, "legendary_objects") == 8
    assert points(game, 0, "souvenirs") == 4
    assert game.state.secret(0) == ()


def test_devotion_only_at_that_stop() -> None:
    """Devotion covers the purchases of one stop; at the next stop coins go to the bank."""
    game = lucky(TWO, {0: "devotion"}, coins={0: 6, 1: 0},
                 stacks={"base.souvenirs": ["koma", "gofu", "yunomi", "daifuku", "haori",
                                            "netsuke"]})
    game = move(game, 10)  # the neutral
    game = move(game, 12)  # piece 1
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 1)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"koma"})
    assert donated(game, 0) == 1 and coins(game, 0) == 5
    assert moving_piece(game) == 0  # still last
    game = move(game, 8)
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"daifuku"})
    assert coins(game, 0) == 3
    assert donated(game, 0) == 1
    assert points(game, 0, "temple_donations") == 1


def test_devotion_donations_count_in_the_temple_ranking() -> None:
    """Coins donated through Devotion count for the end-of-game temple ranking."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 6, 1: 0},
                 stacks={"base.souvenirs": ["koma", "daifuku", "haori"]})
    game = move(game, 1)
    game = act(game, UseDevotion)
    game = act(game, TakeOption, option="base.village")
    game = buy_souvenirs(game, {"koma", "daifuku", "haori"})
    game = finish(game)
    assert donated(game, 0) == 5 and donated(game, 1) == 0
    assert points(game, 0, "temple_donations") == 5
    assert points(game, 0, "temple_ranking") == 10
    assert points(game, 1, "temple_ranking") == 0


def test_devotion_is_never_compulsory() -> None:
    """Using an amulet is a choice: with no meal affordable, the meal decision must not
    leave Devotion as the only legal action."""
    game = lucky(TWO, {0: "devotion"}, queue=FIRST, coins={0: 0, 1: 0},
                 stacks={"base.meals": MEALS3})
    game = move(game, 14)
    if kind(game) == "base.meal" and moving_piece(game) == 0:
        assert any(not isinstance(a, UseDevotion) for a in game.legal_actions())
    assert game.state.secret(0) == ("devotion",)


# --- general rules and secrecy ----------------------------------------------------------


def test_used_amulet_can_be_taken_again() -> None:
    """A used amulet returns to the pile, where another traveller can take it."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 0, 1: 5}, chance={DIE: [2]})
    assert len(game.state.zone(PILE)) == 5
    game = act(game, UseFortune)
    assert len(game.state.zone(PILE)) == 6
    game = move(game, 4)
    game = act(game, TakeOption, option="base.panorama")
    game = move(game, 3)  # the neutral
    game = move(game, 2)  # piece 1 at a temple
    game = act(game, TakeOption, option="crossroads.amulet")
    assert TakeAmulet(1, 1, "fortune") in game.legal_actions()
    game = act(game, TakeAmulet, amulet="fortune")
    assert game.state.secret(1) == ("fortune",)
    assert coins(game, 1) == 4


def test_a_traveller_may_hold_several_amulets_secretly() -> None:
    """A traveller may hold several amulets; others see how many, never which (7)."""
    game = lucky(TWO, {0: "vitality"}, queue=FIRST, coins={0: 5, 1: 0})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    assert PILE in game.view(0).zones  # the taker looks through the pile
    assert PILE not in game.view(1).zones
    assert game.view(1).zone_sizes[PILE] == 5
    game = act(game, TakeAmulet, amulet="health")
    assert coins(game, 0) == 4 and points(game, 0) == 0
    assert sorted(game.state.secret(0)) == ["health", "vitality"]
    assert game.view(1).zone_sizes["core.secret.0"] == 2
    assert "core.secret.0" not in game.view(1).zones
    assert PILE not in game.view(1).zones
    assert game.view(1).zone_sizes[PILE] == 4
    assert sorted(game.view(0).zones["core.secret.0"]) == ["health", "vitality"]
    assert all("vitality" not in cards and "health" not in cards
               for name, cards in game.view(1).zones.items() if name != PILE)


def test_take_amulet_is_withheld_in_other_seats_logs() -> None:
    """Which amulet a seat takes is withheld from the other seats' copies of the log."""
    game = start(TWO, plugins=CROSSROADS, queue=FIRST, coins={0: 5, 1: 5})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="friendship")
    other = [e for e in log_lines(game, 1) if e["type"] == "crossroads.take_amulet"]
    own = [e for e in log_lines(game, 0) if e["type"] == "crossroads.take_amulet"]
    assert len(other) == 1 and len(own) == 1
    assert "amulet" in other[0]["withheld"] and "amulet" not in other[0]["data"]
    assert own[0]["data"]["amulet"] == "friendship"
    assert "friendship" not in dump_log(game, viewer=1)
    assert "friendship" in dump_log(game, viewer=0)


def test_good_luck_amulet_is_secret() -> None:
    """The random Good Luck amulet is seen only by its owner."""
    game = lucky(TWO, {0: "hospitality"}, queue=FIRST, coins={0: 5, 1: 5})
    assert game.view(1).zone_sizes["core.secret.0"] == 1
    assert "core.secret.0" not in game.view(1).zones
    assert "hospitality" not in dump_log(game, viewer=1)
    assert game.view(0).zones["core.secret.0"] == ("hospitality",)


def test_an_amulet_is_revealed_when_used() -> None:
    """Using an amulet reveals it: the other seat's log shows the use in full."""
    game = lucky(TWO, {0: "fortune"}, queue=FIRST, coins={0: 1, 1: 0}, chance={DIE: [3]})
    game = act(game, UseFortune)
    uses = [e for e in log_lines(game, 1) if e["type"] == "crossroads.use_fortune"]
    assert len(uses) == 1
    assert uses[0]["data"]["piece"] == 0 and not uses[0].get("withheld")
    rolls = [e for e in log_lines(game, 1) if e["type"] == "crossroads.die_rolled"]
    assert rolls and rolls[-1]["data"] == {"piece": 0, "face": 3}
    assert game.view(1).zone_sizes["core.secret.0"] == 0
    assert coins(game, 0) == 4
