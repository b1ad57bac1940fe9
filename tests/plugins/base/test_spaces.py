"""The board, turn order, movement, slots and every road space (RULES.md 1.1, 2, 3.1-3.3).

Most scenarios use 3 players: piece 0 (Kinko, whose power only concerns meals) is the
traveller under test, pieces 1 (Mitsukuni) and 2 (Hirotada) "park" ahead of it in each
segment of the road so that piece 0 stays the rearmost traveller and moves again and again.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from scenario import ENCOUNTERS, HOT_SPRINGS, SOUVENIRS, act, coins, collection, move, points, start
from tokaido_base import (
    AddBankCoin,
    BuyMeal,
    BuySouvenirs,
    ChoosePanorama,
    Donate,
    set_total,
    souvenir_points,
)
from tokaido_rules import Action, Game, IllegalActionError, Move, Scored, collection_zone, new_game

TRAVELLERS3 = ["kinko", "mitsukuni", "hirotada"]
TRAVELLERS5 = ["kinko", "mitsukuni", "hirotada", "umegae", "zenemon"]
P = 0  # the traveller under test
DONATION = "base.donation"

# Where pieces 1 and 2 wait in each segment (beyond every stop piece 0 makes there).
PARK1 = [12, 14, 25, 27, 39, 41, 50, 54]
PARK2 = [13, 14, 26, 27, 40, 41, 53, 54]

Plans = dict[int, list[int]]


# --- helpers ----------------------------------------------------------------------------


def game3(
    *,
    stacks: Mapping[str, Sequence[str]] | None = None,
    coins_p: int = 10,
    chance: Mapping[str, Sequence[object]] | None = None,
) -> Game:
    """3 players, queue (0, 1, 2): piece 2 moves first, piece 0 last."""
    return start(TRAVELLERS3, stacks=stacks, coins={0: coins_p, 1: 10, 2: 10}, chance=chance)


def parked(game: Game, first: int = 12, second: int = 13) -> Game:
    """Pieces 2 then 1 leave Kyoto to ``second`` and ``first``; piece 0 moves next."""
    assert game.current_step is not None
    assert game.current_step.piece == 2
    game = move(game, second)
    assert game.current_step is not None
    assert game.current_step.piece == 1
    game = move(game, first)
    assert game.current_step is not None
    assert game.current_step.piece == P
    return game


def auto_choice(game: Game) -> Action:
    """A neutral choice for decisions outside the test's focus."""
    actions = game.legal_actions()
    for a in actions:
        if isinstance(a, BuyMeal) and a.meal is None:
            return a
        if isinstance(a, BuySouvenirs) and not a.cards:
            return a
        if isinstance(a, AddBankCoin) and not a.add:
            return a
    donations = [a for a in actions if isinstance(a, Donate)]
    if donations:
        return min(donations, key=lambda a: a.amount)
    return actions[0]


def drive(game: Game, plans: Plans, focus: int = P) -> Game:
    """Move pieces along their ``plans`` (consumed in place) whenever they must move.

    Decisions of other pieces, and the focus piece's meals, are taken by
    :func:`auto_choice`. Stops at any other decision of the focus piece, or when the
    piece that must move has no planned position left.
    """
    for _ in range(500):
        step = game.current_step
        if step is None:
            return game
        if step.kind == "core.move":
            todo = plans.get(step.piece)
            if not todo:
                return game
            game = move(game, todo.pop(0))
            continue
        if step.piece == focus and step.kind != "base.meal":
            return game
        game = game.apply(auto_choice(game))
    raise AssertionError("drive did not stop")


def plans_for(route: Sequence[int]) -> Plans:
    """Piece 0 follows ``route``; pieces 1 and 2 park ahead in every segment."""
    return {P: list(route), 1: list(PARK1), 2: list(PARK2)}


def new_events(before: Game, after: Game) -> tuple[object, ...]:
    return after.events[len(before.events):]


def souvenir_scores(game: Game, piece: int) -> list[int]:
    """The points each souvenir scored, in acquisition order."""
    return [
        e.points for e in game.events
        if isinstance(e, Scored) and e.piece == piece and e.category == "souvenirs"
    ]


def move_positions(game: Game) -> set[int]:
    return {a.position for a in game.legal_actions() if isinstance(a, Move)}


def assert_illegal(game: Game, action: Action) -> None:
    """``action`` raises IllegalActionError and leaves the game unchanged."""
    state = game.state
    events = len(game.events)
    legal = game.legal_actions()
    with pytest.raises(IllegalActionError):
        game.apply(action)
    assert game.state is state
    assert game.state == state
    assert len(game.events) == events
    assert game.legal_actions() == legal


def current_move(game: Game, position: int, slot: int = 0) -> Move:
    """A Move action of the current traveller (legal or not)."""
    step = game.current_step
    assert step is not None
    assert step.kind == "core.move"
    seat = step.seat if step.seat is not None else -1
    return Move(seat, step.piece, position, slot)


# --- 1.1 the board ---------------------------------------------------------------------

# The table of RULES.md 1.1, position by position ("*" marks a double space).
RULES_TABLE = (
    "inn village* temple encounter paddy hot_spring* mountain* farm* village temple* "
    "encounter sea* mountain hot_spring inn sea temple farm* paddy* mountain* encounter* "
    "temple hot_spring* mountain sea* village farm inn paddy village encounter* farm "
    "mountain* hot_spring sea* paddy temple* farm* encounter sea village* inn hot_spring "
    "temple* encounter village* sea farm* hot_spring* encounter mountain paddy* sea* "
    "village inn"
).split()


def board(game: Game | None = None) -> tuple[tuple[str, bool, bool], ...]:
    g = game if game is not None else game3()
    return tuple((s.kind, s.double, s.inn) for s in g.ruleset.registry.board)


def test_board_has_55_positions() -> None:
    """1.1: the road has 55 positions, index 0 (Kyoto) to 54 (Edo)."""
    assert len(board()) == 55


def test_board_matches_the_rules_table() -> None:
    """1.1: every position has the type and double flag of the rules table."""
    expected = tuple(
        (name.rstrip("*"), name.endswith("*"), name == "inn") for name in RULES_TABLE
    )
    assert board() == expected


def test_board_inns_and_segments() -> None:
    """1.1: 5 inns at 0, 14, 27, 41, 54; 50 road spaces in segments of 13, 12, 13, 12."""
    spaces = board()
    inns = [i for i, (_, _, inn) in enumerate(spaces) if inn]
    assert inns == [0, 14, 27, 41, 54]
    assert sum(1 for _, _, inn in spaces if not inn) == 50
    assert [b - a - 1 for a, b in itertools.pairwise(inns)] == [13, 12, 13, 12]


def test_board_has_24_double_spaces_none_an_inn() -> None:
    """1.1: 24 double spaces; inns are not double spaces."""
    spaces = board()
    assert sum(1 for _, double, _ in spaces if double) == 24
    assert not any(double for _, double, inn in spaces if inn)


def test_board_counts_per_type() -> None:
    """1.1: spaces / doubles per type: Village 7/3, Temple 6/3, Encounter 7/2, Farm 6/4, ..."""
    spaces = board()
    total = Counter(kind for kind, _, inn in spaces if not inn)
    doubles = Counter(kind for kind, double, inn in spaces if not inn and double)
    assert dict(total) == {
        "village": 7, "temple": 6, "encounter": 7, "farm": 6,
        "hot_spring": 6, "paddy": 5, "mountain": 6, "sea": 7,
    }
    assert dict(doubles) == {
        "village": 3, "temple": 3, "encounter": 2, "farm": 4,
        "hot_spring": 3, "paddy": 2, "mountain": 3, "sea": 4,
    }


# --- 2 step 3: the first mover ------------------------------------------------------------


def test_first_mover_is_last_in_queue_and_kyoto_empties_from_the_back() -> None:
    """2.3: the traveller last in the Kyoto queue moves first, then the next-to-last, ..."""
    game = start(["kinko", "mitsukuni", "hirotada", "umegae"], queue=(2, 0, 3, 1))
    order = []
    for target in (7, 12, 13, 11):
        step = game.current_step
        assert step is not None
        assert step.kind == "core.move"
        order.append(step.piece)
        assert game.current_player == step.piece
        game = move(game, target)
    assert order == [1, 3, 0, 2]


def test_first_mover_two_players_neutral_last_in_queue() -> None:
    """2.3/3.6: with 2 players the neutral traveller (piece 2) moves first if last in queue."""
    game = start(["kinko", "mitsukuni"], queue=(0, 1, 2))
    assert game.current_step is not None
    assert game.current_step.piece == 2
    game = start(["kinko", "mitsukuni"], queue=(2, 1, 0))
    assert game.current_step is not None
    assert game.current_step.piece == 0
    assert game.current_player == 0


# --- 3.1 turn order and movement -------------------------------------------------------------


def test_rearmost_traveller_moves_next() -> None:
    """3.1: after a move, the traveller furthest back on the road moves next."""
    game = game3()
    game = move(game, 7)   # piece 2
    game = move(game, 4)   # piece 1
    game = move(game, 6)   # piece 0 overtakes piece 1
    assert game.current_step is not None
    assert game.current_step.piece == 1
    assert game.current_player == 1


def test_still_last_after_moving_moves_again() -> None:
    """3.1: a traveller still last after moving moves again."""
    game = game3()
    game = move(game, 7)   # piece 2
    game = move(game, 6)   # piece 1
    game = move(game, 4)   # piece 0 is still behind both
    assert game.current_step is not None
    assert game.current_step.piece == P
    assert game.current_step.kind == "core.move"
    game = move(game, 5)
    assert game.current_step is not None
    assert game.current_step.piece == P


def test_move_may_skip_spaces_up_to_the_next_inn_only() -> None:
    """3.1: a move may skip any number of spaces, but never passes the next inn."""
    game = game3()
    assert move_positions(game) == set(range(1, 15))
    assert_illegal(game, current_move(game, 15))
    assert_illegal(game, current_move(game, 20))


def test_inns_are_compulsory_stops() -> None:
    """3.1: every inn is a compulsory stop: from beyond it, the next inn is the limit."""
    game = parked(game3(), 11, 12)
    game = move(game, 10)
    assert max(move_positions(game)) == 14
    assert_illegal(game, current_move(game, 15))
    plans = plans_for([14, 20])
    plans[1] = [14]
    plans[2] = [14]
    game = drive(game, plans)
    # All three at inn 14; piece 2 arrived last and leaves first: up to inn 27, not past it.
    assert game.current_step is not None
    assert game.current_step.piece == 2
    assert max(move_positions(game)) == 27
    assert 27 in move_positions(game)
    assert_illegal(game, current_move(game, 28))


def test_never_backwards() -> None:
    """3.1: a move never goes backwards (nor stays on the same space)."""
    game = parked(game3(), 11, 12)
    game = move(game, 7)
    assert game.current_step is not None
    assert game.current_step.piece == P
    assert min(move_positions(game)) == 8
    assert_illegal(game, current_move(game, 5))
    assert_illegal(game, current_move(game, 7))
    assert_illegal(game, current_move(game, 0))


def test_cannot_move_onto_a_full_space() -> None:
    """3.1/3.2: an occupied single space is not a legal destination."""
    game = game3()
    game = move(game, 4)   # piece 2 on the paddy (single)
    assert 4 not in move_positions(game)
    assert_illegal(game, current_move(game, 4))
    assert_illegal(game, current_move(game, 4, 1))


def test_temple_needs_a_coin() -> None:
    """3.3: stopping at a temple needs at least 1 coin (0 coins: illegal, game unchanged)."""
    game = parked(game3(coins_p=0), 11, 12)
    assert not move_positions(game) & {2, 9}
    assert_illegal(game, current_move(game, 2))
    assert_illegal(game, current_move(game, 9))


def test_village_needs_a_coin() -> None:
    """3.3: stopping at a village needs at least 1 coin."""
    game = parked(game3(coins_p=0), 11, 12)
    assert not move_positions(game) & {1, 8}
    assert_illegal(game, current_move(game, 1))
    assert 7 in move_positions(game)  # a farm needs no coin


# --- 3.2 single and double spaces ------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 5])
def test_double_space_second_slot_with_4_or_5_players(players: int) -> None:
    """3.2: with 4-5 players a double space holds two: the second arrival goes off-road."""
    game = start(TRAVELLERS5[:players])
    first = players - 1
    game = move(game, 5)  # hot spring, double
    second = game.current_step
    assert second is not None
    assert 5 in move_positions(game)
    game = move(game, 5)
    assert game.state.pieces[first].position == 5
    assert game.state.pieces[first].slot == 0
    assert game.state.pieces[second.piece].position == 5
    assert game.state.pieces[second.piece].slot == 1
    # Both slots taken: a third traveller may not stop there.
    assert 5 not in move_positions(game)
    assert_illegal(game, current_move(game, 5, 0))
    assert_illegal(game, current_move(game, 5, 1))
    assert_illegal(game, current_move(game, 5, 2))


def test_off_road_traveller_counts_as_further_back() -> None:
    """3.2: the off-road traveller on a double space is further back and moves first."""
    game = start(["kinko", "mitsukuni", "hirotada", "umegae"])
    game = move(game, 13)  # piece 3
    game = move(game, 12)  # piece 2
    game = move(game, 7)   # piece 1: farm, on-road slot
    game = move(game, 7)   # piece 0: off-road slot
    assert game.state.pieces[1].slot == 0
    assert game.state.pieces[0].slot == 1
    assert game.current_step is not None
    assert game.current_step.piece == 0
    game = move(game, 11)
    assert game.current_step is not None
    assert game.current_step.piece == 1


def test_single_space_holds_one_with_4_players() -> None:
    """3.2: a single space holds one traveller, whatever the player count."""
    game = start(["kinko", "mitsukuni", "hirotada", "umegae"])
    game = move(game, 4)  # paddy, single
    assert 4 not in move_positions(game)
    assert_illegal(game, current_move(game, 4, 1))


def test_double_space_holds_one_with_3_players() -> None:
    """3.2/3.6: with 2-3 players a double space has a single slot."""
    game = game3()
    game = move(game, 5)  # piece 2 on the double hot spring
    assert game.state.pieces[2].slot == 0
    assert 5 not in move_positions(game)
    assert_illegal(game, current_move(game, 5, 0))
    assert_illegal(game, current_move(game, 5, 1))


def test_double_space_holds_one_with_2_players() -> None:
    """3.2/3.6: with 2 players (neutral included) a double space has a single slot."""
    game = start(["kinko", "mitsukuni"], queue=(0, 2, 1))
    game = move(game, 7)  # piece 1 on the double farm
    step = game.current_step
    assert step is not None
    assert step.piece == 2
    assert 7 not in move_positions(game)
    assert_illegal(game, current_move(game, 7, 1))


# --- 3.3 village and souvenir sets -------------------------------------------------------------


def test_village_reveals_top_three_and_offers_every_affordable_subset() -> None:
    """3.3 Village: the top 3 souvenirs are revealed; any 0-3 of them may be bought."""
    game = parked(game3(stacks={SOUVENIRS: ["koma", "sake", "sumie", "geta"]}), 11, 12)
    game = move(game, 1)
    assert game.state.zone("base.village") == ("koma", "sake", "sumie")
    assert game.current_step is not None
    assert game.current_step.piece == P
    buys = {a.cards for a in game.legal_actions() if isinstance(a, BuySouvenirs)}
    assert buys == {
        (), ("koma",), ("sake",), ("sumie",), ("koma", "sake"), ("koma", "sumie"),
        ("sake", "sumie"), ("koma", "sake", "sumie"),
    }


def test_village_purchase_pays_printed_prices() -> None:
    """3.3 Village: bought souvenirs cost their printed prices and join the collection."""
    game = parked(game3(stacks={SOUVENIRS: ["koma", "sake", "sumie"]}), 11, 12)
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("sake", "sumie"), discount=None)
    assert coins(game, P) == 10 - 2 - 3
    assert collection(game, P) == ("sake", "sumie")


def test_village_unbought_cards_go_to_the_bottom() -> None:
    """3.3 Village: the souvenirs not bought go to the bottom of the deck."""
    game = parked(
        game3(
            stacks={SOUVENIRS: ["koma", "sake", "sumie", "geta"]},
            chance={"order.base.souvenirs": [("sumie", "sake")]},
        ),
        11, 12,
    )
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("koma",), discount=None)
    deck = game.state.zone(SOUVENIRS)
    assert game.state.zone("base.village") == ()
    assert len(deck) == 23
    assert deck[0] == "geta"
    assert deck[-2:] == ("sumie", "sake")


def test_village_buying_nothing_returns_all_three() -> None:
    """3.3 Village: buying nothing is allowed; the 3 revealed cards go to the bottom."""
    game = parked(game3(stacks={SOUVENIRS: ["koma", "sake", "sumie", "geta"]}), 11, 12)
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=(), discount=None)
    deck = game.state.zone(SOUVENIRS)
    assert coins(game, P) == 10
    assert collection(game, P) == ()
    assert points(game, P) == 0
    assert len(deck) == 24
    assert deck[0] == "geta"
    assert set(deck[-3:]) == {"koma", "sake", "sumie"}


def test_village_offers_only_affordable_purchases() -> None:
    """3.3 Village: only what the traveller can pay for at printed prices may be bought."""
    game = parked(game3(stacks={SOUVENIRS: ["koma", "sumie", "shamisen"]}, coins_p=2), 11, 12)
    game = move(game, 1)
    buys = {a.cards for a in game.legal_actions() if isinstance(a, BuySouvenirs)}
    assert buys == {(), ("koma",)}
    assert_illegal(game, BuySouvenirs(P, P, ("sumie",), None))


def test_village_with_nothing_affordable_still_a_legal_stop() -> None:
    """3.3 Village: with 1 coin the stop is legal; nothing affordable, the cards go under."""
    game = parked(game3(stacks={SOUVENIRS: ["sumie", "shamisen", "ukiyoe", "koma"]},
                        coins_p=1), 11, 12)
    assert 1 in move_positions(game)
    game = move(game, 1)
    assert game.state.zone("base.village") == ()
    assert game.state.zone(SOUVENIRS)[0] == "koma"
    assert coins(game, P) == 1
    assert collection(game, P) == ()
    assert game.current_step is not None
    assert game.current_step.kind == "core.move"


def test_village_with_fewer_than_three_left_reveals_what_there_is() -> None:
    """3.3 Village (house ruling): with fewer than 3 souvenirs left, reveal what remains."""
    game = start(TRAVELLERS5, coins=dict.fromkeys(range(5), 40))
    offers: list[int] = []
    bought_two = False
    for _ in range(500):
        step = game.current_step
        assert step is not None
        if step.kind == "core.move":
            positions = sorted(move_positions(game))
            villages = [p for p in positions if board(game)[p][0] == "village"]
            game = move(game, villages[0] if villages else positions[-1])
            continue
        buys = [a for a in game.legal_actions() if isinstance(a, BuySouvenirs)]
        if not buys:
            game = game.apply(auto_choice(game))
            continue
        offer = game.state.zone("base.village")
        offers.append(len(offer))
        if len(offer) < 3:
            break
        if not bought_two:  # the first stop buys 2 of 3, every other stop all 3
            bought_two = True
            game = game.apply(next(a for a in buys if len(a.cards) == 2))
        else:
            game = game.apply(max(buys, key=lambda a: len(a.cards)))
    # 1 + 2 stops in segment 1, 1 in segment 2, 3 in segment 3, 1 at 45: 20 + 3 bought.
    assert offers == [3] * 8 + [1]
    assert game.state.zone(SOUVENIRS) == ()
    card = game.state.zone("base.village")[0]
    last_buys = {a.cards for a in game.legal_actions() if isinstance(a, BuySouvenirs)}
    assert last_buys == {(), (card,)}


def test_village_buys_without_coins_left_over() -> None:
    """3.3 Village: a traveller may spend every coin; coins never go negative."""
    game = parked(game3(stacks={SOUVENIRS: ["koma", "sake", "sumie"]}, coins_p=6), 11, 12)
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("koma", "sake", "sumie"), discount=None)
    assert coins(game, P) == 0
    assert points(game, P, "souvenirs") == 1 + 3 + 5


FILLERS = ["ukiyoe", "sumie", "shamisen", "shikki", "jubako"]


@pytest.mark.parametrize(
    ("purchases", "each", "total"),
    [
        pytest.param([["koma"]], [1], 1, id="A"),
        pytest.param([["koma", "manju"]], [1, 3], 4, id="A,B"),
        pytest.param([["koma", "manju", "haori"]], [1, 3, 5], 9, id="A,B,C"),
        pytest.param([["koma", "manju", "haori"], ["netsuke"]], [1, 3, 5, 7], 16,
                     id="A,B,C,D"),
        pytest.param([["koma", "gofu", "manju"]], [1, 1, 3], 5, id="A,A,B"),
        pytest.param([["koma", "gofu", "yunomi"]], [1, 1, 1], 3, id="A,A,A"),
        pytest.param([["koma", "manju"], ["gofu", "kamaboko"]], [1, 3, 1, 3], 8,
                     id="A,B,A,B"),
    ],
)
def test_souvenir_set_examples_through_purchases(
    purchases: list[list[str]], each: list[int], total: int
) -> None:
    """3.3 Souvenir sets: the worked examples, bought at villages 1 and 8 in that order."""
    fillers = iter(FILLERS)
    stack: list[str] = []
    for cards in purchases:
        stack += cards + [next(fillers) for _ in range(3 - len(cards))]
    game = parked(game3(stacks={SOUVENIRS: stack}, coins_p=20), 11, 12)
    for village, cards in zip((1, 8), purchases, strict=False):
        game = move(game, village)
        game = act(game, BuySouvenirs, cards=tuple(cards), discount=None)
    assert souvenir_scores(game, P) == each
    assert points(game, P, "souvenirs") == total
    assert collection(game, P) == tuple(c for cards in purchases for c in cards)


def test_souvenir_collection_of_26_points_through_play() -> None:
    """3.3 Souvenir sets: 2 food, 3 clothing, 1 art, 2 small (bought + Shokunin) total 26."""
    game = parked(
        game3(
            stacks={
                SOUVENIRS: ["manju", "haori", "furoshiki", "koma",
                            "kamaboko", "sandogasa", "netsuke", "gofu"],
                ENCOUNTERS: ["shokunin", "shokunin"],
            },
            coins_p=12,
        ),
        11, 12,
    )
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("manju", "haori", "furoshiki"), discount=None)
    game = move(game, 3)  # Shokunin: koma
    game = move(game, 8)
    game = act(game, BuySouvenirs, cards=("kamaboko", "sandogasa", "netsuke"), discount=None)
    game = move(game, 10)  # Shokunin: gofu
    assert souvenir_scores(game, P) == [1, 3, 1, 5, 3, 1, 7, 5]
    assert points(game, P, "souvenirs") == 26
    assert coins(game, P) == 12 - 10


@pytest.mark.parametrize(
    ("families", "total"),
    [
        ([1], 1),
        ([1, 1], 4),
        ([1, 1, 1], 9),
        ([1, 1, 1, 1], 16),
        ([2, 1], 5),
        ([3], 3),
        ([2, 2], 8),
        ([2, 3, 1, 2], 26),
        ([0, 0, 0, 0], 0),
        ([6, 6, 6, 6], 96),
    ],
)
def test_set_total(families: list[int], total: int) -> None:
    """3.3 Souvenir sets: total = sum over sets of 1,3,5,7 per card (set_total helper)."""
    assert set_total(families) == total


@pytest.mark.parametrize("owned", [(), (1,), (2, 1), (1, 1, 1), (3, 1, 2), (2, 2, 2, 1),
                                   (1, 2, 3, 4), (4, 4, 4, 4)])
def test_a_new_souvenir_scores_what_it_adds_to_the_sets(owned: tuple[int, ...]) -> None:
    """3.3 A souvenir scores the difference it makes to the set total, whichever family
    it joins (souvenir_points against set_total, for every family)."""
    game = new_game(3, seed=1, travellers=TRAVELLERS3)
    registry = game.ruleset.registry
    by_family: dict[str, list[str]] = {}
    for card in registry.decks[SOUVENIRS].cards:
        family = registry.cards[card].family
        assert family is not None
        by_family.setdefault(family, []).append(card)
    families = sorted(by_family)
    cards = tuple(c for family, n in zip(families, owned, strict=False)
                  for c in by_family[family][:n])
    state = game.state.with_zone(collection_zone(P), cards)
    counts = [*owned, *[0] * (len(families) - len(owned))]
    for i, family in enumerate(families):
        after = [n + (j == i) for j, n in enumerate(counts)]
        assert souvenir_points(state, P, family) == set_total(after) - set_total(counts)


# --- 3.3 farm, hot spring ---------------------------------------------------------------------


def test_farm_gives_three_coins_even_with_none() -> None:
    """3.3 Farm: gain 3 coins (a farm needs no coin to stop on); no points."""
    game = parked(game3(coins_p=0), 11, 12)
    game = move(game, 7)
    assert coins(game, P) == 3
    assert points(game, P) == 0


@pytest.mark.parametrize(("card", "value"), [("hot_spring.2", 2), ("hot_spring.3", 3)])
def test_hot_spring_draws_a_card(card: str, value: int) -> None:
    """3.3 Hot spring: draw a hot spring card, score 2 or 3."""
    game = parked(game3(stacks={HOT_SPRINGS: [card]}), 11, 12)
    game = move(game, 5)
    assert collection(game, P) == (card,)
    assert points(game, P, "hot_springs") == value
    assert points(game, P) == value
    assert len(game.state.zone(HOT_SPRINGS)) == 11


# --- 3.3 panoramas ------------------------------------------------------------------------------


@pytest.mark.parametrize(("position", "kind"), [(4, "paddy"), (6, "mountain"), (11, "sea")])
def test_panorama_first_stop_takes_section_one(position: int, kind: str) -> None:
    """3.3 Panorama: a first stop takes section 1 of that panorama, scoring 1."""
    game = parked(game3(), 12, 13)
    game = move(game, position)
    assert collection(game, P) == (f"{kind}.1",)
    assert points(game, P, "panoramas") == 1


def test_panorama_next_section_per_traveller() -> None:
    """3.3 Panorama: each traveller builds their own panorama, section after section."""
    game = parked(game3(), 12, 13)  # piece 1 takes mountain 1 at 12
    assert collection(game, 1) == ("mountain.1",)
    game = move(game, 6)
    assert collection(game, P) == ("mountain.1",)
    assert points(game, P, "panoramas") == 1
    plans = plans_for([14, 19])
    plans[1] = PARK1[1:]
    plans[2] = PARK2[1:]
    game = drive(game, plans)
    assert collection(game, P) == ("mountain.1", "mountain.2")
    assert points(game, P, "panoramas") == 1 + 2


@pytest.mark.parametrize(
    ("kind", "route", "total"),
    [
        ("paddy", [4, 14, 18, 27, 28], 6),
        ("mountain", [6, 14, 19, 23, 27, 32], 10),
        ("sea", [11, 14, 15, 24, 27, 34, 41, 46], 15),
    ],
)
def test_complete_panorama_points_and_achievement(kind: str, route: list[int],
                                                  total: int) -> None:
    """3.3 Panorama: complete Paddy 6 / Mountain 10 / Sea 15; first completer gets +3 at once."""
    game = game3()
    last = route.pop()
    plans = plans_for(route)
    game = drive(game, plans)
    assert game.current_step is not None
    assert game.current_step.piece == P
    assert "achievement." + kind not in collection(game, P)
    game = move(game, last)
    sections = [c for c in collection(game, P) if c.startswith(kind + ".")]
    assert sections == [f"{kind}.{n}" for n in range(1, len(sections) + 1)]
    assert points(game, P, "panoramas") == total
    assert f"achievement.{kind}" in collection(game, P)
    assert points(game, P, "achievements") == 3
    assert not game.is_over


def test_second_completer_gets_no_achievement() -> None:
    """3.3 Panorama: only the first traveller to complete a type takes its achievement."""
    game = game3(stacks={ENCOUNTERS: ["annaibito.paddy"]})
    plans: Plans = {
        P: [4, 14, 18, 27, 28, 41],
        1: [10, 14, 25, 27, 35, 41, 51],
        2: [13, 14, 26, 27, 40, 41, 53],
    }
    game = drive(game, plans)
    assert plans[1] == [], plans
    assert "achievement.paddy" in collection(game, P)
    assert collection(game, 1).count("achievement.paddy") == 0
    assert [c for c in collection(game, 1) if c.startswith("paddy.")] == [
        "paddy.1", "paddy.2", "paddy.3"]
    assert points(game, 1, "panoramas") == 6
    assert points(game, 1, "achievements") == 0
    assert points(game, P, "achievements") == 3


def test_may_not_stop_on_a_completed_panorama_type() -> None:
    """3.3 Panorama: a traveller may not stop on spaces of a type they have completed."""
    game = game3()
    game = drive(game, plans_for([4, 14, 18, 27, 28]))
    assert game.current_step is not None
    assert game.current_step.piece == P
    destinations = move_positions(game)
    assert 35 not in destinations
    assert {29, 31, 32, 34, 36} <= destinations
    assert_illegal(game, current_move(game, 35))


# --- 3.3 temple ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("have", "amounts"), [(5, [1, 2, 3]), (2, [1, 2]), (1, [1])])
def test_temple_offers_one_to_three_coins(have: int, amounts: list[int]) -> None:
    """3.3 Temple: donate 1, 2 or 3 coins (no more than the traveller has)."""
    game = parked(game3(coins_p=have), 11, 12)
    game = move(game, 2)
    donations = [a for a in game.legal_actions() if isinstance(a, Donate)]
    assert sorted(a.amount for a in donations) == amounts
    assert len(donations) == len(game.legal_actions())  # nothing but the donation
    assert all((a.seat, a.piece) == (P, P) for a in donations)


@pytest.mark.parametrize("amount", [1, 2, 3])
def test_temple_donation_scores_one_point_per_coin(amount: int) -> None:
    """3.3 Temple: each donated coin is paid, scores 1 point and counts as donation."""
    game = parked(game3(coins_p=5), 11, 12)
    game = move(game, 2)
    game = act(game, Donate, amount=amount)
    assert coins(game, P) == 5 - amount
    assert points(game, P, "temple_donations") == amount
    assert points(game, P) == amount
    assert game.state.pieces[P].counter(DONATION) == amount
    # Only Hirotada has a bank-coin decision: Kinko's stop is over, he moves again.
    assert game.current_step is not None
    assert game.current_step.kind == "core.move"
    assert game.current_step.piece == P


def test_temple_donations_accumulate() -> None:
    """3.3 Temple: donations are tracked per traveller across temples."""
    game = parked(game3(coins_p=5), 11, 12)
    game = move(game, 2)
    game = act(game, Donate, amount=1)
    game = move(game, 9)
    game = act(game, Donate, amount=2)
    assert game.state.pieces[P].counter(DONATION) == 3
    assert points(game, P, "temple_donations") == 3
    assert coins(game, P) == 2
    assert game.state.pieces[1].counter(DONATION) == 0


def test_temple_donating_nothing_or_too_much_is_illegal() -> None:
    """3.3 Temple: donating nothing (or more than 3) is not allowed."""
    game = parked(game3(coins_p=5), 11, 12)
    game = move(game, 2)
    assert_illegal(game, Donate(P, P, 0))
    assert_illegal(game, Donate(P, P, 4))
    # Only Hirotada adds a coin from the bank: not before the donation, nor after it.
    assert_illegal(game, AddBankCoin(P, P, True))
    game = act(game, Donate, amount=1)
    assert_illegal(game, AddBankCoin(P, P, True))
    assert_illegal(game, AddBankCoin(P, P, False))
    assert coins(game, P) == 4
    assert game.state.pieces[P].counter(DONATION) == 1
    assert points(game, P) == 1


# --- 3.3 encounters -------------------------------------------------------------------------------


def test_encounter_shokunin_gives_a_free_souvenir() -> None:
    """3.3 Encounter, Shokunin: the top souvenir joins the collection free, and scores."""
    game = parked(game3(stacks={ENCOUNTERS: ["shokunin"], SOUVENIRS: ["sumie"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == ("shokunin", "sumie")
    assert coins(game, P) == 10
    assert points(game, P, "souvenirs") == 1
    assert points(game, P) == 1
    assert "sumie" not in game.state.zone(SOUVENIRS)


def test_encounter_shokunin_souvenir_joins_the_sets() -> None:
    """3.3 Encounter, Shokunin: the free souvenir is scored like any souvenir (set rule)."""
    game = parked(
        game3(stacks={ENCOUNTERS: ["shokunin"],
                      SOUVENIRS: ["koma", "ukiyoe", "sumie", "manju"]}),
        11, 12,
    )
    game = move(game, 1)
    game = act(game, BuySouvenirs, cards=("koma",), discount=None)
    game = move(game, 3)
    assert collection(game, P) == ("koma", "shokunin", "manju")
    assert souvenir_scores(game, P) == [1, 3]
    assert coins(game, P) == 9


def test_encounter_samurai_scores_three() -> None:
    """3.3 Encounter, Samurai: +3 points."""
    game = parked(game3(stacks={ENCOUNTERS: ["samurai"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == ("samurai",)
    assert points(game, P, "encounters") == 3
    assert points(game, P) == 3
    assert coins(game, P) == 10


def test_encounter_kuge_gives_three_coins() -> None:
    """3.3 Encounter, Kuge: +3 coins (no points)."""
    game = parked(game3(stacks={ENCOUNTERS: ["kuge"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == ("kuge",)
    assert coins(game, P) == 13
    assert points(game, P) == 0


def test_encounter_miko_donates_a_bank_coin() -> None:
    """3.3 Encounter, Miko: a bank coin goes onto the donation, +1 point."""
    game = parked(game3(stacks={ENCOUNTERS: ["miko"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == ("miko",)
    assert coins(game, P) == 10
    assert game.state.pieces[P].counter(DONATION) == 1
    assert points(game, P, "temple_donations") == 1
    assert points(game, P) == 1


@pytest.mark.parametrize("kind", ["paddy", "mountain", "sea"])
def test_encounter_annaibito_gives_a_section(kind: str) -> None:
    """3.3 Encounter, Annaibito: the next section of its panorama, scored."""
    game = parked(game3(stacks={ENCOUNTERS: [f"annaibito.{kind}"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == (f"annaibito.{kind}", f"{kind}.1")
    assert points(game, P, "panoramas") == 1
    assert points(game, P) == 1


def test_encounter_annaibito_continues_a_started_panorama() -> None:
    """3.3 Encounter, Annaibito: it gives the NEXT section of a started panorama."""
    game = parked(game3(stacks={ENCOUNTERS: ["annaibito.mountain"]}), 11, 12)
    game = move(game, 6)
    game = move(game, 10)
    assert collection(game, P) == ("mountain.1", "annaibito.mountain", "mountain.2")
    assert points(game, P, "panoramas") == 3


def test_encounter_annaibito_of_a_completed_panorama_lets_the_traveller_choose() -> None:
    """3.3 Encounter, Annaibito: its panorama complete, the traveller picks an incomplete one."""
    game = game3(stacks={ENCOUNTERS: ["annaibito.paddy"]})
    game = drive(game, plans_for([4, 14, 18, 27, 28, 30]))
    step = game.current_step
    assert step is not None
    assert step.piece == P
    assert step.seat == P
    choices = {a.panorama for a in game.legal_actions() if isinstance(a, ChoosePanorama)}
    assert choices == {"mountain", "sea"}
    assert_illegal(game, ChoosePanorama(P, P, "paddy"))
    game = act(game, ChoosePanorama, panorama="sea")
    assert collection(game, P)[-2:] == ("annaibito.paddy", "sea.1")
    assert points(game, P, "panoramas") == 6 + 1
    assert points(game, P, "achievements") == 3


def test_encounter_annaibito_with_every_panorama_complete_gives_nothing() -> None:
    """3.3 Encounter, Annaibito: nothing if all three panoramas are complete."""
    route = [4, 6, 11, 14, 15, 18, 19, 23, 24, 27, 28, 32, 34, 41, 46]
    game = game3(stacks={ENCOUNTERS: ["annaibito.sea"]})
    plans = plans_for(route)
    game = drive(game, plans)
    assert game.current_step is not None
    assert game.current_step.piece == P
    assert game.state.pieces[P].position == 46
    assert points(game, P, "panoramas") == 6 + 10 + 15
    assert points(game, P, "achievements") == 9
    before_points = dict(game.state.pieces[P].score)
    before_cards = collection(game, P)
    game = move(game, 49)
    assert game.state.pieces[P].position == 49
    assert collection(game, P) == (*before_cards, "annaibito.sea")
    assert dict(game.state.pieces[P].score) == before_points
    assert game.current_step is not None
    assert game.current_step.kind == "core.move"


def test_encounter_with_an_empty_deck_gives_nothing() -> None:
    """3.3 Encounter (house ruling): an empty encounter deck gives nothing; still a legal stop."""
    # Unreachable with the base game alone (at most 12 encounter draws): empty the deck.
    game = parked(game3(), 11, 12)
    emptied = Game(game.state.with_zone(ENCOUNTERS, ()), ())
    assert 3 in move_positions(emptied)
    after = move(emptied, 3)
    assert after.state.pieces[P].position == 3
    assert collection(after, P) == ()
    assert coins(after, P) == 10
    assert points(after, P) == 0
    assert after.current_step is not None
    assert after.current_step.kind == "core.move"
    assert not [e for e in new_events(emptied, after) if isinstance(e, Scored)]


def test_encounter_card_leaves_the_deck_top() -> None:
    """3.3 Encounter: the TOP card is drawn; the deck loses exactly that card."""
    game = parked(game3(stacks={ENCOUNTERS: ["kuge", "samurai"]}), 11, 12)
    game = move(game, 3)
    assert collection(game, P) == ("kuge",)
    deck = game.state.zone(ENCOUNTERS)
    assert len(deck) == 13
    assert deck[0] == "samurai"
