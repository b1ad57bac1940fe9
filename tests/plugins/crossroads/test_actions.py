"""Crossroads: the choice at every road stop, every Crossroads action, legendary objects
and calligraphy (RULES.md 5.2, 5.3, 5.4 and the end-of-game order of 9).

Most scenarios use 3 players: piece 0 (Kinko, whose power only concerns the meals he buys)
is the traveller under test. Pieces 1 and 2 start with 0 coins and, unless a test gives them
a route, go straight from inn to inn: they reach every inn before piece 0 and leave it after
piece 0, so piece 0 is always the rearmost traveller on the road and moves again and again.
With 0 coins they never face a meal decision and collect nothing at the inns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from scenario import ENCOUNTERS, HOT_SPRINGS, MEALS, SOUVENIRS, act, coins, collection, move, points
from scenario import start as scenario_start
from tokaido_base import AddBankCoin, BuyMeal, BuySouvenirs, Donate
from tokaido_crossroads import BuyLegendary, TakeAmulet, TakeCalligraphy, TakeOption
from tokaido_rules import Action, Game, Move, Scored, dump_log, secret_zone

P = 0  # the traveller under test
TRIO = ["kinko", "zenemon", "sasayakko"]
PLUGINS = ("base", "crossroads")

CHERRY_TREES = "crossroads.cherry_trees"
BATH_HOUSES = "crossroads.bath_houses"
LEGENDARY = "crossroads.legendary"
CALLIGRAPHY = "crossroads.calligraphy"
AMULETS = "crossroads.amulets"
DONATION = "base.donation"

CHERRY = "crossroads.cherry_tree"
BATH = "crossroads.bath_house"
GAMING = "crossroads.gaming_room"
AMULET = "crossroads.amulet"
LEGEND = "crossroads.legendary"
CALLI = "crossroads.calligraphy"

ALL_LEGENDARY = {"shodo", "emaki", "buppatsu", "ema", "murasame", "masamune"}
ALL_CALLIGRAPHY = {"foresight", "contemplation", "nostalgia", "patience", "perfection", "fasting"}
ALL_AMULETS = {"vitality", "fortune", "health", "friendship", "hospitality", "devotion"}

Plans = dict[int, list[int]]


# --- helpers ----------------------------------------------------------------------------


def game3(
    *,
    travellers: Sequence[str] = TRIO,
    coins_p: int = 10,
    stacks: Mapping[str, Sequence[str]] | None = None,
    chance: Mapping[str, Sequence[object]] | None = None,
    options: Mapping[str, object] | None = None,
) -> Game:
    """3 players (or 2 + neutral with 2 travellers), queue (0, 1, 2): piece 0 moves last
    from Kyoto; every traveller but piece 0 starts with 0 coins."""
    start_coins = dict.fromkeys(range(len(travellers)), 0)
    start_coins[P] = coins_p
    return scenario_start(travellers, plugins=PLUGINS, stacks=stacks, coins=start_coins,
                          chance=chance, options=options)


def auto_choice(game: Game) -> Action:
    """A neutral choice for decisions outside the test's focus: base options, no purchase."""
    actions = game.legal_actions()
    for a in actions:
        if isinstance(a, BuyMeal) and a.meal is None:
            return a
        if isinstance(a, BuySouvenirs) and not a.cards:
            return a
        if isinstance(a, AddBankCoin) and not a.add:
            return a
        if isinstance(a, TakeOption) and not a.health and (
            a.option is None or a.option.startswith("base.")
        ):
            return a
    donations = [a for a in actions if isinstance(a, Donate)]
    if donations:
        return min(donations, key=lambda a: a.amount)
    return actions[0]


def drive(game: Game, plans: Plans, *, stop: bool = True, meals: bool = False) -> Game:
    """Move every piece along its plan (consumed in place) whenever it must move; a piece
    without a planned position goes to the next inn.

    With ``stop``: returns at any decision of piece 0 other than a meal (also meals with
    ``meals``), and when piece 0 must move and has no planned position left. Without it,
    plays on (piece 0 too) to the end of the game. Other decisions use :func:`auto_choice`.
    """
    for _ in range(2000):
        step = game.current_step
        if step is None:
            return game
        if step.kind == "core.move":
            todo = plans.get(step.piece)
            if todo:
                game = move(game, todo.pop(0))
                continue
            if stop and step.piece == P:
                return game
            moves = [a for a in game.legal_actions() if type(a) is Move]
            game = game.apply(max(moves, key=lambda a: a.position))
            continue
        if stop and step.piece == P and (step.kind != "base.meal" or meals):
            return game
        game = game.apply(auto_choice(game))
    raise AssertionError("drive did not stop")


def route(*positions: int, **others: list[int]) -> Plans:
    """Piece 0 follows ``positions``; ``p1``/``p2`` give routes to pieces 1 and 2."""
    plans: Plans = {P: list(positions)}
    for name, todo in others.items():
        plans[int(name[1:])] = todo
    return plans


def stop_and_take(game: Game, plans: Plans, option: str) -> Game:
    """Drive to piece 0's next decision, which must be the choice of options, and take
    ``option``."""
    game = drive(game, plans)
    step = game.current_step
    assert step is not None and step.kind == "crossroads.option" and step.piece == P, step
    return act(game, TakeOption, option=option)


def finish(game: Game, plans: Plans) -> Game:
    """Play the remaining plans, then everyone goes from inn to inn, to the end."""
    game = drive(game, plans, stop=False)
    assert game.is_over
    return game


def option_names(game: Game) -> set[str | None]:
    return {a.option for a in game.legal_actions() if isinstance(a, TakeOption)}


def only_moves_legal(game: Game, piece: int = P) -> bool:
    """The next decision is ``piece``'s move (nothing else is pending at the stop)."""
    step = game.current_step
    return step is not None and step.kind == "core.move" and step.piece == piece and all(
        isinstance(a, Move) for a in game.legal_actions()
    )


def zone(game: Game, name: str) -> tuple[str, ...]:
    return game.state.zone(name)


def at_first_stop(position: int, **kw: Any) -> Game:
    """Pieces 2 and 1 go to the first inn; piece 0 leaves Kyoto and stops at ``position``."""
    game = game3(**kw)
    return drive(game, route(position))


def edo_arrival_order(game: Game) -> list[int]:
    """Pieces by order of arrival at Edo (at an inn, a piece's slot is its arrival order)."""
    pieces = game.state.pieces
    assert all(p.position == 54 for p in pieces)
    return sorted(range(len(pieces)), key=lambda i: pieces[i].slot)


# --- 5.2 the choice at every road stop --------------------------------------------------


@pytest.mark.parametrize(
    ("position", "base", "crossroads"),
    [
        (1, "base.village", LEGEND),
        (2, "base.temple", AMULET),
        (3, "base.encounter", CALLI),
        (4, "base.panorama", CHERRY),
        (5, "base.hot_spring", BATH),
        (6, "base.panorama", CHERRY),
        (7, "base.farm", GAMING),
        (11, "base.panorama", CHERRY),
    ],
)
def test_choice_between_base_and_crossroads_action_at_every_kind_of_space(
    position: int, base: str, crossroads: str
) -> None:
    """5.2: at every road stop the traveller chooses the base or the Crossroads action."""
    game = at_first_stop(position)
    step = game.current_step
    assert step is not None and step.kind == "crossroads.option" and step.piece == P
    assert all(isinstance(a, TakeOption) for a in game.legal_actions())
    assert option_names(game) == {base, crossroads}
    assert collection(game, P) == ()
    assert coins(game, P) == 10


def test_no_choice_at_an_inn() -> None:
    """5.2: inns have no Crossroads action: only the meal is decided there."""
    game = drive(game3(), route(14), meals=True)
    step = game.current_step
    assert step is not None and step.kind == "base.meal" and step.piece == P
    assert game.legal_actions()
    assert all(isinstance(a, BuyMeal) for a in game.legal_actions())
    game = act(game, BuyMeal, meal=None)
    assert collection(game, P) == ()
    assert zone(game, CHERRY_TREES) == ("cherry_tree",) * 6


def test_taking_the_base_action_excludes_the_crossroads_action() -> None:
    """5.2: never both: the base panorama gives no cherry tree and no second option."""
    game = act(at_first_stop(4), TakeOption, option="base.panorama")
    assert collection(game, P) == ("paddy.1",)
    assert points(game, P, "panoramas") == 1
    assert points(game, P, "cherry_trees") == 0
    assert len(zone(game, CHERRY_TREES)) == 6
    assert only_moves_legal(game)


def test_taking_the_crossroads_action_excludes_the_base_action() -> None:
    """5.2: never both: a bath house draws no hot spring card and offers no second option."""
    game = act(at_first_stop(5), TakeOption, option=BATH)
    assert collection(game, P) == ("bath_house",)
    assert points(game, P, "hot_springs") == 0
    assert len(zone(game, HOT_SPRINGS)) == 12
    assert only_moves_legal(game)


def test_unaffordable_bath_house_is_not_offered_and_hot_spring_is_taken_directly() -> None:
    """5.2: with 0 coins the bath house cannot be paid: the hot spring is taken at once."""
    game = at_first_stop(5, coins_p=0, stacks={HOT_SPRINGS: ["hot_spring.3"]})
    assert only_moves_legal(game)
    assert collection(game, P) == ("hot_spring.3",)
    assert points(game, P) == 3
    assert len(zone(game, BATH_HOUSES)) == 6


def test_gaming_room_needs_two_coins_else_farm_taken_directly() -> None:
    """5.2/5.3: with 1 coin the gaming room is not offered: the farm gives 3 coins."""
    game = at_first_stop(7, coins_p=1)
    assert only_moves_legal(game)
    assert coins(game, P) == 4


def test_calligraphy_not_offered_without_coins_and_encounter_drawn_directly() -> None:
    """5.2: with 0 coins the calligraphy cannot be paid: the encounter is drawn at once."""
    game = at_first_stop(3, coins_p=0, stacks={ENCOUNTERS: ["samurai"]})
    assert only_moves_legal(game)
    assert collection(game, P) == ("samurai",)
    assert points(game, P, "encounters") == 3
    assert len(zone(game, CALLIGRAPHY)) == 6


def test_amulet_with_one_coin_is_offered_beside_the_donation() -> None:
    """5.2: with 1 coin both the donation and the amulet can be paid: both are offered."""
    game = at_first_stop(2, coins_p=1)
    assert option_names(game) == {"base.temple", AMULET}


def test_empty_cherry_tree_pile_leaves_only_the_panorama() -> None:
    """5.2/9: once the 6 cherry trees are gone, a panorama stop gives its section directly."""
    game = game3()
    plans = route(4, 6, 11, 12, 14, 15, 18, 19)
    for _ in range(6):
        game = stop_and_take(game, plans, CHERRY)
    assert zone(game, CHERRY_TREES) == ()
    game = drive(game, plans)  # stop at 19 (mountain): no decision is offered
    assert game.state.pieces[P].position == 19
    assert only_moves_legal(game)
    assert collection(game, P).count("cherry_tree") == 6
    assert "mountain.1" in collection(game, P)
    assert points(game, P, "cherry_trees") == 12
    assert points(game, P, "panoramas") == 1
    assert coins(game, P) == 16


def test_legendary_option_not_offered_when_no_object_left_is_affordable() -> None:
    """5.2: with 1 coin and Shodo and Emaki gone, a village gives its souvenirs directly."""
    game = game3(coins_p=3, stacks={SOUVENIRS: ["koma", "manju", "gofu"]})
    plans = route(1, 8, 14, 25)
    game = act(stop_and_take(game, plans, LEGEND), BuyLegendary, card="shodo")
    game = act(stop_and_take(game, plans, LEGEND), BuyLegendary, card="emaki")
    assert coins(game, P) == 1
    game = drive(game, plans)
    step = game.current_step
    assert step is not None and step.kind == "base.buy_souvenirs" and step.piece == P
    assert game.state.pieces[P].position == 25
    assert all(isinstance(a, BuySouvenirs) for a in game.legal_actions())


def test_neutral_traveller_gets_no_choice() -> None:
    """3.6/5.2: the 2-player neutral's road stops do nothing: no option, no card."""
    game = scenario_start(["kinko", "zenemon"], plugins=PLUGINS, queue=[0, 1, 2])
    step = game.current_step
    assert step is not None and step.piece == 2
    game = move(game, 4)
    step = game.current_step
    assert step is not None and step.kind == "core.move" and step.piece != 2
    assert collection(game, 2) == ()
    assert len(zone(game, CHERRY_TREES)) == 6
    assert game.state.pieces[2].coins == 0


def test_kita_may_take_both_options_at_an_encounter() -> None:
    """5.2/5.6: Kita at an encounter takes the calligraphy, then may also draw the encounter."""
    game = at_first_stop(3, travellers=["kita", "zenemon", "sasayakko"],
                         stacks={ENCOUNTERS: ["samurai"]})
    game = act(game, TakeOption, option=CALLI)
    game = act(game, TakeCalligraphy, card="foresight")
    assert option_names(game) == {"base.encounter", None}
    game = act(game, TakeOption, option="base.encounter")
    assert set(collection(game, P)) == {"foresight", "samurai"}
    assert points(game, P, "encounters") == 3
    assert coins(game, P) == 9
    assert only_moves_legal(game)


def test_kita_takes_a_single_option_outside_encounters() -> None:
    """5.2: Kita's exception is only at encounters: at a paddy, one option only."""
    game = at_first_stop(4, travellers=["kita", "zenemon", "sasayakko"])
    game = act(game, TakeOption, option=CHERRY)
    assert collection(game, P) == ("cherry_tree",)
    assert only_moves_legal(game)


def test_miyataka_may_skip_the_second_option_at_a_temple() -> None:
    """5.2/9: Miyataka donates, then is offered the amulet or nothing, and may skip it."""
    game = at_first_stop(2, travellers=["miyataka", "zenemon", "sasayakko"])
    game = act(game, TakeOption, option="base.temple")
    game = act(game, Donate, amount=2)
    assert option_names(game) == {AMULET, None}
    game = act(game, TakeOption, option=None)
    assert game.state.secret(P) == ()
    assert coins(game, P) == 8
    assert game.state.pieces[P].counter(DONATION) == 2
    assert only_moves_legal(game)


def test_ordinary_traveller_gets_no_second_option_at_a_temple() -> None:
    """5.2: without an exception the amulet excludes the donation at the same temple."""
    game = act(at_first_stop(2), TakeOption, option=AMULET)
    game = act(game, TakeAmulet, amulet="health")
    assert only_moves_legal(game)
    assert game.state.pieces[P].counter(DONATION) == 0


# --- 5.3 cherry tree ------------------------------------------------------------------------


def test_cherry_tree_gives_two_points_and_one_coin() -> None:
    """5.3: a cherry tree: +2 points, +1 coin, from the pile; not a panorama section."""
    game = act(at_first_stop(4), TakeOption, option=CHERRY)
    assert collection(game, P) == ("cherry_tree",)
    assert points(game, P, "cherry_trees") == 2
    assert points(game, P) == 2
    assert points(game, P, "panoramas") == 0
    assert coins(game, P) == 11
    assert len(zone(game, CHERRY_TREES)) == 5


def test_cherry_tree_does_not_advance_the_panorama() -> None:
    """5.3: after a cherry tree at a mountain, the next mountain stop gives section 1."""
    game = game3()
    plans = route(6, 12)
    game = stop_and_take(game, plans, CHERRY)
    game = stop_and_take(game, plans, "base.panorama")
    assert collection(game, P) == ("cherry_tree", "mountain.1")
    assert points(game, P, "panoramas") == 1


def test_cherry_trees_are_unlimited_and_never_complete_a_panorama() -> None:
    """5.3: a cherry tree at each of 4 paddies: no section, no achievement, no limit."""
    game = game3()
    plans = route(4, 14, 18, 27, 28, 35)
    for _ in range(4):
        game = stop_and_take(game, plans, CHERRY)
    assert collection(game, P) == ("cherry_tree",) * 4
    assert points(game, P, "cherry_trees") == 8
    assert points(game, P, "achievements") == 0
    assert points(game, P) == 8
    assert coins(game, P) == 14


def complete_paddy(options: Mapping[str, object] | None = None) -> Game:
    """Piece 0 completes the paddy at 4, 18 and 28 and must then move from 28."""
    game = game3(options=options)
    plans = route(4, 14, 18, 27, 28)
    for _ in range(3):
        game = stop_and_take(game, plans, "base.panorama")
    game = drive(game, plans)
    assert "achievement.paddy" in collection(game, P)
    assert game.state.pieces[P].position == 28
    return game


def move_positions(game: Game) -> set[int]:
    return {a.position for a in game.legal_actions() if isinstance(a, Move)}


def test_completed_panorama_type_stays_forbidden_for_a_cherry_tree_by_default() -> None:
    """5.3 (Ruling): a traveller who completed the paddy may not stop on a paddy."""
    game = complete_paddy()
    assert only_moves_legal(game)
    assert 35 not in move_positions(game)
    assert {29, 34, 36, 41} <= move_positions(game)


def test_option_allows_completed_panorama_stop_for_a_cherry_tree_only() -> None:
    """8: with cherry_tree_on_completed_panorama, the stop is legal and only the cherry
    tree is taken (the lone available option, without a decision)."""
    game = complete_paddy({"crossroads.cherry_tree_on_completed_panorama": True})
    assert 35 in move_positions(game)
    before = points(game, P)
    game = move(game, 35)
    assert only_moves_legal(game)
    owned = collection(game, P)
    assert owned.count("cherry_tree") == 1
    assert sum(1 for c in owned if c.startswith("paddy.")) == 3
    assert owned.count("achievement.paddy") == 1
    assert points(game, P) == before + 2
    assert points(game, P, "panoramas") == 6
    assert coins(game, P) == 11


# --- 5.3 bath house ---------------------------------------------------------------------------


def test_bath_house_costs_one_coin_and_scores_four() -> None:
    """5.3: a bath house costs 1 coin and is worth 4 points."""
    game = act(at_first_stop(5), TakeOption, option=BATH)
    assert coins(game, P) == 9
    assert points(game, P, "bath_houses") == 4
    assert points(game, P) == 4
    assert len(zone(game, BATH_HOUSES)) == 5


def test_bath_houses_count_as_hot_springs_for_bather() -> None:
    """5.3/3.5: 2 bath houses beat 1 hot spring card for the Bather achievement."""
    game = game3()
    plans = route(5, 14, 22, p1=[13])
    game = stop_and_take(game, plans, BATH)
    game = stop_and_take(game, plans, BATH)
    assert sum(1 for c in collection(game, 1) if c.startswith("hot_spring.")) == 1
    game = finish(game, plans)
    assert "achievement.bather" in collection(game, P)
    assert "achievement.bather" not in collection(game, 1)


# --- 5.3 gaming room --------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "gain"), [(0, -2), (1, 0), (2, 2), (3, 4), (4, 6)])
def test_gaming_room_stakes_two_and_pays_stake_times_face(face: int, gain: int) -> None:
    """5.3: stake 2 coins, roll: X loses 2, 1 gives back 2, 2/3/4 give 4/6/8."""
    game = act(at_first_stop(7, coins_p=5, chance={"die.crossroads.fortune": [face]}),
               TakeOption, option=GAMING)
    assert coins(game, P) == 5 + gain
    assert points(game, P) == 0
    assert collection(game, P) == ()
    assert only_moves_legal(game)


def test_gaming_room_with_exactly_two_coins_can_lose_both() -> None:
    """5.3: 2 coins are enough to play; rolling X leaves the traveller with 0."""
    game = act(at_first_stop(7, coins_p=2, chance={"die.crossroads.fortune": [0]}),
               TakeOption, option=GAMING)
    assert coins(game, P) == 0


# --- 5.3 amulet -------------------------------------------------------------------------------


def test_amulet_costs_one_coin_is_no_donation_and_scores_nothing() -> None:
    """5.3: any of the 6 amulets for 1 coin to the bank; no donation, no points; secret."""
    game = act(at_first_stop(2), TakeOption, option=AMULET)
    offered = {a.amulet for a in game.legal_actions() if isinstance(a, TakeAmulet)}
    assert offered == ALL_AMULETS
    game = act(game, TakeAmulet, amulet="fortune")
    assert coins(game, P) == 9
    assert game.state.pieces[P].counter(DONATION) == 0
    assert points(game, P) == 0
    assert game.state.secret(P) == ("fortune",)
    assert collection(game, P) == ()
    assert sorted(zone(game, AMULETS)) == sorted(ALL_AMULETS - {"fortune"})


def test_amulet_taken_is_hidden_from_other_seats() -> None:
    """5.3/7: others see how many amulets a seat holds, never which."""
    game = act(at_first_stop(2), TakeOption, option=AMULET)
    game = act(game, TakeAmulet, amulet="fortune")
    other = game.view(1)
    assert secret_zone(P) not in other.zones
    assert AMULETS not in other.zones
    assert other.zone_sizes[secret_zone(P)] == 1
    assert game.view(P).zones[secret_zone(P)] == ("fortune",)
    assert '"fortune"' not in dump_log(game, viewer=1)


def test_amulet_already_taken_is_no_longer_offered() -> None:
    """5.3: the amulet is chosen among those left in the pile."""
    game = game3()
    plans = route(2, 9)
    game = stop_and_take(game, plans, AMULET)
    game = act(game, TakeAmulet, amulet="fortune")
    game = stop_and_take(game, plans, AMULET)
    offered = {a.amulet for a in game.legal_actions() if isinstance(a, TakeAmulet)}
    assert offered == ALL_AMULETS - {"fortune"}


# --- 5.3 legendary objects ----------------------------------------------------------------------


def test_legendary_object_choice_is_exactly_one_of_all_available() -> None:
    """5.3: buy exactly one legendary object of your choice (no pass)."""
    game = act(at_first_stop(1), TakeOption, option=LEGEND)
    assert all(isinstance(a, BuyLegendary) for a in game.legal_actions())
    assert {a.card for a in game.legal_actions() if isinstance(a, BuyLegendary)} == ALL_LEGENDARY


@pytest.mark.parametrize(
    ("money", "offered"),
    [(1, {"shodo", "emaki"}), (2, {"shodo", "emaki", "buppatsu", "ema"})],
)
def test_unaffordable_legendary_objects_are_not_offered(money: int, offered: set[str]) -> None:
    """5.2/5.3: only legendary objects the traveller can pay for are offered."""
    game = act(at_first_stop(1, coins_p=money), TakeOption, option=LEGEND)
    assert {a.card for a in game.legal_actions() if isinstance(a, BuyLegendary)} == offered


def test_murasame_costs_three_and_scores_eight() -> None:
    """5.3/5.4: Murasame costs 3 coins and scores 8; no souvenir is revealed."""
    game = act(at_first_stop(1), TakeOption, option=LEGEND)
    game = act(game, BuyLegendary, card="murasame")
    assert coins(game, P) == 7
    assert collection(game, P) == ("murasame",)
    assert points(game, P, "legendary_objects") == 8
    assert points(game, P) == 8
    assert "murasame" not in zone(game, LEGENDARY)
    assert len(zone(game, SOUVENIRS)) == 24
    assert only_moves_legal(game)


def test_may_own_both_swords_of_a_pair() -> None:
    """5.3/5.4: a traveller may own Murasame and Masamune: 8 points each."""
    game = game3()
    plans = route(1, 8)
    game = act(stop_and_take(game, plans, LEGEND), BuyLegendary, card="murasame")
    game = stop_and_take(game, plans, LEGEND)
    assert "masamune" in {a.card for a in game.legal_actions() if isinstance(a, BuyLegendary)}
    game = act(game, BuyLegendary, card="masamune")
    assert set(collection(game, P)) == {"murasame", "masamune"}
    assert points(game, P, "legendary_objects") == 16
    assert coins(game, P) == 4


def test_legendary_objects_count_as_souvenirs_for_collector() -> None:
    """5.3: 2 legendary objects beat 1 souvenir for the Collector achievement."""
    game = game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["koma"]})
    plans = route(1, 8, p1=[10])
    game = act(stop_and_take(game, plans, LEGEND), BuyLegendary, card="murasame")
    game = act(stop_and_take(game, plans, LEGEND), BuyLegendary, card="ema")
    game = finish(game, plans)
    assert "koma" in collection(game, 1)
    assert "achievement.collector" in collection(game, P)
    assert "achievement.collector" not in collection(game, 1)


# --- 5.3 calligraphy ---------------------------------------------------------------------------


def test_calligraphy_costs_one_coin_and_any_card_may_be_chosen() -> None:
    """5.3: pay 1 coin, take any calligraphy; no encounter is drawn, no points now."""
    game = act(at_first_stop(3), TakeOption, option=CALLI)
    assert {a.card for a in game.legal_actions() if isinstance(a, TakeCalligraphy)} == (
        ALL_CALLIGRAPHY)
    game = act(game, TakeCalligraphy, card="nostalgia")
    assert coins(game, P) == 9
    assert collection(game, P) == ("nostalgia",)
    assert points(game, P) == 0
    assert len(zone(game, ENCOUNTERS)) == 14
    assert set(zone(game, CALLIGRAPHY)) == ALL_CALLIGRAPHY - {"nostalgia"}
    assert only_moves_legal(game)


def test_calligraphy_counts_as_encounter_for_chatterbox() -> None:
    """5.3: 2 calligraphy cards beat 1 encounter card for the Chatterbox achievement."""
    game = game3(stacks={ENCOUNTERS: ["kuge"]})
    plans = route(3, 10, p1=[14, 20])
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="foresight")
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="fasting")
    game = finish(game, plans)
    assert "kuge" in collection(game, 1)
    assert "achievement.chatterbox" in collection(game, P)
    assert "achievement.chatterbox" not in collection(game, 1)


# --- 5.3 encounter effects only concern base cards ----------------------------------------------


def test_annaibito_gives_a_panorama_section_never_a_cherry_tree() -> None:
    """5.3: Annaibito gives the next panorama section, never a cherry tree."""
    game = act(at_first_stop(3, stacks={ENCOUNTERS: ["annaibito.paddy"]}),
               TakeOption, option="base.encounter")
    assert set(collection(game, P)) == {"annaibito.paddy", "paddy.1"}
    assert len(zone(game, CHERRY_TREES)) == 6
    assert points(game, P, "cherry_trees") == 0


def test_shokunin_gives_a_souvenir_never_a_legendary_object() -> None:
    """5.3: Shokunin draws the top souvenir, never a legendary object."""
    game = act(at_first_stop(3, stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["gofu"]}),
               TakeOption, option="base.encounter")
    assert set(collection(game, P)) == {"shokunin", "gofu"}
    assert set(zone(game, LEGENDARY)) == ALL_LEGENDARY
    assert points(game, P, "souvenirs") == 1


def test_miko_gives_a_donation_never_an_amulet() -> None:
    """5.3: Miko puts a bank coin on the donation, never gives an amulet."""
    game = act(at_first_stop(3, stacks={ENCOUNTERS: ["miko"]}),
               TakeOption, option="base.encounter")
    assert game.state.secret(P) == ()
    assert len(zone(game, AMULETS)) == 6
    assert game.state.pieces[P].counter(DONATION) == 1
    assert coins(game, P) == 10


# --- 5.4 Shodo and Emaki ------------------------------------------------------------------------


def buy(game: Game, plans: Plans, card: str) -> Game:
    return act(stop_and_take(game, plans, LEGEND), BuyLegendary, card=card)


def test_shodo_scores_souvenirs_and_legendary_objects_already_owned() -> None:
    """5.4: on acquisition Shodo scores 1 per souvenir and legendary object owned (only)."""
    game = game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["koma"]})
    plans = route(1, 3, 4, 8)
    game = buy(game, plans, "murasame")
    game = stop_and_take(game, plans, "base.encounter")  # Shokunin: koma
    game = stop_and_take(game, plans, CHERRY)
    assert set(collection(game, P)) == {"murasame", "shokunin", "koma", "cherry_tree"}
    before = points(game, P, "legendary_objects")
    game = buy(game, plans, "shodo")
    assert before == 8
    assert points(game, P, "legendary_objects") == 8 + 2


def test_shodo_scores_one_per_later_souvenir_from_any_source() -> None:
    """5.4: after Shodo, +1 per souvenir acquired: from Shokunin and bought at a village."""
    game = game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["koma", "manju", "gofu", "haori"]})
    plans = route(1, 3, 8)
    game = buy(game, plans, "shodo")
    assert points(game, P, "legendary_objects") == 0
    game = stop_and_take(game, plans, "base.encounter")  # Shokunin: koma
    assert points(game, P, "legendary_objects") == 1
    game = stop_and_take(game, plans, "base.village")  # reveals manju, gofu, haori
    game = act(game, BuySouvenirs, cards=("manju", "haori"))
    assert points(game, P, "legendary_objects") == 3
    assert points(game, P, "souvenirs") == 1 + 3 + 5


def test_shodo_ignores_later_legendary_objects_by_default() -> None:
    """5.4: by default a legendary object bought after Shodo gives no Shodo point."""
    game = game3()
    plans = route(1, 8)
    game = buy(game, plans, "shodo")
    game = buy(game, plans, "murasame")
    assert points(game, P, "legendary_objects") == 8


def test_shodo_counts_later_legendary_objects_with_the_option() -> None:
    """8: with shodo_emaki_counts_legendary a later legendary object gives Shodo +1."""
    game = game3(options={"crossroads.shodo_emaki_counts_legendary": True})
    plans = route(1, 8)
    game = buy(game, plans, "shodo")
    game = buy(game, plans, "murasame")
    assert points(game, P, "legendary_objects") == 8 + 1


def test_shodo_ignores_a_later_buppatsu_by_default() -> None:
    """9: Buppatsu is a legendary object, not a souvenir, for Shodo's later bonus."""
    game = game3()
    plans = route(1, 8)
    game = buy(game, plans, "shodo")
    game = buy(game, plans, "buppatsu")
    assert points(game, P, "legendary_objects") == 0
    assert points(game, P, "souvenirs") == 1


def test_shodo_and_emaki_give_two_per_later_souvenir() -> None:
    """5.4/9: Emaki counts Shodo already owned; owning both gives +2 per later souvenir."""
    game = game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["koma"]})
    plans = route(1, 8, 10)
    game = buy(game, plans, "shodo")
    game = buy(game, plans, "emaki")
    assert points(game, P, "legendary_objects") == 1
    game = stop_and_take(game, plans, "base.encounter")
    assert "koma" in collection(game, P)
    assert points(game, P, "legendary_objects") == 1 + 2


# --- 5.4 Buppatsu and Ema -----------------------------------------------------------------------


def test_buppatsu_alone_scores_one_as_a_souvenir() -> None:
    """5.4: Buppatsu is scored at once like a souvenir: the first card of a set scores 1."""
    game = game3()
    game = buy(game, route(1), "buppatsu")
    assert coins(game, P) == 8
    assert points(game, P, "souvenirs") == 1
    assert points(game, P, "legendary_objects") == 0
    assert points(game, P) == 1


def test_buppatsu_and_ema_are_the_same_family() -> None:
    """5.4: Buppatsu and Ema are one family: the second starts a new set (1 + 1)."""
    game = game3()
    plans = route(1, 8)
    game = buy(game, plans, "buppatsu")
    game = buy(game, plans, "ema")
    assert points(game, P, "souvenirs") == 2


def test_fifth_family_completes_a_set_worth_25() -> None:
    """5.4: a set of the 4 souvenir families plus Buppatsu: 1 + 3 + 5 + 7 + 9 = 25."""
    game = game3(stacks={ENCOUNTERS: ["shokunin"],
                         SOUVENIRS: ["koma", "manju", "haori", "netsuke"]})
    plans = route(1, 3, 8)
    game = stop_and_take(game, plans, "base.village")
    game = act(game, BuySouvenirs, cards=("koma", "manju", "haori"))
    assert points(game, P, "souvenirs") == 9
    game = stop_and_take(game, plans, "base.encounter")  # Shokunin: netsuke
    assert points(game, P, "souvenirs") == 16
    game = buy(game, plans, "buppatsu")
    assert points(game, P, "souvenirs") == 25
    assert points(game, P, "legendary_objects") == 0


# --- 5.4 calligraphy at the end of the game ------------------------------------------------------


def calligraphy_game(card: str, plans: Plans, **kw: Any) -> Game:
    """Piece 0 takes ``card`` at its next stop (an encounter) on ``plans``."""
    game = game3(**kw)
    return act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card=card)


def test_foresight_scores_two_per_coin_left() -> None:
    """5.4: Foresight scores 2 points per coin left at the end."""
    plans = route(3)
    game = finish(calligraphy_game("foresight", plans), plans)
    assert coins(game, P) == 9
    assert points(game, P, "calligraphy") == 18


def test_contemplation_scores_completed_panoramas_and_cherry_trees() -> None:
    """5.4: Contemplation: 3 per completed panorama + 1 per cherry tree."""
    plans = route(3, 4, 6, 11, 14, 18, 27, 28)
    game = calligraphy_game("contemplation", plans)
    game = stop_and_take(game, plans, "base.panorama")  # paddy 1
    game = stop_and_take(game, plans, CHERRY)
    game = stop_and_take(game, plans, CHERRY)
    game = stop_and_take(game, plans, "base.panorama")  # paddy 2
    game = stop_and_take(game, plans, "base.panorama")  # paddy 3: complete
    game = finish(game, plans)
    assert "paddy.3" in collection(game, P)
    assert points(game, P, "calligraphy") == 3 * 1 + 2


def test_nostalgia_scores_legendary_objects_and_souvenirs() -> None:
    """5.4/9: Nostalgia: 2 per legendary object (Buppatsu included) + 1 per souvenir."""
    plans = route(1, 3, 8, 10)
    game = game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["koma"]})
    game = buy(game, plans, "murasame")
    game = stop_and_take(game, plans, "base.encounter")  # Shokunin: koma
    game = buy(game, plans, "buppatsu")
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="nostalgia")
    game = finish(game, plans)
    assert coins(game, P) == 4
    assert points(game, P, "calligraphy") == 2 * 2 + 1


@pytest.mark.parametrize(
    ("last_segment", "others", "order", "expected"),
    [
        ([41, 42, 54], {}, [1, 2, 0], 6),  # piece 0 arrives last
        ([41, 42, 54], {1: [14, 27, 41, 46, 54]}, [2, 0, 1], 4),  # second to last
        ([41, 54], {}, [0, 1, 2], 2),  # first
    ],
)
def test_patience_scores_by_arrival_order_at_edo(
    last_segment: list[int], others: Plans, order: list[int], expected: int
) -> None:
    """5.4: Patience: 6 if last to arrive at Edo, 4 if second to last, 2 otherwise."""
    plans = route(3, 14, 27, *last_segment)
    plans.update({k: list(v) for k, v in others.items()})
    game = finish(calligraphy_game("patience", plans), plans)
    assert edo_arrival_order(game) == order
    assert points(game, P, "calligraphy") == expected


def test_patience_counts_the_two_player_neutral_traveller() -> None:
    """5.4/9: the neutral counts for Patience: arriving just before it scores 4."""
    plans = route(3, 14, 27, 41, 42, 54)
    plans[2] = [14, 27, 41, 46, 54]  # the neutral stops on the way and arrives last
    game = calligraphy_game("patience", plans, travellers=["kinko", "zenemon"])
    game = finish(game, plans)
    assert edo_arrival_order(game) == [1, 0, 2]
    assert points(game, P, "calligraphy") == 4


def test_perfection_counts_end_achievements_and_calligraphy_cards() -> None:
    """5.4/9: Perfection: 2 per achievement card (end ones included) + 1 per calligraphy."""
    plans = route(1, 3, 10)
    game = game3()
    game = buy(game, plans, "murasame")  # Collector at the end
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="perfection")
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="contemplation")
    game = finish(game, plans)
    owned = collection(game, P)
    assert {"achievement.collector", "achievement.chatterbox"} <= set(owned)
    assert sum(1 for c in owned if c.startswith("achievement.")) == 2
    # Perfection 2 * 2 + 2; Contemplation 0.
    assert points(game, P, "calligraphy") == 6


def test_fasting_scores_three_per_meal_not_eaten_at_an_inn() -> None:
    """5.4: Fasting: 3 per meal inn where no meal was eaten (2 meals: 6)."""
    plans = route(3, 14, 27, 41, 54)
    game = calligraphy_game("fasting", plans,
                            stacks={MEALS: ["dango", "tofu", "soba", "sushi"]})
    game = drive(game, plans, meals=True)
    assert game.state.pieces[P].position == 14
    game = act(game, BuyMeal, meal="dango")
    game = drive(game, plans, meals=True)
    assert game.state.pieces[P].position == 27
    game = act(game, BuyMeal, meal=None)
    game = drive(game, plans, meals=True)
    assert game.state.pieces[P].position == 41
    game = act(game, BuyMeal, meal=None)
    game = drive(game, plans, meals=True)
    assert game.state.pieces[P].position == 54
    meal = next(a for a in game.legal_actions() if isinstance(a, BuyMeal) and a.meal)
    game = game.apply(meal)
    game = finish(game, plans)
    assert points(game, P, "meals") == 12
    assert points(game, P, "calligraphy") == 6


def test_fasting_without_any_meal_scores_twelve() -> None:
    """5.4: Fasting with no meal at any of the 4 meal inns: 12."""
    plans = route(3)
    game = finish(calligraphy_game("fasting", plans), plans)
    assert points(game, P, "meals") == 0
    assert points(game, P, "calligraphy") == 12


def test_end_scoring_order_achievements_then_temples_then_calligraphy() -> None:
    """9: end of game: achievements, then the temple ranking, then calligraphy."""
    plans = route(2, 3)
    game = game3()
    game = act(stop_and_take(game, plans, "base.temple"), Donate, amount=1)
    game = act(stop_and_take(game, plans, CALLI), TakeCalligraphy, card="perfection")
    game = finish(game, plans)
    scored = [(i, e) for i, e in enumerate(game.events) if isinstance(e, Scored)]
    ends = {
        cat: [i for i, e in scored if e.category == cat]
        for cat in ("achievements", "temple_ranking", "calligraphy")
    }
    assert ends["achievements"] and ends["temple_ranking"] and ends["calligraphy"]
    assert max(ends["achievements"]) < min(ends["temple_ranking"])
    assert max(ends["temple_ranking"]) < min(ends["calligraphy"])
    assert points(game, P, "temple_ranking") == 10
    assert "achievement.chatterbox" in collection(game, P)
    assert points(game, P, "calligraphy") == 2 * 1 + 1
