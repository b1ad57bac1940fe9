"""The conformance kit: random complete games of any ruleset, checked at every step.

Plugin authors run it on their own ruleset::

    from tokaido_rules.testing import run_conformance
    report = run_conformance(["base", "myplugin"], players=4, games=20)

or, in pytest, enable the fixtures with ``pytest_plugins = ["tokaido_rules.testing"]`` and
use ``tokaido_conformance(...)``. A failure raises :class:`ConformanceError` (an
``AssertionError``) that says which check failed, in which game and at which event.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from attrs import frozen

from .bots import RandomBot, next_action
from .chance import random_below
from .engine import Game, new_game, replay
from .errors import IllegalActionError, TokaidoError
from .events import Action, DeckSet, Move, fold
from .frozen import FrozenMap
from .log import dump_log, dump_state, load_log, load_state
from .model import GameState
from .ruleset import Ruleset
from .visibility import data_visible, zone_visible

MAX_DECISIONS = 2000


class ConformanceError(AssertionError):
    """A ruleset broke a conformance check; the message names the check and the event."""


@frozen
class ConformanceReport:
    """What a conformance run covered."""

    plugins: tuple[str, ...]
    players: int
    games: int
    decisions: int
    events: int
    actions_tried: int


def _fail(check: str, game: Game, seed: int, detail: str = "") -> ConformanceError:
    return ConformanceError(
        f"{check} (game seed {seed}, {game.players} players, seq {game.state.seq}"
        f"{', ' + detail if detail else ''})"
    )


def box_contents(game: Game) -> Counter[str]:
    """Every card of the game: the initial contents of every registered deck."""
    total: Counter[str] = Counter()
    for spec in game.ruleset.registry.decks.values():
        total.update(spec.cards)
    return total


def held_cards(game: Game) -> Counter[str]:
    total: Counter[str] = Counter()
    for cards in game.state.zones.values():
        total.update(cards)
    return total


def illegal_candidates(game: Game, previous: Sequence[Action]) -> list[Action]:
    """Actions that must be rejected now: a wrong seat, a move past the next inn or
    backwards, an action answering an earlier decision."""
    step = game.current_step
    if step is None:
        return []
    legal = set(game.legal_actions())
    seat = step.seat if step.seat is not None else 0
    out: list[Action] = []
    wrong_seat = (seat + 1) % game.players
    for action in game.legal_actions()[:2]:
        out.append(type(action)(**{**_fields(action), "seat": wrong_seat}))
    piece = game.state.pieces[step.piece]
    last = game.state.rules.next_inn[piece.position]
    out.append(Move(seat, step.piece, last + 1, 0))
    out.append(Move(seat, step.piece, max(piece.position - 1, 0), 0))
    out.extend(previous[-3:])
    return [a for a in out if a not in legal]


def _fields(action: Action) -> dict[str, Any]:
    from .events import field_names

    return {name: getattr(action, name) for name in field_names(type(action))}


def hidden_variant(game: Game, seat: int, salt: int) -> Game:
    """The same game with everything ``seat`` cannot see shuffled around: the cards of
    hidden zones redistributed among them (each card staying in a zone that holds cards
    with its back, zone sizes kept) and hidden data values replaced."""
    state = game.state
    registry = state.rules.ruleset.registry
    hidden = [name for name in sorted(state.zones) if not zone_visible(state, seat, name)]
    slots: dict[str, list[tuple[str, int]]] = {}
    pools: dict[str, list[str]] = {}
    for name in hidden:
        for index, card in enumerate(state.zones[name]):
            home = registry.home_deck(card)
            slots.setdefault(home, []).append((name, index))
            pools.setdefault(home, []).append(card)
    zones = {name: list(state.zones[name]) for name in hidden}
    for home, pool in pools.items():
        for i in range(len(pool) - 1, 0, -1):
            j = random_below(salt, i, 0, i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        for (name, index), card in zip(slots[home], pool, strict=True):
            zones[name][index] = card
    data = {k: (v if data_visible(state, seat, k) else ("hidden", salt))
            for k, v in state.data.items()}
    variant = state.replace(zones=state.zones.merge({k: tuple(v) for k, v in zones.items()}),
                            data=FrozenMap(data),
                            seed=(state.seed + salt + 1) % 2**64)
    return Game(variant, ())


def play(ruleset: Ruleset, players: int, seed: int,
         on_step: Callable[[Game, Game, Action], None] | None = None) -> Game:
    """One complete game with a seeded random bot; ``on_step(before, after, action)``."""
    game = new_game(players, seed=seed, plugins=ruleset)
    bot = RandomBot(seed)
    decisions = 0
    while not game.is_over:
        if not game.legal_actions():
            raise _fail("no legal action before the end", game, seed)
        action = next_action(bot, game)
        after = game.apply(action)
        if on_step is not None:
            on_step(game, after, action)
        game = after
        decisions += 1
        if decisions > MAX_DECISIONS:
            raise ConformanceError(f"game seed {seed} does not end in {MAX_DECISIONS} "
                                   "decisions")
    return game


def check_game(ruleset: Ruleset, players: int, seed: int, *, apply_all: bool = True,
               view_every: int = 7) -> tuple[Game, int]:
    """Play one game with every check; return it and the number of actions tried."""
    tried = 0
    history: list[Action] = []
    contents: Counter[str] | None = None

    def on_step(before: Game, after: Game, action: Action) -> None:
        nonlocal tried, contents
        if contents is None:
            contents = box_contents(before)
        actions = before.legal_actions()
        if not actions:
            raise _fail("no legal action before the end", before, seed)
        keys = [a.sort_key() for a in actions]
        if keys != sorted(keys) or len(set(keys)) != len(keys):
            raise _fail("legal actions are not sorted and unique", before, seed)
        for a in actions:
            if not str(a):
                raise _fail("an action has no readable str", before, seed, repr(a))
        if apply_all:
            for a in actions:
                try:
                    before.apply(a)
                except Exception as exc:
                    raise _fail("a legal action fails to apply", before, seed,
                                f"{a!r}: {exc!r}") from exc
                tried += 1
        state_before = before.state
        for bad in illegal_candidates(before, history):
            try:
                before.apply(bad)
            except IllegalActionError:
                pass
            else:
                raise _fail("an illegal action was accepted", before, seed, repr(bad))
            if before.state is not state_before:
                raise _fail("a rejected action changed the game", before, seed)
            tried += 1
        history.append(action)
        state = before.state
        for event in after.events[before.state.seq:]:
            state = fold(state, event)
        if state != after.state:
            raise _fail("the fold of the new events differs from the state", after, seed)
        if any(p.coins < 0 for p in after.state.pieces):
            raise _fail("negative coins", after, seed)
        if held_cards(after) != contents:
            raise _fail("cards are not conserved", after, seed)
        problems = after.ruleset.hooks.invariants(after.state)
        if problems:
            raise _fail("plugin invariant broken", after, seed, "; ".join(problems))
        if view_every and len(history) % view_every == 0:
            check_views(after, seed)

    game = play(ruleset, players, seed, on_step)
    if game.legal_actions() or game.current_player is not None:
        raise _fail("a finished game still offers actions", game, seed)
    if replay(game.state.rules, game.seed, game.events) != game.state:
        raise _fail("replaying the events does not give the state", game, seed)
    text = dump_log(game)
    loaded = load_log(text, plugins=ruleset.plugins)
    if loaded.state != game.state or loaded.events != game.events:
        raise _fail("the log does not load back to the same game", game, seed)
    if load_state(dump_state(game.state), game.state.rules) != game.state:
        raise _fail("the state does not survive its JSON round trip", game, seed)
    if dump_log(play(ruleset, players, seed)) != text:
        raise _fail("the same seed and actions give a different log", game, seed)
    check_views(game, seed)
    check_twin(ruleset, game, seed)
    for seat in range(players):
        head = json.loads(dump_log(game, viewer=seat).split("\n", 1)[0])
        if "seed" in head or "stacks" in head["setup"] or "chance" in head["setup"]:
            raise _fail("a seat's copy of the log has the seed or the hidden setup",
                        game, seed)
    return game, tried


def check_views(game: Game, seed: int) -> None:
    """A seat's view is the same whatever that seat cannot see."""
    for seat in range(game.players):
        view = game.view(seat)
        for salt in (1, 2):
            other = hidden_variant(game, seat, salt + seed)
            try:
                other_view = other.view(seat)
            except TokaidoError as exc:
                raise _fail("a view fails on a state differing only in hidden facts",
                            game, seed, f"seat {seat}: {exc}") from exc
            if _view_data(other_view) != _view_data(view):
                raise _fail("a view changes with facts the seat cannot see", game, seed,
                            f"seat {seat}")


def check_twin(ruleset: Ruleset, game: Game, seed: int) -> None:
    """Replay the game's decisions in a twin whose hidden decks are in another order.

    For each seat, until the twin differs in a zone the seat may see (a card revealed),
    the seat's view and its copy of every event must be identical: nothing hidden may
    reach it through data, events, legal actions or anything else.
    """
    from .engine import initial_state
    from .ruleset import Setup
    from .views import redact

    chance: dict[str, list[Any]] = {}
    for event in game.events:
        if isinstance(event, DeckSet) and event.shuffled and len(set(event.cards)) > 1:
            chance[f"shuffle.{event.zone}"] = [tuple(reversed(event.cards))]
    if not chance:
        return
    a = new_game(game.players, seed=game.seed, plugins=ruleset)
    b = new_game(game.players, seed=game.seed, plugins=ruleset, setup=Setup(chance=chance))
    a0 = initial_state(a.state.rules, a.seed)
    b0 = initial_state(b.state.rules, b.seed)
    live = set(range(game.players))
    decisions = iter(e for e in game.events if isinstance(e, Action))
    while live:
        for seat in sorted(live):
            va, vb = a.view(seat), b.view(seat)
            if va.zones != vb.zones:
                live.discard(seat)
                continue
            if _view_data(va) != _view_data(vb):
                raise _fail("a view shows facts the seat cannot see (a twin game with "
                            "other hidden cards differs)", a, seed, f"seat {seat}")
            for ea, eb, sa, sb in _new_events(a0, a, b0, b):
                if redact(ea, sa, seat) != redact(eb, sb, seat) or ea.TYPE != eb.TYPE:
                    raise _fail("a seat's copy of the log shows facts it cannot see",
                                a, seed, f"seat {seat}, {ea.TYPE}")
        action = next(decisions, None)
        if action is None or action not in b.legal_actions() or a.is_over:
            return
        a0, b0 = a.state, b.state
        a, b = a.apply(action), b.apply(action)


def _new_events(a0: GameState, a: Game, b0: GameState,
                b: Game) -> list[tuple[Any, Any, GameState, GameState]]:
    """The events of one decision in two games, each with the state right after it."""
    new_a, new_b = a.events[a0.seq:], b.events[b0.seq:]
    if len(new_a) != len(new_b):
        return [(new_a[-1], new_b[-1], a.state, b.state)] if new_a and new_b else []
    out = []
    sa, sb = a0, b0
    for ea, eb in zip(new_a, new_b, strict=True):
        sa, sb = fold(sa, ea), fold(sb, eb)
        out.append((ea, eb, sa, sb))
    return out


def _view_data(view: Any) -> Any:
    return (view.pieces, view.zones, view.zone_sizes, view.zone_backs, view.data, view.agenda,
            view.current_player, view.current_step, view.legal_actions)


def run_conformance(
    plugins: Iterable[str | object] | Ruleset = ("base",),
    players: int = 4,
    games: int = 10,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    *,
    apply_all: bool = True,
) -> ConformanceReport:
    """Play ``games`` random complete games of a ruleset and check every step.

    Checks: legal actions non-empty until the end, sorted, unique and readable; every
    legal action applies (``apply_all``); sampled illegal actions are rejected with the
    game unchanged; the fold of the events equals the state; coins never negative; cards
    conserved; plugin invariants (:func:`~tokaido_rules.hookspecs.tokaido_invariants`);
    views leak nothing; replay equals live; the log and the state survive a JSON round
    trip; the same seed gives the same log; a seat's copy of the log has no seed.
    """
    ruleset = plugins if isinstance(plugins, Ruleset) else Ruleset.build(plugins, options)
    decisions = events = tried = 0
    for n in range(games):
        game, t = check_game(ruleset, players, seed + n, apply_all=apply_all)
        decisions += sum(1 for e in game.events if isinstance(e, Action))
        events += len(game.events)
        tried += t
    return ConformanceReport(ruleset.ids, players, games, decisions, events, tried)


try:  # pytest fixtures, for plugin authors: pytest_plugins = ["tokaido_rules.testing"]
    import pytest
except ImportError:  # pragma: no cover - pytest is only needed for the fixtures
    pass
else:

    @pytest.fixture
    def tokaido_conformance() -> Callable[..., ConformanceReport]:
        """The conformance kit: call it like :func:`run_conformance`."""
        return run_conformance


def golden_logs(plugins: Iterable[str | object], players: int, seed: int) -> dict[str, str]:
    """A reference game of a ruleset: its full log and every seat's copy, by file suffix
    (``"full"``, ``"seat0"``, ...). Committed golden logs are compared to these."""
    ruleset = Ruleset.build(plugins)
    game = play(ruleset, players, seed)
    logs = {"full": dump_log(game)}
    for seat in range(players):
        logs[f"seat{seat}"] = dump_log(game, viewer=seat)
    return logs


def without_engine_version(text: str) -> str:
    """A log with the engine version taken out of its header (for golden comparisons)."""
    head, _, rest = text.partition("\n")
    obj = json.loads(head)
    obj.pop("engine", None)
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n" + rest
