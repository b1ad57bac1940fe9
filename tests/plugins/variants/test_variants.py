"""Base variants (RULES.md 4), their combinations, and the ``bga`` preset (8).

Plugin ids: ``initiation``, ``return-journey``, ``gastronomy``, ``preparations``, ``bga``.
Queue order: ``queue[0]`` is nearest the road; the last piece of the queue leaves first.
Printed starting coins: Hiroshige 3, Chuubei 4, Kinko 7, Yoshiyasu 9, Satsuki 2,
Mitsukuni 6, Sasayakko 5, Hirotada 8, Umegae 5, Zen-emon 6 (Crossroads: Gotozaemon 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from scenario import (
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
from tokaido_base.actions import (
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    ChooseTraveller,
    Donate,
)
from tokaido_crossroads import (
    BuyLegendary,
    TakeAmulet,
    TakeOption,
    UseFortune,
    UseVitality,
)
from tokaido_rules import (
    Game,
    MissingRequirementError,
    Move,
    OptionError,
    Ruleset,
    Setup,
    SetupError,
    dump_log,
    new_game,
)
from tokaido_rules.bots import RandomBot, next_action
from tokaido_rules.testing import run_conformance

BASE_VARIANTS = ("initiation", "return-journey", "gastronomy", "preparations")
INN_HAND = "base.inn_hand"
DONATION = "base.donation"
PANORAMA_SUPPLY = "base.panoramas"
T5 = ("hiroshige", "chuubei", "kinko", "yoshiyasu", "satsuki")
BGA_BASE = {
    "base.meal_hand": "players",
    "base.hirotada_bank_coin": "auto",
    "base.zenemon_discount": "most_expensive",
    "base.panorama_choice_optional": True,
}
BGA_CROSSROADS = {
    "crossroads.cherry_tree_on_completed_panorama": True,
    "crossroads.fortune_timing": "any_time_in_turn",
    "crossroads.amulet_same_turn": True,
    "crossroads.shodo_emaki_counts_legendary": True,
    "crossroads.devotion": "dearest_card",
    "crossroads.optional_purchase": True,
    "crossroads.health_where_both": True,
}


# --- helpers ------------------------------------------------------------------------------


def step_kind(game: Game) -> str:
    step = game.current_step
    assert step is not None
    return step.kind


def position(game: Game, piece: int) -> int:
    return game.state.pieces[piece].position


def all_coins(game: Game) -> list[int]:
    return [p.coins for p in game.state.pieces]


def initiation_game(players: int, plugins: Sequence[str] = ("base", "initiation"),
                    queue: Sequence[int] | None = None, seed: int = 0) -> Game:
    """A game without travellers (the Initiation variant)."""
    pieces = players + (1 if players == 2 else 0)
    setup = Setup(queue=tuple(queue) if queue is not None else tuple(range(pieces)))
    return new_game(players, seed=seed, plugins=plugins, setup=setup)


def to_next_inn(game: Game) -> Game:
    piece = moving_piece(game)
    return move(game, game.state.rules.next_inn[position(game, piece)])


def take_base_option(game: Game) -> Game:
    """At a Crossroads option decision, take the base action of the space."""
    options = [a for a in legal(game, TakeOption) if a.option and a.option.startswith("base.")]
    assert len(options) == 1, game.legal_actions()
    return game.apply(options[0])


def crafted(game: Game, src: str, dst: str, cards: Sequence[str]) -> Game:
    """The same game with ``cards`` moved from zone ``src`` to zone ``dst`` (a position
    that would take many turns to reach by play)."""
    state = game.state.move_cards(src, dst, tuple(cards), from_top=False, bottom=True)
    return Game(state, ())


def base_board() -> tuple[object, ...]:
    return tuple(Ruleset.build(("base",)).registry.board)


# --- Initiation ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_initiation_has_no_travellers_and_7_coins_each(players: int) -> None:
    """Initiation: no traveller tiles are offered; every player starts with 7 coins (4)."""
    game = initiation_game(players)
    assert not any(isinstance(a, ChooseTraveller) for a in game.legal_actions())
    assert step_kind(game) == "core.move"
    assert not any(key.startswith("base.offer.") for key in game.state.data)
    for p in game.state.pieces:
        assert p.traveller is None
        assert p.coins == (7 if p.seat is not None else 0)


def test_initiation_with_crossroads_has_no_travellers_either() -> None:
    """Initiation combines with Crossroads: still no tiles, 7 coins each (4)."""
    game = initiation_game(4, plugins=("base", "crossroads", "initiation"))
    assert step_kind(game) == "core.move"
    assert [(p.traveller, p.coins) for p in game.state.pieces] == [(None, 7)] * 4


def test_initiation_rejects_chosen_travellers() -> None:
    """Choosing travellers contradicts Initiation: a setup error (4)."""
    with pytest.raises(SetupError):
        start(["hiroshige", "chuubei", "kinko"], plugins=("base", "initiation"))
    with pytest.raises(SetupError):
        new_game(3, plugins=("base", "initiation"),
                 travellers=["hiroshige", "chuubei", "kinko"])


def test_initiation_applies_no_traveller_power_at_an_inn() -> None:
    """Without travellers no power applies: the first arrival at an inn goes straight to
    the meal of a 4-card hand and pays printed prices (4, 3.4)."""
    setup = Setup(queue=(0, 1, 2), stacks={MEALS: ("dango", "tempura", "sushi", "unagi")})
    game = new_game(3, plugins=("base", "initiation"), setup=setup)
    assert moving_piece(game) == 2
    game = move(game, 14)
    assert step_kind(game) == "base.meal"
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "sushi", "tempura", "unagi"]
    game = act(game, BuyMeal, meal="dango")
    assert coins(game, 2) == 6
    assert points(game, 2) == 6
    assert collection(game, 2) == ("dango",)


def test_initiation_applies_no_traveller_power_at_an_encounter() -> None:
    """Without travellers an encounter gives only its card (no Umegae-like bonus) (4)."""
    setup = Setup(queue=(0, 1, 2), stacks={"base.encounters": ("samurai",)})
    game = new_game(3, plugins=("base", "initiation"), setup=setup)
    game = move(game, 3)
    assert collection(game, 2) == ("samurai",)
    assert points(game, 2) == 3
    assert points(game, 2, "traveller_powers") == 0
    assert coins(game, 2) == 7


# --- Return journey -------------------------------------------------------------------------


def test_return_journey_board_is_the_base_board_reversed() -> None:
    """Return journey: the board sequence is reversed, each space keeping its type and
    double flag (4)."""
    board = Ruleset.build(("base", "return-journey")).registry.board
    assert tuple(board) == tuple(reversed(base_board()))
    assert len(board) == 55
    assert [i for i, s in enumerate(board) if s.inn] == [0, 13, 27, 40, 54]
    assert sum(1 for s in board if s.double) == 24
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "return-journey"))
    assert tuple(game.ruleset.registry.board) == tuple(reversed(base_board()))


def test_return_journey_first_inn_is_at_13_and_is_compulsory() -> None:
    """The first inn of the reversed road is position 13: no move passes it (4, 3.1)."""
    game = start(["chuubei", "kinko", "sasayakko"], plugins=("base", "return-journey"))
    assert max(a.position for a in legal(game, Move)) == 13
    assert game.state.rules.next_inn[0] == 13


def test_return_journey_inn_meal_and_arrival_power_work_at_13() -> None:
    """At the first inn (13) Hiroshige's power and the inn meal work as usual (4, 3.7)."""
    game = start(["chuubei", "kinko", "hiroshige"], plugins=("base", "return-journey"),
                 stacks={MEALS: ["dango", "tempura", "sushi", "unagi"]})
    game = move(game, 13)
    assert {a.panorama for a in legal(game, ChoosePanorama)} == {"paddy", "mountain", "sea"}
    game = act(game, ChoosePanorama, panorama="sea")
    assert collection(game, 2) == ("sea.1",)
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "sushi", "tempura", "unagi"]
    game = act(game, BuyMeal, meal="tempura")
    assert collection(game, 2) == ("sea.1", "tempura")
    assert points(game, 2) == 7
    assert coins(game, 2) == 1


def test_return_journey_spaces_keep_their_type() -> None:
    """Position 4 of the reversed road is base position 50, a mountain: 1st section (4)."""
    game = start(["chuubei", "kinko", "sasayakko"], plugins=("base", "return-journey"))
    game = move(game, 4)
    assert collection(game, 2) == ("mountain.1",)
    assert points(game, 2, "panoramas") == 1


def test_return_journey_spaces_keep_their_double_flag() -> None:
    """With 4 players position 2 (base 52, sea D) holds two travellers, position 1 (base
    53, village) one (4, 3.2)."""
    game = start(["chuubei", "kinko", "sasayakko", "mitsukuni"],
                 plugins=("base", "return-journey"))
    game = move(game, 1)  # piece 3: village
    game = act(game, BuySouvenirs, cards=())
    assert moving_piece(game) == 2
    assert 1 not in {a.position for a in legal(game, Move)}
    game = move(game, 2)
    assert (game.state.pieces[2].position, game.state.pieces[2].slot) == (2, 0)
    assert moving_piece(game) == 1
    assert Move(1, 1, 2, 1) in game.legal_actions()
    game = game.apply(Move(1, 1, 2, 1))
    assert moving_piece(game) == 0
    assert 2 not in {a.position for a in legal(game, Move)}


def test_return_journey_arrival_powers_at_intermediate_inns_only() -> None:
    """Hiroshige's power applies at the three intermediate inns of the reversed road
    (13, 27, 40), not at the final inn (54) (4, 3.7, 9)."""
    game = start(["chuubei", "kinko", "hiroshige"], plugins=("base", "return-journey"))
    seen: list[int] = []
    while not game.is_over:
        if legal(game, ChoosePanorama):
            seen.append(position(game, 2))
            game = game.apply(legal(game, ChoosePanorama)[0])
        elif legal(game, Move):
            game = to_next_inn(game)
        else:
            game = act(game, BuyMeal, meal=None)
    assert seen == [13, 27, 40]
    assert all(p.position == 54 for p in game.state.pieces)


# --- Gastronomy -------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "hand"), [(3, 3), (4, 4), (5, 5)])
def test_gastronomy_first_arrival_draws_players_cards(players: int, hand: int) -> None:
    """Gastronomy: the first arrival at an inn draws as many meal cards as players (4)."""
    travellers = ["kinko", "mitsukuni", "sasayakko", "hirotada", "umegae"][:players]
    game = start(travellers, plugins=("base", "gastronomy"))
    assert game.ruleset.options["base.meal_hand"] == "players"
    game = move(game, 14)
    assert len(game.state.zone(INN_HAND)) == hand
    plain = move(start(travellers), 14)
    assert len(plain.state.zone(INN_HAND)) == hand + 1


def test_gastronomy_two_players_draw_two() -> None:
    """Gastronomy with 2 players: the first arrival draws 2 cards (not 3) (4, 3.6)."""
    game = start(["chuubei", "kinko"], plugins=("base", "gastronomy"), queue=(2, 0, 1),
                 stacks={MEALS: ["dango", "tofu", "sushi"]})
    assert moving_piece(game) == 1
    game = move(game, 14)
    assert sorted(game.state.zone(INN_HAND)) == ["dango", "tofu"]
    assert {a.meal for a in legal(game, BuyMeal)} == {None, "dango", "tofu"}


def test_gastronomy_two_players_neutral_first_draws_two_and_discards_one() -> None:
    """The neutral arriving first draws the Gastronomy hand (2 cards) and discards one
    at random (4, 3.6, 9)."""
    game = start(["chuubei", "kinko"], plugins=("base", "gastronomy"), queue=(0, 1, 2),
                 stacks={MEALS: ["dango", "tofu", "sushi"]},
                 chance={"discard.base.inn_hand": ["tofu"]})
    assert moving_piece(game) == 2
    game = move(game, 14)
    assert game.state.zone(INN_HAND) == ("dango",)
    assert game.state.zone(MEALS)[-1] == "tofu"


# --- Preparations -----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "expected"), [
    (5, [3 + 2, 4 + 1, 7 + 0, 9 - 1, 2 - 1]),
    (4, [3 + 2, 4 + 1, 7 + 0, 9 - 1]),
    (3, [3 + 2, 4 + 1, 7 + 0]),
])
def test_preparations_adjusts_coins_by_departure_order(players: int,
                                                       expected: list[int]) -> None:
    """Preparations: coins adjusted by departure order; the default queue's last piece
    leaves first (4)."""
    game = start(list(T5[:players]), plugins=("base", "preparations"))
    assert moving_piece(game) == players - 1
    assert all_coins(game) == expected


def test_preparations_follows_the_queue_not_the_seats() -> None:
    """The adjustment follows the departure order of the queue (4, 2)."""
    game = start(list(T5), plugins=("base", "preparations"), queue=(4, 2, 0, 3, 1))
    # leaving order: 1 (-1), 3 (-1), 0 (0), 2 (+1), 4 (+2)
    assert moving_piece(game) == 1
    assert all_coins(game) == [3, 4 - 1, 7 + 1, 9 - 1, 2 + 2]


@pytest.mark.parametrize(("queue", "expected"), [
    ((0, 1, 2), [3 + 2, 4 + 1, 0]),  # the neutral leaves first: ignored
    ((1, 2, 0), [3 + 1, 4 + 2, 0]),  # the neutral leaves second: ignored
    ((2, 0, 1), [3 + 2, 4 + 1, 0]),  # the neutral leaves last
])
def test_preparations_two_players_ignore_the_neutral(queue: tuple[int, int, int],
                                                     expected: list[int]) -> None:
    """2 players: +1 for the first player to leave, +2 for the second; the neutral is
    ignored and gets no coin (4, 9)."""
    game = start(["hiroshige", "chuubei"], plugins=("base", "preparations"), queue=queue)
    assert all_coins(game) == expected


def test_preparations_never_below_zero() -> None:
    """A player never goes below 0 coins: Gotozaemon (0) leaving first stays at 0 (4)."""
    game = start(["hiroshige", "chuubei", "kinko", "gotozaemon"],
                 plugins=("base", "crossroads", "preparations"))
    assert all_coins(game) == [3 + 2, 4 + 1, 7 + 0, 0]
    game = start(["hiroshige", "chuubei", "kinko", "gotozaemon", "satsuki"],
                 plugins=("base", "crossroads", "preparations"))
    # leaving order: satsuki -1, gotozaemon -1 (stays 0), kinko 0, chuubei +1, hiroshige +2
    assert all_coins(game) == [5, 5, 7, 0, 1]


def test_preparations_only_at_the_start() -> None:
    """The adjustment is made once, at the start: leaving the first inn changes nothing
    (4)."""
    game = start(["kinko", "sasayakko", "mitsukuni"], plugins=("base", "preparations"))
    assert all_coins(game) == [7 + 2, 5 + 1, 6]
    for _ in range(3):
        game = to_next_inn(game)
        game = act(game, BuyMeal, meal=None)
    assert all_coins(game) == [9, 6, 6]
    game = move(game, 15)
    assert all_coins(game) == [9, 6, 6]


def test_preparations_with_initiation() -> None:
    """Preparations adjusts Initiation's 7 coins (4: variants combine)."""
    game = initiation_game(5, plugins=("base", "initiation", "preparations"))
    assert all_coins(game) == [7 + 2, 7 + 1, 7, 7 - 1, 7 - 1]


def test_preparations_adjusts_crafted_starting_coins() -> None:
    """Crafted starting coins replace the printed ones (Setup.coins); Preparations then
    adjusts the starting coins by departure order (4)."""
    game = start(list(T5), plugins=("base", "preparations"),
                 coins=dict.fromkeys(range(5), 5))
    assert all_coins(game) == [5 + 2, 5 + 1, 5, 5 - 1, 5 - 1]


# --- all four together, and with the expansions -------------------------------------------------


def test_all_four_base_variants_together() -> None:
    """The four base variants combine: no tiles, 7 coins adjusted by departure, reversed
    road, an inn hand of `players` cards at the first inn (13) (4)."""
    setup = Setup(queue=(0, 1, 2), stacks={MEALS: ("dango", "tempura", "sushi", "unagi")})
    game = new_game(3, plugins=("base", *BASE_VARIANTS), setup=setup)
    assert all_coins(game) == [9, 8, 7]
    assert [p.traveller for p in game.state.pieces] == [None, None, None]
    assert max(a.position for a in legal(game, Move)) == 13
    game = move(game, 13)
    assert game.state.zone(INN_HAND) == ("dango", "tempura", "sushi")
    game = act(game, BuyMeal, meal="sushi")
    assert coins(game, 2) == 5
    assert points(game, 2, "meals") == 6


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("plugins", [
    ("base", *BASE_VARIANTS),
    ("base", *BASE_VARIANTS, "crossroads", "new-encounters"),
    ("base", "return-journey", "gastronomy", "preparations", "crossroads", "new-encounters"),
    ("base", "return-journey", "preparations", "crossroads", "new-encounters", "bga"),
])
def test_variant_combinations_pass_conformance(plugins: tuple[str, ...],
                                               players: int) -> None:
    """Every variant combines with the others and with 2 players (4), also with
    Crossroads and New Encounters."""
    report = run_conformance(plugins, players=players, games=1)
    assert report.games == 1
    assert report.decisions > 0


@pytest.mark.parametrize("variant", BASE_VARIANTS)
@pytest.mark.parametrize("players", [2, 5])
def test_each_variant_alone_passes_conformance(variant: str, players: int) -> None:
    """Each base variant alone works with 2 and 5 players (4)."""
    run_conformance(("base", variant), players=players, games=1)


# --- canonical composition ----------------------------------------------------------------------


def play_same(orders: Sequence[Sequence[str]], players: int, seed: int) -> list[Game]:
    """Games of the same seed and plugins (given in different orders) played with the
    same decisions (chosen by a seeded bot in the first game)."""
    games = [new_game(players, seed=seed, plugins=list(order)) for order in orders]
    bot = RandomBot(seed)
    while not games[0].is_over:
        action = next_action(bot, games[0])
        games = [g.apply(action) for g in games]
    return games


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("orders", [
    [("base", *BASE_VARIANTS), ("preparations", "gastronomy", "return-journey", "initiation",
                                "base")],
    [("base", "crossroads", "new-encounters", "gastronomy", "preparations", "return-journey"),
     ("return-journey", "new-encounters", "preparations", "crossroads", "gastronomy",
      "base")],
    [("base", "crossroads", "bga", "new-encounters"),
     ("bga", "new-encounters", "crossroads", "base")],
])
def test_plugin_order_does_not_change_the_log(orders: list[tuple[str, ...]],
                                              players: int) -> None:
    """The same seed and actions with the plugins listed in another order give
    byte-identical logs (canonical composition)."""
    first, second = play_same(orders, players, seed=7)
    assert first.is_over and second.is_over
    assert dump_log(first) == dump_log(second)
    for seat in range(players):
        assert dump_log(first, viewer=seat) == dump_log(second, viewer=seat)


# --- the bga preset ------------------------------------------------------------------------------


def test_bga_sets_the_online_base_options() -> None:
    """bga with the base game sets the three base options to their online values (8)."""
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "bga"))
    assert dict(game.ruleset.options) == BGA_BASE


def test_bga_with_crossroads_also_sets_the_crossroads_options() -> None:
    """bga with Crossroads also sets the four Crossroads options (8)."""
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "crossroads", "bga"))
    assert dict(game.ruleset.options) == {**BGA_BASE, **BGA_CROSSROADS}


def test_defaults_are_the_printed_rules() -> None:
    """Without the preset every option has its printed value (8)."""
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "crossroads"))
    assert dict(game.ruleset.options) == {
        "base.meal_hand": "players_plus_one",
        "base.hirotada_bank_coin": "choice",
        "base.zenemon_discount": "choice",
        "base.panorama_choice_optional": False,
        "crossroads.cherry_tree_on_completed_panorama": False,
        "crossroads.fortune_timing": "before_move",
        "crossroads.amulet_same_turn": False,
        "crossroads.shodo_emaki_counts_legendary": False,
        "crossroads.devotion": "stop",
        "crossroads.optional_purchase": False,
        "crossroads.health_where_both": False,
    }


def test_explicit_option_wins_over_bga() -> None:
    """An option passed explicitly wins over the preset (8)."""
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "crossroads", "bga"),
                 options={"base.meal_hand": "players_plus_one",
                          "crossroads.amulet_same_turn": False})
    assert dict(game.ruleset.options) == {
        **BGA_BASE, **BGA_CROSSROADS,
        "base.meal_hand": "players_plus_one", "crossroads.amulet_same_turn": False}
    game = move(game, 14)
    assert len(game.state.zone(INN_HAND)) == 4


def test_bga_with_gastronomy_is_fine() -> None:
    """bga and Gastronomy set the same meal-hand value: they combine (8)."""
    game = start(["hiroshige", "chuubei", "kinko"], plugins=("base", "gastronomy", "bga"))
    assert dict(game.ruleset.options) == BGA_BASE
    game = move(game, 14)
    assert len(game.state.zone(INN_HAND)) == 3


def test_bga_requires_base() -> None:
    """The bga preset requires the base game (8)."""
    with pytest.raises(MissingRequirementError):
        Ruleset.build(("bga",))


def test_bga_unknown_option_value_is_an_error() -> None:
    """Unknown option values are errors, preset or not (8)."""
    with pytest.raises(OptionError):
        Ruleset.build(("base", "bga"), {"base.meal_hand": "everyone"})
    with pytest.raises(OptionError):
        Ruleset.build(("base", "bga"), {"crossroads.amulet_same_turn": True})


def test_bga_meal_hand_four_players_draw_four() -> None:
    """bga (base.meal_hand = players): with 4 players the inn hand holds 4 cards (8)."""
    travellers = ["hiroshige", "chuubei", "kinko", "yoshiyasu"]
    game = start(travellers, plugins=("base", "bga"))
    game = move(game, 14)
    assert len(game.state.zone(INN_HAND)) == 4
    game = move(start(travellers), 14)
    assert len(game.state.zone(INN_HAND)) == 5


def test_bga_zenemon_discount_is_the_most_expensive_souvenir() -> None:
    """bga (base.zenemon_discount = most_expensive): the dearest souvenir bought costs
    1; Koma 1 + Haori 2 + Shamisen 3 cost 1 + 2 + 1 = 4 (8, 3.7)."""
    game = start(["chuubei", "kinko", "zenemon"], plugins=("base", "bga"),
                 stacks={SOUVENIRS: ["koma", "haori", "shamisen"]})
    game = move(game, 1)
    full = legal(game, BuySouvenirs, cards=("koma", "haori", "shamisen"))
    assert [a.discount for a in full] == ["shamisen"]
    assert [a.discount for a in legal(game, BuySouvenirs, cards=("koma", "haori"))] == ["haori"]
    game = game.apply(full[0])
    assert coins(game, 2) == 6 - 4
    assert points(game, 2, "souvenirs") == 1 + 3 + 5


def test_printed_zenemon_names_the_discounted_card() -> None:
    """Printed rule: Zen-emon names the discounted card (8, 3.7)."""
    game = start(["chuubei", "kinko", "zenemon"],
                 stacks={SOUVENIRS: ["koma", "haori", "shamisen"]})
    game = move(game, 1)
    full = legal(game, BuySouvenirs, cards=("koma", "haori", "shamisen"))
    assert {a.discount for a in full} == {"koma", "haori", "shamisen"}
    game = act(game, BuySouvenirs, cards=("koma", "haori", "shamisen"), discount="koma")
    assert coins(game, 2) == 0


def test_bga_hirotada_bank_coin_is_added_automatically() -> None:
    """bga (base.hirotada_bank_coin = auto): Hirotada's bank coin joins his donation at
    every temple stop, with no decision (8, 3.7)."""
    game = start(["chuubei", "kinko", "hirotada"], plugins=("base", "bga"))
    game = move(game, 2)
    game = act(game, Donate, amount=2)
    assert not legal(game, AddBankCoin)
    assert step_kind(game) == "core.move"
    assert coins(game, 2) == 6
    assert game.state.pieces[2].counter(DONATION) == 3
    assert points(game, 2, "temple_donations") == 3


def test_printed_hirotada_decides_the_bank_coin() -> None:
    """Printed rule: Hirotada may add the bank coin (a decision) (8, 3.7)."""
    game = start(["chuubei", "kinko", "hirotada"])
    game = move(game, 2)
    game = act(game, Donate, amount=2)
    assert {a.add for a in legal(game, AddBankCoin)} == {True, False}


def test_bga_hirotada_bank_coin_also_with_the_amulet_option() -> None:
    """bga: Hirotada's bank coin is added also when he takes the amulet option (8, 5.6)."""
    game = start(["chuubei", "kinko", "hirotada"], plugins=("base", "crossroads", "bga"))
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="fortune")
    assert not legal(game, AddBankCoin)
    assert coins(game, 2) == 7
    assert game.state.pieces[2].counter(DONATION) == 1
    assert points(game, 2, "temple_donations") == 1


def test_bga_vitality_usable_in_the_turn_it_is_taken() -> None:
    """bga (crossroads.amulet_same_turn): an amulet is usable in the turn it is taken:
    Vitality taken at the temple while in the lead moves again at once (8, 5.5)."""
    for plugins, offered in ((("base", "crossroads", "bga"), True),
                             (("base", "crossroads"), False)):
        game = start(["chuubei", "kinko", "sasayakko"], plugins=plugins)
        game = move(game, 2)
        game = act(game, TakeOption, option="crossroads.amulet")
        game = act(game, TakeAmulet, amulet="vitality")
        assert bool(legal(game, UseVitality)) is offered
    game = start(["chuubei", "kinko", "sasayakko"], plugins=("base", "crossroads", "bga"))
    game = move(game, 2)
    game = act(game, TakeOption, option="crossroads.amulet")
    game = act(game, TakeAmulet, amulet="vitality")
    game = act(game, UseVitality, use=True)
    assert moving_piece(game) == 2
    assert game.state.secret(2) == ()
    assert coins(game, 2) == 4


def test_bga_fortune_usable_after_arriving() -> None:
    """bga (crossroads.fortune_timing = any_time_in_turn): Fortune may be used after
    arriving, before the space's action (8, 5.5)."""
    for plugins, offered in ((("base", "crossroads", "bga"), True),
                             (("base", "crossroads"), False)):
        game = start(["chuubei", "kinko", "sasayakko"], plugins=plugins,
                     chance={"die.crossroads.fortune": [4]})
        game = move(game, 2)
        game = act(game, TakeOption, option="crossroads.amulet")
        game = act(game, TakeAmulet, amulet="fortune")
        if offered:  # same-turn amulets: in the lead with one, asked about Vitality
            game = act(game, UseVitality, use=False)
        game = move(game, 7)  # piece 1
        game = take_base_option(game)
        game = move(game, 11)  # piece 0
        game = take_base_option(game)
        assert moving_piece(game) == 2
        game = move(game, 3)
        assert step_kind(game) == "crossroads.option"
        assert bool(legal(game, UseFortune)) is offered
        if offered:
            game = act(game, UseFortune)
            assert coins(game, 2) == 4 + 4
            assert step_kind(game) == "crossroads.option"


def test_bga_cherry_tree_on_a_completed_panorama() -> None:
    """bga (crossroads.cherry_tree_on_completed_panorama): a traveller who completed the
    paddy may stop on a paddy for a cherry tree: +2 points, +1 coin (8, 5.3)."""
    done = ("paddy.1", "paddy.2", "paddy.3")
    printed = start(["chuubei", "kinko", "sasayakko"], plugins=("base", "crossroads"))
    printed = crafted(printed, PANORAMA_SUPPLY, "core.collection.2", done)
    assert 4 not in {a.position for a in legal(printed, Move)}
    game = start(["chuubei", "kinko", "sasayakko"], plugins=("base", "crossroads", "bga"))
    game = crafted(game, PANORAMA_SUPPLY, "core.collection.2", done)
    game = move(game, 4)
    assert collection(game, 2) == (*done, "cherry_tree")
    assert points(game, 2, "cherry_trees") == 2
    assert coins(game, 2) == 6


def test_bga_shodo_counts_a_later_legendary_object() -> None:
    """bga (crossroads.shodo_emaki_counts_legendary): Shodo scores +1 for a legendary
    object bought later: Murasame 8 + 1 (8, 5.4)."""
    for plugins, expected in ((("base", "crossroads", "bga"), 9), (("base", "crossroads"), 8)):
        game = start(["chuubei", "kinko", "sasayakko"], plugins=plugins)
        game = move(game, 1)
        game = act(game, TakeOption, option="crossroads.legendary")
        game = act(game, BuyLegendary, card="shodo")
        game = move(game, 7)  # piece 1
        game = take_base_option(game)
        game = move(game, 11)  # piece 0
        game = take_base_option(game)
        assert moving_piece(game) == 2
        game = move(game, 8)
        game = act(game, TakeOption, option="crossroads.legendary")
        game = act(game, BuyLegendary, card="murasame")
        assert collection(game, 2) == ("shodo", "murasame")
        assert coins(game, 2) == 1
        assert points(game, 2, "legendary_objects") == expected
