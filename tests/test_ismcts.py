"""The ISMCTS bot (tokaido_rules.ismcts) and the difficulty ladder: it searches from its
seat's view only (twin games differing in hidden facts get the same decisions and
figures), it is reproducible for a seed and a budget, its figures have the promised
shape, it finds the best last decision, bad options are refused, and it plays where the
fast engine does not (on the reference engine)."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
from typing import Any

import pytest

import scenario
from tokaido_rules import (
    Action,
    Game,
    Move,
    PluginInfo,
    Registry,
    Ruleset,
    Setup,
    hookimpl,
    new_game,
)
from tokaido_rules.bots import BOTS, Bot, GreedyBot, RandomBot, bot_name, make_bot, next_action
from tokaido_rules.errors import BotError, UnknownBotError
from tokaido_rules.estimates import Evaluates
from tokaido_rules.fast import FastGame, why_not_loadable
from tokaido_rules.ismcts import LEVELS, ISMCTSBot
from tokaido_rules.simulate import simulate
from tokaido_rules.testing import hidden_variant

SMALL = 40  # iterations: enough to exercise the tree, cheap enough for a test


def points(plugins: tuple[str, ...], players: int, seed: int, every: int) -> list[Game]:
    """States of a greedy game where the deciding seat has a real choice."""
    game = new_game(players, seed=seed, plugins=plugins)
    bots = [GreedyBot(seed + s) for s in range(players)]
    found: list[Game] = []
    while not game.is_over:
        if len(game.legal_actions()) > 1 and game.state.seq % every == 0:
            found.append(game)
        seat = game.current_player
        assert seat is not None
        game = game.apply(next_action(bots[seat], game))
    return found


# --- hidden information ---------------------------------------------------------------


GREEDY_TREE: dict[str, Any] = {"rollout": "greedy", "opponents": "greedy"}
"""The options of a search whose playouts and other seats are the greedy policy's."""

CLOSE_PAIRED: dict[str, Any] = {**GREEDY_TREE, "root": "close", "paired": True}
"""The same, searching the greedy evaluation's close calls on shared determinisations."""

DEEP: dict[str, Any] = {**CLOSE_PAIRED, "rollout_depth": 1}
"""The same, the greedy playouts and answers looking one decision of the stop further."""


@pytest.mark.parametrize(("plugins", "options"), [
    (("base",), {}), (("base", "crossroads", "new-encounters"), {}),
    (("base", "crossroads"), GREEDY_TREE), (("base", "crossroads"), DEEP)],
    ids=["base", "expansions", "greedy-others", "close-paired-deep"])
def test_the_same_decisions_and_figures_in_twin_games(plugins: tuple[str, ...],
                                                      options: dict[str, Any]) -> None:
    """A twin of the game with everything the seat cannot see dealt otherwise (the
    other hands, the decks' order) looks the same to the seat, and the bot decides and
    evaluates alike in both: it never reads the true hidden state (nor do the other
    seats' greedy answers on the way down the tree, made on the same completions, nor
    the close calls ``root="close"`` picks)."""
    found = points(plugins, 4, seed=31, every=9)
    assert len(found) >= 5
    differing = 0
    for k, game in enumerate(found):
        seat = game.current_player
        assert seat is not None
        twin = hidden_variant(game, seat, salt=k + 1)
        differing += twin.state.zones != game.state.zones
        view, twin_view = game.view(seat), twin.view(seat)
        assert view == twin_view
        assert (ISMCTSBot(k, iterations=SMALL, **options).evaluate(view)
                == ISMCTSBot(k, iterations=SMALL, **options).evaluate(twin_view))
        assert next_action(ISMCTSBot(k, iterations=SMALL, **options), game) == next_action(
            ISMCTSBot(k, iterations=SMALL, **options), twin)
    assert differing > len(found) // 2  # the twins really differ in hidden cards


# --- determinism and the figures ------------------------------------------------------


def test_a_seed_and_a_budget_give_the_same_decision_and_figures() -> None:
    game = points(("base",), 4, seed=5, every=7)[3]
    view = game.view(game.current_player)
    first = ISMCTSBot(seed=9, iterations=60)
    again = ISMCTSBot(seed=9, iterations=60)
    assert first.evaluate(view) == again.evaluate(view)
    assert first.choose(view) == again.choose(view)
    assert first.evaluate(view) == again.evaluate(view)  # asking twice changes nothing
    other = ISMCTSBot(seed=10, iterations=60).evaluate(view)
    assert other != first.evaluate(view)  # the seed matters
    paired = ISMCTSBot(seed=9, iterations=30, **CLOSE_PAIRED)
    again = ISMCTSBot(seed=9, iterations=30, **CLOSE_PAIRED)
    assert paired.evaluate(view) == again.evaluate(view)
    assert paired.choose(view) == again.choose(view)
    assert paired.searched == again.searched


def test_evaluate_gives_one_estimate_per_legal_action_in_order() -> None:
    """One estimate per legal action, in their order; every playout of the root went
    through one of them; intervals hold their means; the choice is the action with the
    most playouts."""
    for game in points(("base",), 3, seed=8, every=11)[:4]:
        view = game.view(game.current_player)
        bot = ISMCTSBot(seed=1, iterations=50)
        evaluator: Evaluates = bot  # the analysis's protocol (checked by mypy)
        estimates = evaluator.evaluate(view)
        assert [e.action for e in estimates] == list(view.legal_actions)
        assert sum(e.playouts for e in estimates) == 50 == bot.searched
        for e in estimates:
            assert e.playouts >= 2  # the budget covers twice every option
            assert e.margin_low <= e.margin <= e.margin_high
            assert 0.0 <= e.win_low <= e.win <= e.win_high <= 1.0
            assert math.isfinite(e.margin_low) and math.isfinite(e.margin_high)
        most = max(estimates, key=lambda e: e.playouts)
        assert bot.choose(view) == most.action or sum(
            e.playouts == most.playouts for e in estimates) > 1


def test_a_lone_legal_action_is_taken_without_a_search() -> None:
    game = new_game(3, seed=1)
    while len(game.legal_actions()) != 1:
        game = game.apply(game.legal_actions()[0])
    bot = ISMCTSBot(seed=1, iterations=10)
    assert bot.choose(game.view(game.current_player)) == game.legal_actions()[0]
    assert bot.searched == 0


def _true_margin(game: Game, action: Action, seat: int) -> float:
    after = game.apply(action)
    while not after.is_over:
        (only,) = after.legal_actions()
        after = after.apply(only)
    totals = [s.total for s in after.scores()]
    mine = totals.pop(seat)
    return mine - max(totals)


def _last_decisions(seeds: range) -> list[Game]:
    """Each game's last decision with a real choice, where the options end the game
    with different margins for the seat (nothing but lone actions follow)."""
    found = []
    for seed in seeds:
        game = new_game(3, seed=seed)
        bots: list[Bot] = [GreedyBot(seed), RandomBot(seed), GreedyBot(seed + 1)]
        last = None
        while not game.is_over:
            if len(game.legal_actions()) > 1:
                last = game
            seat = game.current_player
            assert seat is not None
            game = game.apply(next_action(bots[seat], game))
        assert last is not None
        seat = last.current_player
        assert seat is not None
        margins = {_true_margin(last, a, seat) for a in last.legal_actions()}
        if len(margins) > 1:
            found.append(last)
    return found


def test_the_last_decision_of_a_game_is_played_best() -> None:
    """At the last real decision of a game, where every option's final margin follows
    from what the seat sees, the bot takes an option with the best margin, and its
    estimate of each option is that margin."""
    found = _last_decisions(range(1, 9))
    assert len(found) >= 2
    for game in found:
        seat = game.current_player
        assert seat is not None
        truth = {a: _true_margin(game, a, seat) for a in game.legal_actions()}
        bot = ISMCTSBot(seed=3, iterations=8 * len(truth))
        view = game.view(seat)
        estimates = bot.evaluate(view)
        for e in estimates:
            assert e.margin == pytest.approx(truth[e.action])
        assert truth[bot.choose(view)] == max(truth.values())


# --- the root's candidates and paired determinisations ---------------------------------


def test_a_clear_choice_is_taken_without_a_search_when_the_root_is_close() -> None:
    """With ``root="close"`` only the actions within ``margin`` of the greedy best are
    searched: one alone is played at once (here the village worth 5 points, the next
    stop 1.9); ``root="all"`` searches every move."""
    game = scenario.start(["kinko", "zenemon", "sasayakko"], queue=(1, 2, 0),
                          coins={0: 10, 1: 0, 2: 0}, plugins=("base", "crossroads"))
    view = game.view(0)
    close = ISMCTSBot(seed=1, iterations=20, root="close", **GREEDY_TREE)
    choice = close.choose(view)
    assert isinstance(choice, Move) and choice.position == 1 and close.searched == 0
    every = ISMCTSBot(seed=1, iterations=20, **GREEDY_TREE)
    every.choose(view)
    assert every.searched == 20
    wide = ISMCTSBot(seed=1, iterations=1, root="close", margin=100.0, paired=True)
    wide.choose(view)
    assert wide.searched == len(view.legal_actions)  # one round: every move is close


def test_every_traveller_tile_is_searched_when_the_root_is_close() -> None:
    """The choice of a traveller shapes the whole game (registered ``shapes_game``):
    both tiles are searched, though the starting coins put them 7 points apart."""
    game = new_game(3, seed=4, setup=Setup(chance={"travellers.0": [("satsuki", "yoshiyasu")]}))
    bot = ISMCTSBot(seed=1, iterations=1, root="close", margin=0.0, paired=True)
    bot.choose(game.view(0))
    assert bot.searched == 2


def test_evaluate_gives_every_action_figures_whatever_the_root() -> None:
    """The analysis reads ``evaluate``: every legal action gets figures even where
    ``choose`` would search only the close calls; ``paired`` plays each the same number
    of times (whole rounds, at least the budget)."""
    for game in points(("base",), 4, seed=8, every=11)[:3]:
        view = game.view(game.current_player)
        bot = ISMCTSBot(seed=1, iterations=25, **CLOSE_PAIRED)
        estimates = bot.evaluate(view)
        n = len(view.legal_actions)
        assert [e.action for e in estimates] == list(view.legal_actions)
        rounds = -(-25 // n)
        assert {e.playouts for e in estimates} == {rounds}
        assert bot.searched == rounds * n == sum(e.playouts for e in estimates)
        for e in estimates:
            assert e.margin_low <= e.margin <= e.margin_high
            assert 0.0 <= e.win_low <= e.win <= e.win_high <= 1.0


def test_paired_choice_is_the_best_mean_reward() -> None:
    """With ``paired`` (and the root's actions all searched) the choice is the action
    whose playouts were worth most on average: here the reward is the win share, so
    the best win share of ``evaluate``'s figures, which come from the same search."""
    for game in points(("base",), 4, seed=8, every=11)[:3]:
        view = game.view(game.current_player)
        options = {**GREEDY_TREE, "paired": True, "reward": "win"}
        estimates = ISMCTSBot(seed=2, iterations=24, **options).evaluate(view)
        best = max(e.win for e in estimates)
        assert ISMCTSBot(seed=2, iterations=24, **options).choose(view) == next(
            e.action for e in estimates if e.win == best)


def test_paired_must_be_true_or_false() -> None:
    with pytest.raises(BotError, match="paired must be true or false"):
        ISMCTSBot(paired="yes")  # type: ignore[arg-type]
    assert make_bot("ismcts", 1, {"paired": "true", "root": "close"}).paired is True  # type: ignore[attr-defined]


# --- options and the ladder -----------------------------------------------------------


@pytest.mark.parametrize(("options", "match"), [
    ({"iterations": 0}, "iterations must be"),
    ({"ms": -5}, "ms must be"),
    ({"exploration": -1.0}, "exploration must be"),
    ({"rollout": "clever"}, "rollout must be one of"),
    ({"reward": "points"}, "reward must be one of"),
    ({"engine": "quick"}, "engine must be one of"),
    ({"prior": -1.0}, "prior must be"),
    ({"opponents": "clever"}, "opponents must be one of"),
    ({"root": "some"}, "root must be one of"),
    ({"margin": -1.0}, "margin must be"),
    ({"rollout_depth": -1}, "rollout_depth must be"),
])
def test_bad_options_are_refused_with_a_bot_error(options: dict[str, object],
                                                  match: str) -> None:
    for name in LEVELS:
        with pytest.raises(BotError, match=match) as caught:
            make_bot(name, 1, options)
        assert name in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(BotError, match=match):
        ISMCTSBot(**options)  # type: ignore[arg-type]


def test_undeclared_or_mistyped_options_are_refused_before_play() -> None:
    with pytest.raises(UnknownBotError, match="has no option 'depth'"):
        make_bot("ismcts", 1, {"depth": "3"})
    with pytest.raises(UnknownBotError, match="not an int"):
        make_bot("ismcts-fast", 1, {"iterations": "many"})


def test_the_ladder_is_registered_by_name_with_its_levels_defaults() -> None:
    assert {"ismcts-fast", "ismcts", "ismcts-strong"} <= set(BOTS)
    fast, middle, strong = (LEVELS[n] for n in ("ismcts-fast", "ismcts", "ismcts-strong"))
    assert fast.iterations < middle.iterations  # the same playouts, more of them
    assert (fast.rollout, fast.opponents) == (middle.rollout, middle.opponents)
    assert (strong.rollout, strong.opponents) == ("greedy", "greedy")
    assert (strong.root, strong.paired) == ("close", True)
    assert (fast.root, fast.paired, fast.reward) == (middle.root, middle.paired, middle.reward)
    for name, level in LEVELS.items():
        bot = make_bot(name, 4)
        assert isinstance(bot, ISMCTSBot)
        assert (bot.iterations, bot.rollout, bot.opponents, bot.reward, bot.root,
                bot.paired, bot.rollout_depth) == tuple(level)
        assert bot_name(bot) == name
        assert make_bot(name, 4, {"iterations": "7"}).iterations == 7  # type: ignore[attr-defined]
        assert make_bot(name, 4, {"rollout": "random"}).rollout == "random"  # type: ignore[attr-defined]
        copied = pickle.loads(pickle.dumps(bot))  # bots given to --jobs must pickle
        assert copied.iterations == level.iterations and copied.bot_name == name


def test_tokaido_bots_lists_the_ladder() -> None:
    out = subprocess.run([sys.executable, "-m", "tokaido_rules", "bots"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    for name in LEVELS:
        assert f"\n{name} (" in out or out.startswith(f"{name} (")


def test_a_wall_time_budget_runs_at_least_once() -> None:
    game = points(("base",), 4, seed=5, every=7)[0]
    bot = ISMCTSBot(seed=1, ms=1.0)
    estimates = bot.evaluate(game.view(game.current_player))
    assert bot.searched >= 1 and sum(e.playouts for e in estimates) == bot.searched


# --- engines ---------------------------------------------------------------------------


def test_the_same_figures_on_either_engine() -> None:
    """Playouts on the fast engine give the reference engine's figures, to the bit."""
    game = points(("base", "crossroads"), 3, seed=12, every=13)[2]
    view = game.view(game.current_player)
    fast = ISMCTSBot(seed=2, iterations=12, engine="fast").evaluate(view)
    reference = ISMCTSBot(seed=2, iterations=12, engine="reference").evaluate(view)
    assert fast == reference
    options: dict[str, Any]
    for options in ({"rollout": "near"}, GREEDY_TREE, DEEP):
        assert (ISMCTSBot(seed=3, iterations=6, engine="fast", **options).evaluate(view)
                == ISMCTSBot(seed=3, iterations=6, engine="reference", **options).evaluate(view))


class _Silent:
    """A third-party plugin that gives no fast rules: its games play on the reference
    engine only."""

    tokaido_plugin = PluginInfo("silent", "1.0.0", requires=("base",),
                                description="Adds nothing.")

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        return None


def test_a_ruleset_the_fast_engine_does_not_cover_is_searched_on_the_reference() -> None:
    ruleset = Ruleset.build(["base", _Silent()])
    assert why_not_loadable(ruleset, 3) is not None
    game = new_game(3, seed=4, plugins=ruleset)
    while len(game.legal_actions()) < 2:
        game = game.apply(game.legal_actions()[0])
    view = game.view(game.current_player)
    bot = ISMCTSBot(seed=1, iterations=6)
    assert bot.choose(view) in view.legal_actions and bot.searched == 6
    with pytest.raises(BotError, match=r"bot 'ismcts'.*fast engine does not load") as caught:
        next_action(ISMCTSBot(seed=1, iterations=6, engine="fast"), game, "ismcts")
    assert "\n" not in str(caught.value)


def test_a_batch_of_ladder_games_plays_to_the_end_on_the_fast_engine() -> None:
    batch = simulate(2, players=4, bots=("ismcts-fast", "greedy"), seed=3, engine="auto",
                     bot_options={"ismcts-fast": {"iterations": 8}})
    assert len(batch.results) == 2
    for result in batch.results:
        assert sum(seat.win for seat in result.seats) == pytest.approx(1.0)


def test_a_fast_game_is_decided_from_its_seats_view() -> None:
    game = FastGame.new(4, seed=6)
    bot = ISMCTSBot(seed=1, iterations=SMALL)
    for _ in range(12):
        action = next_action(bot, game)
        assert action in game.legal_actions()
        game.apply(action)
