"""Bots (tokaido_rules.bots) and information-set sampling (tokaido_rules.views.determinize):
legal choices, determinism, no reading of hidden state, strength, and the Bot protocol."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

import scenario
from tokaido_base import BuyMeal, ChooseTraveller, Donate
from tokaido_rules import Action, Game, Move, Ruleset, Setup, View, determinize, new_game
from tokaido_rules.bots import (
    BOTS,
    GREEDY_COIN_VALUE,
    SKIP_COST,
    ActionsBot,
    Bot,
    GreedyBot,
    RandomBot,
    SearchBot,
    greedy_value,
    next_action,
)
from tokaido_rules.testing import box_contents, held_cards, hidden_variant

BASE = ("base",)
CROSSROADS = ("base", "crossroads")
EVERYTHING = ("base", "crossroads", "new-encounters", "good-luck")
RULESETS = [BASE, CROSSROADS, EVERYTHING]
MAX_DECISIONS = 1000

BotFactory = Callable[[int], Bot]


def small_search(seed: int) -> Bot:
    """A SearchBot with a budget small enough for tests."""
    return SearchBot(seed, samples=2, horizon=6)


FACTORIES: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": small_search,
}


def play_out(game: Game, bots: Sequence[Bot],
             check: Callable[[Game, Action], None] | None = None) -> Game:
    """Play to the end, each seat's bot deciding for it; ``check`` sees every decision."""
    for _ in range(MAX_DECISIONS):
        if game.is_over:
            return game
        seat = game.current_player
        assert seat is not None
        action = next_action(bots[seat], game)
        if check is not None:
            check(game, action)
        game = game.apply(action)
    raise AssertionError("the game did not end")


# --- legal choices -------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("plugins", RULESETS, ids=lambda p: "+".join(p))
def test_mixed_bots_choose_only_legal_actions(plugins: tuple[str, ...], players: int) -> None:
    """Random, greedy and search bots at one table choose only legal actions to the end."""
    game = new_game(players, seed=players * 31 + len(plugins), plugins=plugins)
    kinds = ["search", "greedy", "random", "greedy"]
    bots = [FACTORIES[kinds[seat]](100 + seat) for seat in range(players)]
    chosen: Counter[str] = Counter()

    def check(before: Game, action: Action) -> None:
        legal = before.legal_actions()
        assert action in legal, f"illegal choice {action!r} at seq {before.state.seq}"
        seat = before.current_player
        assert seat is not None
        assert before.view(seat).legal_actions == legal
        chosen[type(action).__name__] += 1

    end = play_out(game, bots, check)
    assert end.is_over and end.winners()
    assert sum(chosen.values()) > 20


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_each_bot_plays_a_whole_game_legally(name: str) -> None:
    """Every bot alone at a 2-player table with every plugin chooses only legal actions."""
    game = new_game(2, seed=17, plugins=EVERYTHING)
    bots = [FACTORIES[name](1), FACTORIES[name](2)]

    def check(before: Game, action: Action) -> None:
        assert action in before.legal_actions()

    assert play_out(game, bots, check).is_over


def test_registry_names_build_bots_from_a_seed() -> None:
    """BOTS maps each command-line name to a factory taking a seed."""
    assert set(BOTS) >= {"random", "greedy", "search", "ismcts-fast", "ismcts", "ismcts-strong"}
    game = new_game(3, seed=2)
    for factory in BOTS.values():
        assert next_action(factory(5), game) in game.legal_actions()


def test_next_action_refuses_a_finished_game() -> None:
    """next_action raises ValueError when the game is over (nobody decides)."""
    end = play_out(new_game(2, seed=3), [RandomBot(1), RandomBot(2)])
    with pytest.raises(ValueError, match="over"):
        next_action(RandomBot(0), end)


# --- determinism ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_bots_are_deterministic_for_a_seed(name: str) -> None:
    """The same bot seeds play the same game, whatever the global random state."""
    rs = Ruleset.build(EVERYTHING)
    runs = []
    for global_seed in (1, 2):
        random.seed(global_seed)
        bots = [FACTORIES[name](7), FACTORIES[name](8), FACTORIES[name](9)]
        runs.append(play_out(new_game(3, seed=5, plugins=rs), bots).events)
    assert runs[0] == runs[1]


def test_random_bot_seed_matters() -> None:
    """RandomBots with other seeds play another game."""
    games = [play_out(new_game(2, seed=5), [RandomBot(s), RandomBot(s + 1)]).events
             for s in (1, 10)]
    assert games[0] != games[1]


# --- hidden information ----------------------------------------------------------------


def decision_points(game: Game, every: int = 3) -> list[Game]:
    """Some states of a random game where the deciding seat has a real choice."""
    bots = [RandomBot(40 + seat) for seat in range(game.players)]
    points: list[Game] = []

    def check(before: Game, action: Action) -> None:
        if len(before.legal_actions()) > 1 and before.state.seq % every == 0:
            points.append(before)

    play_out(game, bots, check)
    return points


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("plugins", [BASE, EVERYTHING], ids=lambda p: "+".join(p))
def test_bot_choice_ignores_hidden_facts(plugins: tuple[str, ...], players: int) -> None:
    """Greedy and search bots choose alike in twin games differing only in hidden facts."""
    points = decision_points(new_game(players, seed=23, plugins=plugins), every=4)
    assert len(points) > 10
    differing = 0
    for k, game in enumerate(points):
        seat = game.current_player
        assert seat is not None
        twin = hidden_variant(game, seat, salt=k + 1)
        differing += twin.state.zones != game.state.zones
        assert twin.view(seat) == game.view(seat)
        for factory in (GreedyBot, small_search):
            assert next_action(factory(k), game) == next_action(factory(k), twin), (
                f"{factory} at seq {game.state.seq}")
    assert differing > len(points) // 2  # the twins really differ in hidden cards


def test_bots_see_only_a_view() -> None:
    """A bot is handed a View of its own seat, carrying the legal actions."""
    seen: list[View] = []

    class Spy:
        def choose(self, view: View) -> Action:
            seen.append(view)
            return view.legal_actions[0]

    game = new_game(4, seed=8)
    next_action(Spy(), game)
    assert len(seen) == 1 and isinstance(seen[0], View)
    assert seen[0].seat == game.current_player
    assert seen[0] == game.view(seen[0].seat)
    assert not hasattr(seen[0], "state") and not hasattr(seen[0], "seed")


def test_a_bot_that_needs_only_the_actions_is_given_no_view(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot with choose_from(actions) gets the legal actions of the seat deciding, and
    no view is made for it; a bot with choose(view) alone still gets its view."""
    given: list[tuple[Action, ...]] = []

    class FirstOfThem:
        def choose(self, view: View) -> Action:
            raise AssertionError("choose_from is there: no view is needed")

        def choose_from(self, actions: tuple[Action, ...]) -> Action:
            given.append(actions)
            return actions[0]

    bot: ActionsBot = FirstOfThem()
    game = new_game(4, seed=8)
    for _ in range(12):
        offered, seat = game.legal_actions(), game.current_player
        game = game.apply(next_action(bot, game))
        assert given[-1] is offered  # the deciding seat's own actions, nothing else
        assert {a.seat for a in offered} == {seat}
    assert len(given) == 12
    views: list[int] = []
    make_view = Game.view

    def counted_view(self: Game, seat: int) -> View:
        views.append(seat)
        return make_view(self, seat)

    monkeypatch.setattr(Game, "view", counted_view)
    game = game.apply(next_action(RandomBot(3), game))
    assert views == []
    game = game.apply(next_action(CheapestBot(), game))  # choose(view) alone
    assert len(views) == 1


@pytest.mark.parametrize("players", [2, 5])
@pytest.mark.parametrize("plugins", [BASE, EVERYTHING], ids=lambda p: "+".join(p))
def test_the_random_bot_chooses_alike_from_a_view_or_the_actions(
        plugins: tuple[str, ...], players: int) -> None:
    """RandomBot plays the same whole game whether it is handed views (choose) or the
    legal actions alone (choose_from, what next_action uses)."""
    games = []
    for through_views in (True, False):
        game = new_game(players, seed=41, plugins=plugins)
        bots = [RandomBot(100 + seat) for seat in range(players)]
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            bot = bots[seat]
            game = game.apply(bot.choose(game.view(seat)) if through_views
                              else next_action(bot, game))
        games.append(game)
    assert games[0].events == games[1].events


# --- determinize ---------------------------------------------------------------------


@pytest.mark.parametrize("plugins", RULESETS, ids=lambda p: "+".join(p))
def test_determinize_is_consistent_with_the_view(plugins: tuple[str, ...]) -> None:
    """determinize keeps the seat's view, hidden sizes and card backs, and conserves cards."""
    rs = Ruleset.build(plugins)
    checked = 0
    for players in (2, 4):
        points = decision_points(new_game(players, seed=13, plugins=rs), every=5)
        for k, game in enumerate(points):
            box = box_contents(game)
            assert held_cards(game) == box
            for seat in range(players):
                view = game.view(seat)
                world = determinize(view, seed=k * 10 + seat)
                again = world.view(seat)
                assert again.zones == view.zones
                assert again.zone_sizes == view.zone_sizes
                assert again.zone_backs == view.zone_backs
                assert again.pieces == view.pieces
                assert again.data == view.data
                assert again.legal_actions == view.legal_actions
                assert again.current_player == view.current_player
                assert set(world.state.zones) == set(game.state.zones)
                home = world.ruleset.registry.home_deck
                for name, cards in world.state.zones.items():
                    if name in view.zones:
                        continue
                    assert len(cards) == view.zone_sizes[name], name
                    assert Counter(home(c) for c in cards) == view.zone_backs[name], name
                assert held_cards(world) == box
                checked += 1
    assert checked > 40


def test_determinize_is_reproducible_and_samples() -> None:
    """determinize is reproducible per seed, varies by seed, and ignores hidden facts."""
    game = decision_points(new_game(3, seed=2, plugins=CROSSROADS))[10]
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    first = determinize(view, 1)
    assert determinize(view, 1).state == first.state
    assert any(determinize(view, s).state.zones != first.state.zones for s in range(2, 6))
    twin = hidden_variant(game, seat, salt=3)
    assert twin.state.zones != game.state.zones
    assert determinize(twin.view(seat), 1).state == first.state


def test_determinized_game_is_playable() -> None:
    """A determinized game accepts the view's legal actions and plays on to the end."""
    game = decision_points(new_game(4, seed=6, plugins=EVERYTHING))[5]
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    world = determinize(view, 99)
    for action in view.legal_actions:
        world.apply(action)
    end = play_out(world, [RandomBot(s) for s in range(4)])
    assert end.is_over


# --- strength ------------------------------------------------------------------------


def test_greedy_beats_random_clearly() -> None:
    """One GreedyBot wins over half of 12 four-player games against three RandomBots."""
    rs = Ruleset.build(BASE)
    wins = 0.0
    for i in range(12):
        greedy = i % 4
        bots: list[Bot] = [GreedyBot(i) if s == greedy else RandomBot(i * 4 + s)
                           for s in range(4)]
        end = play_out(new_game(4, seed=1000 + i, plugins=rs), bots)
        winners = end.winners()
        wins += 1 / len(winners) if greedy in winners else 0.0
    assert wins / 12 > 0.5


def test_greedy_sees_past_a_choice_of_action_to_the_purchase() -> None:
    """With Crossroads a village first asks which action to take. With 10 coins, the
    legendary Murasame (8 points for 3 coins) makes the village next to Kyoto worth
    8 - 3 = 5 (a coin is worth a point to it), more than any other stop: GreedyBot goes
    there."""
    game = scenario.start(["kinko", "zenemon", "sasayakko"], queue=(1, 2, 0),
                          coins={0: 10, 1: 0, 2: 0}, plugins=CROSSROADS)
    village = next(a for a in game.legal_actions() if isinstance(a, Move) and a.position == 1)
    assert greedy_value(game, village, 0) == 8 - 3 * GREEDY_COIN_VALUE
    assert GreedyBot(1).choose(game.view(0)) == village


def test_greedy_sees_no_reason_to_hurry_to_an_inn() -> None:
    """Every traveller stops at every inn, so a move to one is worth only the spaces it
    skips, even for Satsuki, whose free meal waits there: counting the meal made her rush
    from inn to inn. From Kyoto she takes the next space."""
    game = scenario.start(["satsuki", "zenemon", "kinko"], queue=(1, 2, 0),
                          coins={0: 10, 1: 0, 2: 0})
    moves = {a.position: a for a in game.legal_actions() if isinstance(a, Move)}
    assert greedy_value(game, moves[14], 0) == -13 * SKIP_COST
    assert GreedyBot(1).choose(game.view(0)) == moves[1]


def test_search_takes_a_clear_choice_without_playing_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only actions within ``margin`` of the greedy best are played out: with one, the
    search bot takes it at once (here the village worth 5, the next stop 1.9)."""
    game = scenario.start(["kinko", "zenemon", "sasayakko"], queue=(1, 2, 0),
                          coins={0: 10, 1: 0, 2: 0}, plugins=CROSSROADS)

    def no_playout(*args: object) -> float:
        raise AssertionError("played out")

    monkeypatch.setattr(SearchBot, "_playout", no_playout)
    choice = SearchBot(1).choose(game.view(0))
    assert isinstance(choice, Move) and choice.position == 1


def test_search_settles_a_close_call_by_the_end_of_the_game() -> None:
    """Late in the game, piece 0 stops at the temple (43) with 10 coins; piece 1 has given
    3 coins. Every donation is worth nothing now (a point per coin, a coin is worth a
    point), so GreedyBot gives 1, second in the temple ranking (7). The search bot plays
    the game out, sees that 3 ties for first (10 points) and gives 3."""
    game = scenario.start(["kinko", "sasayakko", "zenemon"], coins={0: 10, 1: 3, 2: 0})
    route = {0: [43], 1: [2]}
    while True:
        step = game.current_step
        assert step is not None
        here = game.state.pieces[step.piece].position
        if step.kind == "core.move":
            moves = [a for a in game.legal_actions() if isinstance(a, Move)]
            planned = route.get(step.piece, [])
            target = [m for m in moves if planned and m.position == planned[0]]
            game = game.apply(target[0] if target else max(moves, key=lambda m: m.position))
            if target:
                planned.pop(0)
        elif step.kind == "base.temple" and step.piece == 0 and here == 43:
            break
        elif step.kind == "base.temple":
            game = scenario.act(game, Donate, amount=3)
        else:
            game = scenario.act(game, BuyMeal, meal=None)
    assert game.state.pieces[1].counter("base.donation") == 3
    greedy = GreedyBot(1).choose(game.view(0))
    search = SearchBot(1, samples=2).choose(game.view(0))
    assert isinstance(greedy, Donate) and greedy.amount == 1
    assert isinstance(search, Donate) and search.amount == 3


def test_search_plays_out_every_traveller_tile(monkeypatch: pytest.MonkeyPatch) -> None:
    """The choice of a traveller shapes the whole game (the base plugin registers it with
    shapes_game): every tile is played out, even one whose starting coins make it the
    greedy bot's last choice (Satsuki, 2 coins, against Yoshiyasu, 9)."""
    game = new_game(3, seed=4, setup=Setup(chance={"travellers.0": [("satsuki", "yoshiyasu")]}))
    tiles = {a.traveller: a for a in game.legal_actions() if isinstance(a, ChooseTraveller)}
    assert GreedyBot(1).choose(game.view(0)) == tiles["yoshiyasu"]
    played: list[str] = []

    def playout(self: SearchBot, world: Game, action: Action, seat: int) -> float:
        assert isinstance(action, ChooseTraveller)
        played.append(action.traveller)
        return 1.0 if action.traveller == "satsuki" else 0.0

    monkeypatch.setattr(SearchBot, "_playout", playout)
    assert SearchBot(1, samples=3).choose(game.view(0)) == tiles["satsuki"]
    assert sorted(played) == ["satsuki"] * 3 + ["yoshiyasu"] * 3
    played.clear()  # named explicitly, as for a plugin's decision not registered so
    assert SearchBot(1, samples=3, whole_game={"base.choose_traveller"}).choose(
        game.view(0)) == tiles["satsuki"]
    assert len(played) == 6
    played.clear()  # not a whole-game choice: 7 coins apart, beyond the margin of 3
    assert SearchBot(1, samples=3, whole_game=()).choose(game.view(0)) == tiles["yoshiyasu"]
    assert played == []


# --- the Bot protocol ----------------------------------------------------------------


class CheapestBot:
    """A user's bot: the nearest move, otherwise the first legal action."""

    def __init__(self) -> None:
        self.seats: set[int] = set()
        self.decisions = 0

    def choose(self, view: View) -> Action:
        assert view.legal_actions and view.current_player == view.seat
        assert view.seat is not None  # a seat's view: bots never get the public one
        self.seats.add(view.seat)
        self.decisions += 1
        moves = [a for a in view.legal_actions if isinstance(a, Move)]
        if moves and len(moves) == len(view.legal_actions):
            return min(moves, key=lambda a: a.position)
        return view.legal_actions[0]


def test_user_class_implements_the_bot_protocol() -> None:
    """A user class with choose(view) -> Action is a Bot and plays a whole game."""
    mine = CheapestBot()
    bot: Bot = mine
    game = new_game(3, seed=12, plugins=CROSSROADS)
    bots: list[Bot] = [bot, GreedyBot(1), bot]

    def check(before: Game, action: Action) -> None:
        assert action in before.legal_actions()

    end = play_out(game, bots, check)
    assert end.is_over
    assert mine.seats == {0, 2} and mine.decisions > 20
