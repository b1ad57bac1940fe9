"""New Encounters promo cards (RULES.md 6) and their rulings (9).

Games have 3 players unless stated (no neutral traveller, single slots on double spaces,
an inn hand of 4 meal cards). With the default queue (0, 1, 2) piece 2 moves first.
Encounter spaces before the first inn: 3 and 10; inns: 14, 27, 41 and 54 (Edo).
Pieces 0 and 1 are Hirotada and Zen-emon unless stated: their powers only act at temples
and villages, where these scenarios never send them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest

from scenario import (
    ENCOUNTERS,
    HOT_SPRINGS,
    MEALS,
    act,
    coins,
    collection,
    legal,
    move,
    moving_piece,
    points,
    start,
)
from tokaido_base.actions import (
    AddBankCoin,
    BuyMeal,
    ChoosePanorama,
    KeepEncounter,
    SatsukiMeal,
)
from tokaido_crossroads import (
    Gamble,
    HospitalityMeal,
    TakeAmulet,
    TakeCalligraphy,
    TakeOption,
    UseDevotion,
)
from tokaido_new_encounters import KitoushiPanorama, PayPromo
from tokaido_rules import Game, Move, dump_log, new_game

NE = ("base", "new-encounters")
CX_NE = ("base", "crossroads", "new-encounters")
PROMOS = ("itamae", "kitoushi", "saru", "takuhatsuso")
BASE_ENCOUNTERS = {
    "shokunin": 2, "samurai": 2, "kuge": 2, "miko": 2,
    "annaibito.paddy": 1, "annaibito.mountain": 2, "annaibito.sea": 3,
}
OTHERS = ["hirotada", "zenemon"]
INN_HAND = "base.inn_hand"
INN_MEALS = "base.inn_meals"
DONATION = "base.donation"
PANORAMA_SUPPLY = "base.panoramas"
ALL_PANORAMAS = (
    "paddy.1", "paddy.2", "paddy.3",
    "mountain.1", "mountain.2", "mountain.3", "mountain.4",
    "sea.1", "sea.2", "sea.3", "sea.4", "sea.5",
)


# --- helpers ------------------------------------------------------------------------------


def game3(traveller: str, *, plugins: tuple[str, ...] = NE,
          stacks: dict[str, list[str]] | None = None, purse: int | None = None) -> Game:
    """A 3-player game where piece 2 (``traveller``) moves first."""
    return start([*OTHERS, traveller], plugins=plugins, stacks=stacks,
                 coins=None if purse is None else {2: purse})


def step_kind(game: Game) -> str:
    step = game.current_step
    assert step is not None
    return step.kind


def position(game: Game, piece: int) -> int:
    return game.state.pieces[piece].position


def donation(game: Game, piece: int) -> int:
    return game.state.pieces[piece].counter(DONATION)


def default(game: Game) -> Game:
    """A neutral default: move straight to the next inn, buy nothing, pay nothing."""
    actions = game.legal_actions()
    first = actions[0]
    if isinstance(first, Move):
        piece = moving_piece(game)
        return move(game, game.state.rules.next_inn[position(game, piece)])
    for cls, fields in (
        (BuyMeal, {"meal": None}), (PayPromo, {"pay": False}),
        (KitoushiPanorama, {"panorama": None}), (SatsukiMeal, {"keep": False}),
        (AddBankCoin, {"add": False}), (Gamble, {"stake": False}),
    ):
        if isinstance(first, cls):
            return act(game, cls, **fields)
    if isinstance(first, ChoosePanorama | KeepEncounter):
        return game.apply(first)
    raise AssertionError(f"no default for {actions}")


def rush(game: Game, until: Callable[[Game], bool] | None = None) -> Game:
    """Apply default decisions until ``until`` holds or the game is over."""
    while not game.is_over and (until is None or not until(game)):
        game = default(game)
    return game


def crafted(game: Game, src: str, dst: str, cards: Sequence[str]) -> Game:
    """The same game with ``cards`` moved from zone ``src`` to zone ``dst`` (a position
    that cannot be reached quickly by play, e.g. an exhausted deck)."""
    state = game.state.move_cards(src, dst, tuple(cards), from_top=False, bottom=True)
    return Game(state, ())


def collection_zone_of(piece: int) -> str:
    return f"core.collection.{piece}"


def take_base_option(game: Game) -> Game:
    """At a Crossroads option decision, take the base action of the space."""
    options = [a for a in legal(game, TakeOption) if a.option and a.option.startswith("base.")]
    assert len(options) == 1, game.legal_actions()
    return game.apply(options[0])


# --- the deck -----------------------------------------------------------------------------


def test_encounter_deck_holds_18_cards_with_the_four_promos() -> None:
    """The four promo cards, one of each, are shuffled into the 14 base encounters (6)."""
    game = game3("sasayakko")
    deck = game.state.zone(ENCOUNTERS)
    assert len(deck) == 18
    for card in PROMOS:
        assert deck.count(card) == 1
    for card, copies in BASE_ENCOUNTERS.items():
        assert deck.count(card) == copies
    assert len(start([*OTHERS, "sasayakko"]).state.zone(ENCOUNTERS)) == 14


def test_promo_cards_are_shuffled_into_the_deck() -> None:
    """The promo cards are shuffled in: they are not always in the same places (6, 2)."""
    places = {
        tuple(i for i, c in enumerate(new_game(3, seed=seed, plugins=NE,
                                               travellers=[*OTHERS, "sasayakko"])
                                      .state.zone(ENCOUNTERS)) if c in PROMOS)
        for seed in range(8)
    }
    assert len(places) > 1


# --- Itamae -------------------------------------------------------------------------------


def test_itamae_paid_meal_joins_the_collection() -> None:
    """Itamae: 1 coin draws the top meal; not eaten yet, it joins the collection, +6 in
    meals; it is not a meal eaten at an inn (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["itamae"], MEALS: ["tempura"]})
    game = move(game, 3)
    assert step_kind(game) == "new-encounters.itamae_choice"
    assert {a.pay for a in legal(game, PayPromo, card="itamae")} == {True, False}
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("itamae", "tempura")
    assert coins(game, 2) == 4
    assert points(game, 2, "meals") == 6
    assert points(game, 2, "encounters") == 0
    assert points(game, 2) == 6
    assert len(game.state.zone(MEALS)) == 24
    assert game.state.pieces[2].counter(INN_MEALS) == 0
    assert step_kind(game) == "core.move"


def test_itamae_declined_keeps_the_card_only() -> None:
    """Itamae declined: the card still joins the collection; no coin, no meal (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["itamae"], MEALS: ["tempura"]})
    meals = game.state.zone(MEALS)
    game = move(game, 3)
    game = act(game, PayPromo, card="itamae", pay=False)
    assert collection(game, 2) == ("itamae",)
    assert coins(game, 2) == 5
    assert points(game, 2) == 0
    assert game.state.zone(MEALS) == meals


def test_itamae_with_no_coins_is_not_offered() -> None:
    """With 0 coins Itamae cannot be paid: no decision, the card still joins (6, 9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["itamae"], MEALS: ["tempura"]}, purse=0)
    game = move(game, 3)
    assert not legal(game, PayPromo)
    assert step_kind(game) == "core.move"
    assert collection(game, 2) == ("itamae",)
    assert len(game.state.zone(MEALS)) == 25


def test_itamae_payment_gets_no_kinko_discount() -> None:
    """Itamae's coin is not a meal price: Kinko pays 1 even for a 1-coin meal (9)."""
    game = game3("kinko", stacks={ENCOUNTERS: ["itamae"], MEALS: ["dango"]})
    game = move(game, 3)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert coins(game, 2) == 6
    assert collection(game, 2) == ("itamae", "dango")
    assert points(game, 2, "meals") == 6


def test_itamae_meal_blocks_the_same_meal_but_not_the_next_inn_meal() -> None:
    """An Itamae meal counts for never-the-same-meal-twice, but is not an inn meal: the
    traveller may still buy a meal at the next inn (6, 3.4)."""
    game = game3("sasayakko", stacks={
        ENCOUNTERS: ["itamae"], MEALS: ["dango", "dango", "tempura", "sushi", "soba"]})
    game = move(game, 3)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert coins(game, 2) == 4
    game = move(game, 7)  # piece 1 (farm)
    game = move(game, 11)  # piece 0 (sea)
    assert moving_piece(game) == 2
    game = move(game, 14)
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "soba", "sushi", "tempura"]
    assert {a.meal for a in legal(game, BuyMeal, piece=2)} == {None, "soba", "sushi", "tempura"}
    game = act(game, BuyMeal, meal="tempura")
    assert collection(game, 2) == ("itamae", "dango", "tempura")
    assert points(game, 2, "meals") == 12
    assert coins(game, 2) == 2
    assert game.state.pieces[2].counter(INN_MEALS) == 1


def test_itamae_meal_is_returned_when_satsuki_draws_it_again() -> None:
    """The Itamae meal counts for never-the-same-meal-twice: Satsuki's free draw of the
    same meal at a later inn can only go back under the meal deck (3.7, 6)."""
    game = game3("satsuki", stacks={
        ENCOUNTERS: ["itamae"], MEALS: ["dango", "dango", "tempura", "sushi", "soba", "unagi"]})
    game = move(game, 3)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("itamae", "dango")
    assert coins(game, 2) == 1
    game = move(game, 7)  # piece 1
    game = move(game, 11)  # piece 0
    game = move(game, 14)
    assert game.legal_actions() == (SatsukiMeal(2, 2, False),)
    game = act(game, SatsukiMeal, keep=False)
    assert game.state.zone(MEALS)[-1] == "dango"
    assert sorted(game.state.zone(INN_HAND)) == ["soba", "sushi", "tempura", "unagi"]
    assert collection(game, 2) == ("itamae", "dango")


def test_itamae_meal_gives_nampo_no_inn_bonus() -> None:
    """Nampo's bonus follows a meal taken at an inn; an Itamae meal is not one (5.6, 6)."""
    game = game3("nampo", plugins=CX_NE, stacks={ENCOUNTERS: ["itamae"], MEALS: ["unagi"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="base.encounter")
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("itamae", "unagi")
    assert points(game, 2, "meals") == 6
    assert points(game, 2, "traveller_powers") == 0
    assert coins(game, 2) == 1


def reach_itamae_after_eating_dango() -> Game:
    """Piece 2 (Sasayakko, 5 coins) eats dango at inn 14; piece 0 then goes to 15,
    piece 1 to 17; piece 2 stops at the encounter 20 with Itamae and dango on top of the
    meal deck."""
    game = game3("sasayakko", stacks={
        ENCOUNTERS: ["itamae"], MEALS: ["dango", "tempura", "sushi", "soba", "dango"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="dango")
    for _ in range(2):
        game = move(game, 14)
        game = act(game, BuyMeal, meal=None)
    assert moving_piece(game) == 0
    game = move(game, 15)
    assert moving_piece(game) == 1
    game = move(game, 17)
    assert moving_piece(game) == 2
    assert game.state.zone(MEALS)[0] == "dango"
    return move(game, 20)


def test_itamae_already_eaten_meal_goes_to_the_bottom() -> None:
    """Itamae drawing a meal already eaten: the coin is spent, the meal goes to the bottom
    of the meal deck, nothing is scored (6)."""
    game = reach_itamae_after_eating_dango()
    assert coins(game, 2) == 4
    deck = game.state.zone(MEALS)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert coins(game, 2) == 3
    assert collection(game, 2) == ("dango", "itamae")
    assert points(game, 2, "meals") == 6
    assert game.state.zone(MEALS) == (*deck[1:], "dango")


def test_itamae_returned_meal_is_unseen_by_others() -> None:
    """A meal Itamae draws and returns is seen by no other seat (7)."""
    game = reach_itamae_after_eating_dango()
    seq = game.state.seq
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("dango", "itamae")
    for seat in (0, 1):
        lines = dump_log(game, viewer=seat).splitlines()[1 + seq:]
        assert lines, "the payment must be in the log"
        assert not any("dango" in line for line in lines)
        assert MEALS not in game.view(seat).zones
    own = [json.loads(line) for line in dump_log(game, viewer=2).splitlines()[1 + seq:]]
    assert any("dango" in json.dumps(e["data"]) for e in own)


def test_itamae_meal_counts_for_gourmet_at_printed_price() -> None:
    """An Itamae meal counts for Gourmet with its printed price (6, 3.5)."""
    game = start(["hirotada", "sasayakko", "kinko"], plugins=NE,
                 stacks={ENCOUNTERS: ["itamae"], MEALS: ["unagi", "tempura"]})
    game = move(game, 3)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("itamae", "unagi")
    assert coins(game, 2) == 6
    assert moving_piece(game) == 1
    game = move(game, 14)
    game = act(game, BuyMeal, meal="tempura")
    game = rush(game)
    assert "achievement.gourmet" in collection(game, 2)  # 3 (printed) against 2
    assert "achievement.gourmet" not in collection(game, 1)
    assert "achievement.gourmet" not in collection(game, 0)


def test_itamae_not_offered_with_an_empty_meal_deck() -> None:
    """A paid effect that would give nothing is not offered: Itamae with an empty meal
    deck (9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["itamae"]})
    game = crafted(game, MEALS, INN_HAND, game.state.zone(MEALS))
    assert game.state.zone(MEALS) == ()
    game = move(game, 3)
    assert not legal(game, PayPromo)
    assert step_kind(game) == "core.move"
    assert collection(game, 2) == ("itamae",)
    assert coins(game, 2) == 5


def test_itamae_through_chuubei_at_an_inn() -> None:
    """Chuubei's inn encounter can be Itamae; its meal is not an inn meal, so the inn
    meal is still offered afterwards (3.7, 6, 9)."""
    game = game3("chuubei", stacks={
        ENCOUNTERS: ["itamae"], MEALS: ["tempura", "dango", "sushi", "soba", "unagi"]})
    game = move(game, 14)
    assert step_kind(game) == "new-encounters.itamae_choice"
    assert game.state.zone(INN_HAND) == ()
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("itamae", "tempura")
    assert coins(game, 2) == 3
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "soba", "sushi", "unagi"]
    assert {a.meal for a in legal(game, BuyMeal, piece=2)} == {
        None, "dango", "soba", "sushi", "unagi"}
    game = act(game, BuyMeal, meal="dango")
    assert points(game, 2, "meals") == 12
    assert coins(game, 2) == 2


def test_itamae_meal_does_not_count_as_an_inn_meal_for_fasting() -> None:
    """Fasting counts meals not eaten at an inn: an Itamae meal is not an inn meal, so
    with no inn meal Fasting scores 3 x 4 = 12 (5.4, 6)."""
    game = game3("kita", plugins=CX_NE, stacks={ENCOUNTERS: ["itamae"], MEALS: ["sushi"]})
    game = move(game, 3)
    game = act(game, TakeOption, option="crossroads.calligraphy")
    game = act(game, TakeCalligraphy, card="fasting")
    game = act(game, TakeOption, option="base.encounter")
    game = act(game, PayPromo, card="itamae", pay=True)
    assert collection(game, 2) == ("fasting", "itamae", "sushi")
    assert coins(game, 2) == 2
    game = rush(game)
    assert game.state.pieces[2].counter(INN_MEALS) == 0
    assert points(game, 2, "meals") == 6
    assert points(game, 2, "calligraphy") == 12


def test_itamae_payment_cannot_use_hospitality() -> None:
    """Hospitality makes the inn meal free, not Itamae's coin: the Itamae decision offers
    only to pay or not, and the amulet stays held (9)."""
    game = game3("sasayakko", plugins=CX_NE,
                 stacks={ENCOUNTERS: ["itamae"], MEALS: ["tempura"]})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="hospitality")
    assert coins(game, 2) == 4
    game = move(game, 7)
    game = take_base_option(game)
    game = move(game, 11)
    game = take_base_option(game)
    assert moving_piece(game) == 2
    game = move(game, 3)
    game = take_base_option(game)
    assert step_kind(game) == "new-encounters.itamae_choice"
    assert set(game.legal_actions()) == {PayPromo(2, 2, "itamae", False),
                                         PayPromo(2, 2, "itamae", True)}
    assert not legal(game, HospitalityMeal)
    game = act(game, PayPromo, card="itamae", pay=True)
    assert coins(game, 2) == 3
    assert collection(game, 2)[-2:] == ("itamae", "tempura")
    assert game.state.secret(2) == ("hospitality",)


# --- Kitoushi -----------------------------------------------------------------------------


def test_kitoushi_paid_takes_a_panorama_section_of_choice() -> None:
    """Kitoushi: 1 coin for the next section of a panorama of choice, scored as a
    panorama (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["kitoushi"]})
    game = move(game, 3)
    assert step_kind(game) == "new-encounters.kitoushi_choice"
    assert {a.panorama for a in legal(game, KitoushiPanorama)} == {
        None, "paddy", "mountain", "sea"}
    game = act(game, KitoushiPanorama, panorama="sea")
    assert collection(game, 2) == ("kitoushi", "sea.1")
    assert coins(game, 2) == 4
    assert points(game, 2, "panoramas") == 1
    assert points(game, 2) == 1


def test_kitoushi_declined() -> None:
    """Kitoushi declined: the card joins the collection, nothing else (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["kitoushi"]})
    game = move(game, 3)
    game = act(game, KitoushiPanorama, panorama=None)
    assert collection(game, 2) == ("kitoushi",)
    assert coins(game, 2) == 5
    assert points(game, 2) == 0


def test_kitoushi_continues_a_started_panorama_and_completing_it_wins_the_achievement()\
        -> None:
    """Kitoushi takes the next section; completing the panorama first gives its
    achievement (6, 3.3)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["annaibito.paddy", "kitoushi"]})
    game = move(game, 3)  # Annaibito-Paddy: paddy 1
    game = move(game, 5)  # piece 1
    game = move(game, 6)  # piece 0
    assert moving_piece(game) == 2
    game = move(game, 4)  # paddy 2
    assert moving_piece(game) == 2
    game = move(game, 10)
    game = act(game, KitoushiPanorama, panorama="paddy")
    assert collection(game, 2) == (
        "annaibito.paddy", "paddy.1", "paddy.2", "kitoushi", "paddy.3", "achievement.paddy")
    assert points(game, 2, "panoramas") == 6
    assert points(game, 2, "achievements") == 3
    assert coins(game, 2) == 4


def test_kitoushi_offers_only_panoramas_not_complete() -> None:
    """Kitoushi's panorama must not be complete (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["kitoushi"]})
    game = crafted(game, PANORAMA_SUPPLY, collection_zone_of(2),
                   ("paddy.1", "paddy.2", "paddy.3"))
    game = move(game, 3)
    assert {a.panorama for a in legal(game, KitoushiPanorama)} == {None, "mountain", "sea"}


def test_kitoushi_not_offered_with_every_panorama_complete() -> None:
    """A paid effect that would give nothing is not offered: Kitoushi with every
    panorama complete (9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["kitoushi"]})
    game = crafted(game, PANORAMA_SUPPLY, collection_zone_of(2), ALL_PANORAMAS)
    game = move(game, 3)
    assert not legal(game, KitoushiPanorama)
    assert step_kind(game) == "core.move"
    assert collection(game, 2)[-1] == "kitoushi"
    assert coins(game, 2) == 5


def test_kitoushi_with_no_coins_is_not_offered() -> None:
    """With 0 coins Kitoushi cannot be paid: no decision (6, 9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["kitoushi"]}, purse=0)
    game = move(game, 3)
    assert not legal(game, KitoushiPanorama)
    assert collection(game, 2) == ("kitoushi",)
    assert points(game, 2) == 0


# --- Saru ---------------------------------------------------------------------------------


def test_saru_draws_and_scores_a_hot_spring_for_free() -> None:
    """Saru: draw a hot spring card and score it, free (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["saru"], HOT_SPRINGS: ["hot_spring.3"]})
    game = move(game, 3)
    assert step_kind(game) == "core.move"
    assert collection(game, 2) == ("saru", "hot_spring.3")
    assert points(game, 2, "hot_springs") == 3
    assert points(game, 2) == 3
    assert coins(game, 2) == 5


def test_saru_with_no_coins_still_gives_the_hot_spring() -> None:
    """Saru costs nothing: it works with 0 coins (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["saru"], HOT_SPRINGS: ["hot_spring.2"]},
                 purse=0)
    game = move(game, 3)
    assert collection(game, 2) == ("saru", "hot_spring.2")
    assert points(game, 2, "hot_springs") == 2


def test_saru_hot_spring_counts_for_mitsukuni() -> None:
    """Saru's card is a hot spring card: Mitsukuni scores 1 more for it (3.7, 6)."""
    game = game3("mitsukuni", stacks={ENCOUNTERS: ["saru"], HOT_SPRINGS: ["hot_spring.2"]})
    game = move(game, 3)
    assert points(game, 2, "hot_springs") == 2
    assert points(game, 2, "traveller_powers") == 1


def test_saru_with_an_empty_hot_spring_deck_gives_nothing() -> None:
    """An empty deck gives nothing: Saru with no hot spring card left (9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["saru"]})
    game = crafted(game, HOT_SPRINGS, collection_zone_of(0), game.state.zone(HOT_SPRINGS))
    game = move(game, 3)
    assert collection(game, 2) == ("saru",)
    assert points(game, 2) == 0


# --- Takuhatsuso --------------------------------------------------------------------------


def test_takuhatsuso_paid_gives_4_encounter_points() -> None:
    """Takuhatsuso: 1 coin for 4 points, in category encounters (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["takuhatsuso"]})
    game = move(game, 3)
    assert step_kind(game) == "new-encounters.takuhatsuso_choice"
    assert {a.pay for a in legal(game, PayPromo, card="takuhatsuso")} == {True, False}
    game = act(game, PayPromo, card="takuhatsuso", pay=True)
    assert collection(game, 2) == ("takuhatsuso",)
    assert coins(game, 2) == 4
    assert points(game, 2, "encounters") == 4
    assert points(game, 2) == 4


def test_takuhatsuso_declined() -> None:
    """Takuhatsuso declined: no coin, no points; the card joins the collection (6)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["takuhatsuso"]})
    game = move(game, 3)
    game = act(game, PayPromo, card="takuhatsuso", pay=False)
    assert collection(game, 2) == ("takuhatsuso",)
    assert coins(game, 2) == 5
    assert points(game, 2) == 0


def test_takuhatsuso_with_no_coins_is_not_offered() -> None:
    """With 0 coins Takuhatsuso is not offered; the card still joins (6, 9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["takuhatsuso"]}, purse=0)
    game = move(game, 3)
    assert not legal(game, PayPromo)
    assert step_kind(game) == "core.move"
    assert collection(game, 2) == ("takuhatsuso",)
    assert points(game, 2) == 0


def test_takuhatsuso_payment_is_not_a_devotion_donation() -> None:
    """Devotion covers card prices only: with Devotion active, the Takuhatsuso coin goes
    to the bank, not onto the temple donation (9)."""
    game = game3("sasayakko", plugins=CX_NE, stacks={ENCOUNTERS: ["takuhatsuso"]})
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="devotion")
    assert coins(game, 2) == 4
    game = move(game, 7)
    game = take_base_option(game)
    game = move(game, 11)
    game = take_base_option(game)
    assert moving_piece(game) == 2
    game = move(game, 3)
    assert step_kind(game) == "crossroads.option"
    game = act(game, UseDevotion)  # active for this stop
    assert "devotion" not in game.state.secret(2)
    game = act(game, TakeOption, option="base.encounter")
    assert step_kind(game) == "new-encounters.takuhatsuso_choice"
    assert not legal(game, UseDevotion)
    game = act(game, PayPromo, card="takuhatsuso", pay=True)
    assert coins(game, 2) == 3
    assert points(game, 2, "encounters") == 4
    assert donation(game, 2) == 0
    assert points(game, 2, "temple_donations") == 0


# --- with travellers' powers -----------------------------------------------------------------


def test_umegae_bonus_coin_comes_before_the_card_so_he_can_pay() -> None:
    """Umegae's +1 coin comes before the card: with 0 coins he can pay Takuhatsuso
    (3.7, 9)."""
    game = game3("umegae", stacks={ENCOUNTERS: ["takuhatsuso"]}, purse=0)
    game = move(game, 3)
    assert coins(game, 2) == 1
    assert step_kind(game) == "new-encounters.takuhatsuso_choice"
    game = act(game, PayPromo, card="takuhatsuso", pay=True)
    assert coins(game, 2) == 0
    assert points(game, 2, "encounters") == 4
    assert points(game, 2, "traveller_powers") == 1
    assert points(game, 2) == 5


def test_yoshiyasu_keeps_a_promo_and_applies_it() -> None:
    """Yoshiyasu draws two, keeps one and applies it: a kept promo card works; the other
    goes to the bottom (3.7, 9)."""
    game = game3("yoshiyasu", stacks={ENCOUNTERS: ["takuhatsuso", "samurai"]})
    game = move(game, 3)
    assert {a.card for a in legal(game, KeepEncounter)} == {"takuhatsuso", "samurai"}
    game = act(game, KeepEncounter, card="takuhatsuso")
    assert step_kind(game) == "new-encounters.takuhatsuso_choice"
    game = act(game, PayPromo, card="takuhatsuso", pay=True)
    assert collection(game, 2) == ("takuhatsuso",)
    assert coins(game, 2) == 8
    assert points(game, 2, "encounters") == 4
    assert game.state.zone(ENCOUNTERS)[-1] == "samurai"
    assert len(game.state.zone(ENCOUNTERS)) == 17


def test_yoshiyasu_keeps_kitoushi() -> None:
    """Yoshiyasu keeping Kitoushi may pay for a panorama section (3.7, 6)."""
    game = game3("yoshiyasu", stacks={ENCOUNTERS: ["kuge", "kitoushi"]})
    game = move(game, 3)
    game = act(game, KeepEncounter, card="kitoushi")
    game = act(game, KitoushiPanorama, panorama="mountain")
    assert collection(game, 2) == ("kitoushi", "mountain.1")
    assert coins(game, 2) == 8
    assert points(game, 2, "panoramas") == 1


@pytest.mark.parametrize("card", ["takuhatsuso", "saru"])
def test_chuubei_inn_encounter_applies_promo_cards(card: str) -> None:
    """Chuubei's inn encounter can be any promo card, applied as usual (3.7, 9)."""
    game = game3("chuubei", stacks={ENCOUNTERS: [card], HOT_SPRINGS: ["hot_spring.3"]})
    game = move(game, 14)
    if card == "takuhatsuso":
        game = act(game, PayPromo, card="takuhatsuso", pay=True)
        assert points(game, 2, "encounters") == 4
        assert coins(game, 2) == 3
    else:
        assert points(game, 2, "hot_springs") == 3
        assert coins(game, 2) == 4
    assert collection(game, 2)[0] == card
    assert legal(game, BuyMeal)


# --- Chatterbox -------------------------------------------------------------------------------


def test_unpaid_promo_card_counts_for_chatterbox() -> None:
    """A promo card always counts for Chatterbox, paid for or not (6, 9)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["itamae"]}, purse=0)
    game = move(game, 3)
    assert collection(game, 2) == ("itamae",)
    game = rush(game)
    assert game.is_over
    assert "achievement.chatterbox" in collection(game, 2)
    assert "achievement.chatterbox" not in collection(game, 0)
    assert "achievement.chatterbox" not in collection(game, 1)


def test_declined_promo_breaks_a_chatterbox_tie() -> None:
    """A declined promo card counts like any encounter card for Chatterbox (6, 3.5)."""
    game = game3("sasayakko", stacks={ENCOUNTERS: ["samurai", "takuhatsuso", "kuge"]})
    game = move(game, 3)  # samurai
    game = move(game, 10)  # piece 1: takuhatsuso, declined
    game = act(game, PayPromo, card="takuhatsuso", pay=False)
    assert moving_piece(game) == 0
    game = move(game, 13)
    assert moving_piece(game) == 2
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    assert moving_piece(game) == 1
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    assert moving_piece(game) == 0
    game = move(game, 14)
    game = act(game, BuyMeal, meal=None)
    game = rush(game)
    assert "achievement.chatterbox" in collection(game, 2)
    assert "achievement.chatterbox" in collection(game, 1)
    assert "achievement.chatterbox" not in collection(game, 0)
