"""Crossroads travellers (RULES.md 5.1, 5.6) and the Crossroads variants (5.7).

Games have 3 players unless stated (no neutral traveller, single slots on double spaces).
With the default queue (0, 1, 2) piece 2 moves first, then piece 1, then piece 0.
Inns: 14, 27, 41 and 54 (Edo). With 3 players an inn hand holds 4 meal cards.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from scenario import (
    ENCOUNTERS,
    MEALS,
    SOUVENIRS,
    act,
    coins,
    collection,
    legal,
    move,
    moving_piece,
    points,
    start,
)
from tokaido_base.actions import AddBankCoin, BuyMeal, ChooseTraveller, Donate
from tokaido_crossroads import (
    BuyLegendary,
    DieRolled,
    Gamble,
    HospitalityMeal,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseFortune,
)
from tokaido_rules import (
    CardsMoved,
    FrozenMap,
    Game,
    MissingRequirementError,
    Move,
    Setup,
    SetupError,
    dump_log,
    new_game,
    secret_zone,
)
from tokaido_rules.testing import run_conformance
from tokaido_variants.good_luck import BuyLuck

CROSSROADS = ("base", "crossroads")
RARE = ("base", "crossroads", "rare-and-precious")
LUCK = ("base", "crossroads", "good-luck")

AMULET_PILE = "crossroads.amulets"
CALLIGRAPHY_PILE = "crossroads.calligraphy"
LEGENDARY_PILE = "crossroads.legendary"
CHERRY_PILE = "crossroads.cherry_trees"
BATH_PILE = "crossroads.bath_houses"
PILES = (BATH_PILE, LEGENDARY_PILE, CHERRY_PILE, AMULET_PILE, CALLIGRAPHY_PILE)
INN_HAND = "base.inn_hand"
DONATION = "base.donation"
POWERS = "traveller_powers"
IN_PLAY = "rare-and-precious.in_play"

CROSSROADS_COINS = {
    "jirocho": 5, "daigoro": 3, "nampo": 2, "gotozaemon": 0, "miyataka": 4, "kita": 4,
}
MEAL_PRICES = {"dango": 1, "tempura": 2, "unagi": 3}


# --- helpers ------------------------------------------------------------------------------


def step_kind(game: Game) -> str:
    step = game.current_step
    assert step is not None
    return step.kind


def donation(game: Game, piece: int) -> int:
    return game.state.pieces[piece].counter(DONATION)


def position(game: Game, piece: int) -> int:
    return game.state.pieces[piece].position


def to_next_inn(game: Game) -> Game:
    """The moving traveller goes straight to the next inn."""
    piece = moving_piece(game)
    return move(game, game.state.rules.next_inn[position(game, piece)])


def default(game: Game) -> Game:
    """A neutral default: move straight to the next inn, buy no meal, do not gamble."""
    first = game.legal_actions()[0]
    if isinstance(first, Move):
        return to_next_inn(game)
    if isinstance(first, BuyMeal):
        return act(game, BuyMeal, meal=None)
    if isinstance(first, Gamble):
        return act(game, Gamble, stake=False)
    raise AssertionError(f"no default for {game.legal_actions()}")


def rush(game: Game, until: Callable[[Game], bool] | None = None) -> Game:
    """Apply default decisions until ``until`` holds or the game is over."""
    while not game.is_over and (until is None or not until(game)):
        game = default(game)
    return game


def deciding(piece: int, cls: type[object]) -> Callable[[Game], bool]:
    """True when ``piece`` has a decision offering an action of type ``cls``."""
    def check(game: Game) -> bool:
        return moving_piece(game) == piece and any(
            isinstance(a, cls) for a in game.legal_actions())
    return check


def amulet_at_first_temple(travellers: list[str], amulet: str,
                           stacks: dict[str, list[str]] | None = None,
                           purse: dict[int, int] | None = None) -> Game:
    """Seat 2 stops at the temple (2), takes ``amulet``; seats 1 and 0 go to inn 14 and
    buy nothing; seat 2 (at 2) is then the one to move."""
    game = start(travellers, plugins=CROSSROADS, stacks=stacks, coins=purse)
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet=amulet)
    if legal(game, AddBankCoin):
        game = act(game, AddBankCoin, add=False)
    for _ in range(2):
        game = move(game, 14)
        game = act(game, BuyMeal, meal=None)
    assert moving_piece(game) == 2 and step_kind(game) == "core.move"
    return game


# --- 5.1: the six travellers and the traveller pool ------------------------------------------


@pytest.mark.parametrize(("traveller", "expected"), list(CROSSROADS_COINS.items()))
def test_crossroads_traveller_starting_coins(traveller: str, expected: int) -> None:
    """Each Crossroads traveller starts with the coins printed on the tile (5.1)."""
    game = start([traveller, "kinko", "zenemon"], plugins=CROSSROADS)
    assert game.state.pieces[0].traveller == traveller
    assert coins(game, 0) == expected
    assert coins(game, 1) == 7 and coins(game, 2) == 6


def test_crossroads_travellers_join_the_pool() -> None:
    """The six Crossroads travellers join the ten base ones in the pool (5.1)."""
    crossroads = set(new_game(3, seed=0, plugins=CROSSROADS).ruleset.registry.travellers)
    base = set(new_game(3, seed=0, plugins=("base",)).ruleset.registry.travellers)
    assert set(CROSSROADS_COINS) <= crossroads
    assert len(crossroads) == 16
    assert not set(CROSSROADS_COINS) & base
    assert len(base) == 10


def offered(plugins: tuple[str, ...], players: int, seed: int) -> set[str]:
    game = new_game(players, seed=seed, plugins=plugins)
    return {a.traveller for a in game.legal_actions() if isinstance(a, ChooseTraveller)} | {
        t for seat in range(players)
        for t in game.state.data.get(f"base.offer.{seat}", ())
    }


def test_random_offers_include_crossroads_travellers_only_with_crossroads() -> None:
    """Offers in a Crossroads game can include the new travellers; a base game's never (5.1)."""
    with_cx: set[str] = set()
    without: set[str] = set()
    for seed in range(30):
        with_cx |= offered(CROSSROADS, 5, seed)
        without |= offered(("base",), 5, seed)
    assert with_cx & set(CROSSROADS_COINS)
    assert not without & set(CROSSROADS_COINS)


def test_chosen_crossroads_traveller_gets_printed_coins() -> None:
    """An offered Crossroads tile can be kept; its printed coins are given (2, 5.1)."""
    setup = Setup(chance={"travellers.0": [("jirocho", "gotozaemon")]})
    game = new_game(3, seed=1, plugins=CROSSROADS, setup=setup)
    assert {a.traveller for a in legal(game, ChooseTraveller, seat=0)} == {
        "jirocho", "gotozaemon"}
    game = act(game, ChooseTraveller, seat=0, traveller="gotozaemon")
    assert game.state.pieces[0].traveller == "gotozaemon"
    assert coins(game, 0) == 0


def test_base_only_game_cannot_offer_crossroads_traveller() -> None:
    """Without Crossroads its travellers are not in the pool, so cannot be offered (5.1)."""
    setup = Setup(chance={"travellers.0": [("jirocho", "kita")]})
    with pytest.raises(SetupError):
        new_game(3, seed=1, plugins=("base",), setup=setup)


# --- Jirocho ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "after"), [(0, 4), (1, 5), (2, 6), (3, 7), (4, 8)])
def test_jirocho_stakes_one_coin_and_receives_the_face(face: int, after: int) -> None:
    """Jirocho may stake 1 coin at an intermediate inn and receives 1 x face (5.6)."""
    game = start(["kinko", "zenemon", "jirocho"], plugins=CROSSROADS,
                 chance={"die.crossroads.fortune": [face]})
    game = move(game, 14)
    assert {a.stake for a in legal(game, Gamble)} == {True, False}
    game = act(game, Gamble, stake=True)
    assert coins(game, 2) == after
    assert [e.face for e in game.events if isinstance(e, DieRolled)] == [face]


def test_jirocho_gambles_before_the_meal_hand_is_drawn() -> None:
    """Jirocho's roll comes on arrival, before the inn hand and the meal (5.6, 9)."""
    game = start(["kinko", "zenemon", "jirocho"], plugins=CROSSROADS,
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi"]},
                 chance={"die.crossroads.fortune": [4]})
    game = move(game, 14)
    assert step_kind(game) == "crossroads.jirocho"
    assert game.state.zone(INN_HAND) == ()
    assert not legal(game, BuyMeal)
    game = act(game, Gamble, stake=True)
    assert coins(game, 2) == 8
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "sushi", "tempura", "unagi"]
    # the winnings can pay for the meal at once
    game = act(game, BuyMeal, meal="unagi")
    assert coins(game, 2) == 5
    assert points(game, 2, "meals") == 6


def test_jirocho_may_decline_to_roll() -> None:
    """Rolling is optional: declining keeps his coins and rolls nothing (5.6)."""
    game = start(["kinko", "zenemon", "jirocho"], plugins=CROSSROADS)
    game = move(game, 14)
    game = act(game, Gamble, stake=False)
    assert coins(game, 2) == 5
    assert not any(isinstance(e, DieRolled) for e in game.events)
    assert legal(game, BuyMeal)


def test_jirocho_with_no_coins_cannot_roll() -> None:
    """With 0 coins Jirocho has nothing to stake: no roll is offered (5.6)."""
    game = start(["kinko", "zenemon", "jirocho"], plugins=CROSSROADS, coins={2: 0})
    game = move(game, 14)
    assert not legal(game, Gamble)
    assert not any(isinstance(e, DieRolled) for e in game.events)
    assert coins(game, 2) == 0
    # The engine answers "no roll" on its own, on the record (7: the choice is public).
    types = [e.TYPE for e in game.events]
    assert types[types.index("core.automatic") + 1] == "crossroads.gamble"
    assert Gamble(2, 2, False) in game.events


def test_jirocho_rolls_at_each_intermediate_inn_but_not_at_edo() -> None:
    """Jirocho may roll at each of the 3 intermediate inns, not at Edo (5.6)."""
    game = start(["kinko", "zenemon", "jirocho"], plugins=CROSSROADS,
                 chance={"die.crossroads.fortune": [1, 2, 4]})
    rolled_at: list[int] = []
    while not game.is_over:
        if legal(game, Gamble):
            rolled_at.append(position(game, moving_piece(game)))
            game = act(game, Gamble, stake=True)
        else:
            game = default(game)
    assert rolled_at == [14, 27, 41]
    assert coins(game, 2) == 5 + 0 + 1 + 3  # stakes of 1 returning 1, 2, 4


# --- Daigoro ---------------------------------------------------------------------------------


def test_daigoro_draws_and_scores_a_souvenir_before_the_meal() -> None:
    """At an intermediate inn Daigoro draws the top souvenir and scores it (5.6)."""
    game = start(["kinko", "zenemon", "daigoro"], plugins=CROSSROADS,
                 stacks={SOUVENIRS: ["koma", "manju"],
                         MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 14)
    assert collection(game, 2) == ("koma",)
    assert points(game, 2, "souvenirs") == 1
    assert coins(game, 2) == 3
    assert game.state.zone(SOUVENIRS)[0] == "manju"
    assert legal(game, BuyMeal)
    moved = [e for e in game.events if isinstance(e, CardsMoved)]
    souvenir = next(i for i, e in enumerate(moved) if "koma" in e.cards)
    hand = next(i for i, e in enumerate(moved) if "unagi" in e.cards)
    assert souvenir < hand


def test_daigoro_souvenirs_score_as_sets_at_each_intermediate_inn_not_edo() -> None:
    """Daigoro draws at inns 14, 27 and 41 (sets score 1, 3, 5), nothing at Edo (5.6, 3.3)."""
    game = start(["kinko", "zenemon", "daigoro"], plugins=CROSSROADS,
                 stacks={SOUVENIRS: ["koma", "manju", "haori", "netsuke"]})
    game = rush(game)
    assert [c for c in collection(game, 2) if not c.startswith("achievement.")] == [
        "koma", "manju", "haori"]
    assert points(game, 2, "souvenirs") == 1 + 3 + 5
    assert game.state.zone(SOUVENIRS)[0] == "netsuke"


def test_daigoro_gets_nothing_from_an_empty_souvenir_deck() -> None:
    """An empty souvenir deck gives Daigoro nothing; the inn stays a normal stop (5.6, 9)."""
    game = start(["kinko", "zenemon", "daigoro"], plugins=CROSSROADS)
    state = game.state
    game = Game(state.replace(zones=FrozenMap({**state.zones, SOUVENIRS: ()})), ())
    game = move(game, 14)
    assert collection(game, 2) == ()
    assert points(game, 2) == 0
    assert legal(game, BuyMeal)


# --- Nampo -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("meal", "price"), list(MEAL_PRICES.items()))
def test_nampo_scores_the_printed_price_of_his_meal(meal: str, price: int) -> None:
    """Nampo scores extra points equal to the meal's printed price (5.6)."""
    game = start(["kinko", "zenemon", "nampo"], plugins=CROSSROADS, coins={2: 3},
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=meal)
    assert points(game, 2, "meals") == 6
    assert points(game, 2, POWERS) == price
    assert coins(game, 2) == 3 - price
    assert points(game, 2) == 6 + price


def test_nampo_scores_nothing_without_a_meal() -> None:
    """No meal taken, no Nampo bonus (5.6)."""
    game = start(["kinko", "zenemon", "nampo"], plugins=CROSSROADS,
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    assert points(game, 2) == 0
    assert coins(game, 2) == 2


def test_nampo_scores_the_price_of_a_hospitality_meal() -> None:
    """A free Hospitality meal still gives Nampo its printed price in points (5.6, 5.5)."""
    game = amulet_at_first_temple(["kinko", "zenemon", "nampo"], "hospitality",
                                  stacks={MEALS: ["unagi", "tempura", "sushi", "dango"]})
    assert coins(game, 2) == 1
    game = move(game, 14)
    game = act(game, HospitalityMeal, meal="unagi")
    assert coins(game, 2) == 1
    assert points(game, 2, "meals") == 6
    assert points(game, 2, POWERS) == 3


def test_nampo_scores_his_meal_at_edo() -> None:
    """Nampo's bonus applies at every meal inn, Edo included (5.6, 3.4)."""
    meals = ["dango", "nigirimeshi", "misoshiru", "tofu",
             "dango", "nigirimeshi", "misoshiru", "soba",
             "dango", "nigirimeshi", "misoshiru", "sushi",
             "unagi", "fugu", "tempura", "yakitori"]
    game = start(["kinko", "zenemon", "nampo"], plugins=CROSSROADS, coins={2: 5},
                 stacks={MEALS: meals})
    game = rush(game, lambda g: position(g, 2) == 54 and deciding(2, BuyMeal)(g))
    assert points(game, 2) == 0
    assert "unagi" in game.state.zone(INN_HAND)
    game = act(game, BuyMeal, meal="unagi")
    assert points(game, 2, POWERS) == 3
    assert points(game, 2, "meals") == 6
    assert coins(game, 2) == 2


# --- Gotozaemon ------------------------------------------------------------------------------


@pytest.mark.parametrize(("where", "kind"), [(4, "paddy"), (6, "mountain"), (11, "sea")])
def test_gotozaemon_gains_a_coin_taking_the_panorama(where: int, kind: str) -> None:
    """Gotozaemon: +1 coin at a panorama space when taking the panorama section (5.6)."""
    game = start(["kinko", "zenemon", "gotozaemon"], plugins=CROSSROADS)
    game = move(game, where)
    game = act(game, TakeOption, option="base.panorama")
    assert collection(game, 2) == (f"{kind}.1",)
    assert points(game, 2, "panoramas") == 1
    assert coins(game, 2) == 1


@pytest.mark.parametrize("where", [4, 6, 11])
def test_gotozaemon_gains_a_coin_taking_a_cherry_tree(where: int) -> None:
    """Gotozaemon: +1 coin at a panorama space also with the cherry tree (+1 of its own)."""
    game = start(["kinko", "zenemon", "gotozaemon"], plugins=CROSSROADS)
    game = move(game, where)
    game = act(game, TakeOption, option="crossroads.cherry_tree")
    assert collection(game, 2) == ("cherry_tree",)
    assert points(game, 2, "cherry_trees") == 2
    assert points(game, 2, "panoramas") == 0
    assert coins(game, 2) == 2


def test_gotozaemon_gains_no_coin_through_annaibito() -> None:
    """A panorama section from Annaibito is not a panorama stop: no coin (5.6)."""
    game = start(["kinko", "zenemon", "gotozaemon"], plugins=CROSSROADS,
                 stacks={ENCOUNTERS: ["annaibito.paddy"]})
    game = move(game, 3)  # 0 coins: the calligraphy cannot be paid, the encounter is taken
    assert collection(game, 2) == ("annaibito.paddy", "paddy.1")
    assert points(game, 2, "panoramas") == 1
    assert coins(game, 2) == 0


def test_gotozaemon_gains_no_coin_on_other_spaces() -> None:
    """Gotozaemon's coin is only for panorama spaces: a hot spring gives none (5.6)."""
    game = start(["kinko", "zenemon", "gotozaemon"], plugins=CROSSROADS)
    game = move(game, 5)  # 0 coins: no bath house, the hot spring card is taken
    assert coins(game, 2) == 0
    assert points(game, 2, "hot_springs") in (2, 3)


def test_gotozaemon_one_coin_per_stop_with_both_options() -> None:
    """Gotozaemon taking both options (Health) still gains 1 coin for the stop (5.6, 5.5)."""
    game = amulet_at_first_temple(["kinko", "zenemon", "gotozaemon"], "health", purse={2: 1})
    assert coins(game, 2) == 0
    game = move(game, 4)
    game = act(game, TakeOption, option="base.panorama", health=True)
    game = act(game, TakeOption, option="crossroads.cherry_tree")
    assert collection(game, 2) == ("paddy.1", "cherry_tree")
    assert points(game, 2, "panoramas") == 1 and points(game, 2, "cherry_trees") == 2
    assert coins(game, 2) == 1 + 1  # the cherry tree's coin and his own, once


# --- Miyataka --------------------------------------------------------------------------------


def test_miyataka_donates_then_buys_an_amulet() -> None:
    """Miyataka at a temple may donate and then buy an amulet (5.6, 9)."""
    game = start(["kinko", "zenemon", "miyataka"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=2)
    assert {a.option for a in legal(game, TakeOption)} == {"crossroads.amulet", None}
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="devotion")
    assert coins(game, 2) == 4 - 2 - 1
    assert donation(game, 2) == 2
    assert points(game, 2, "temple_donations") == 2
    assert game.state.secret(2) == ("devotion",)
    assert len(game.state.zone(AMULET_PILE)) == 5


def test_miyataka_buys_an_amulet_then_donates() -> None:
    """Miyataka chooses the order: the amulet first, then the donation (5.6, 9)."""
    game = start(["kinko", "zenemon", "miyataka"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert {a.option for a in legal(game, TakeOption)} == {"base.temple", None}
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=3)
    assert coins(game, 2) == 0
    assert donation(game, 2) == 3
    assert points(game, 2, "temple_donations") == 3
    assert game.state.secret(2) == ("fortune",)


def test_miyataka_may_skip_the_second_action() -> None:
    """Miyataka may skip the second action (9)."""
    game = start(["kinko", "zenemon", "miyataka"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=1)
    game = act(game, TakeOption, option=None)
    assert game.state.secret(2) == ()
    assert coins(game, 2) == 3
    assert donation(game, 2) == 1
    assert step_kind(game) == "core.move" and moving_piece(game) == 1


def test_miyataka_second_action_not_offered_without_coins() -> None:
    """An option that cannot be paid is not offered, also as Miyataka's second (5.2)."""
    game = start(["kinko", "zenemon", "miyataka"], plugins=CROSSROADS, coins={2: 1})
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=1)
    assert not legal(game, TakeOption)
    assert step_kind(game) == "core.move" and moving_piece(game) == 1
    assert donation(game, 2) == 1


def test_other_travellers_take_one_temple_option() -> None:
    """Without Miyataka's power a temple stop is the donation or the amulet, not both (5.2)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=1)
    assert not legal(game, TakeOption)
    assert not legal(game, TakeAmulet)
    assert step_kind(game) == "core.move" and moving_piece(game) == 1


# --- Kita ------------------------------------------------------------------------------------


def test_kita_draws_an_encounter_then_buys_a_calligraphy() -> None:
    """Kita at an encounter may draw the encounter and then buy a calligraphy (5.6)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS,
                 stacks={ENCOUNTERS: ["samurai"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="base.encounter")
    assert points(game, 2, "encounters") == 3
    assert {a.option for a in legal(game, TakeOption)} == {"crossroads.calligraphy", None}
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="patience")
    assert collection(game, 2) == ("samurai", "patience")
    assert coins(game, 2) == 3
    assert "patience" not in game.state.zone(CALLIGRAPHY_PILE)


def test_kita_buys_a_calligraphy_then_draws_an_encounter() -> None:
    """Kita chooses the order: the calligraphy first, then the encounter (5.6, 9)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS,
                 stacks={ENCOUNTERS: ["kuge"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="foresight")
    assert {a.option for a in legal(game, TakeOption)} == {"base.encounter", None}
    game = act(game, TakeOption, option="base.encounter")
    assert collection(game, 2) == ("foresight", "kuge")
    assert coins(game, 2) == 4 - 1 + 3


def test_kita_may_skip_the_second_action() -> None:
    """Kita may skip the second action (9)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS,
                 stacks={ENCOUNTERS: ["samurai"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="nostalgia")
    game = act(game, TakeOption, option=None)
    assert collection(game, 2) == ("nostalgia",)
    assert game.state.zone(ENCOUNTERS)[0] == "samurai"
    assert step_kind(game) == "core.move" and moving_piece(game) == 1


def test_kita_second_action_free_encounter_after_spending_last_coin() -> None:
    """Kita spending his last coin on a calligraphy may still draw the encounter (5.6)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS, coins={2: 1},
                 stacks={ENCOUNTERS: ["samurai"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="contemplation")
    assert coins(game, 2) == 0
    game = act(game, TakeOption, option="base.encounter")
    assert collection(game, 2) == ("contemplation", "samurai")
    assert points(game, 2, "encounters") == 3


def test_kita_arriving_without_coins_may_buy_calligraphy_after_kuge() -> None:
    """Kita with 0 coins draws Kuge (+3), then may still buy a calligraphy (5.6, 9)."""
    game = start(["kinko", "zenemon", "kita"], plugins=CROSSROADS, coins={2: 0},
                 stacks={ENCOUNTERS: ["kuge"]})
    game = move(game, 3)  # the calligraphy cannot be paid yet: the encounter comes first
    assert collection(game, 2) == ("kuge",)
    assert coins(game, 2) == 3
    assert {a.option for a in legal(game, TakeOption)} == {"crossroads.calligraphy", None}
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="foresight")
    assert collection(game, 2) == ("kuge", "foresight")
    assert coins(game, 2) == 2


def test_other_travellers_take_one_encounter_option() -> None:
    """Without Kita's power an encounter stop is the card or the calligraphy (5.2)."""
    game = start(["kinko", "zenemon", "miyataka"], plugins=CROSSROADS,
                 stacks={ENCOUNTERS: ["samurai"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="nostalgia")
    assert not legal(game, TakeOption)
    assert collection(game, 2) == ("nostalgia",)
    assert step_kind(game) == "core.move" and moving_piece(game) == 1


# --- base travellers' extended powers ----------------------------------------------------------


def test_mitsukuni_scores_one_more_per_bath_house() -> None:
    """Mitsukuni: +1 point per Bath House, as for a hot spring card (5.6)."""
    game = start(["kinko", "zenemon", "mitsukuni"], plugins=CROSSROADS)
    game = move(game, 5)
    game = act(game, TakeOption, option="crossroads.bath_house")
    assert collection(game, 2) == ("bath_house",)
    assert points(game, 2, "bath_houses") == 4
    assert points(game, 2, POWERS) == 1
    assert coins(game, 2) == 5


def test_umegae_bonus_also_with_the_calligraphy_option() -> None:
    """Umegae gets +1 point +1 coin also when taking the calligraphy (5.6)."""
    game = start(["kinko", "zenemon", "umegae"], plugins=CROSSROADS)
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="foresight")
    assert points(game, 2, POWERS) == 1
    assert coins(game, 2) == 5 + 1 - 1
    assert collection(game, 2) == ("foresight",)
    assert points(game, 2, "encounters") == 0


def test_umegae_bonus_once_per_stop_with_both_options() -> None:
    """Umegae taking both options (Health) gets her +1/+1 once for the stop (5.6, 5.5)."""
    game = amulet_at_first_temple(["kinko", "zenemon", "umegae"], "health",
                                  stacks={ENCOUNTERS: ["samurai"]})
    assert coins(game, 2) == 4
    game = move(game, 3)
    game = act(game, TakeOption, option="base.encounter", health=True)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="perfection")
    assert collection(game, 2) == ("samurai", "perfection")
    assert points(game, 2, POWERS) == 1
    assert points(game, 2, "encounters") == 3
    assert coins(game, 2) == 4 + 1 - 1


@pytest.mark.parametrize("add", [True, False])
def test_hirotada_bank_coin_decision_after_the_amulet_option(add: bool) -> None:
    """Hirotada may add his bank coin also when taking the amulet option (5.6, 3.7)."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="vitality")
    assert {a.add for a in legal(game, AddBankCoin)} == {True, False}
    game = act(game, AddBankCoin, add=add)
    assert coins(game, 2) == 7
    assert donation(game, 2) == (1 if add else 0)
    assert points(game, 2, "temple_donations") == (1 if add else 0)
    assert game.state.secret(2) == ("vitality",)


def test_hirotada_bank_coin_after_spending_his_last_coin_on_an_amulet() -> None:
    """The bank coin is not his own: offered even after his last coin bought the amulet."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=CROSSROADS, coins={2: 1})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="health")
    assert coins(game, 2) == 0
    game = act(game, AddBankCoin, add=True)
    assert donation(game, 2) == 1
    assert points(game, 2, "temple_donations") == 1


def test_hirotada_bank_coin_decision_after_a_donation() -> None:
    """Hirotada's bank coin decision follows a donation too (3.7, 5.6)."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=CROSSROADS)
    game = move(game, 2)
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=2)
    game = act(game, AddBankCoin, add=True)
    assert coins(game, 2) == 6
    assert donation(game, 2) == 3
    assert points(game, 2, "temple_donations") == 3


def test_hirotada_bank_coin_automatic_with_the_amulet_option() -> None:
    """With base.hirotada_bank_coin="auto" the coin is added after the amulet option (8)."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=CROSSROADS,
                 options={"base.hirotada_bank_coin": "auto"})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert not legal(game, AddBankCoin)
    assert donation(game, 2) == 1
    assert points(game, 2, "temple_donations") == 1
    assert coins(game, 2) == 7
    assert step_kind(game) == "core.move" and moving_piece(game) == 1


def test_hirotada_bank_coin_once_per_stop_with_both_options() -> None:
    """Hirotada taking both options (Health) adds one bank coin for the stop (5.6, 5.5)."""
    game = amulet_at_first_temple(["kinko", "zenemon", "hirotada"], "health")
    assert coins(game, 2) == 7 and donation(game, 2) == 0
    game = move(game, 9)
    game = act(game, TakeOption, option="base.temple", health=True)
    offers = 0
    while moving_piece(game) == 2 and step_kind(game) != "core.move":
        if legal(game, AddBankCoin):
            offers += 1
            game = act(game, AddBankCoin, add=True)
        elif legal(game, Donate):
            game = act(game, Donate, amount=1)
        elif legal(game, TakeAmulet):
            game = act(game, TakeAmulet, amulet="fortune")
        else:
            game = act(game, TakeOption, option="crossroads.amulet")
    assert offers == 1
    assert donation(game, 2) == 2
    assert coins(game, 2) == 7 - 1 - 1
    assert game.state.secret(2) == ("fortune",)


# --- 5.7 Rare & Precious -----------------------------------------------------------------------

TRAVELLERS = ["kinko", "zenemon", "hirotada", "umegae", "mitsukuni"]


@pytest.mark.parametrize(("players", "kept"), [(2, 4), (3, 4), (4, 5), (5, 5)])
def test_rare_and_precious_keeps_four_or_five_cards_per_pile(players: int, kept: int) -> None:
    """Rare & Precious keeps 4 cards of each Crossroads pile with 2-3 players, 5 with 4-5."""
    game = start(TRAVELLERS[:players], plugins=RARE)
    for pile in PILES:
        assert len(game.state.zone(pile)) == kept, pile
        assert game.view(0).zone_sizes[pile] == kept


def test_rare_and_precious_scripted_removals() -> None:
    """The removed cards are the random picks; the rest stay in play (5.7)."""
    game = start(TRAVELLERS[:3], plugins=RARE, chance={
        "pick.crossroads.amulets": ["vitality", "fortune"],
        "pick.crossroads.calligraphy": ["foresight", "fasting"],
        "pick.crossroads.legendary": ["masamune", "shodo"],
    })
    assert sorted(game.state.zone(AMULET_PILE)) == [
        "devotion", "friendship", "health", "hospitality"]
    assert sorted(game.state.zone(CALLIGRAPHY_PILE)) == [
        "contemplation", "nostalgia", "patience", "perfection"]
    assert sorted(game.state.zone(LEGENDARY_PILE)) == ["buppatsu", "ema", "emaki", "murasame"]
    assert game.state.zone(CHERRY_PILE) == ("cherry_tree",) * 4
    assert game.state.zone(BATH_PILE) == ("bath_house",) * 4


def test_rare_and_precious_in_play_is_public() -> None:
    """The amulets and calligraphy in play are public, for every seat (5.7)."""
    game = start(TRAVELLERS[:4], plugins=RARE, chance={
        "pick.crossroads.amulets": ["devotion"],
        "pick.crossroads.calligraphy": ["patience"],
    })
    for seat in range(4):
        in_play = game.view(seat).data[IN_PLAY]
        assert sorted(in_play["amulets"]) == [
            "fortune", "friendship", "health", "hospitality", "vitality"]
        assert sorted(in_play["calligraphy"]) == [
            "contemplation", "fasting", "foresight", "nostalgia", "perfection"]


def test_rare_and_precious_in_play_is_in_every_seat_log() -> None:
    """Every seat's copy of the log shows the amulets and calligraphy in play (5.7, 7)."""
    game = start(TRAVELLERS[:3], plugins=RARE, chance={
        "pick.crossroads.amulets": ["vitality", "friendship"],
        "pick.crossroads.calligraphy": ["nostalgia", "fasting"],
    })
    for seat in range(3):
        records = [json.loads(line) for line in dump_log(game, viewer=seat).splitlines()]
        found = [r for r in records if r.get("type") == "core.data_set"
                 and r["data"].get("key") == IN_PLAY]
        assert len(found) == 1
        assert "value" not in found[0].get("withheld", [])
        assert sorted(found[0]["data"]["value"]["amulets"]) == [
            "devotion", "fortune", "health", "hospitality"]
        assert sorted(found[0]["data"]["value"]["calligraphy"]) == [
            "contemplation", "foresight", "patience", "perfection"]


def test_rare_and_precious_removed_amulets_cannot_be_taken() -> None:
    """A removed amulet has left the game: the temple offers only those in play (5.7)."""
    game = start(TRAVELLERS[:3], plugins=RARE,
                 chance={"pick.crossroads.amulets": ["health", "devotion"]})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    assert {a.amulet for a in legal(game, TakeAmulet)} == {
        "vitality", "fortune", "friendship", "hospitality"}


def test_rare_and_precious_removed_calligraphy_and_legendary_cannot_be_taken() -> None:
    """Removed calligraphy and legendary objects are not offered (5.7)."""
    game = start(["kinko", "zenemon", "kita"], plugins=RARE, coins={2: 9}, chance={
        "pick.crossroads.calligraphy": ["foresight", "patience"],
        "pick.crossroads.legendary": ["murasame", "ema"],
    })
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    assert {a.card for a in legal(game, TakeCalligraphy)} == {
        "contemplation", "nostalgia", "perfection", "fasting"}
    game = act(game, TakeCalligraphy, card="fasting")
    game = act(game, TakeOption, option=None)
    for _ in range(2):
        game = move(game, 14)
        game = act(game, BuyMeal, meal=None)
    game = move(game, 8)
    game = act(game, TakeOption, option="crossroads.legendary")
    assert {a.card for a in legal(game, BuyLegendary)} == {
        "shodo", "emaki", "buppatsu", "masamune"}


@pytest.mark.parametrize("variant", ["rare-and-precious", "good-luck"])
def test_crossroads_variants_require_crossroads(variant: str) -> None:
    """The Crossroads variants cannot be played without Crossroads (5.7)."""
    with pytest.raises(MissingRequirementError):
        start(TRAVELLERS[:3], plugins=("base", variant))


# --- 5.7 Good Luck ---------------------------------------------------------------------------


def luck_order(game: Game) -> tuple[Game, list[int]]:
    """Decline every Good Luck offer; return the pieces in the order they were asked."""
    asked = []
    while legal(game, BuyLuck):
        asked.append(moving_piece(game))
        game = act(game, BuyLuck, buy=False)
    return game, asked


@pytest.mark.parametrize(("queue", "order"), [
    ((0, 1, 2), [2, 1, 0]),
    ((1, 2, 0), [0, 2, 1]),
    ((2, 0, 1), [1, 0, 2]),
])
def test_good_luck_offers_in_departure_order(queue: tuple[int, ...], order: list[int]) -> None:
    """Good Luck asks in departure order: the last in the start queue first (5.7, 2)."""
    game = start(TRAVELLERS[:3], plugins=LUCK, queue=queue)
    game, asked = luck_order(game)
    assert asked == order
    assert step_kind(game) == "core.move" and moving_piece(game) == order[0]


def test_good_luck_two_players_neutral_is_not_asked() -> None:
    """Only players buy Good Luck amulets: the 2-player neutral is never asked (5.7)."""
    game = start(["kinko", "zenemon"], plugins=LUCK, queue=(1, 2, 0))
    game, asked = luck_order(game)
    assert asked == [0, 1]


def test_good_luck_buying_pays_one_coin_for_the_random_amulet() -> None:
    """A player paying 1 coin gets the randomly picked amulet, kept secret (5.7, 7)."""
    game = start(TRAVELLERS[:3], plugins=LUCK,
                 chance={"pick.crossroads.amulets": ["friendship", "devotion"]})
    game = act(game, BuyLuck, buy=True)   # piece 2 (Hirotada, 8)
    game = act(game, BuyLuck, buy=False)  # piece 1
    game = act(game, BuyLuck, buy=True)   # piece 0 (Kinko, 7)
    assert game.state.secret(2) == ("friendship",)
    assert game.state.secret(0) == ("devotion",)
    assert game.state.secret(1) == ()
    assert coins(game, 2) == 7 and coins(game, 0) == 6 and coins(game, 1) == 6
    assert sorted(game.state.zone(AMULET_PILE)) == [
        "fortune", "health", "hospitality", "vitality"]
    assert points(game, 2) == 0 and donation(game, 2) == 0
    view = game.view(1)
    assert "friendship" not in {c for cards in view.zones.values() for c in cards}
    assert secret_zone(2) not in view.zones
    assert view.zone_sizes[secret_zone(2)] == 1


def test_good_luck_no_offer_without_coins() -> None:
    """A player with 0 coins cannot pay: no Good Luck offer (5.7)."""
    game = start(["kinko", "zenemon", "gotozaemon"], plugins=LUCK)
    game, asked = luck_order(game)
    assert asked == [1, 0]
    assert game.state.secret(2) == ()


def test_good_luck_fortune_usable_before_the_first_move() -> None:
    """A Good Luck amulet is usable from the first move: Fortune before it (5.7, 9)."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=LUCK, chance={
        "pick.crossroads.amulets": ["fortune"], "die.crossroads.fortune": [4]})
    game = act(game, BuyLuck, buy=True)
    game = act(game, BuyLuck, buy=False)
    game = act(game, BuyLuck, buy=False)
    assert moving_piece(game) == 2 and legal(game, UseFortune)
    game = act(game, UseFortune)
    assert coins(game, 2) == 8 - 1 + 4
    assert game.state.secret(2) == ()
    assert "fortune" in game.state.zone(AMULET_PILE)
    assert legal(game, Move)  # the move is still to come


def test_good_luck_health_usable_at_the_first_stop() -> None:
    """A Good Luck Health amulet can be used at the very first stop (5.7, 9)."""
    game = start(["kinko", "zenemon", "hirotada"], plugins=LUCK,
                 chance={"pick.crossroads.amulets": ["health"]})
    game = act(game, BuyLuck, buy=True)
    game, _ = luck_order(game)
    game = move(game, 4)
    assert legal(game, TakeOption, option="crossroads.cherry_tree", health=True)
    game = act(game, TakeOption, option="crossroads.cherry_tree", health=True)
    game = act(game, TakeOption, option="base.panorama")
    assert collection(game, 2) == ("cherry_tree", "paddy.1")
    assert points(game, 2, "cherry_trees") == 2 and points(game, 2, "panoramas") == 1


def test_good_luck_with_rare_and_precious_gives_an_amulet_in_play() -> None:
    """Combined with Rare & Precious, the random amulet comes from those in play (5.7)."""
    game = start(TRAVELLERS[:3], plugins=(*RARE, "good-luck"), chance={
        "pick.crossroads.amulets": ["vitality", "fortune", "health"]})
    assert sorted(game.state.zone(AMULET_PILE)) == [
        "devotion", "friendship", "health", "hospitality"]
    game = act(game, BuyLuck, buy=True)
    assert game.state.secret(2) == ("health",)
    assert sorted(game.state.zone(AMULET_PILE)) == ["devotion", "friendship", "hospitality"]


# --- conformance -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rare_and_precious_conformance(players: int) -> None:
    """Random complete Rare & Precious games pass the conformance kit."""
    report = run_conformance(list(RARE), players=players, games=2)
    assert report.games == 2


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_good_luck_conformance(players: int) -> None:
    """Random complete Good Luck games pass the conformance kit."""
    report = run_conformance(list(LUCK), players=players, games=2)
    assert report.games == 2
