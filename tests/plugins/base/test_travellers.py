"""The ten base travellers (RULES.md 3.7), with the rulings of section 9 and options of 8.

Games have 3 players unless stated (no neutral traveller, single slots on double spaces).
With the default queue (0, 1, 2) piece 2 moves first, then piece 1, then piece 0.
Inns: 14, 27, 41 and 54 (Edo). With 3 players an inn hand holds 4 meal cards.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

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
from tokaido_base.actions import (
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    Donate,
    KeepEncounter,
    SatsukiMeal,
)
from tokaido_rules import (
    Action,
    CoinsChanged,
    Game,
    IllegalActionError,
    Move,
    Scored,
    TokaidoError,
)
from tokaido_rules.bots import RandomBot, next_action

INN_HAND = "base.inn_hand"
DRAWN = "base.drawn"  # one zone per traveller: base.drawn.<piece>
DONATION = "base.donation"
POWERS = "traveller_powers"


# --- helpers ------------------------------------------------------------------------------


def next_inn(game: Game, piece: int) -> int:
    """The next inn ahead of a piece."""
    return game.state.rules.next_inn[game.state.pieces[piece].position]


def step_piece(game: Game) -> int:
    step = game.current_step
    assert step is not None
    return step.piece


def default(game: Game) -> Game:
    """A neutral default for the current decision: move straight to the next inn, buy no
    meal, return Satsuki's meal, prefer the paddy panorama, keep the first encounter."""
    actions = game.legal_actions()
    assert actions, "no decision open"
    first = actions[0]
    piece = step_piece(game)
    if isinstance(first, Move):
        return move(game, next_inn(game, piece))
    if isinstance(first, BuyMeal):
        return act(game, BuyMeal, meal=None)
    if isinstance(first, SatsukiMeal):
        return act(game, SatsukiMeal, keep=False)
    if isinstance(first, ChoosePanorama):
        paddy = legal(game, ChoosePanorama, panorama="paddy")
        return game.apply(paddy[0] if paddy else first)
    if isinstance(first, KeepEncounter):
        return game.apply(first)
    raise AssertionError(f"no default for {actions}")


def rush(game: Game, until: Callable[[Game], bool] | None = None) -> Game:
    """Apply default decisions until ``until`` holds or the game is over."""
    while not game.is_over and (until is None or not until(game)):
        game = default(game)
    return game


def moves_next(piece: int) -> Callable[[Game], bool]:
    """True when ``piece`` is about to move."""
    def check(game: Game) -> bool:
        return bool(legal(game, Move)) and step_piece(game) == piece
    return check


def kinds(game: Game, piece: int, prefix: str) -> list[str]:
    """The cards of a collection whose id starts with ``prefix``."""
    return [c for c in collection(game, piece) if c.startswith(prefix)]


def encounter_cards(game: Game, piece: int) -> list[str]:
    cards = game.state.rules.ruleset.registry.cards
    return [c for c in collection(game, piece) if cards[c].kind == "encounter"]


def panorama_cards(game: Game, piece: int) -> list[str]:
    cards = game.state.rules.ruleset.registry.cards
    return [c for c in collection(game, piece) if cards[c].kind == "panorama"]


def donation(game: Game, piece: int) -> int:
    return game.state.pieces[piece].counter(DONATION)


# --- starting coins (1.2) -------------------------------------------------------------------

STARTING_COINS = {
    "hiroshige": 3, "chuubei": 4, "kinko": 7, "yoshiyasu": 9, "satsuki": 2,
    "mitsukuni": 6, "sasayakko": 5, "hirotada": 8, "umegae": 5, "zenemon": 6,
}


@pytest.mark.parametrize(("traveller", "expected"), list(STARTING_COINS.items()))
def test_starting_coins_are_printed_on_the_tile(traveller: str, expected: int) -> None:
    """Each traveller starts with the coins printed on the tile (1.2, 2)."""
    others = [t for t in STARTING_COINS if t != traveller][:2]
    game = start([traveller, *others])
    assert game.state.pieces[0].traveller == traveller
    assert coins(game, 0) == expected
    for seat, name in enumerate(others, start=1):
        assert coins(game, seat) == STARTING_COINS[name]


# --- Hiroshige ------------------------------------------------------------------------------


def test_hiroshige_chooses_a_panorama_on_inn_arrival_before_the_meal() -> None:
    """Hiroshige takes a panorama of his choice at an intermediate inn before the hand."""
    game = start(["kinko", "zenemon", "hiroshige"],
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 14)
    assert {a.panorama for a in legal(game, ChoosePanorama)} == {"paddy", "mountain", "sea"}
    # Arrival power first: the first arrival has not drawn the inn hand yet.
    assert game.state.zone(INN_HAND) == ()
    game = act(game, ChoosePanorama, panorama="sea")
    assert collection(game, 2) == ("sea.1",)
    assert points(game, 2, "panoramas") == 1
    # Then the hand is drawn and the meal decision follows.
    assert game.state.zone(INN_HAND) == ("dango", "tempura", "sushi", "unagi")
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "dango", "tempura", "sushi", "unagi"}


def test_hiroshige_continues_a_started_panorama() -> None:
    """The section Hiroshige takes is the next one of the chosen panorama."""
    game = start(["kinko", "zenemon", "hiroshige"], queue=(2, 1, 0))
    # Queue (2, 1, 0): piece 0 moves first, then 1, then Hiroshige (piece 2) last.
    game = move(game, 12)  # piece 0: mountain
    game = move(game, 13)  # piece 1: hot spring
    game = move(game, 4)  # Hiroshige: paddy 1
    assert collection(game, 2) == ("paddy.1",)
    game = move(game, 14)
    game = act(game, ChoosePanorama, panorama="paddy")
    assert collection(game, 2) == ("paddy.1", "paddy.2")
    assert points(game, 2, "panoramas") == 3


def test_hiroshige_completing_a_panorama_earns_its_achievement() -> None:
    """A panorama completed through Hiroshige's power earns the achievement at once."""
    game = start(["kinko", "zenemon", "hiroshige"], queue=(2, 1, 0),
                 stacks={ENCOUNTERS: ["annaibito.paddy"]})
    game = move(game, 11)  # piece 0
    game = move(game, 12)  # piece 1
    game = move(game, 3)  # Hiroshige: Annaibito-Paddy -> paddy 1
    game = move(game, 4)  # paddy 2
    game = move(game, 14)
    assert step_piece(game) == 2
    game = act(game, ChoosePanorama, panorama="paddy")
    assert kinds(game, 2, "paddy.") == ["paddy.1", "paddy.2", "paddy.3"]
    assert "achievement.paddy" in collection(game, 2)
    assert points(game, 2, "panoramas") == 6
    assert points(game, 2, "achievements") == 3


def test_hiroshige_gets_nothing_at_an_inn_once_every_panorama_is_complete() -> None:
    """Hiroshige's choice excludes complete panoramas; with all complete he takes none."""
    game = start(["kinko", "zenemon", "hiroshige"], queue=(2, 1, 0))
    hiro = 2
    game = rush(game, moves_next(hiro))  # the others go straight to inn 14
    for pos in (4, 6, 11, 12):  # paddy 1, mountain 1, sea 1, mountain 2
        game = move(game, pos)
    game = move(game, 14)
    assert {a.panorama for a in legal(game, ChoosePanorama)} == {"paddy", "mountain", "sea"}
    game = act(game, ChoosePanorama, panorama="sea")  # sea 2
    game = rush(game, moves_next(hiro))
    game = move(game, 15)  # sea 3 (Hiroshige arrived last, leaves first)
    game = rush(game, moves_next(hiro))
    for pos in (18, 19, 23, 24):  # paddy 2, mountain 3, mountain 4 (complete), sea 4
        game = move(game, pos)
    assert "achievement.mountain" in collection(game, hiro)
    game = move(game, 27)
    # Mountain is complete: only paddy and sea are offered.
    assert {a.panorama for a in legal(game, ChoosePanorama)} == {"paddy", "sea"}
    game = act(game, ChoosePanorama, panorama="paddy")  # paddy 3 (complete)
    game = rush(game, moves_next(hiro))
    game = move(game, 34)  # sea 5 (complete)
    assert len(panorama_cards(game, hiro)) == 12
    assert points(game, hiro, "panoramas") == 6 + 10 + 15
    assert points(game, hiro, "achievements") == 9
    game = rush(game, moves_next(hiro))
    game = move(game, 41)
    assert not legal(game, ChoosePanorama)
    assert len(panorama_cards(game, hiro)) == 12
    assert points(game, hiro, "panoramas") == 31


def test_hiroshige_takes_no_panorama_at_edo() -> None:
    """Hiroshige's power works at the 3 intermediate inns only, not at Edo."""
    game = start(["kinko", "zenemon", "hiroshige"])
    game = rush(game)  # every inn straight away; Hiroshige always picks paddy
    assert game.is_over
    assert panorama_cards(game, 2) == ["paddy.1", "paddy.2", "paddy.3"]
    assert points(game, 2, "panoramas") == 6
    assert "achievement.paddy" in collection(game, 2)
    assert points(game, 2, "achievements") == 3


# --- Chuubei --------------------------------------------------------------------------------


def test_chuubei_encounter_is_applied_before_the_meal() -> None:
    """Chuubei draws and applies an encounter at an inn before the meal decision."""
    game = start(["kinko", "zenemon", "chuubei"], coins={2: 0},
                 stacks={ENCOUNTERS: ["kuge"], MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 14)
    assert collection(game, 2) == ("kuge",)
    assert coins(game, 2) == 3
    # With 0 coins he could buy nothing; Kuge's 3 coins came first, so even Unagi is open.
    assert step_piece(game) == 2
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "dango", "tempura", "sushi", "unagi"}
    game = act(game, BuyMeal, meal="unagi")
    assert coins(game, 2) == 0
    assert points(game, 2, "meals") == 6


def test_chuubei_samurai_scores_three() -> None:
    """Chuubei's inn encounter takes the card into his collection and applies it."""
    game = start(["kinko", "zenemon", "chuubei"], stacks={ENCOUNTERS: ["samurai"]})
    game = move(game, 14)
    assert collection(game, 2)[0] == "samurai"
    assert points(game, 2, "encounters") == 3
    assert len(game.state.zone(ENCOUNTERS)) == 13


def test_chuubei_annaibito_gives_a_panorama_section() -> None:
    """An Annaibito drawn by Chuubei at an inn gives the next section of its panorama."""
    game = start(["kinko", "zenemon", "chuubei"], stacks={ENCOUNTERS: ["annaibito.mountain"]})
    game = move(game, 14)
    assert collection(game, 2)[:2] == ("annaibito.mountain", "mountain.1")
    assert points(game, 2, "panoramas") == 1


def test_chuubei_shokunin_gives_the_top_souvenir() -> None:
    """A Shokunin drawn by Chuubei gives the top souvenir for free, scored."""
    game = start(["kinko", "zenemon", "chuubei"],
                 stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["ukiyoe"]})
    game = move(game, 14)
    assert collection(game, 2)[:2] == ("shokunin", "ukiyoe")
    assert points(game, 2, "souvenirs") == 1
    assert coins(game, 2) == 4


def test_chuubei_miko_adds_a_bank_coin_donation() -> None:
    """A Miko drawn by Chuubei puts a bank coin on his donation: +1 point."""
    game = start(["kinko", "zenemon", "chuubei"], stacks={ENCOUNTERS: ["miko"]})
    game = move(game, 14)
    assert donation(game, 2) == 1
    assert points(game, 2, "temple_donations") == 1
    assert coins(game, 2) == 4


def test_chuubei_draws_at_the_three_intermediate_inns_only() -> None:
    """Chuubei draws one encounter at each intermediate inn and none at Edo."""
    game = start(["kinko", "zenemon", "chuubei"],
                 stacks={ENCOUNTERS: ["samurai", "samurai", "kuge", "kuge"]})
    game = rush(game)
    assert game.is_over
    assert encounter_cards(game, 2) == ["samurai", "samurai", "kuge"]
    assert points(game, 2, "encounters") == 6
    assert coins(game, 2) == 4 + 3
    assert game.state.zone(ENCOUNTERS)[0] == "kuge"
    # He is the only one with encounter cards: Chatterbox.
    assert "achievement.chatterbox" in collection(game, 2)
    assert points(game, 2, "achievements") == 3


# --- Kinko ----------------------------------------------------------------------------------


def test_kinko_pays_one_coin_less_per_meal() -> None:
    """Kinko pays 1 coin less for a meal: a 2-coin meal costs him 1."""
    game = start(["zenemon", "sasayakko", "kinko"], coins={2: 1},
                 stacks={MEALS: ["tempura", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "tempura", "sushi", "soba"}
    game = act(game, BuyMeal, meal="tempura")
    assert coins(game, 2) == 0
    assert points(game, 2, "meals") == 6
    assert "tempura" in collection(game, 2)


def test_kinko_three_coin_meal_costs_two() -> None:
    """Kinko pays 2 coins for a 3-coin meal."""
    game = start(["zenemon", "sasayakko", "kinko"],
                 stacks={MEALS: ["unagi", "sushi", "dango", "soba"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal="unagi")
    assert coins(game, 2) == 7 - 2


def test_kinko_eats_one_coin_meals_for_free() -> None:
    """A 1-coin meal is free for Kinko, even with no coins."""
    game = start(["zenemon", "sasayakko", "kinko"], coins={2: 0},
                 stacks={MEALS: ["dango", "tempura", "unagi", "soba"]})
    game = move(game, 14)
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "dango"}
    game = act(game, BuyMeal, meal="dango")
    assert coins(game, 2) == 0
    assert points(game, 2, "meals") == 6


def test_kinko_cannot_buy_a_meal_above_his_coins_after_discount() -> None:
    """With 1 coin Kinko cannot buy a 3-coin meal (it costs him 2)."""
    game = start(["zenemon", "sasayakko", "kinko"], coins={2: 1},
                 stacks={MEALS: ["unagi", "fugu", "tempura", "soba"]})
    game = move(game, 14)
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "tempura", "soba"}
    with pytest.raises(IllegalActionError):
        game.apply(BuyMeal(2, 2, "unagi"))


def _gourmet_game(kinko_meal: str, other_meal: str) -> Game:
    """Kinko (piece 2) and Sasayakko (piece 1) each buy one meal at inn 14; then the
    game runs to its end with no other purchase."""
    game = start(["zenemon", "sasayakko", "kinko"],
                 stacks={MEALS: [kinko_meal, other_meal, "dango", "misoshiru"]})
    game = move(game, 14)
    game = act(game, BuyMeal, meal=kinko_meal)
    game = move(game, 14)
    game = act(game, BuyMeal, meal=other_meal)
    game = rush(game)
    assert game.is_over
    return game


def test_gourmet_uses_kinkos_printed_meal_prices() -> None:
    """Gourmet counts printed prices: Kinko's Unagi (3, paid 2) beats a Sushi (2)."""
    game = _gourmet_game("unagi", "sushi")
    assert "achievement.gourmet" in collection(game, 2)
    assert "achievement.gourmet" not in collection(game, 1)
    assert points(game, 2, "achievements") == 3
    assert points(game, 1, "achievements") == 0


def test_gourmet_tie_at_printed_prices_with_kinko() -> None:
    """Kinko's Tempura (printed 2, paid 1) ties a Sushi (2): both get Gourmet."""
    game = _gourmet_game("tempura", "sushi")
    assert "achievement.gourmet" in collection(game, 2)
    assert "achievement.gourmet" in collection(game, 1)


# --- Yoshiyasu ------------------------------------------------------------------------------


def test_yoshiyasu_draws_two_and_keeps_one() -> None:
    """Yoshiyasu draws 2 encounters, keeps one, applies it; the other goes under the deck."""
    game = start(["kinko", "zenemon", "yoshiyasu"], stacks={ENCOUNTERS: ["samurai", "kuge"]})
    game = move(game, 3)
    assert step_piece(game) == 2
    assert {a.card for a in legal(game, KeepEncounter)} == {"samurai", "kuge"}
    game = act(game, KeepEncounter, card="kuge")
    assert collection(game, 2) == ("kuge",)
    assert coins(game, 2) == 9 + 3
    assert points(game, 2, "encounters") == 0
    deck = game.state.zone(ENCOUNTERS)
    assert len(deck) == 13
    assert deck[-1] == "samurai"
    assert game.state.zone(f"{DRAWN}.2") == ()


def test_yoshiyasu_keeping_samurai_scores_it() -> None:
    """The encounter Yoshiyasu keeps is applied (Samurai: +3); Kuge goes under the deck."""
    game = start(["kinko", "zenemon", "yoshiyasu"], stacks={ENCOUNTERS: ["samurai", "kuge"]})
    game = move(game, 3)
    game = act(game, KeepEncounter, card="samurai")
    assert collection(game, 2) == ("samurai",)
    assert points(game, 2, "encounters") == 3
    assert coins(game, 2) == 9
    assert game.state.zone(ENCOUNTERS)[-1] == "kuge"


def test_yoshiyasu_keeping_annaibito_takes_the_panorama() -> None:
    """An Annaibito kept by Yoshiyasu gives its panorama section."""
    game = start(["kinko", "zenemon", "yoshiyasu"],
                 stacks={ENCOUNTERS: ["miko", "annaibito.sea"]})
    game = move(game, 3)
    game = act(game, KeepEncounter, card="annaibito.sea")
    assert collection(game, 2) == ("annaibito.sea", "sea.1")
    assert points(game, 2, "panoramas") == 1
    assert donation(game, 2) == 0
    assert game.state.zone(ENCOUNTERS)[-1] == "miko"


def test_yoshiyasu_with_one_card_left_draws_it() -> None:
    """With one encounter card left, Yoshiyasu draws that one and applies it."""
    game = start(["kinko", "zenemon", "yoshiyasu"])
    # A base game cannot empty the deck that far (at most 12 draws of 14), so the deck is
    # set to its last card directly.
    game = Game(game.state.with_zone(ENCOUNTERS, ("samurai",)), ())
    game = move(game, 3)
    assert not legal(game, KeepEncounter)
    assert collection(game, 2) == ("samurai",)
    assert points(game, 2, "encounters") == 3
    assert game.state.zone(ENCOUNTERS) == ()
    assert step_piece(game) == 1


def test_yoshiyasu_two_identical_cards_one_kept_one_returned() -> None:
    """Drawing two identical encounters, Yoshiyasu keeps one; the copy goes under the deck."""
    game = start(["kinko", "zenemon", "yoshiyasu"], stacks={ENCOUNTERS: ["samurai", "samurai"]})
    game = move(game, 3)
    assert [a.card for a in legal(game, KeepEncounter)] == ["samurai"]
    game = act(game, KeepEncounter, card="samurai")
    assert collection(game, 2) == ("samurai",)
    assert points(game, 2, "encounters") == 3
    assert game.state.zone(ENCOUNTERS)[-1] == "samurai"
    assert len(game.state.zone(ENCOUNTERS)) == 13


# --- Satsuki --------------------------------------------------------------------------------


def test_satsuki_keeps_the_free_meal_before_the_hand_is_drawn() -> None:
    """Satsuki draws the top meal before the inn hand; kept, it is free and her only meal."""
    game = start(["kinko", "zenemon", "satsuki"],
                 stacks={MEALS: ["tempura", "dango", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    assert legal(game, SatsukiMeal)
    assert game.state.zone(f"{DRAWN}.2") == ("tempura",)
    assert game.state.zone(INN_HAND) == ()
    game = act(game, SatsukiMeal, keep=True)
    assert collection(game, 2) == ("tempura",)
    assert coins(game, 2) == 2
    assert points(game, 2, "meals") == 6
    # She still draws the hand as first arrival, but may not eat a second meal here.
    assert game.state.zone(INN_HAND) == ("dango", "sushi", "unagi", "soba")
    assert not legal(game, BuyMeal)
    assert step_piece(game) == 1


def test_satsuki_returns_the_free_meal_and_buys_from_the_hand() -> None:
    """Satsuki may return the drawn meal under the deck and buy from the hand as usual."""
    game = start(["kinko", "zenemon", "satsuki"],
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    game = act(game, SatsukiMeal, keep=False)
    assert game.state.zone(MEALS)[-1] == "dango"
    assert game.state.zone(INN_HAND) == ("tempura", "sushi", "unagi", "soba")
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "tempura", "sushi", "soba"}
    game = act(game, BuyMeal, meal="sushi")
    assert collection(game, 2) == ("sushi",)
    assert coins(game, 2) == 0
    assert points(game, 2, "meals") == 6


def test_satsuki_returning_with_nothing_affordable_ends_her_inn_turn() -> None:
    """After returning the free meal, Satsuki buys only what she can pay for: with no
    coin, "no meal" is her only answer (asked: the others have not seen the hand)."""
    game = start(["kinko", "zenemon", "satsuki"], coins={2: 0},
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi", "soba"]})
    game = move(game, 14)
    game = act(game, SatsukiMeal, keep=False)
    assert game.legal_actions() == (BuyMeal(2, 2, None),)
    game = act(game, BuyMeal, meal=None)
    assert collection(game, 2) == ()
    assert points(game, 2, "meals") == 0
    assert step_piece(game) == 1


def test_satsuki_later_arrival_draws_from_the_deck_not_the_hand() -> None:
    """A later-arriving Satsuki draws the top of the meal deck; the hand is untouched."""
    game = start(["zenemon", "satsuki", "kinko"],
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi", "soba"]})
    game = move(game, 14)  # Kinko, first arrival: draws the hand
    game = act(game, BuyMeal, meal=None)
    assert game.state.zone(INN_HAND) == ("dango", "tempura", "sushi", "unagi")
    game = move(game, 14)  # Satsuki
    assert game.state.zone(f"{DRAWN}.1") == ("soba",)
    game = act(game, SatsukiMeal, keep=True)
    assert collection(game, 1) == ("soba",)
    assert coins(game, 1) == 2
    assert game.state.zone(INN_HAND) == ("dango", "tempura", "sushi", "unagi")


def test_satsuki_meal_already_eaten_can_only_go_back() -> None:
    """A drawn meal Satsuki has eaten cannot be kept: she is asked all the same (the others
    must not learn what the card is not), may only return it under the deck, then buys."""
    game = start(["kinko", "zenemon", "satsuki"], stacks={MEALS: [
        "dango", "tempura", "sushi", "unagi", "soba",
        "dango", "tofu", "yakitori", "fugu", "udon",
    ]})
    game = move(game, 14)
    game = act(game, SatsukiMeal, keep=True)  # dango, free
    # Zen-emon and Kinko arrive and buy nothing.
    game = rush(game, lambda g: all(p.position == 14 for p in g.state.pieces)
                and bool(legal(g, Move)))
    # Kinko (last arrival) leaves first, then Zen-emon; Satsuki reaches inn 27 first.
    assert step_piece(game) == 0
    game = move(game, 15)
    game = move(game, 17)
    assert step_piece(game) == 2
    game = move(game, 27)
    assert game.legal_actions() == (SatsukiMeal(2, 2, False),)
    game = act(game, SatsukiMeal, keep=False)
    assert game.state.zone(MEALS)[-1] == "dango"
    assert game.state.zone(INN_HAND) == ("tofu", "yakitori", "fugu", "udon")
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "tofu", "yakitori"}
    game = act(game, BuyMeal, meal="tofu")
    assert collection(game, 2) == ("dango", "tofu")
    assert points(game, 2, "meals") == 12


def test_satsuki_draws_a_free_meal_at_edo() -> None:
    """Satsuki's free draw also happens at Edo."""
    game = start(["kinko", "zenemon", "satsuki"])
    game = rush(game, lambda g: bool(legal(g, SatsukiMeal))
                and g.state.pieces[2].position == 54)
    (drawn,) = game.state.zone(f"{DRAWN}.2")
    game = act(game, SatsukiMeal, keep=True)
    assert game.is_over
    assert collection(game, 2)[0] == drawn
    assert points(game, 2, "meals") == 6
    assert coins(game, 2) == 2
    # Her free meal is the only one eaten: Gourmet is hers.
    assert "achievement.gourmet" in collection(game, 2)


# --- Mitsukuni ------------------------------------------------------------------------------


def test_mitsukuni_scores_one_more_per_hot_spring() -> None:
    """Mitsukuni scores +1 (traveller powers) for each hot spring card, when gained."""
    game = start(["kinko", "zenemon", "mitsukuni"],
                 stacks={HOT_SPRINGS: ["hot_spring.3", "hot_spring.2"]})
    game = move(game, 5)
    assert points(game, 2, "hot_springs") == 3
    assert points(game, 2, POWERS) == 1
    assert points(game, 2) == 4


def test_other_travellers_get_no_hot_spring_bonus() -> None:
    """Only Mitsukuni scores the extra point for a hot spring."""
    game = start(["kinko", "mitsukuni", "zenemon"], stacks={HOT_SPRINGS: ["hot_spring.3"]})
    game = move(game, 5)
    assert points(game, 2, "hot_springs") == 3
    assert points(game, 2, POWERS) == 0


def test_mitsukuni_scores_one_more_for_a_panorama_achievement() -> None:
    """Mitsukuni scores +1 when he gains an achievement card during play."""
    game = start(["kinko", "zenemon", "mitsukuni"], queue=(2, 1, 0),
                 stacks={ENCOUNTERS: ["annaibito.paddy"]})
    game = move(game, 11)  # piece 0
    game = move(game, 12)  # piece 1
    game = move(game, 3)  # Mitsukuni: paddy 1
    game = move(game, 4)  # paddy 2
    game = move(game, 14)
    game = rush(game, moves_next(2))  # the others reach inn 14, leave, go to inn 27
    assert points(game, 2, POWERS) == 0
    game = move(game, 18)  # paddy 3: complete
    assert "achievement.paddy" in collection(game, 2)
    assert points(game, 2, "achievements") == 3
    assert points(game, 2, POWERS) == 1
    assert points(game, 2, "panoramas") == 6


def test_mitsukuni_scores_one_more_for_an_end_game_achievement() -> None:
    """Mitsukuni's +1 also applies to an achievement gained at the end (Bather)."""
    game = start(["kinko", "zenemon", "mitsukuni"], stacks={HOT_SPRINGS: ["hot_spring.2"]})
    game = move(game, 5)
    assert points(game, 2, POWERS) == 1
    game = rush(game)
    assert game.is_over
    assert "achievement.bather" in collection(game, 2)
    assert points(game, 2, "hot_springs") == 2
    assert points(game, 2, "achievements") == 3
    assert points(game, 2, POWERS) == 2
    assert game.scores()[2].categories[POWERS] == 2


# --- Sasayakko ------------------------------------------------------------------------------

VILLAGE_CARDS = ["koma", "sake", "shamisen"]  # prices 1, 2, 3; families all different


def test_sasayakko_two_souvenirs_cheapest_free() -> None:
    """Buying 2 souvenirs, Sasayakko gets the cheapest free."""
    game = start(["kinko", "zenemon", "sasayakko"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("koma", "sake"))
    assert coins(game, 2) == 5 - 2
    assert collection(game, 2) == ("koma", "sake")
    assert points(game, 2, "souvenirs") == 1 + 3


def test_sasayakko_three_souvenirs_cheapest_free() -> None:
    """Buying 3 souvenirs, only the cheapest is free."""
    game = start(["kinko", "zenemon", "sasayakko"], coins={2: 6},
                 stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("koma", "sake", "shamisen"))
    assert coins(game, 2) == 1
    assert points(game, 2, "souvenirs") == 1 + 3 + 5


def test_sasayakko_must_afford_the_full_price() -> None:
    """Sasayakko may buy only souvenirs whose full price she could pay."""
    game = start(["kinko", "zenemon", "sasayakko"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    # Full price 6 > 5 coins, although she would pay only 5.
    assert not legal(game, BuySouvenirs, cards=("koma", "sake", "shamisen"))
    assert legal(game, BuySouvenirs, cards=("sake", "shamisen"))
    with pytest.raises(IllegalActionError):
        game.apply(BuySouvenirs(2, 2, ("koma", "sake", "shamisen"), None))


def test_sasayakko_full_price_rule_with_three_coins() -> None:
    """With 3 coins, Sasayakko cannot buy a 2+3 pair even though she would pay 3."""
    game = start(["kinko", "zenemon", "sasayakko"], coins={2: 3},
                 stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    assert not legal(game, BuySouvenirs, cards=("sake", "shamisen"))
    game = act(game, BuySouvenirs, cards=("koma", "sake"))
    assert coins(game, 2) == 1


def test_sasayakko_single_souvenir_full_price() -> None:
    """A single souvenir costs Sasayakko its printed price."""
    game = start(["kinko", "zenemon", "sasayakko"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("shamisen",))
    assert coins(game, 2) == 2


def test_sasayakko_equal_prices_one_is_free() -> None:
    """Two souvenirs of the same price: Sasayakko pays for one of them."""
    game = start(["kinko", "zenemon", "sasayakko"],
                 stacks={SOUVENIRS: ["haori", "netsuke", "koma"]})
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("haori", "netsuke"))
    assert coins(game, 2) == 5 - 2
    assert points(game, 2, "souvenirs") == 1 + 3


# --- Hirotada -------------------------------------------------------------------------------

BANK_COIN_STEP = "base.bank_coin"
TEMPLES = (2, 9, 16, 21, 36, 43)

Record = tuple[int, int, str, tuple[Action, ...]]


def current_kind(game: Game) -> str:
    step = game.current_step
    assert step is not None
    return step.kind


def tour(
    game: Game,
    stops: dict[int, list[int]],
    choose: Callable[[Game], Action],
) -> tuple[Game, list[Record]]:
    """Play to the end: each piece stops at its listed road spaces (in order), otherwise
    goes straight to the next inn; every other decision is taken by ``choose``. Returns
    the game and, for each non-move decision, (piece, position, step kind, legal actions)."""
    route = {piece: list(targets) for piece, targets in stops.items()}
    record: list[Record] = []
    while not game.is_over:
        piece = step_piece(game)
        position = game.state.pieces[piece].position
        if current_kind(game) == "core.move":
            inn = next_inn(game, piece)
            planned = route.get(piece, [])
            game = move(game, planned.pop(0) if planned and planned[0] <= inn else inn)
            continue
        record.append((piece, position, current_kind(game), game.legal_actions()))
        game = game.apply(choose(game))
    assert not any(route.values()), f"stops never reached: {route}"
    return game, record


def temple_choices(donate: dict[int, int], add: dict[int, bool]) -> Callable[[Game], Action]:
    """Donate ``donate[position]`` coins and answer ``add[position]`` to the bank coin;
    buy no meal; any other decision is unexpected."""
    def choose(game: Game) -> Action:
        position = game.state.pieces[step_piece(game)].position
        kind = current_kind(game)
        if kind == "base.temple":
            return legal(game, Donate, amount=donate[position])[0]
        if kind == BANK_COIN_STEP:
            return legal(game, AddBankCoin, add=add[position])[0]
        if kind == "base.meal":
            return legal(game, BuyMeal, meal=None)[0]
        raise AssertionError(f"unexpected decision {game.current_step} at {position}")
    return choose


def test_hirotada_donates_then_decides_on_the_bank_coin() -> None:
    """Hirotada first chooses 1-3 of his own coins, then whether to add the bank coin."""
    game = start(["kinko", "zenemon", "hirotada"])
    game = move(game, 2)
    assert current_kind(game) == "base.temple"
    assert {a.amount for a in legal(game, Donate)} == {1, 2, 3}
    assert len(legal(game, Donate)) == len(game.legal_actions())
    assert not legal(game, AddBankCoin)
    with pytest.raises(IllegalActionError):
        game.apply(AddBankCoin(2, 2, True))  # not before the donation
    game = act(game, Donate, amount=2)
    assert current_kind(game) == BANK_COIN_STEP
    assert step_piece(game) == 2
    assert game.current_step is not None and game.current_step.seat == 2
    assert set(game.legal_actions()) == {AddBankCoin(2, 2, False), AddBankCoin(2, 2, True)}
    # His own coins are already on the donation.
    assert coins(game, 2) == 8 - 2
    assert donation(game, 2) == 2


def test_hirotada_bank_coin_adds_a_point_and_a_donation() -> None:
    """Hirotada's bank coin: +1 point and +1 donation, no cost to him."""
    game = start(["kinko", "zenemon", "hirotada"])
    game = move(game, 2)
    game = act(game, Donate, amount=2)
    game = act(game, AddBankCoin, add=True)
    assert coins(game, 2) == 8 - 2
    assert donation(game, 2) == 3
    assert points(game, 2, "temple_donations") == 3
    assert points(game, 2) == 3
    # His stop is over: Zen-emon, now the rearmost, moves.
    assert current_kind(game) == "core.move"
    assert step_piece(game) == 1


def test_hirotada_may_decline_the_bank_coin() -> None:
    """Without the bank coin Hirotada's donation is his own coins only."""
    game = start(["kinko", "zenemon", "hirotada"])
    game = move(game, 2)
    game = act(game, Donate, amount=1)
    game = act(game, AddBankCoin, add=False)
    assert coins(game, 2) == 7
    assert donation(game, 2) == 1
    assert points(game, 2, "temple_donations") == 1
    assert points(game, 2) == 1
    assert current_kind(game) == "core.move"
    assert step_piece(game) == 1


def test_hirotada_with_one_coin() -> None:
    """With 1 coin Hirotada may stop, donate it and add the bank coin."""
    game = start(["kinko", "zenemon", "hirotada"], coins={2: 1})
    game = move(game, 2)
    assert {a.amount for a in legal(game, Donate)} == {1}
    game = act(game, Donate, amount=1)
    assert {a.add for a in legal(game, AddBankCoin)} == {False, True}
    game = act(game, AddBankCoin, add=True)
    assert coins(game, 2) == 0
    assert donation(game, 2) == 2
    assert points(game, 2, "temple_donations") == 2
    assert points(game, 2) == 2


@pytest.mark.parametrize("option", ["choice", "auto"])
def test_hirotada_needs_a_coin_to_stop_at_a_temple(option: str) -> None:
    """Hirotada needs at least 1 coin to stop at a temple, like everyone."""
    game = start(["kinko", "zenemon", "hirotada"], coins={2: 0},
                 options={"base.hirotada_bank_coin": option})
    assert not legal(game, Move, position=2)
    assert legal(game, Move, position=3)


def test_hirotada_auto_option_always_adds_the_bank_coin() -> None:
    """Option hirotada_bank_coin="auto": the bank coin is added at every temple stop,
    after his donation and without a decision."""
    game = start(["kinko", "zenemon", "hirotada"], options={"base.hirotada_bank_coin": "auto"})
    game = move(game, 2)
    assert {a.amount for a in legal(game, Donate)} == {1, 2, 3}
    assert len(legal(game, Donate)) == len(game.legal_actions())
    before = len(game.events)
    game = act(game, Donate, amount=3)
    new = game.events[before:]
    assert not any(isinstance(e, AddBankCoin) for e in new)
    # His own 3 coins first, then the bank coin.
    assert [e for e in new if isinstance(e, Scored)] == [
        Scored(2, "temple_donations", 3), Scored(2, "temple_donations", 1)]
    assert coins(game, 2) == 5
    assert donation(game, 2) == 4
    assert points(game, 2, "temple_donations") == 4
    assert points(game, 2) == 4
    # No decision left at the temple: Zen-emon moves.
    assert current_kind(game) == "core.move"
    assert step_piece(game) == 1
    with pytest.raises(IllegalActionError):
        game.apply(AddBankCoin(2, 2, True))


@pytest.mark.parametrize("option", ["choice", "auto"])
def test_only_hirotada_adds_a_bank_coin(option: str) -> None:
    """Other travellers donate their own coins only, and get no bank-coin decision."""
    game = start(["kinko", "hirotada", "zenemon"], options={"base.hirotada_bank_coin": option})
    game = move(game, 2)
    assert {a.amount for a in legal(game, Donate)} == {1, 2, 3}
    assert len(legal(game, Donate)) == len(game.legal_actions())
    game = act(game, Donate, amount=2)
    assert not legal(game, AddBankCoin)
    with pytest.raises(IllegalActionError):
        game.apply(AddBankCoin(2, 2, True))
    assert coins(game, 2) == 6 - 2
    assert donation(game, 2) == 2
    assert points(game, 2, "temple_donations") == 2
    assert points(game, 2) == 2
    assert current_kind(game) == "core.move"
    assert step_piece(game) == 1


def test_hirotada_gets_one_bank_coin_decision_per_temple_stop() -> None:
    """Over a whole game: at each of his temple stops Hirotada decides his donation, then
    exactly once on the bank coin; other travellers at temples, and Hirotada at an
    encounter (Miko: a bank coin on his donation), never get a bank-coin decision."""
    game = start(["kinko", "zenemon", "hirotada"], coins={0: 9, 1: 9, 2: 20},
                 stacks={ENCOUNTERS: ["miko"]})
    hirotada_temples = [2, 16, 36, 43]
    donate = {2: 1, 9: 2, 16: 3, 21: 1, 36: 2, 43: 3}
    add = {2: True, 16: False, 36: True, 43: True}
    game, record = tour(
        game,
        stops={2: [2, 3, 16, 36, 43], 0: [9], 1: [21]},
        choose=temple_choices(donate, add),
    )
    assert game.is_over
    hirotada = [(position, kind) for piece, position, kind, _ in record
                if piece == 2 and kind != "base.meal"]
    assert hirotada == [
        (position, kind) for position in hirotada_temples
        for kind in ("base.temple", BANK_COIN_STEP)
    ]
    # Every bank-coin decision is Hirotada's, offers exactly "add" and "do not add", and
    # AddBankCoin is offered at no other decision.
    for piece, position, kind, actions in record:
        offered = [a for a in actions if isinstance(a, AddBankCoin)]
        if kind == BANK_COIN_STEP:
            assert piece == 2 and position in TEMPLES
            assert set(actions) == {AddBankCoin(2, 2, False), AddBankCoin(2, 2, True)}
        else:
            assert not offered
    others = [(piece, position, kind) for piece, position, kind, _ in record
              if piece != 2 and kind != "base.meal"]
    assert others == [(0, 9, "base.temple"), (1, 21, "base.temple")]
    # Each bank-coin decision came right after his own donation at the same stop.
    taken = [e for e in game.events if isinstance(e, (Donate, AddBankCoin, Move))]
    for before, a in itertools.pairwise(taken):
        if isinstance(a, AddBankCoin):
            assert isinstance(before, Donate)
            assert before.piece == a.piece == 2
    # Exact donations: his coins 1+3+2+3 = 9, bank coins 3, Miko 1.
    assert collection(game, 2)[0] == "miko"
    assert [donation(game, i) for i in range(3)] == [2, 1, 13]
    assert points(game, 2, "temple_donations") == 13
    assert coins(game, 2) == 20 - 9
    assert [points(game, i, "temple_ranking") for i in range(3)] == [7, 4, 10]


def test_hirotada_auto_bank_coin_needs_no_decision_in_a_whole_game() -> None:
    """With "auto" no bank-coin decision is ever offered; each of Hirotada's temple
    stops adds 1 bank coin to his donation (+1 point), no one else's does."""
    game = start(["kinko", "zenemon", "hirotada"], coins={0: 9, 1: 9, 2: 20},
                 options={"base.hirotada_bank_coin": "auto"})
    donate = {2: 1, 9: 2, 16: 3, 21: 1, 36: 2, 43: 3}
    game, record = tour(
        game,
        stops={2: [2, 16, 36, 43], 0: [9], 1: [21]},
        choose=temple_choices(donate, {}),
    )
    assert game.is_over
    assert all(kind != BANK_COIN_STEP for _, _, kind, _ in record)
    assert not any(isinstance(a, AddBankCoin) for *_, actions in record for a in actions)
    assert not any(isinstance(e, AddBankCoin) for e in game.events)
    assert [(piece, position) for piece, position, kind, _ in record
            if kind == "base.temple"] == [(2, 2), (0, 9), (2, 16), (1, 21), (2, 36), (2, 43)]
    assert [donation(game, i) for i in range(3)] == [2, 1, 9 + 4]
    assert points(game, 2, "temple_donations") == 13
    assert coins(game, 2) == 20 - 9


def play_towards_temples(game: Game, seed: int) -> Game:
    """A seeded random game in which a traveller who may stop at a temple mostly does."""
    bot = RandomBot(seed)
    rng = random.Random(seed)
    board = game.state.rules.board
    while not game.is_over:
        temples = [a for a in legal(game, Move) if board[a.position].kind == "temple"]
        action = temples[0] if temples and rng.random() < 0.7 else next_action(bot, game)
        game = game.apply(action)
    return game


@pytest.mark.parametrize("players", [2, 3, 5])
def test_bank_coin_decisions_in_random_games(players: int) -> None:
    """Random complete games: the bank-coin decisions are exactly one per temple stop of
    Hirotada, each right after his donation; nobody else (nor the 2-player neutral) ever
    gets one."""
    others = ["kinko", "zenemon", "umegae", "yoshiyasu"][:players - 1]
    hirotada_stops = other_stops = 0
    for seed in range(6):
        game = play_towards_temples(start(["hirotada", *others], coins={0: 12}, seed=seed),
                                    seed)
        board = game.state.rules.board
        # The decisions as taken, in order (actions are recorded among the events).
        taken = [e for e in game.events if isinstance(e, Action)]
        for i, action in enumerate(taken):
            if isinstance(action, Move) and board[action.position].kind == "temple":
                if action.piece == 0:
                    hirotada_stops += 1
                    # His stop: the donation, then the bank-coin decision, then a move.
                    donate, bank, after = taken[i + 1:i + 4]
                    assert isinstance(donate, Donate) and donate.piece == 0
                    assert isinstance(bank, AddBankCoin) and bank.piece == 0
                    assert isinstance(after, Move)
                else:
                    other_stops += 1
                    if game.state.pieces[action.piece].seat is not None:
                        donate, after = taken[i + 1:i + 3]
                        assert isinstance(donate, Donate) and donate.piece == action.piece
                        assert isinstance(after, Move)
                    else:  # the 2-player neutral: no decision at all
                        assert isinstance(taken[i + 1], Move)
        bank_coins = [a for a in taken if isinstance(a, AddBankCoin)]
        hirotada_donations = [a for a in taken if isinstance(a, Donate) and a.piece == 0]
        assert len(bank_coins) == len(hirotada_donations)
        assert all(a.piece == 0 and a.seat == 0 for a in bank_coins)
        # The bank coins he added are on his donation, with his own coins and any Miko.
        miko = collection(game, 0).count("miko")
        assert donation(game, 0) == (sum(a.amount for a in hirotada_donations)
                                     + sum(a.add for a in bank_coins) + miko)
    assert hirotada_stops > 0
    assert other_stops > 0


def test_hirotada_bank_coin_counts_for_the_temple_ranking() -> None:
    """Hirotada's bank coin counts in his donation for the end ranking."""
    game = start(["kinko", "zenemon", "hirotada"])
    game = move(game, 2)
    game = act(game, Donate, amount=1)
    game = act(game, AddBankCoin, add=True)
    game = move(game, 9)  # Zen-emon: temple
    game = act(game, Donate, amount=1)
    assert not legal(game, AddBankCoin)
    game = rush(game)
    assert game.is_over
    assert donation(game, 2) == 2
    assert donation(game, 1) == 1
    assert points(game, 2, "temple_ranking") == 10
    assert points(game, 1, "temple_ranking") == 7
    assert points(game, 0, "temple_ranking") == 0


# --- Umegae ---------------------------------------------------------------------------------


def test_umegae_gains_a_point_and_a_coin_at_an_encounter() -> None:
    """Umegae: +1 point (traveller powers) and +1 coin at an encounter, then the card."""
    game = start(["kinko", "zenemon", "umegae"], stacks={ENCOUNTERS: ["kuge"]})
    game = move(game, 3)
    assert collection(game, 2) == ("kuge",)
    assert coins(game, 2) == 5 + 1 + 3
    assert points(game, 2, POWERS) == 1
    assert points(game, 2) == 1


def test_umegae_bonus_comes_before_the_card() -> None:
    """Umegae's bonus is applied before the card's effect (Samurai +3)."""
    game = start(["kinko", "zenemon", "umegae"], stacks={ENCOUNTERS: ["samurai"]})
    before = len(game.events)
    game = move(game, 3)
    new = game.events[before:]
    bonus = next(i for i, e in enumerate(new)
                 if isinstance(e, Scored) and e.piece == 2 and e.category == POWERS)
    coin = next(i for i, e in enumerate(new)
                if isinstance(e, CoinsChanged) and e.piece == 2 and e.delta == 1)
    card = next(i for i, e in enumerate(new)
                if isinstance(e, Scored) and e.piece == 2 and e.category == "encounters")
    assert bonus < card
    assert coin < card
    assert points(game, 2, "encounters") == 3
    assert points(game, 2, POWERS) == 1
    assert coins(game, 2) == 6


def test_umegae_may_stop_at_an_encounter_with_no_coins() -> None:
    """An encounter needs no coin: Umegae with 0 coins stops and gains 1."""
    game = start(["kinko", "zenemon", "umegae"], coins={2: 0}, stacks={ENCOUNTERS: ["miko"]})
    assert not legal(game, Move, position=1)  # a village needs a coin
    game = move(game, 3)
    assert coins(game, 2) == 1
    assert points(game, 2, POWERS) == 1
    assert donation(game, 2) == 1
    assert points(game, 2, "temple_donations") == 1


def test_other_travellers_get_no_encounter_bonus() -> None:
    """Only Umegae gets the encounter bonus: another traveller's stop gives none."""
    game = start(["kinko", "umegae", "zenemon"], stacks={ENCOUNTERS: ["kuge"]})
    game = move(game, 3)
    assert coins(game, 2) == 6 + 3
    assert points(game, 2, POWERS) == 0


# --- Zen-emon -------------------------------------------------------------------------------


@pytest.mark.parametrize(("named", "left"), [("shamisen", 6 - 2), ("koma", 6 - 4)])
def test_zenemon_names_the_discounted_souvenir(named: str, left: int) -> None:
    """Zen-emon names the souvenir that costs him 1 coin instead of its price."""
    game = start(["kinko", "sasayakko", "zenemon"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    assert {a.discount for a in legal(game, BuySouvenirs, cards=("koma", "shamisen"))} == {
        "koma", "shamisen"}
    game = act(game, BuySouvenirs, cards=("koma", "shamisen"), discount=named)
    assert coins(game, 2) == left
    assert collection(game, 2) == ("koma", "shamisen")


def test_zenemon_buys_a_three_coin_souvenir_with_one_coin() -> None:
    """The discounted souvenir costs Zen-emon 1 coin, so 1 coin buys a 3-coin card."""
    game = start(["kinko", "sasayakko", "zenemon"], coins={2: 1},
                 stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    assert legal(game, BuySouvenirs, cards=("shamisen",), discount="shamisen")
    assert not legal(game, BuySouvenirs, cards=("sake", "shamisen"))
    game = act(game, BuySouvenirs, cards=("shamisen",), discount="shamisen")
    assert coins(game, 2) == 0
    assert points(game, 2, "souvenirs") == 1


def test_zenemon_one_discount_per_village() -> None:
    """Only one souvenir per village costs Zen-emon 1; the others cost their price."""
    game = start(["kinko", "sasayakko", "zenemon"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    triple = ("koma", "sake", "shamisen")
    assert {a.discount for a in legal(game, BuySouvenirs, cards=triple)} == set(triple)
    game = act(game, BuySouvenirs, cards=triple, discount="shamisen")
    assert coins(game, 2) == 6 - (1 + 2 + 1)
    assert points(game, 2, "souvenirs") == 1 + 3 + 5


def test_zenemon_discount_again_at_the_next_village() -> None:
    """Zen-emon's discount applies once at each village, not once per game."""
    game = start(["kinko", "sasayakko", "zenemon"], queue=(2, 1, 0), stacks={
        SOUVENIRS: ["shamisen", "koma", "gofu", "sumie", "washi", "hashi"]})
    game = move(game, 11)  # piece 0
    game = move(game, 12)  # piece 1
    game = move(game, 1)  # Zen-emon (piece 2)
    game = act(game, BuySouvenirs, cards=("shamisen",), discount="shamisen")
    assert coins(game, 2) == 5
    game = move(game, 8)
    game = act(game, BuySouvenirs, cards=("sumie",), discount="sumie")
    assert coins(game, 2) == 4
    assert collection(game, 2) == ("shamisen", "sumie")


def test_zenemon_most_expensive_option() -> None:
    """Option zenemon_discount="most_expensive": the dearest card bought costs 1."""
    game = start(["kinko", "sasayakko", "zenemon"], coins={2: 2},
                 options={"base.zenemon_discount": "most_expensive"},
                 stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    assert {a.discount for a in legal(game, BuySouvenirs, cards=("koma", "shamisen"))} == {
        "shamisen"}
    assert not legal(game, BuySouvenirs, cards=("koma", "shamisen"), discount="koma")
    game = act(game, BuySouvenirs, cards=("koma", "shamisen"))
    assert coins(game, 2) == 0
    assert collection(game, 2) == ("koma", "shamisen")


def test_zenemon_may_buy_nothing() -> None:
    """Zen-emon's discount never forces a purchase."""
    game = start(["kinko", "sasayakko", "zenemon"], stacks={SOUVENIRS: VILLAGE_CARDS})
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=())
    assert coins(game, 2) == 6
    assert collection(game, 2) == ()


@pytest.mark.parametrize(("option", "value"), [
    ("base.hirotada_bank_coin", "never"),
    ("base.zenemon_discount", "cheapest"),
])
def test_traveller_options_reject_unknown_values(option: str, value: str) -> None:
    """An unknown option value is an error (section 8)."""
    with pytest.raises(TokaidoError):
        start(["kinko", "hirotada", "zenemon"], options={option: value})


@pytest.mark.parametrize("optional", [False, True])
def test_hiroshige_with_one_open_panorama(optional: bool) -> None:
    """With only one panorama still open, Hiroshige's choice is forced: the engine takes
    it on the record (core.automatic, then the action: every seat sees what he took).
    With base.panorama_choice_optional he may refuse it, so he is asked (8)."""
    game = start(["kinko", "zenemon", "hiroshige"],
                 options={"base.panorama_choice_optional": optional})
    done = ("paddy.1", "paddy.2", "paddy.3", "mountain.1", "mountain.2", "mountain.3",
            "mountain.4")
    state = game.state.move_cards("base.panoramas", "core.collection.2", done,
                                  from_top=False, bottom=True)
    game = move(Game(state, ()), 14)
    if optional:
        assert game.legal_actions() == (ChoosePanorama(2, 2, None), ChoosePanorama(2, 2, "sea"))
        game = act(game, ChoosePanorama, panorama=None)
        assert "sea.1" not in collection(game, 2)
        return
    assert "sea.1" in collection(game, 2)
    types = [e.TYPE for e in game.events]
    assert types[types.index("core.automatic") + 1] == "base.choose_panorama"
    assert ChoosePanorama(2, 2, "sea") in game.events
