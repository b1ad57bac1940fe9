"""Issue 17: a view holds only what its seat may see, and the seeds the library picks
cannot be guessed.

Nothing reachable from a :class:`~tokaido_rules.View` (its attributes, theirs, the
ruleset's registry, hooks, plugin manager and plugins, with every container on the way)
may hold the order of a zone the seat cannot see, a hidden data value, a game state, a
game, or the game's seed (or a number the generator derived from it). The seed matters
most: the generator is counter based, so whoever knows it knows every deck.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import io
import secrets
import types
import weakref
from collections.abc import Iterator
from typing import TypeGuard

import pytest

from tokaido_rules import (
    Action,
    Game,
    GameState,
    Ruleset,
    Setup,
    View,
    determinize,
    dump_log,
    load_log,
    new_game,
    views,
    visibility,
)
from tokaido_rules.bots import BOTS, MASK
from tokaido_rules.chance import bot_seed, event_stream, new_seed, random_below
from tokaido_rules.engine import Context
from tokaido_rules.frozen import FrozenMap
from tokaido_rules.play import run
from tokaido_rules.ruleset import Rules
from tokaido_rules.visibility import (
    data_visible,
    data_visible_to_all,
    zone_visible,
    zone_visible_to_all,
)

SEEDS = (0xC5A1_7E09_3B6D_F214, 0x9F3E_22D1_4A87_0C5B, 0xE1B0_5D6C_7729_83AF,
         0xB7D4_0E13_96C2_5F88)
"""Fixed 64-bit seeds (drawn once from ``secrets``): far above any count or size a game
holds, so an int equal to one was derived from it. Fixed, so a failure repeats."""

_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), type,
           types.ModuleType, types.CodeType, types.BuiltinFunctionType,
           types.MethodWrapperType, types.WrapperDescriptorType,
           types.MethodDescriptorType, types.GetSetDescriptorType,
           types.MemberDescriptorType, types.FrameType)
"""Objects not descended into: values without parts, modules, classes and code (module
globals and class attributes are not part of what a view holds)."""

_FORBIDDEN = (GameState, Game, Rules, Setup, Context)
"""What a view must never reach: a game, its state, what fixes one game (its crafted
setup), a running step's context."""


def _parts(obj: object) -> Iterator[tuple[str, object]]:
    """The objects ``obj`` refers to, each with a label for the path to it."""
    if isinstance(obj, types.FunctionType):  # its closure and defaults, not its globals
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or (), strict=True):
            with contextlib.suppress(ValueError):  # an empty cell has no contents
                yield f"<closure {name}>", cell.cell_contents
        for i, value in enumerate(obj.__defaults__ or ()):
            yield f"<default {i}>", value
        for name, value in (obj.__kwdefaults__ or {}).items():
            yield f"<default {name}>", value
        for name, value in vars(obj).items():
            yield f".{name}", value
        return
    if isinstance(obj, types.MethodType):
        yield ".__self__", obj.__self__
        yield ".__func__", obj.__func__
        return
    if isinstance(obj, functools.partial):
        yield ".func", obj.func
        yield from ((f".args[{i}]", a) for i, a in enumerate(obj.args))
        yield from ((f".keywords[{k!r}]", v) for k, v in obj.keywords.items())
    if isinstance(obj, dict):  # FrozenMap and other dict subclasses too
        for key, value in obj.items():
            yield f"<key {key!r}>", key
            yield f"[{key!r}]", value
    elif isinstance(obj, (tuple, list, set, frozenset)):
        yield from ((f"[{i}]", item) for i, item in enumerate(obj))
    try:
        attributes = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        attributes = None
    if isinstance(attributes, dict):
        yield from ((f".{name}", value) for name, value in attributes.items())
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot in ("__dict__", "__weakref__"):
                continue
            descriptor = cls.__dict__.get(slot)
            if descriptor is None or not hasattr(descriptor, "__get__"):
                continue
            with contextlib.suppress(AttributeError):  # an unset slot
                yield f".{slot}", descriptor.__get__(obj, type(obj))


def reachable(root: object) -> dict[int, tuple[object, str]]:
    """Every object reachable from ``root``, by id, with the path that reached it."""
    found: dict[int, tuple[object, str]] = {id(root): (root, "view")}
    stack = [root]
    while stack:
        obj = stack.pop()
        if isinstance(obj, _LEAVES):
            continue
        path = found[id(obj)][1]
        for label, part in _parts(obj):
            if id(part) not in found:
                found[id(part)] = (part, path + label)
                stack.append(part)
    return found


def _cards(obj: object) -> TypeGuard[tuple[str, ...] | list[str]]:
    """Whether ``obj`` is a sequence of card ids (strings)."""
    return (isinstance(obj, (tuple, list)) and len(obj) > 0 and isinstance(obj[0], str)
            and all(isinstance(c, str) for c in obj))


def leaks(view: View, game: Game, exempt: dict[int, object]) -> list[str]:
    """What ``view`` reaches that its seat may not know: hidden card orders (a zone's
    cards, or a sequence that starts or ends with all of them, three or more), hidden
    data values, states and games, the seed and the generator's streams. The objects in
    ``exempt`` (by id: the tuples the ruleset held before any game, such as the decks as
    declared) and the cards of the zones the seat sees are not suspects of holding a
    hidden order. A public view (``seat`` ``None``) may know what every seat may."""
    state = game.state
    seat = view.seat
    hidden_zones = {name: cards for name, cards in state.zones.items()
                    if cards and not (zone_visible_to_all(state, name) if seat is None
                                      else zone_visible(state, seat, name))}
    hidden_data = [value for key, value in state.data.items()
                   if not (data_visible_to_all(state, key) if seat is None
                           else data_visible(state, seat, key))
                   and isinstance(value, (tuple, dict)) and value]
    streams = {state.seed, *(event_stream(state.seed, seq) for seq in range(state.seq + 2))}
    shown = {id(cards) for cards in view.zones.values()}
    problems = []
    for obj, path in reachable(view).values():
        if isinstance(obj, _FORBIDDEN):
            problems.append(f"{path} is a {type(obj).__name__}")
        elif type(obj) is int and obj in streams:
            problems.append(f"{path} is the seed or a stream derived from it")
        elif id(obj) in exempt or id(obj) in shown:
            continue
        if _cards(obj):
            seq = tuple(obj)
            for name, cards in hidden_zones.items():
                long = len(cards) >= 3 and len(seq) > len(cards) and (
                    seq[:len(cards)] == cards or seq[-len(cards):] == cards)
                if seq == cards or long:
                    problems.append(f"{path} holds the order of hidden zone {name!r}")
        if isinstance(obj, (tuple, list, dict)) and obj in hidden_data:
            problems.append(f"{path} equals a hidden data value")
    return problems


RULESETS = [(("base",), (2, 3, 4, 5)),
            (("base", "crossroads", "good-luck"), (2, 3, 5)),
            (("base", "new-encounters"), (4,))]


def _games(plugins: tuple[str, ...], counts: tuple[int, ...]) -> Iterator[
        tuple[dict[int, object], Game]]:
    """Random games of one ruleset, shared by the games (as a server shares it), each
    game at every decision; with the tuples the ruleset held before the first game
    (kept alive, so that no new object takes the id of one)."""
    ruleset = Ruleset.build(plugins)
    registry = ruleset.registry
    registry.deck_census()  # the tables fixed by the content, built before any game
    registry.card_backs(())
    exempt: dict[int, object] = {key: obj for key, (obj, _) in reachable(ruleset).items()
                                 if type(obj) is tuple}
    for i, players in enumerate(counts):
        seed = SEEDS[i % len(SEEDS)]
        game = new_game(players, seed=seed, plugins=ruleset)
        decisions = 0
        while not game.is_over:
            yield exempt, game
            actions = game.legal_actions()
            game = game.apply(actions[random_below(seed, decisions, 0, len(actions))])
            decisions += 1
        yield exempt, game


@pytest.mark.parametrize(("plugins", "counts"), RULESETS, ids=["+".join(p) for p, _ in RULESETS])
def test_nothing_reachable_from_a_view_is_hidden(plugins: tuple[str, ...],
                                                 counts: tuple[int, ...]) -> None:
    """At every decision every seat gets a view, and the deciding seat's is completed
    and played on as a bot does (filling whatever these fill); at one decision in three,
    the whole object graph of the views of the deciding seat and of another is searched
    for hidden card orders, hidden data, states, games and the seed (at one in nine, the
    public view's too)."""
    walked = 0
    for k, (exempt, game) in enumerate(_games(plugins, counts)):
        views = [game.view(seat) for seat in range(game.players)]
        for view in views:
            assert view.zone_backs  # what a reader may ask, asked
        if game.current_player is not None:
            world = determinize(views[game.current_player], seed=k)
            world.apply(world.legal_actions()[-1]).view(game.current_player)
        if k % 3:
            continue
        deciding = game.current_player if game.current_player is not None else 0
        for seat in {deciding, (deciding + 1 + k // 3) % game.players}:
            problems = leaks(views[seat], game, exempt)
            assert not problems, f"seat {seat} at seq {game.state.seq}: {problems[:5]}"
            walked += 1
        if k % 9 == 0:
            problems = leaks(game.public_view(), game, exempt)
            assert not problems, f"the public view at seq {game.state.seq}: {problems[:5]}"
    assert walked > 20


def test_the_ruleset_learns_nothing_from_play() -> None:
    """What the engine remembers to answer faster (open roads, visibility plans) is kept
    out of reach of views: the object graph reachable from a view's ruleset is the same
    after games with views at every decision as before them, so one table's bot reads
    nothing there of the games other tables played with the same ruleset."""
    ruleset = Ruleset.build(("base", "crossroads"))
    ruleset.registry.deck_census()  # the tables fixed by the content, built before any game
    ruleset.registry.card_backs(())
    for players in (2, 4):
        ruleset.board_for(players)  # slots and next inns: the board's, for a player count
    before = len(reachable(ruleset))
    for players, seed in ((2, SEEDS[0]), (4, SEEDS[1])):
        game = new_game(players, seed=seed, plugins=ruleset)
        decisions = 0
        while not game.is_over:
            for seat in range(players):
                assert game.view(seat).zone_backs
            actions = game.legal_actions()
            game = game.apply(actions[random_below(seed, decisions, 0, len(actions))])
            decisions += 1
    assert len(reachable(ruleset)) == before


def _fresh_view(game: Game, seat: int | None) -> View:
    """The view made with nothing remembered from earlier views."""
    kept, last, sizes = dict(visibility._KEPT), visibility._last, views._last_sizes
    registry = last.registry
    visibility._KEPT.clear()
    visibility._last = visibility._Kept(None)
    views._last_sizes = (FrozenMap(), FrozenMap())
    try:
        return game.view(seat)
    finally:
        visibility._KEPT.clear()
        visibility._KEPT.update(kept)
        last.registry = registry
        visibility._last, views._last_sizes = last, sizes


@pytest.mark.parametrize("plugins", [("base",), ("base", "crossroads")])
def test_what_views_remember_never_changes_a_view(plugins: tuple[str, ...]) -> None:
    """Views remember the last zones and data they split (what every seat sees, what
    none sees; the next split of the same names is made from it), the last zones' sizes
    and the card backs of each hidden zone's cards, to answer the next view faster.
    Every view, of every seat, in two games played in turns, equals the view made with
    nothing remembered, names in the same order: another seat, another game or another
    state is never answered from what was kept."""
    ruleset = Ruleset.build(plugins)
    games = [new_game(players, seed=seed, plugins=ruleset)
             for players, seed in ((2, SEEDS[0]), (4, SEEDS[1]))]
    decisions = 0
    while not all(g.is_over for g in games):
        for i, game in enumerate(games):
            if game.is_over:
                continue
            for seat in range(game.players):
                view, fresh = game.view(seat), _fresh_view(game, seat)
                assert view == fresh
                for part in ("zones", "zone_sizes", "hidden_backs", "data"):
                    assert list(getattr(view, part)) == list(getattr(fresh, part)), part
            actions = game.legal_actions()
            games[i] = game.apply(actions[random_below(SEEDS[0], decisions, i, len(actions))])
        decisions += 1


def test_views_of_many_tables_in_turns_remember_each_registry_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A server has a registry per table and makes views of its tables in turns: what
    views remember is kept per registry (past :data:`visibility._KEPT_MOST` registries,
    those gone are dropped, then all), and every view, of every seat and the public
    one, equals the view made with nothing remembered; a registry gone is not held."""
    monkeypatch.setattr(visibility, "_KEPT_MOST", 3)
    games = [new_game(players, seed=SEEDS[i % len(SEEDS)], plugins=("base", "crossroads"))
             for i, players in enumerate((2, 3, 4, 4, 2))]  # five registries, three kept
    assert len({id(g.ruleset.registry) for g in games}) == len(games)
    decisions = 0
    while decisions < 40:
        for i, game in enumerate(games):
            if game.is_over:
                continue
            for seat in (*range(game.players), None):
                view = game.view(seat)
                fresh = _fresh_view(game, seat)
                assert view == fresh
                for part in ("zones", "zone_sizes", "hidden_backs", "data"):
                    assert list(getattr(view, part)) == list(getattr(fresh, part)), part
            actions = game.legal_actions()
            games[i] = game.apply(actions[random_below(SEEDS[2], decisions, i, len(actions))])
        decisions += 1
    assert len(visibility._KEPT) <= 3
    gone = weakref.ref(games[0].ruleset.registry)
    games.clear()
    visibility._last = visibility._Kept(None)  # the last entry holds its registry
    gc.collect()
    assert gone() is None


EVERY_PLUGIN = ("base", "crossroads", "new-encounters", "rare-and-precious", "good-luck",
                "initiation", "return-journey", "gastronomy", "preparations", "bga")


@pytest.mark.parametrize(("plugins", "players"), [
    (("base",), 4), (("base", "crossroads", "new-encounters"), 3), (EVERY_PLUGIN, 4),
    (EVERY_PLUGIN, 2)])
def test_views_share_only_what_depends_on_no_seat(plugins: tuple[str, ...],
                                                   players: int) -> None:
    """Every view of a state shares its shown zones, card backs and data (the same
    objects) only where no rule is asked per seat; a whole game with every built-in
    plugin, every seat's view and the public view each equals the view made with
    nothing remembered or shared, names in the same order. A seat's own cards (a
    private draw, an inn hand it saw first, its own data) reach its view alone."""
    game = new_game(players, seed=SEEDS[3], plugins=plugins)
    decisions = shared = apart = 0
    while not game.is_over:
        made = {seat: game.view(seat) for seat in (*range(players), None)}
        fresh = {seat: _fresh_view(game, seat) for seat in made}
        for seat, view in made.items():
            assert view == fresh[seat]
            for part in ("zones", "zone_sizes", "hidden_backs", "data"):
                assert list(getattr(view, part)) == list(getattr(fresh[seat], part)), part
        for part in ("zones", "hidden_backs", "data"):
            for one in made:
                for other in made:
                    same = getattr(made[one], part) is getattr(made[other], part)
                    if one != other and getattr(fresh[one], part) != getattr(fresh[other],
                                                                           part):
                        assert not same, (part, one, other)  # a difference stays apart
                        apart += 1
                    elif one != other and same:
                        shared += 1
        actions = game.legal_actions()
        game = game.apply(actions[random_below(SEEDS[3], decisions, 0, len(actions))])
        decisions += 1
    assert apart  # a seat's own met
    assert shared or plugins != ("base",)  # the base game's zones: shared between seats


def test_the_search_finds_a_cache_of_hidden_zones() -> None:
    """The search is not blind: a cache of zone contents kept on the registry, as card
    backs were once remembered, is found from the view of the very first decision."""
    game = new_game(3, seed=SEEDS[0])
    registry = game.ruleset.registry
    registry.__dict__["_backs_cache"] = {cards: len(cards) for cards in game.state.zones.values()}
    try:
        problems = leaks(game.view(0), game, {})
    finally:
        del registry.__dict__["_backs_cache"]
    assert any("view.ruleset.registry._backs_cache" in p and "'base.meals'" in p
               for p in problems), problems


def test_the_search_finds_the_seed_a_state_and_hidden_facts() -> None:
    """A plugin attribute holding the seed, a stream derived from it, the state, a copy
    of a hidden deck missing its top card, or another seat's traveller offer is found."""
    game = new_game(2, seed=SEEDS[1])
    plugin = game.ruleset.plugins[0]
    meals = game.state.zone("base.meals")
    for planted, said in [(game.seed, "seed"), (event_stream(game.seed, 3), "seed"),
                          (game.state, "GameState"), (["x", *meals], "'base.meals'"),
                          (game.state.data["base.offer.1"], "hidden data")]:
        plugin.__dict__["_planted"] = [planted]
        try:
            problems = leaks(game.view(0), game, {})
        finally:
            del plugin.__dict__["_planted"]
        assert any("._planted[0]" in p and said in p for p in problems), problems


def test_card_backs_do_not_show_the_order_of_the_cards() -> None:
    """The backs of mixed cards list the decks in sorted order whatever the order of
    the cards (the order of a dict's keys would otherwise tell which back is on top)."""
    registry = new_game(2).ruleset.registry
    cards = ("dango", "achievement.sea", "dango", "annaibito.sea")
    for order in (cards, tuple(reversed(cards))):
        backs = registry.card_backs(order)
        assert list(backs.items()) == [("base.achievements", 1), ("base.encounters", 1),
                                       ("base.meals", 2)]
    assert registry.card_backs(()) == {}
    assert registry.card_backs(("no such card", "dango")) == {"": 1, "base.meals": 1}

def test_zone_backs_cover_every_zone_and_hidden_backs_the_unseen() -> None:
    """``zone_backs`` has every zone's backs in the state's order, counted as the
    registry counts them; ``hidden_backs`` has those of the zones the seat cannot see."""
    game = new_game(4, seed=SEEDS[3])
    for decisions in range(40):
        actions = game.legal_actions()
        game = game.apply(actions[random_below(9, decisions, 0, len(actions))])
    for seat in range(4):
        view = game.view(seat)
        assert view.zone_backs == game.ruleset.registry.zone_backs(game.state.zones)
        assert list(view.zone_backs) == list(game.state.zones)
        assert set(view.hidden_backs) == set(view.zone_sizes) - set(view.zones)
        assert all(view.zone_backs[name] == backs for name, backs in view.hidden_backs.items())
        assert sum(view.hidden_backs["base.meals"].values()) == view.zone_sizes["base.meals"]


# --- seeds nobody can guess ------------------------------------------------------------


def test_new_seed_is_64_bits_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed the library picks for a game comes from ``secrets.randbits(64)``."""
    asked: list[int] = []

    def randbits(k: int) -> int:
        asked.append(k)
        return 2**64 - 1

    monkeypatch.setattr(secrets, "randbits", randbits)
    assert new_seed() == 2**64 - 1 and asked == [64]
    monkeypatch.undo()
    seeds = {new_seed() for _ in range(64)}
    assert len(seeds) == 64 and all(0 <= s < 2**64 for s in seeds)
    assert sum(s >= 2**32 for s in seeds) >= 60  # a 32-bit seed: 1 chance in 2**32 each


def test_a_64_bit_seed_survives_the_log_and_stays_out_of_copies() -> None:
    """The largest seed round-trips through a log; no seat's copy holds it."""
    game = new_game(3, seed=2**64 - 1)
    assert load_log(dump_log(game)).state == game.state
    for seat in range(3):
        assert str(2**64 - 1) not in dump_log(game, viewer=seat)


def test_play_bots_seeds_do_not_give_the_game_seed_away(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`tokaido play` seeds each bot one way from the seed it is given (the game's): a
    bot that learnt its own seed would not know the game's."""
    seeded: list[int] = []

    class Recorder:
        def __init__(self, seed: int) -> None:
            seeded.append(seed)
            self.bot = BOTS["random"](seed)

        def choose(self, view: View) -> Action:
            return self.bot.choose(view)

    monkeypatch.setitem(BOTS, "recorder", Recorder)
    game = new_game(3, seed=SEEDS[2])
    run(game, 0, ("recorder",), game.seed, lambda: "quit", io.StringIO())
    assert seeded == [bot_seed(game.seed, seat) for seat in (1, 2)]
    assert all(0 <= s <= MASK and s != game.seed ^ (seat * 0x9E3779B9)
               for seat, s in zip((1, 2), seeded, strict=True))
    assert bot_seed(game.seed, 1) != bot_seed(game.seed + 1, 1)


def test_rl_environments_without_a_seed_draw_64_bits_from_secrets(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Reset without a seed: the AEC game's seed, and the Gymnasium game's and bots'
    seeds, come from ``secrets.randbits(64)``."""
    from tokaido_rules.rl import TokaidoAEC, TokaidoGymEnv

    drawn = iter(range(2**63 + 11, 2**63 + 100))
    monkeypatch.setattr(secrets, "randbits", lambda k: next(drawn) if k == 64 else 0)
    aec = TokaidoAEC(players=2)
    aec.reset()
    assert aec.game.seed == 2**63 + 11
    gym = TokaidoGymEnv(players=3, opponents=("random",))
    gym.reset()
    assert gym.game.seed == 2**63 + 12
    assert sorted(bot.seed for bot in gym.bots.values()) == [2**63 + 13, 2**63 + 14]  # type: ignore[attr-defined]
    aec.reset(seed=5)
    assert aec.game.seed == 5


def test_a_seeded_gym_environment_stays_reproducible() -> None:
    """Seeded once, the Gymnasium environment draws its seeds from its generator, as
    Gymnasium does: the same seed, the same episodes, reset after reset; the bots'
    seeds are not the game's plus a seat."""
    from tokaido_rules.rl import TokaidoGymEnv

    envs = [TokaidoGymEnv(players=3, opponents=("random",)) for _ in range(2)]
    runs = []
    for env in envs:
        env.reset(seed=3)
        first = env.game.seed, sorted(b.seed for b in env.bots.values())  # type: ignore[attr-defined]
        env.reset()
        runs.append((first, env.game.seed))
    assert runs[0] == runs[1]
    (game_seed, bot_seeds), again = runs[0]
    assert again != game_seed and game_seed >= 2**32
    assert bot_seeds != sorted((game_seed + s) & MASK for s in (1, 2))
