"""The shape of play is public (RULES.md 7; docs/explanation/hidden-information.md):
pairs of games that differ in one fact a seat cannot see must look the same to that
seat, in the agenda, whose decision it is, and its copy of the log.

Each test is a reproduction from the hidden-information issue: before the fix, the
pair could be told apart from seat 0's view.
"""

from __future__ import annotations

import pytest

from tokaido_base import BuyMeal, SatsukiMeal
from tokaido_crossroads import TakeOption, UseVitality
from tokaido_rules import Game, Move, Setup, Step, View, dump_log, new_game
from tokaido_variants.good_luck import BuyLuck


def shape(view: View) -> tuple[object, ...]:
    """What a seat sees of the course of play."""
    return (tuple(s.kind for s in view.agenda), view.current_player, view.current_step,
            view.seq)


def seat_log(game: Game, seat: int) -> list[str]:
    return dump_log(game, viewer=seat).splitlines()[1:]


def same_to(seat: int, a: Game, b: Game) -> None:
    assert shape(a.view(seat)) == shape(b.view(seat))
    assert seat_log(a, seat) == seat_log(b, seat)


def test_meal_decision_does_not_tell_what_the_hidden_hand_holds() -> None:
    """Seat 0, still at the start, cannot tell whether the inn's hand holds a 1-coin meal
    from whether the arriving traveller (1 coin) is asked about a meal."""
    games = []
    for top in (("fugu", "unagi", "donburi", "udon"), ("fugu", "unagi", "donburi", "dango")):
        setup = Setup(travellers=("kinko", "chuubei", "mitsukuni"), queue=(0, 1, 2),
                      coins={2: 1}, stacks={"base.meals": top})
        games.append(new_game(3, seed=5, setup=setup).apply(Move(2, 2, 14, 0)))
    plain, cheap = games
    assert [s.kind for s in plain.view(0).agenda] == ["base.meal", "base.inn_close"]
    assert plain.view(0).current_player == 2
    same_to(0, plain, cheap)
    assert plain.legal_actions() == (BuyMeal(2, 2, None),)
    assert cheap.legal_actions() == (BuyMeal(2, 2, None), BuyMeal(2, 2, "dango"))
    same_to(0, plain.apply(BuyMeal(2, 2, None)), cheap.apply(BuyMeal(2, 2, None)))


def good_luck(amulet: str, options: dict[str, object] | None = None) -> Game:
    """Seat 2 buys a secret amulet at setup (Good Luck); the others buy none."""
    setup = Setup(travellers=("kinko", "chuubei", "satsuki"), queue=(0, 1, 2),
                  chance={"pick.crossroads.amulets": [amulet]})
    game = new_game(3, seed=5, plugins=["base", "crossroads", "good-luck"], setup=setup,
                    options=options)
    while game.current_step is not None and game.current_step.kind == "good-luck.buy":
        game = game.apply(next(a for a in game.legal_actions()
                               if isinstance(a, BuyLuck) and a.buy == (a.seat == 2)))
    return game


@pytest.mark.parametrize("other", ["fortune", "health", "devotion", "friendship",
                                   "hospitality"])
def test_vitality_is_not_told_by_the_agenda(other: str) -> None:
    """A traveller holding Vitality and one holding another amulet have the same public
    agenda at a stop (a Vitality check for any amulet holder) and the same questions."""
    vitality = good_luck("vitality").apply(Move(2, 2, 1, 0))
    another = good_luck(other).apply(Move(2, 2, 1, 0))
    assert [s.kind for s in vitality.view(0).agenda] == ["crossroads.option",
                                                          "crossroads.vitality_check"]
    same_to(0, vitality, another)
    # It takes the village option and leads: asked about Vitality in both games.
    vitality = vitality.apply(TakeOption(2, 2, "base.village"))
    another = another.apply(TakeOption(2, 2, "base.village"))
    while vitality.current_step is not None and vitality.current_step.kind != "core.move" \
            and vitality.current_step.kind != "crossroads.vitality":
        vitality = vitality.apply(vitality.legal_actions()[0])
        another = another.apply(another.legal_actions()[0])
    assert vitality.current_step is not None
    assert vitality.current_step.kind == "crossroads.vitality"
    same_to(0, vitality, another)
    assert UseVitality(2, 2, True) in vitality.legal_actions()
    assert another.legal_actions() == (UseVitality(2, 2, False),)


def at_farm_with_one_coin(amulet: str) -> Game:
    game = good_luck(amulet)
    game = game.apply(Move(2, 2, 7, 0))  # farm; 1 coin: the gaming room needs 2
    return game


def test_health_is_not_told_by_a_lone_option() -> None:
    """With one open option, a Health holder and a Friendship holder are both asked (the
    Health holder may take both options), so the question tells nothing."""
    health, friendship = at_farm_with_one_coin("health"), at_farm_with_one_coin("friendship")
    assert health.current_step is not None
    assert health.current_step.kind == "crossroads.option"
    same_to(0, health, friendship)
    assert TakeOption(2, 2, "base.farm", True) in health.legal_actions()
    assert friendship.legal_actions() == (TakeOption(2, 2, "base.farm"),)


def test_without_an_amulet_a_lone_option_is_taken_alone_and_recorded() -> None:
    """A traveller with no amulet at a farm it can only take as a farm is not asked:
    the engine takes the farm and every seat's log says so (core.automatic)."""
    setup = Setup(travellers=("kinko", "chuubei", "satsuki"), queue=(0, 1, 2), coins={2: 1})
    game = new_game(3, seed=5, plugins=["base", "crossroads"], setup=setup)
    game = game.apply(Move(2, 2, 7, 0))
    assert game.current_step is not None and game.current_step.kind == "core.move"
    lines = seat_log(game, 0)
    marker = next(i for i, line in enumerate(lines) if '"core.automatic"' in line)
    assert '"crossroads.take_option"' in lines[marker + 1]
    assert '"option":"base.farm"' in lines[marker + 1]


@pytest.mark.parametrize("meal", ["dango", "tofu"])
def test_satsuki_is_asked_about_any_drawn_meal(meal: str) -> None:
    """Satsuki decides on a drawn meal she has eaten too (return is her only answer), so
    the others do not learn which card it is from whether she is asked."""
    def at_second_inn(second: str) -> Game:
        meals = ("dango", "sushi", "soba", "tempura", "unagi", second, "udon", "fugu",
                 "tofu", "yakitori")
        setup = Setup(travellers=("kinko", "chuubei", "satsuki"), queue=(0, 1, 2),
                      coins={0: 0, 1: 0, 2: 0}, stacks={"base.meals": meals})
        game = new_game(3, seed=1, setup=setup).apply(Move(2, 2, 14, 0))
        game = game.apply(SatsukiMeal(2, 2, True))  # dango, free
        while game.current_step != Step("core.move", 2, 2):
            game = game.apply(game.legal_actions()[0])  # the others, to the nearest stop
        return game.apply(Move(2, 2, 27, 0))
    eaten, fresh = at_second_inn("dango"), at_second_inn(meal)
    assert eaten.state.zone("base.drawn.2") == ("dango",)
    same_to(0, eaten, fresh)
    same_to(1, eaten, fresh)
    assert eaten.legal_actions() == (SatsukiMeal(2, 2, False),)
    if meal != "dango":
        assert fresh.legal_actions() == (SatsukiMeal(2, 2, False), SatsukiMeal(2, 2, True))
