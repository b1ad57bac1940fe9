"""Setup offer, inns, end of game and the 2-player neutral traveller (RULES.md 2, 3.4-3.6).

Scenarios are built with chosen travellers (``start``) and stacked decks; end-of-game
scenarios send every traveller from inn to inn except for a few planned stops
(:func:`travel`), so every point scored is known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from scenario import (
    ENCOUNTERS,
    HOT_SPRINGS,
    MEALS,
    SOUVENIRS,
    act,
    coins,
    collection,
    legal,
    move,
    points,
    start,
)
from tokaido_base import (
    DONATION,
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChooseTraveller,
    Donate,
    TravellersOffered,
    temple_ranking,
)
from tokaido_rules import (
    Action,
    Game,
    IllegalActionError,
    Move,
    Setup,
    SetupError,
    decisions,
    new_game,
)

MOVE_STEP = "core.move"
MEAL_STEP = "base.meal"
INN_HAND = "base.inn_hand"
INNS = (14, 27, 41, 54)
EDO = 54
NEUTRAL = 2

PRINTED_COINS = {
    "hiroshige": 3, "chuubei": 4, "kinko": 7, "yoshiyasu": 9, "satsuki": 2,
    "mitsukuni": 6, "sasayakko": 5, "hirotada": 8, "umegae": 5, "zenemon": 6,
}

Decision = tuple[type[Action], dict[str, Any]]
BANK_COIN = (AddBankCoin, {"add": True})  # Hirotada adds the bank coin (after donating)


# --- helpers -------------------------------------------------------------------------------


def next_inn(position: int) -> int:
    return min(i for i in INNS if i > position)


def travel(
    game: Game,
    stops: Mapping[int, Sequence[int]] | None = None,
    decisions: Mapping[tuple[int, int], Decision | list[Decision]] | None = None,
    until: Callable[[Game], bool] | None = None,
) -> Game:
    """Play on: each traveller stops at its listed road spaces, otherwise goes straight to
    the next inn; ``decisions[(piece, position)]`` answers the decision there (a list: the
    decisions there, in order); any other meal decision is passed, any other decision is
    an error. Stops at the end of the game or when ``until`` holds."""
    route = {piece: list(targets) for piece, targets in (stops or {}).items()}
    todo = {key: list(value) if isinstance(value, list) else [value]
            for key, value in (decisions or {}).items()}
    while not game.is_over and not (until is not None and until(game)):
        step = game.current_step
        assert step is not None
        position = game.state.pieces[step.piece].position
        if step.kind == MOVE_STEP:
            inn = next_inn(position)
            planned = route.get(step.piece, [])
            game = move(game, planned.pop(0) if planned and planned[0] <= inn else inn)
        elif todo.get((step.piece, position)):
            cls, fields = todo[(step.piece, position)].pop(0)
            game = act(game, cls, **fields)
        elif step.kind == MEAL_STEP:
            game = act(game, BuyMeal, meal=None)
        else:
            raise AssertionError(f"unplanned decision {step} at position {position}")
    if game.is_over:
        assert not any(route.values()), f"stops never reached: {route}"
        assert not any(todo.values()), f"decisions never taken: {todo}"
    return game


def hand(game: Game) -> tuple[str, ...]:
    return game.state.zone(INN_HAND)


def no_meal(game: Game) -> Game:
    """The deciding traveller takes no meal (asked while the hand is hidden from someone,
    even with nothing affordable)."""
    return act(game, BuyMeal, meal=None)


def meal_deck(game: Game) -> tuple[str, ...]:
    return game.state.zone(MEALS)


def meal_options(game: Game) -> set[str]:
    """The meals the deciding traveller may buy now."""
    return {a.meal for a in legal(game, BuyMeal) if a.meal is not None}


def achievements(game: Game, piece: int) -> set[str]:
    return {c for c in collection(game, piece) if c.startswith("achievement.")}


def move_positions(game: Game) -> set[int]:
    return {a.position for a in legal(game, Move)}


def all_at_inn(game: Game, inn: int) -> bool:
    return all(p.position == inn for p in game.state.pieces)


# --- RULES.md 2: the traveller offer -------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_offer_two_distinct_tiles_per_seat_none_shared(players: int, seed: int) -> None:
    """Setup 2: each seat is offered 2 different tiles that no other seat is offered."""
    game = new_game(players, seed=seed)
    offers = [game.state.data[f"base.offer.{seat}"] for seat in range(players)]
    for offer in offers:
        assert len(offer) == 2
        assert len(set(offer)) == 2
        assert set(offer) <= set(PRINTED_COINS)
    every_tile = [t for offer in offers for t in offer]
    assert len(set(every_tile)) == 2 * players
    offered = [e for e in game.events if isinstance(e, TravellersOffered)]
    assert [e.seat for e in offered] == list(range(players))


def test_seats_choose_their_traveller_in_seat_order() -> None:
    """Setup 2: every seat keeps one of its own 2 tiles, seat by seat."""
    game = new_game(3, seed=3)
    for seat in range(3):
        offer = game.state.data[f"base.offer.{seat}"]
        assert game.current_player == seat
        assert set(game.legal_actions()) == {ChooseTraveller(seat, t) for t in offer}
        game = game.apply(ChooseTraveller(seat, offer[1]))
        assert game.state.pieces[seat].traveller == offer[1]
    assert game.current_step is not None
    assert game.current_step.kind == MOVE_STEP


@pytest.mark.parametrize("traveller", sorted(PRINTED_COINS))
def test_kept_tile_sets_traveller_and_printed_coins(traveller: str) -> None:
    """Setup 2: the kept tile is the traveller and its printed coins are the start coins."""
    other = "kinko" if traveller != "kinko" else "satsuki"
    setup = Setup(chance={"travellers.0": [(traveller, other)]})
    game = new_game(2, seed=4, setup=setup)
    assert set(game.legal_actions()) == {ChooseTraveller(0, traveller), ChooseTraveller(0, other)}
    game = game.apply(ChooseTraveller(0, traveller))
    assert game.state.pieces[0].traveller == traveller
    assert coins(game, 0) == PRINTED_COINS[traveller]


def test_scripted_offers_are_what_each_seat_chooses_from() -> None:
    """Setup 2: scripted offers reach the right seats; both seats get their printed coins."""
    setup = Setup(chance={
        "travellers.0": [("kinko", "satsuki")],
        "travellers.1": [("yoshiyasu", "hiroshige")],
    })
    game = new_game(2, seed=9, setup=setup)
    assert game.state.data["base.offer.0"] == ("kinko", "satsuki")
    assert game.state.data["base.offer.1"] == ("yoshiyasu", "hiroshige")
    game = game.apply(ChooseTraveller(0, "satsuki"))
    assert game.current_player == 1
    assert set(game.legal_actions()) == {
        ChooseTraveller(1, "yoshiyasu"), ChooseTraveller(1, "hiroshige")
    }
    game = game.apply(ChooseTraveller(1, "yoshiyasu"))
    assert [p.traveller for p in game.state.pieces] == ["satsuki", "yoshiyasu", None]
    assert [coins(game, i) for i in range(3)] == [2, 9, 0]


def test_a_tile_not_offered_to_the_seat_cannot_be_kept() -> None:
    """Setup 2: a seat keeps one of its own two tiles, not another seat's or an unoffered one."""
    setup = Setup(chance={
        "travellers.0": [("kinko", "satsuki")],
        "travellers.1": [("yoshiyasu", "hiroshige")],
        "travellers.2": [("umegae", "zenemon")],
    })
    game = new_game(3, seed=9, setup=setup)
    with pytest.raises(IllegalActionError):
        game.apply(ChooseTraveller(0, "yoshiyasu"))
    with pytest.raises(IllegalActionError):
        game.apply(ChooseTraveller(0, "hirotada"))
    with pytest.raises(IllegalActionError):
        game.apply(ChooseTraveller(1, "yoshiyasu"))  # not seat 1's turn to choose yet


def test_a_tile_cannot_be_offered_to_two_seats() -> None:
    """Setup 2: tiles offered to one seat are not offered to another."""
    setup = Setup(chance={
        "travellers.0": [("kinko", "satsuki")],
        "travellers.1": [("kinko", "hiroshige")],
    })
    with pytest.raises(SetupError):
        new_game(2, seed=9, setup=setup)


def test_after_the_choice_the_last_in_the_queue_moves_first() -> None:
    """Setup 3: the traveller furthest from the road (last in the queue) leaves Kyoto first."""
    setup = Setup(queue=(2, 0, 1), chance={
        "travellers.0": [("kinko", "satsuki")],
        "travellers.1": [("yoshiyasu", "hiroshige")],
        "travellers.2": [("umegae", "zenemon")],
    })
    game = new_game(3, seed=9, setup=setup)
    game = game.apply(ChooseTraveller(0, "kinko"))
    game = game.apply(ChooseTraveller(1, "hiroshige"))
    game = game.apply(ChooseTraveller(2, "umegae"))
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece, game.current_player) == (MOVE_STEP, 1, 1)


def test_two_player_offer_goes_to_the_seats_only() -> None:
    """Setup 2 and 3.6: with 2 players only the 2 seats are offered tiles; the neutral has none."""
    game = new_game(2, seed=5)
    assert "base.offer.2" not in game.state.data
    game = game.apply(game.legal_actions()[0])
    game = game.apply(game.legal_actions()[0])
    neutral = game.state.pieces[NEUTRAL]
    assert (neutral.seat, neutral.traveller, neutral.coins) == (None, None, 0)
    assert all(game.state.pieces[s].traveller is not None for s in (0, 1))


# --- RULES.md 3.4: inns --------------------------------------------------------------------


def test_no_meal_at_kyoto() -> None:
    """3.4: no meals at Kyoto: the game starts with a move and no inn hand."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 9})
    assert hand(game) == ()
    step = game.current_step
    assert step is not None
    assert step.kind == MOVE_STEP


def test_arrivals_take_inn_slots_in_arrival_order() -> None:
    """3.4: arrivals queue in order; the first arrival takes the slot nearest the road."""
    game = start(["umegae", "zenemon", "sasayakko"], queue=(1, 2, 0), coins={0: 0, 1: 0, 2: 0})
    game = no_meal(move(game, 14))  # piece 0 (last in queue) arrives first
    game = no_meal(move(game, 14))  # then piece 2
    game = move(game, 14)  # then piece 1
    assert [game.state.pieces[i].slot for i in (0, 2, 1)] == [0, 1, 2]


@pytest.mark.parametrize(("travellers", "size"), [
    (["umegae", "zenemon"], 3),
    (["umegae", "zenemon", "sasayakko"], 4),
    (["umegae", "zenemon", "sasayakko", "yoshiyasu"], 5),
    (["umegae", "zenemon", "sasayakko", "yoshiyasu", "hirotada"], 6),
])
def test_first_arrival_draws_players_plus_one_meals(travellers: list[str], size: int) -> None:
    """3.4: the first arrival at an inn draws players + 1 meal cards (2 players: 3)."""
    top = ["dango", "tempura", "unagi", "sushi", "soba", "tofu", "udon"]
    players = len(travellers)
    queue = list(range(players + (1 if players == 2 else 0)))
    if players == 2:
        queue = [NEUTRAL, 0, 1]  # a player (piece 1) leaves Kyoto first
    game = start(travellers, queue=queue, stacks={MEALS: top},
                 coins=dict.fromkeys(range(players), 9))
    first = queue[-1]
    deck_before = meal_deck(game)
    game = move(game, 14)
    assert hand(game) == tuple(top[:size])
    assert meal_deck(game) == deck_before[size:]
    assert game.current_player == first
    assert meal_options(game) == set(top[:size])


@pytest.mark.parametrize(("players", "size"), [(2, 2), (3, 3), (5, 5)])
def test_meal_hand_option_players_draws_players_cards(players: int, size: int) -> None:
    """3.4 / 8: with base.meal_hand = "players" the first arrival draws players cards."""
    travellers = ["umegae", "zenemon", "sasayakko", "yoshiyasu", "hirotada"][:players]
    queue = [NEUTRAL, 0, 1] if players == 2 else list(range(players))
    top = ["dango", "tempura", "unagi", "sushi", "soba", "tofu"]
    game = start(travellers, queue=queue, stacks={MEALS: top},
                 coins=dict.fromkeys(range(players), 9),
                 options={"base.meal_hand": "players"})
    game = move(game, 14)
    assert hand(game) == tuple(top[:size])


def test_later_arrival_sees_what_remains() -> None:
    """3.4: each later arrival may buy one of the cards the earlier ones left."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 9},
                 stacks={MEALS: ["dango", "tempura", "unagi", "sushi"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="tempura")
    assert hand(game) == ("dango", "unagi", "sushi")
    game = move(game, 14)
    assert game.current_player == 1
    assert meal_options(game) == {"dango", "unagi", "sushi"}
    game = act(game, BuyMeal, meal="unagi")
    game = move(game, 14)
    assert meal_options(game) == {"dango", "sushi"}
    with pytest.raises(IllegalActionError):
        game.apply(BuyMeal(0, 0, "tempura"))


@pytest.mark.parametrize(("meal", "price"), [("dango", 1), ("sushi", 2), ("unagi", 3)])
def test_meal_costs_its_price_and_scores_six(meal: str, price: int) -> None:
    """3.4 / 1.2: a meal is bought at its printed price and scores 6 points."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 5},
                 stacks={MEALS: ["dango", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=meal)
    assert coins(game, 2) == 5 - price
    assert points(game, 2, "meals") == 6
    assert points(game, 2) == 6
    assert collection(game, 2) == (meal,)


def test_buying_a_meal_is_not_compulsory() -> None:
    """3.4: a traveller who can buy may pass: no coins spent, no points, the hand stays."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 5},
                 stacks={MEALS: ["dango", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    assert BuyMeal(2, 2, None) in game.legal_actions()
    game = act(game, BuyMeal, meal=None)
    assert coins(game, 2) == 5
    assert points(game, 2) == 0
    assert collection(game, 2) == ()
    assert hand(game) == ("dango", "sushi", "unagi", "soba")


def test_only_affordable_meals_are_offered() -> None:
    """3.4: a meal is bought at its price: with 1 coin only the 1-coin meals are offered."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 1},
                 stacks={MEALS: ["dango", "sushi", "unagi", "nigirimeshi"]})
    game = move(game, 14)
    assert meal_options(game) == {"dango", "nigirimeshi"}
    with pytest.raises(IllegalActionError):
        game.apply(BuyMeal(2, 2, "unagi"))


def test_without_coins_the_meal_decision_offers_only_no_meal() -> None:
    """3.4 / 7: a traveller who cannot pay for any meal buys none, but is still asked while
    someone has not seen the hand: whether he is asked must not tell the others that no
    1-coin meal is in it."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 0},
                 stacks={MEALS: ["dango", "sushi", "unagi", "nigirimeshi"]})
    game = move(game, 14)
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MEAL_STEP, 2)
    assert game.legal_actions() == (BuyMeal(2, 2, None),)
    game = act(game, BuyMeal, meal=None)
    assert coins(game, 2) == 0
    assert collection(game, 2) == ()
    assert hand(game) == ("dango", "sushi", "unagi", "nigirimeshi")
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, 1)


def test_last_arrival_who_cannot_pay_passes_the_meal_on_the_record() -> None:
    """3.4 / 7: once every traveller has seen the hand, a traveller who cannot pay for any
    meal is not asked; the engine records "no meal" on its own (after core.automatic)."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 0, 1: 9, 2: 9},
                 stacks={MEALS: ["sushi", "unagi", "soba", "tofu"]})
    game = act(move(game, 14), BuyMeal, meal=None)
    game = act(move(game, 14), BuyMeal, meal=None)
    before = game.state.seq
    game = move(game, 14)  # piece 0, the last, with no coin
    new = game.events[before:]
    types = [e.TYPE for e in new]
    assert "core.automatic" in types
    after = new[types.index("core.automatic") + 1]
    assert after == BuyMeal(0, 0, None)
    assert list(decisions(game.events))[-1] == Move(0, 0, 14, 2)
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, 0)


def test_only_one_meal_per_inn() -> None:
    """3.4: at most one meal per inn: after buying, the traveller's inn decision is over."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 9},
                 stacks={MEALS: ["dango", "sushi", "unagi", "nigirimeshi"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, 1)
    assert collection(game, 2) == ("dango",)
    assert coins(game, 2) == 8


def test_never_the_same_meal_twice() -> None:
    """3.4: a traveller never eats the same meal twice in a game."""
    meals = ["dango", "sushi", "unagi", "nigirimeshi", "dango", "tempura", "soba", "tofu"]
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 0, 1: 0, 2: 9},
                 stacks={MEALS: meals})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    game = no_meal(move(game, 14))
    game = move(game, 14)
    # All at inn 1: piece 0 arrived last and leaves first, then 1, then 2.
    game = move(game, 27)
    assert hand(game) == ("dango", "tempura", "soba", "tofu")
    game = no_meal(game)
    game = no_meal(move(game, 27))
    game = move(game, 27)
    assert game.current_player == 2
    assert meal_options(game) == {"tempura", "soba", "tofu"}
    with pytest.raises(IllegalActionError):
        game.apply(BuyMeal(2, 2, "dango"))


def test_another_traveller_may_eat_a_meal_already_eaten_by_someone_else() -> None:
    """3.4: the no-repeat rule is per traveller: two travellers may each eat a dango."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 9},
                 stacks={MEALS: ["dango", "dango", "unagi", "nigirimeshi"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    game = move(game, 14)
    assert "dango" in meal_options(game)
    game = act(game, BuyMeal, meal="dango")
    assert collection(game, 1) == ("dango",)
    assert collection(game, 2) == ("dango",)


def test_unbought_meals_stay_until_the_last_arrival_then_go_under_the_deck() -> None:
    """3.4: when every traveller has arrived, unbought meals go to the bottom of the deck."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 9, 1: 9, 2: 9},
                 stacks={MEALS: ["dango", "sushi", "unagi", "nigirimeshi"]},
                 chance={"order.base.meals": [("nigirimeshi", "unagi", "dango")]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="sushi")
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    deck_before = meal_deck(game)
    assert hand(game) == ("dango", "unagi", "nigirimeshi")  # not returned early
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    assert hand(game) == ()
    assert meal_deck(game) == (*deck_before, "nigirimeshi", "unagi", "dango")


def test_last_to_arrive_leaves_the_inn_first() -> None:
    """3.4: travellers leave an inn in reverse arrival order: the last to arrive moves first."""
    game = start(["umegae", "zenemon", "sasayakko"], queue=(1, 2, 0), coins={0: 0, 1: 0, 2: 0})
    for _ in range(3):
        game = move(game, 14)  # arrivals: 0, 2, 1 (no coin: "no meal" while hidden)
        if game.current_step is not None and game.current_step.kind == MEAL_STEP:
            game = no_meal(game)
    order = []
    for _ in range(3):
        step = game.current_step
        assert step is not None
        order.append(step.piece)
        game = move(game, 27)
        if game.current_step is not None and game.current_step.kind == MEAL_STEP:
            game = no_meal(game)
    assert order == [1, 2, 0]


def test_meals_at_the_three_inns_and_edo() -> None:
    """3.4: meals are offered at the 3 intermediate inns and at Edo (4 opportunities)."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 0, 1: 0, 2: 20})
    seen: list[int] = []
    while not game.is_over:
        step = game.current_step
        assert step is not None
        position = game.state.pieces[step.piece].position
        if step.kind == MEAL_STEP:
            if step.piece == 2:
                seen.append(position)
            game = act(game, BuyMeal, meal=None)
        else:
            game = move(game, next_inn(position))
    assert seen == [14, 27, 41, 54]


# --- RULES.md 3.5: end of the game ---------------------------------------------------------


def test_game_ends_when_all_are_at_edo_and_had_their_meal_chance() -> None:
    """3.5: the game ends only once the last traveller at Edo has had the chance to eat."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 3, 1: 3, 2: 3})

    def last_meal_at_edo(g: Game) -> bool:
        step = g.current_step
        return step is not None and step.kind == MEAL_STEP and all_at_inn(g, EDO)

    game = travel(game, until=last_meal_at_edo)
    assert not game.is_over
    step = game.current_step
    assert step is not None
    assert game.current_player == step.seat
    assert not any(achievements(game, i) for i in range(3))  # nothing scored yet
    game = act(game, BuyMeal, meal=None)
    assert game.is_over
    assert game.current_player is None
    assert game.legal_actions() == ()
    assert hand(game) == ()


def test_no_achievement_for_a_count_of_zero_and_all_tied_share_victory() -> None:
    """3.5: a count of 0 earns no achievement; equal totals and achievements share victory."""
    game = travel(start(["umegae", "zenemon", "sasayakko"], coins={0: 0, 1: 0, 2: 0}))
    assert game.is_over
    for piece in range(3):
        assert achievements(game, piece) == set()
        assert points(game, piece) == 0
    assert [s.rank for s in game.scores()] == [1, 1, 1]
    assert game.winners() == (0, 1, 2)


def test_gourmet_uses_printed_prices() -> None:
    """3.5: Gourmet goes to the highest printed meal total (Kinko's discount does not count)."""
    game = start(["kinko", "umegae", "zenemon"], coins={0: 2, 1: 2, 2: 0},
                 stacks={MEALS: ["unagi", "tempura", "misoshiru", "soba"]})
    game = travel(game, decisions={
        (1, 14): (BuyMeal, {"meal": "tempura"}),
        (0, 14): (BuyMeal, {"meal": "unagi"}),
    })
    assert coins(game, 0) == 0  # Kinko paid 2 for the unagi, as the other paid 2 for tempura
    assert coins(game, 1) == 0
    assert achievements(game, 0) == {"achievement.gourmet"}
    assert achievements(game, 1) == set()
    assert points(game, 0, "achievements") == 3
    assert points(game, 0) == 6 + 3
    assert points(game, 1) == 6


def test_gourmet_tie_gives_each_tied_traveller_the_card() -> None:
    """3.5: tied travellers all get the achievement: printed totals 1 + 2 and 3 tie."""
    meals = ["dango", "unagi", "misoshiru", "nigirimeshi", "tempura", "sushi", "soba", "tofu"]
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 3, 1: 3, 2: 0},
                 stacks={MEALS: meals})
    game = travel(game, decisions={
        (1, 14): (BuyMeal, {"meal": "dango"}),
        (0, 14): (BuyMeal, {"meal": "unagi"}),
        (1, 27): (BuyMeal, {"meal": "tempura"}),
    })
    assert collection(game, 0) == ("unagi", "achievement.gourmet")
    assert collection(game, 1) == ("dango", "tempura", "achievement.gourmet")
    assert achievements(game, 2) == set()
    assert points(game, 0) == 6 + 3
    assert points(game, 1) == 12 + 3


def test_collector_goes_to_most_souvenir_cards() -> None:
    """3.5: Collector (3 points) to the traveller with the most souvenir cards."""
    souvenirs = ["koma", "gofu", "yunomi", "uchiwa", "hashi", "washi"]
    game = start(["yoshiyasu", "umegae", "hirotada"], coins={0: 0, 1: 2, 2: 1},
                 stacks={SOUVENIRS: souvenirs})
    game = travel(game, stops={2: [1], 1: [8]}, decisions={
        (2, 1): (BuySouvenirs, {"cards": ("koma",)}),
        (1, 8): (BuySouvenirs, {"cards": ("uchiwa", "hashi")}),
    })
    assert achievements(game, 1) == {"achievement.collector"}
    assert achievements(game, 2) == set()
    assert achievements(game, 0) == set()
    assert points(game, 1, "achievements") == 3
    assert points(game, 1) == 1 + 1 + 3


def test_bather_goes_to_most_hot_spring_cards() -> None:
    """3.5: Bather (3 points) to the traveller with the most hot spring cards."""
    game = start(["yoshiyasu", "umegae", "hirotada"], coins={0: 0, 1: 0, 2: 0},
                 stacks={HOT_SPRINGS: ["hot_spring.2", "hot_spring.3", "hot_spring.2"]})
    game = travel(game, stops={0: [5, 13], 1: [22]})
    assert collection(game, 0) == ("hot_spring.2", "hot_spring.3", "achievement.bather")
    assert collection(game, 1) == ("hot_spring.2",)
    assert points(game, 0) == 2 + 3 + 3
    assert points(game, 1) == 2


def test_tied_bathers_each_get_the_card() -> None:
    """3.5: ties: every traveller with the highest count gets the achievement."""
    game = start(["yoshiyasu", "umegae", "hirotada"], coins={0: 0, 1: 0, 2: 0},
                 stacks={HOT_SPRINGS: ["hot_spring.3", "hot_spring.2"]})
    game = travel(game, stops={0: [5], 1: [13]})
    assert achievements(game, 0) == {"achievement.bather"}
    assert achievements(game, 1) == {"achievement.bather"}
    assert achievements(game, 2) == set()
    assert points(game, 0) == 2 + 3  # piece 1 reached its hot spring first
    assert points(game, 1) == 3 + 3


def test_chatterbox_goes_to_most_encounter_cards() -> None:
    """3.5: Chatterbox (3 points) to the traveller with the most encounter cards."""
    game = start(["hirotada", "zenemon", "sasayakko"], coins={0: 0, 1: 0, 2: 0},
                 stacks={ENCOUNTERS: ["kuge", "kuge", "samurai"]})
    game = travel(game, stops={0: [3, 10], 1: [20]})
    assert collection(game, 0) == ("kuge", "kuge", "achievement.chatterbox")
    assert collection(game, 1) == ("samurai",)
    assert points(game, 0) == 3
    assert points(game, 1) == 3


@pytest.mark.parametrize(("donations", "expected"), [
    ([8, 8, 6], [10, 10, 7]),
    ([9, 8, 6], [10, 7, 4]),
    ([4, 3, 2, 1, 1], [10, 7, 4, 2, 2]),
    ([5, 0, 5, 1], [10, 0, 10, 7]),
    ([0, 0, 0], [0, 0, 0]),
    ([6, 6, 6, 6], [10, 10, 10, 10]),
])
def test_temple_ranking_is_dense(donations: list[int], expected: list[int]) -> None:
    """3.5: dense ranking 10/7/4, every other donor 2, non-donors 0, ties share a rank."""
    assert temple_ranking(donations) == expected


def test_temple_ranking_8_8_6_in_a_played_game() -> None:
    """3.5: donations 8, 8, 6 (with Hirotada's bank coin and Miko) rank 10, 10, 7."""
    game = start(["hirotada", "sasayakko", "zenemon"], coins={0: 9, 1: 9, 2: 9},
                 stacks={ENCOUNTERS: ["miko", "miko"]})
    game = travel(game, stops={0: [9, 16], 1: [3, 10, 21, 43], 2: [2, 36]}, decisions={
        (2, 2): (Donate, {"amount": 3}),
        (0, 9): [(Donate, {"amount": 3}), BANK_COIN],
        (0, 16): [(Donate, {"amount": 3}), BANK_COIN],
        (1, 21): (Donate, {"amount": 3}),
        (2, 36): (Donate, {"amount": 3}),
        (1, 43): (Donate, {"amount": 3}),
    })
    assert [game.state.pieces[i].counter(DONATION) for i in range(3)] == [8, 8, 6]
    assert [points(game, i, "temple_donations") for i in range(3)] == [8, 8, 6]
    assert coins(game, 0) == 9 - 6  # the bank coins cost Hirotada nothing
    assert [points(game, i, "temple_ranking") for i in range(3)] == [10, 10, 7]


def test_temple_ranking_9_8_6_in_a_played_game_non_donor_scores_nothing() -> None:
    """3.5: donations 9, 8, 6 rank 10, 7, 4; a traveller who never donated scores 0."""
    game = start(["hirotada", "sasayakko", "zenemon", "yoshiyasu"],
                 coins={0: 6, 1: 8, 2: 6, 3: 0}, stacks={ENCOUNTERS: ["miko"]})
    game = travel(game, stops={0: [9, 10, 16], 1: [9, 21, 36], 2: [2, 36]}, decisions={
        (2, 2): (Donate, {"amount": 3}),
        (1, 9): (Donate, {"amount": 3}),
        (0, 9): [(Donate, {"amount": 3}), BANK_COIN],
        (0, 16): [(Donate, {"amount": 3}), BANK_COIN],
        (1, 21): (Donate, {"amount": 3}),
        (1, 36): (Donate, {"amount": 2}),
        (2, 36): (Donate, {"amount": 3}),
    })
    assert [game.state.pieces[i].counter(DONATION) for i in range(4)] == [9, 8, 6, 0]
    assert [points(game, i, "temple_donations") for i in range(4)] == [9, 8, 6, 0]
    assert coins(game, 0) == 0
    assert [points(game, i, "temple_ranking") for i in range(4)] == [10, 7, 4, 0]


def test_temple_ranking_every_other_donor_scores_two() -> None:
    """3.5: beyond the third distinct amount every donor scores 2 (4, 3, 2, 1, 1)."""
    game = start(["hirotada", "umegae", "zenemon", "sasayakko", "yoshiyasu"],
                 coins=dict.fromkeys(range(5), 3))
    game = travel(game, stops={4: [2], 3: [9], 2: [9], 0: [16], 1: [21]}, decisions={
        (4, 2): (Donate, {"amount": 3}),
        (3, 9): (Donate, {"amount": 2}),
        (2, 9): (Donate, {"amount": 1}),
        (0, 16): [(Donate, {"amount": 3}), BANK_COIN],
        (1, 21): (Donate, {"amount": 1}),
    })
    assert [game.state.pieces[i].counter(DONATION) for i in range(5)] == [4, 1, 1, 2, 3]
    assert [points(game, i, "temple_donations") for i in range(5)] == [4, 1, 1, 2, 3]
    assert coins(game, 0) == 0
    assert [points(game, i, "temple_ranking") for i in range(5)] == [10, 2, 2, 4, 7]


def _tie_break_game(extra_stops: Sequence[int] = ()) -> Game:
    """Piece 1 eats a dango (6 + Gourmet 3 = 9); piece 0 takes panorama sections
    1+1+1+2+2+2 = 9 (none complete, no achievement), plus ``extra_stops``."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 0, 1: 1, 2: 0},
                 stacks={MEALS: ["dango", "tempura", "sushi", "soba"]})
    return travel(game, stops={0: [4, 6, 11, 12, 15, 18, *extra_stops]},
                  decisions={(1, 14): (BuyMeal, {"meal": "dango"})})


def test_winner_is_the_most_points() -> None:
    """3.5: the winner has the most points, even with fewer achievement cards."""
    game = _tie_break_game(extra_stops=[19])  # Mountain 3: +3
    assert points(game, 0, "panoramas") == 12
    assert points(game, 1) == 9
    assert achievements(game, 1) == {"achievement.gourmet"}
    assert game.winners() == (0,)
    assert [s.rank for s in game.scores()] == [1, 2, 3]


def test_tie_broken_by_most_achievement_cards() -> None:
    """3.5: equal points: the traveller with more achievement cards wins."""
    game = _tie_break_game()
    assert points(game, 0) == 9
    assert achievements(game, 0) == set()
    assert points(game, 1) == 9
    assert achievements(game, 1) == {"achievement.gourmet"}
    scores = {s.seat: s for s in game.scores()}
    assert (scores[0].total, scores[1].total, scores[2].total) == (9, 9, 0)
    assert (scores[1].rank, scores[0].rank, scores[2].rank) == (1, 2, 3)
    assert game.winners() == (1,)


def test_shared_victory_and_ranks_1_1_3() -> None:
    """3.5 / 9: equal points and achievement cards: a shared victory, ranks 1, 1, 3."""
    game = start(["umegae", "zenemon", "sasayakko"], coins={0: 1, 1: 1, 2: 0},
                 stacks={MEALS: ["dango", "dango", "tempura", "sushi"]})
    game = travel(game, decisions={
        (1, 14): (BuyMeal, {"meal": "dango"}),
        (0, 14): (BuyMeal, {"meal": "dango"}),
    })
    scores = {s.seat: s for s in game.scores()}
    assert scores[0].total == scores[1].total == 6 + 3
    assert scores[0].categories["achievements"] == scores[1].categories["achievements"] == 3
    assert [scores[i].rank for i in range(3)] == [1, 1, 3]
    assert game.winners() == (0, 1)


# --- RULES.md 3.6: two players -------------------------------------------------------------


def test_neutral_traveller_is_piece_two_without_seat() -> None:
    """3.6: with 2 players a neutral traveller (piece 2) joins: no seat, coins or score."""
    game = start(["umegae", "zenemon"])
    assert len(game.state.pieces) == 3
    neutral = game.state.pieces[NEUTRAL]
    assert (neutral.seat, neutral.traveller, neutral.coins, neutral.total) == (None, None, 0, 0)
    assert [s.seat for s in game.scores()] == [0, 1]


@pytest.mark.parametrize(("queue", "leader"), [((0, 1, 2), 0), ((1, 0, 2), 1)])
def test_leading_player_moves_the_neutral_from_kyoto(queue: tuple[int, ...], leader: int) -> None:
    """3.6 / 9: the neutral moves when rearmost; the player first in the Kyoto queue decides."""
    game = start(["umegae", "zenemon"], queue=queue)
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, NEUTRAL)
    assert game.current_player == leader
    assert all(a.seat == leader for a in game.legal_actions())


def test_the_decider_for_the_neutral_follows_the_lead() -> None:
    """3.6: the neutral's destination is chosen by the player whose traveller leads now."""
    game = start(["umegae", "zenemon"], queue=(NEUTRAL, 1, 0), coins={0: 0, 1: 0})
    game = move(game, 5)  # piece 0
    game = move(game, 7)  # piece 1 leads
    assert game.current_step is not None
    assert game.current_step.piece == NEUTRAL
    assert game.current_player == 1
    game = move(game, 3)  # the neutral is still rearmost: it moves again, seat 1 decides
    assert game.current_step is not None
    assert game.current_step.piece == NEUTRAL
    assert game.current_player == 1
    game = move(game, 10)  # passes both players
    assert game.current_player == 0  # piece 0 at 5 is rearmost and moves itself
    game = move(game, 12)  # piece 0 now leads
    game = move(game, 11)  # piece 1 (rearmost at 7) moves itself, still behind piece 0
    assert game.current_step is not None
    assert game.current_step.piece == NEUTRAL
    assert game.current_player == 0


def test_neutral_ignores_coin_restrictions() -> None:
    """3.6: the neutral may stop anywhere free (villages and temples need no coins for it)."""
    game = start(["umegae", "zenemon"], queue=(0, 1, 2), coins={0: 0, 1: 0})
    assert move_positions(game) == set(range(1, 15))
    player = start(["umegae", "zenemon"], queue=(0, 2, 1), coins={0: 0, 1: 0})
    assert player.current_step is not None
    assert player.current_step.piece == 1
    assert move_positions(player) == set(range(1, 15)) - {1, 2, 8, 9}


@pytest.mark.parametrize("position", [1, 3, 4, 5, 6, 7, 11])
def test_neutral_stops_do_nothing(position: int) -> None:
    """3.6: the neutral's stops do nothing (village, encounter, panoramas, hot spring, farm)."""
    game = start(["umegae", "zenemon"], queue=(0, 1, 2))
    zones_before = game.state.zones
    game = move(game, position)
    neutral = game.state.pieces[NEUTRAL]
    assert neutral.position == position
    assert (neutral.coins, dict(neutral.score), dict(neutral.counters)) == (0, {}, {})
    assert collection(game, NEUTRAL) == ()
    assert game.state.zones == zones_before
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, 1)


def test_neutral_at_a_temple_donates_one_bank_coin() -> None:
    """3.6: at a temple 1 coin from the bank goes onto the neutral's donation."""
    game = start(["umegae", "zenemon"], queue=(0, 1, 2), coins={0: 5, 1: 5})
    game = move(game, 2)
    neutral = game.state.pieces[NEUTRAL]
    assert neutral.counter(DONATION) == 1
    assert neutral.coins == 0
    assert (coins(game, 0), coins(game, 1)) == (5, 5)


def test_neutral_takes_a_temple_rank_from_the_players() -> None:
    """3.6: the neutral takes part in the ranking: player 1 vs neutral 2 gives the player 7."""
    game = start(["umegae", "zenemon"], queue=(0, 1, 2), coins={0: 1, 1: 0})
    game = travel(game, stops={NEUTRAL: [2, 16], 0: [9]},
                  decisions={(0, 9): (Donate, {"amount": 1})})
    assert game.state.pieces[NEUTRAL].counter(DONATION) == 2
    assert game.state.pieces[0].counter(DONATION) == 1
    assert points(game, 0, "temple_donations") == 1
    assert points(game, 0, "temple_ranking") == 7
    assert points(game, 1, "temple_ranking") == 0
    assert game.winners() == (0,)


def test_player_tied_with_the_neutral_shares_the_top_rank() -> None:
    """3.6 / 3.5: a player whose donation equals the neutral's shares its rank (10)."""
    game = start(["umegae", "zenemon"], queue=(0, 1, 2), coins={0: 1, 1: 0})
    game = travel(game, stops={NEUTRAL: [2], 0: [9]},
                  decisions={(0, 9): (Donate, {"amount": 1})})
    assert game.state.pieces[NEUTRAL].counter(DONATION) == 1
    assert points(game, 0, "temple_ranking") == 10


def test_neutral_discards_a_random_card_from_the_inn_hand() -> None:
    """3.6: at an inn the neutral discards one card at random from the hand, under the deck."""
    game = start(["umegae", "zenemon"], queue=(0, NEUTRAL, 1), coins={0: 9, 1: 0},
                 stacks={MEALS: ["dango", "tempura", "unagi"]},
                 chance={"discard.base.inn_hand": ["unagi"]})
    game = move(game, 14)  # piece 1 arrives first, draws 3, cannot buy
    assert hand(game) == ("dango", "tempura", "unagi")
    game = no_meal(game)  # asked all the same: seat 0 has not seen the hand
    assert game.current_step is not None
    assert game.current_step.piece == NEUTRAL
    assert game.current_player == 1  # piece 1 leads
    deck_before = meal_deck(game)
    game = move(game, 14)
    assert hand(game) == ("dango", "tempura")
    assert meal_deck(game) == (*deck_before, "unagi")
    game = move(game, 14)  # piece 0 sees what remains
    assert meal_options(game) == {"dango", "tempura"}


def test_neutral_first_at_the_inn_draws_three_then_discards() -> None:
    """3.6: a neutral arriving first draws players + 1 = 3 cards, then discards one."""
    game = start(["umegae", "zenemon"], queue=(0, 1, NEUTRAL), coins={0: 9, 1: 9},
                 stacks={MEALS: ["dango", "tempura", "unagi", "soba"]},
                 chance={"discard.base.inn_hand": ["dango"]})
    deck_before = meal_deck(game)
    game = move(game, 14)
    assert hand(game) == ("tempura", "unagi")
    assert meal_deck(game) == (*deck_before[3:], "dango")
    game = move(game, 14)
    assert game.current_player == 1
    assert meal_options(game) == {"tempura", "unagi"}


def test_neutral_first_with_meal_hand_players_draws_two() -> None:
    """3.6 / 8: with base.meal_hand = "players" a neutral arriving first draws 2, keeps 1."""
    game = start(["umegae", "zenemon"], queue=(0, 1, NEUTRAL), coins={0: 9, 1: 9},
                 stacks={MEALS: ["dango", "tempura", "unagi"]},
                 chance={"discard.base.inn_hand": ["tempura"]},
                 options={"base.meal_hand": "players"})
    game = move(game, 14)
    assert hand(game) == ("dango",)
    assert meal_deck(game)[-1] == "tempura"


def test_neutral_arriving_last_discards_before_the_rest_go_under() -> None:
    """3.6 / 3.4: the neutral's random discard goes under first, then the unbought rest."""
    game = start(["umegae", "zenemon"], queue=(NEUTRAL, 0, 1), coins={0: 9, 1: 9},
                 stacks={MEALS: ["dango", "tempura", "unagi"]},
                 chance={"discard.base.inn_hand": ["tempura"],
                         "order.base.meals": [("unagi", "dango")]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    deck_before = meal_deck(game)
    game = move(game, 14)  # the neutral arrives last
    assert hand(game) == ()
    assert meal_deck(game) == (*deck_before, "tempura", "unagi", "dango")


def test_neutral_discards_nothing_from_an_empty_hand() -> None:
    """3.6 / 9: an empty hand means no discard; the meal deck is untouched."""
    game = start(["umegae", "zenemon"], queue=(NEUTRAL, 0, 1), coins={0: 9, 1: 9},
                 stacks={MEALS: ["dango", "tempura", "unagi"]},
                 options={"base.meal_hand": "players"})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    game = move(game, 14)
    game = act(game, BuyMeal, meal="tempura")
    assert hand(game) == ()
    deck_before = meal_deck(game)
    game = move(game, 14)  # the neutral arrives last
    assert meal_deck(game) == deck_before
    assert all_at_inn(game, 14)
    step = game.current_step
    assert step is not None
    assert (step.kind, step.piece) == (MOVE_STEP, NEUTRAL)  # last to arrive leaves first
    assert game.current_player == 1  # piece 1 arrived first: it leads


@pytest.mark.parametrize(("travellers", "allowed"), [
    (["umegae", "zenemon"], False),
    (["umegae", "zenemon", "sasayakko"], False),
    (["umegae", "zenemon", "sasayakko", "yoshiyasu"], True),
])
def test_double_spaces_have_one_slot_below_four_players(
    travellers: list[str], allowed: bool
) -> None:
    """3.2 / 3.6: a double space holds one traveller with 2-3 players, two with 4-5."""
    game = start(travellers)
    first = game.current_step
    assert first is not None
    game = move(game, 5)  # hot spring, double
    assert game.current_step is not None
    assert game.current_step.piece != first.piece
    assert (5 in move_positions(game)) is allowed
    if allowed:
        assert legal(game, Move, position=5)[0].slot == 1


# --- determinism -------------------------------------------------------------------------


def _play(players: int, seed: int) -> Game:
    """A whole game from the offer on, choosing actions by a fixed pattern."""
    game = new_game(players, seed=seed)
    n = 0
    while not game.is_over:
        actions = game.legal_actions()
        game = game.apply(actions[(n * 7 + 3) % len(actions)])
        n += 1
    return game


@pytest.mark.parametrize("players", [2, 3, 5])
def test_same_seed_and_actions_give_identical_events(players: int) -> None:
    """Chance is seeded: the same seed and the same actions give the same events."""
    first = _play(players, seed=31)
    second = _play(players, seed=31)
    assert first.events == second.events
    assert [s.total for s in first.scores()] == [s.total for s in second.scores()]
