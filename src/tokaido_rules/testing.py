"""The conformance kit: random complete games of any ruleset, checked at every step.

Plugin authors run it on their own ruleset::

    from tokaido_rules.testing import run_conformance
    report = run_conformance(["base", "myplugin"], players=4, games=20)

or, in pytest, enable the fixtures with ``pytest_plugins = ["tokaido_rules.testing"]`` and
use ``tokaido_conformance(...)``. A failure raises :class:`ConformanceError` (an
``AssertionError``) that says which check failed, in which game and at which event.

:func:`run_differential` is the kit's differential mode: it plays the fast simulator
(:mod:`tokaido_rules.fast`) beside the reference engine over every ruleset the simulator
covers and checks that they play the same games.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from attrs import evolve, field, fields, frozen

from .bots import RandomBot, next_action
from .chance import EVENT, random_below
from .engine import Game, new_game, replay
from .errors import IllegalActionError, TokaidoError
from .events import Action, Automatic, CardsMoved, DeckSet, Event, Move, fold
from .fast import _POLICIES, FastRules, covers, differential, why_not_covered
from .frozen import FrozenMap, freeze
from .log import dump_log, dump_state, load_log, load_state
from .model import GameState, Step
from .ruleset import Ruleset, Setup, installed_plugins, load_plugin
from .views import PUBLIC, View
from .visibility import data_visible, data_visible_to_all, zone_visible, zone_visible_to_all

MAX_DECISIONS = 2000
T = TypeVar("T")


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


def hidden_variant(game: Game, seat: int | None, salt: int) -> Game:
    """The same game with everything ``seat`` cannot see shuffled around: the cards of
    hidden zones redistributed among them (each card staying in a zone that holds cards
    with its back, zone sizes kept) and hidden data values replaced. ``seat`` ``None``:
    everything some seat cannot see (what the public view does not show)."""
    state = game.state
    registry = state.rules.ruleset.registry
    hidden = [name for name in sorted(state.zones) if not _sees_zone(state, seat, name)]
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
    data = {k: (v if _sees_data(state, seat, k) else ("hidden", salt))
            for k, v in state.data.items()}
    variant = state.replace(zones=state.zones.merge({k: tuple(v) for k, v in zones.items()}),
                            data=FrozenMap(data),
                            seed=(state.seed + salt + 1) % 2**64)
    return Game(variant, ())


def _sees_zone(state: GameState, seat: int | None, zone: str) -> bool:
    """Whether ``seat`` (``None``: the public, every seat) may see ``zone``'s cards."""
    return zone_visible_to_all(state, zone) if seat is None else zone_visible(state, seat, zone)


def _sees_data(state: GameState, seat: int | None, key: str) -> bool:
    """Whether ``seat`` (``None``: the public, every seat) may see a data value."""
    return data_visible_to_all(state, key) if seat is None else data_visible(state, seat, key)


Audience = int | None
"""Who the twin check compares a game's views and copy of the log for: a seat, or the
public (``None``: the public view and the public copy, what every seat may see)."""


def _ordered(audiences: Iterable[Audience]) -> list[Audience]:
    """The seats in order, then the public."""
    seats = sorted(a for a in audiences if a is not None)
    return [*seats, None] if None in audiences else list(seats)


def _who(audience: Audience) -> str:
    return "the public" if audience is None else f"seat {audience}"


def _whom(audiences: Iterable[Audience]) -> str:
    ordered = _ordered(audiences)
    seats = [a for a in ordered if a is not None]
    said = [f"seats {seats}"] if seats else []
    if None in ordered:
        said.append("the public")
    return " and ".join(said)


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
    for viewer in (*range(players), PUBLIC):
        head = json.loads(dump_log(game, viewer=viewer).split("\n", 1)[0])
        if "seed" in head or "stacks" in head["setup"] or "chance" in head["setup"]:
            raise _fail("a seat's (or the public) copy of the log has the seed or the "
                        "hidden setup", game, seed, f"viewer {viewer}")
    return game, tried


def check_views(game: Game, seed: int) -> None:
    """A seat's view is the same whatever that seat cannot see; the public view, whatever
    some seat cannot see."""
    seats: list[Audience] = [*range(game.players), None]
    for seat in seats:
        view = game.view(seat)
        for salt in (1, 2):
            other = hidden_variant(game, seat, salt + seed)
            try:
                other_view = other.view(seat)
            except TokaidoError as exc:
                raise _fail("a view fails on a state differing only in hidden facts",
                            game, seed, f"{_who(seat)}: {exc}") from exc
            if _view_data(other_view) != _view_data(view):
                raise _fail("a view changes with facts the seat cannot see", game, seed,
                            _who(seat))


def _decided(events: Sequence[Event]) -> Iterator[tuple[int, Action]]:
    """The decisions among a game's events, with their index: every action but those the
    engine took by itself (right after a ``core.automatic`` marker), which a replay of
    the decisions takes again by itself. :func:`~tokaido_rules.events.decisions`
    without the index, which the twins need to cut the game into decisions."""
    previous = ""
    for index, event in enumerate(events):
        if isinstance(event, Action) and previous != Automatic.TYPE:
            yield index, event
        previous = event.TYPE


@frozen
class Twin:
    """A twin of a game: the same start and decisions, with one hidden chance outcome
    changed.

    ``chance`` is a :class:`~tokaido_rules.Setup` script: for each varied chance kind,
    the game's own outcomes up to the changed one, which is last (later outcomes come
    from the seed, as in the game); ``label`` says what changed; ``changed`` is the
    index in the game's events of the (first) changed outcome.
    """

    label: str
    chance: FrozenMap[str, tuple[Any, ...]] = field(converter=freeze)
    changed: int = 0


class _Salt:
    """Deterministic draws for choosing twins: no global random state."""

    def __init__(self, seed: int, key: int) -> None:
        self.seed, self.key, self.draws = seed, key, 0

    def below(self, n: int) -> int:
        self.draws += 1
        return random_below(self.seed, self.key, self.draws, n)


class _Original:
    """The game the twins are compared with: its state after every event, its
    decisions, and its views and redacted events, each computed once for all twins."""

    def __init__(self, game: Game) -> None:
        from .engine import initial_state

        self.game = game
        self.events = game.events
        state = initial_state(game.state.rules, game.seed)
        self.states = [state]
        """``states[i]``: the state after ``i`` events."""
        for event in self.events:
            state = fold(state, event)
            self.states.append(state)
        decided = list(_decided(self.events))
        self.decisions = [action for _, action in decided]
        self.bounds = [0, *(index for index, _ in decided), len(self.events)]
        """Segment ``k`` (events ``bounds[k]:bounds[k + 1]``) is the setup for ``k == 0``,
        else decision ``k - 1`` and what it set off; decision ``k`` is due after it."""
        self._points: dict[int, Game] = {}
        self._views: dict[tuple[int, Audience], View] = {}
        self._redacted: dict[tuple[int, Audience], tuple[dict[str, Any], tuple[str, ...]]] = {}

    def point(self, k: int) -> Game:
        """The game when decision ``k`` is due (``k == len(decisions)``: the end)."""
        game = self._points.get(k)
        if game is None:
            game = self._points[k] = Game(self.states[self.bounds[k + 1]], ())
        return game

    def view(self, k: int, seat: Audience) -> View:
        """The view of ``seat`` (``None``: the public view) when decision ``k`` is due."""
        view = self._views.get((k, seat))
        if view is None:
            view = self._views[k, seat] = self.point(k).view(seat)
        return view

    def redacted(self, index: int, seat: Audience) -> tuple[dict[str, Any], tuple[str, ...]]:
        from .views import redact

        shown = self._redacted.get((index, seat))
        if shown is None:
            shown = self._redacted[index, seat] = redact(self.events[index],
                                                         self.states[index + 1], seat)
        return shown


def _swap(cards: Sequence[Any], salt: _Salt, *, top: bool = False) -> tuple[int, int] | None:
    """Two positions holding different cards, far enough apart not to be revealed by
    the same draw: random ones, the first being the top card if ``top`` (the next card
    to be drawn is what a careless rule peeks at), else the farthest pair; ``None`` if
    all the cards are alike."""
    n = len(cards)
    if n < 2 or len(set(cards)) < 2:
        return None
    gap = max(1, min(8, n // 3))
    for _ in range(64):
        i, j = sorted((0 if top else salt.below(n), salt.below(n)))
        if j - i >= gap and cards[i] != cards[j]:
            return i, j
    return 0, max(k for k in range(n) if cards[k] != cards[0])


def _swapped(cards: Sequence[Any], i: int, j: int) -> tuple[Any, ...]:
    out = list(cards)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _choose(items: Sequence[T], count: int, salt: _Salt) -> list[T]:
    """``count`` of ``items`` (all if fewer), chosen by ``salt``, in their order."""
    pool = list(range(len(items)))
    chosen: list[int] = []
    while pool and len(chosen) < count:
        chosen.append(pool.pop(salt.below(len(pool))))
    return [items[i] for i in sorted(chosen)]


def twins(game: Game, seed: int, *, swaps: int = 2, picks: int = 1, offers: int = 1,
          kinds: Iterable[str] | None = None) -> list[Twin]:
    """The twins :func:`check_twin` compares ``game`` with, each differing in one hidden
    chance outcome (see there); ``kinds``: only chance kinds with one of these prefixes."""
    return _twins(_Original(game), seed, swaps, picks, offers, kinds)


def _twins(original: _Original, seed: int, swaps: int, picks: int, offers: int,
           kinds: Iterable[str] | None) -> list[Twin]:
    prefixes = None if kinds is None else tuple(kinds)
    outcomes: dict[str, list[Any]] = {}
    found: dict[str, list[tuple[int, int]]] = {}  # kind -> (its n-th outcome, event index)
    for index, event in enumerate(original.events):
        kind = event.chance_kind()
        if kind is None:
            continue
        done = outcomes.setdefault(kind, [])
        if prefixes is None or kind.startswith(prefixes):
            found.setdefault(kind, []).append((len(done), index))
        done.append(event.chance_outcome())

    def script(kind: str, n: int, outcome: Any) -> dict[str, tuple[Any, ...]]:
        return {kind: (*outcomes[kind][:n], outcome)}

    out: list[Twin] = []
    offered: list[int] = []
    for kind, occurrences in sorted(found.items()):
        if kind.startswith("travellers."):
            offered.extend(index for _, index in occurrences)
            continue
        salt = _Salt(seed, occurrences[0][1])
        first = original.events[occurrences[0][1]]
        if isinstance(first, DeckSet):  # a whole deck order: several swaps of each
            for n, index in occurrences:
                cards = original.events[index].chance_outcome()
                for number in range(swaps):
                    pair = _swap(cards, salt, top=number == 0)
                    if pair is not None:
                        out.append(Twin(f"{kind}: cards {pair[0]} and {pair[1]} swapped",
                                        script(kind, n, _swapped(cards, *pair)), index))
        elif isinstance(first, CardsMoved):
            variable = [(n, index) for n, index in occurrences
                        if _alternatives(original, index)]
            for n, index in _choose(variable, picks, salt):
                event = original.events[index]
                assert isinstance(event, CardsMoved)
                if len(event.cards) > 1:  # an order of cards put under a deck
                    pair = _swap(event.cards, salt)
                    assert pair is not None
                    out.append(Twin(f"{kind} (seq {index + 1}): cards {pair[0]} and "
                                    f"{pair[1]} swapped",
                                    script(kind, n, _swapped(event.cards, *pair)), index))
                else:  # a card picked at random from a zone
                    others = _alternatives(original, index)
                    other = others[salt.below(len(others))]
                    out.append(Twin(f"{kind} (seq {index + 1}): {other} instead of "
                                    f"{event.cards[0]}", script(kind, n, other), index))
    out.extend(_offer_twins(original, seed, offered, offers))
    unique: dict[Any, Twin] = {}
    for twin in out:  # two draws may choose the same change
        unique.setdefault(twin.chance, twin)
    return list(unique.values())


def _alternatives(original: _Original, index: int) -> list[str]:
    """What the random move of cards of event ``index`` could have been instead: for an
    order, its cards (if not all alike); for a pick, the other cards of its zone."""
    event = original.events[index]
    if not isinstance(event, CardsMoved):
        return []
    if len(event.cards) > 1:
        return list(event.cards) if len(set(event.cards)) > 1 else []
    return sorted(set(original.states[index].zone(event.src)) - {event.cards[0]})


def _offer_twins(original: _Original, seed: int, offered: list[int],
                 count: int) -> list[Twin]:
    """Twins where a seat was offered another traveller tile instead of the one it did
    not choose: the offer is hidden from the other seats, the choice is not. The tile
    comes from those nobody was offered, else from another seat's unchosen tile."""
    offers: dict[str, tuple[str, ...]] = {}
    where: dict[str, int] = {}
    for index in offered:
        kind = original.events[index].chance_kind()
        assert kind is not None
        offers[kind] = tuple(original.events[index].chance_outcome())
        where[kind] = index
    pieces = original.game.state.pieces
    unchosen: dict[str, str] = {}
    for kind, offer in offers.items():
        seat = int(kind.rpartition(".")[2])
        left = [t for t in offer if t != pieces[seat].traveller]
        if len(offer) == 2 and len(left) == 1:
            unchosen[kind] = left[0]
    spare = sorted(set(original.game.state.rules.registry.travellers)
                   - {t for offer in offers.values() for t in offer})
    salt = _Salt(seed, len(original.events))
    out = []
    for kind in _choose(sorted(unchosen), count, salt):
        script = {k: (offer,) for k, offer in offers.items()}
        old = unchosen[kind]
        changed = where[kind]
        if spare:
            new = spare[salt.below(len(spare))]
            what = f"{kind}: {new} instead of {old}"
        else:
            others = [k for k in sorted(unchosen) if k != kind]
            if not others:
                continue
            other = others[salt.below(len(others))]
            new = unchosen[other]
            changed = min(changed, where[other])
            script[other] = (tuple(old if t == new else t for t in offers[other]),)
            what = f"{kind}: {new} instead of {old}, which {other} gets instead"
        script[kind] = (tuple(new if t == old else t for t in offers[kind]),)
        out.append(Twin(what, script, changed))
    return out


def check_twin(ruleset: Ruleset, game: Game, seed: int, *, swaps: int = 2, picks: int = 1,
               offers: int = 1, kinds: Iterable[str] | None = None,
               variants: Iterable[Twin] | None = None) -> int:
    """Replay the game's decisions in twins that differ in one hidden fact each; return
    how many twins were compared.

    The twins (:func:`twins`, or ``variants``): per shuffled deck, ``swaps`` twins with
    two different cards of it swapped, far apart (the first with the top card); per
    kind of random pick of a card (a Good Luck amulet, the meal a neutral traveller
    discards, ...) and of random order of cards put under a deck, ``picks`` twins with
    another outcome; for ``offers`` seats, a twin offering the seat another tile instead
    of the one it did not choose. Each scripts its chance through
    :class:`~tokaido_rules.Setup`, so it is the game itself until the changed outcome;
    the decisions replayed are the game's own actions, not those the engine took by
    itself (:func:`_decided`).

    For each seat, until an event reveals a difference to it (other cards in a zone it
    may see, or data only some seats see: :func:`_revealed`), its copy of every event
    and its view at every decision must be the same in both games: the agenda, the
    current step and player, and the deciding seat's legal actions included, since
    which decisions are asked, lapse or are offered must not depend on what the seat
    cannot see. The public view and the public copy of every event (what every seat may
    see, a spectator's) are compared in the same way, until an event reveals a
    difference to every seat (other cards in a zone every seat may see). Otherwise
    :class:`ConformanceError` names the seat (or the public), the event or step, and
    the twin.

    When the twin does not offer the action the game took, the deciding seat must see
    a difference: its own secret cards or its own view of a hand may legitimately give
    it other choices. Then the games part by a choice the twin cannot copy and the
    comparison of that twin ends for every seat (what each seat saw until then has
    been checked). A deciding seat that sees no difference while its choices differ is
    a leak, reported, never a silent stop.
    """
    original = _Original(game)
    chosen = (list(variants) if variants is not None
              else _twins(original, seed, swaps, picks, offers, kinds))
    for twin in chosen:
        _compare_twin(ruleset, original, twin, seed)
    return len(chosen)


def _twin_fail(check: str, original: _Original, seq: int, seed: int, twin: Twin,
               detail: str) -> ConformanceError:
    return ConformanceError(f"{check} (game seed {seed}, {original.game.players} players, "
                            f"seq {seq}, twin: {twin.label}, {detail})")


def _compare_twin(ruleset: Ruleset, original: _Original, twin: Twin, seed: int) -> None:
    """Play the twin decision by decision beside the game (see :func:`check_twin`)."""
    from .engine import initial_state

    game = original.game
    setup: Setup = evolve(game.state.rules.setup,
                          chance={**game.state.rules.setup.chance, **twin.chance})
    b = new_game(game.players, seed=game.seed, plugins=ruleset, setup=setup)
    state = initial_state(b.state.rules, b.seed)
    blind: set[Audience] = {*range(game.players), None}
    for k in range(len(original.decisions) + 1):
        new = b.events[state.seq:]
        states = []
        for event in new:
            state = fold(state, event)
            states.append(state)
        _compare_events(original, twin, seed, k, new, states, blind)
        if not blind:
            return
        action = original.decisions[k] if k < len(original.decisions) else None
        _compare_views(original, twin, seed, k, b, blind, action)
        if action is None:
            return
        if action not in b.legal_actions():
            decider = original.point(k).current_player
            if decider is None or decider in blind:
                raise _twin_fail("the twin does not offer the action the game took",
                                 original, original.bounds[k + 1], seed, twin,
                                 f"decider {decider} sees no difference, {_action(action)}")
            return
        b = b.apply(action)


def _revealed(original: _Original, x: GameState, y: GameState, seats: set[Audience],
              announced: bool) -> set[Audience]:
    """The seats among ``seats`` to which states ``x`` and ``y`` (right after the same
    event in both games) reveal a difference: other cards in a zone the seat may see, or
    another value of data only some seats may see (or, ``announced``, any data the seat
    may see). Only the cards may differ, not how many each zone holds: a difference in
    the flow of the game (a card taken in one game and not in the other) reveals
    nothing legitimately, it is the very leak sought. The public (``None`` among
    ``seats``) sees a difference every seat sees: in a zone, or ``announced``, in data
    every seat may see."""
    if not seats:
        return set()
    zones = [n for n, cards in x.zones.items() if y.zones.get(n) != cards]
    zones += [n for n in y.zones if n not in x.zones]
    keys: list[str] = []
    if x.data != y.data:
        players = range(original.game.players)
        keys = [k for k in x.data.keys() | y.data.keys() if x.data.get(k) != y.data.get(k)
                and (announced or not all(data_visible(x, t, k) for t in players))]
    seen = {s for s in seats
            if any(_sees_zone(x, s, n) or _sees_zone(y, s, n) for n in zones)
            or any(_sees_data(x, s, k) or _sees_data(y, s, k) for k in keys)}
    if seen and any(len(x.zones.get(n, ())) != len(y.zones.get(n, ())) for n in zones):
        return set()
    return seen


def _compare_events(original: _Original, twin: Twin, seed: int, k: int,
                    new: Sequence[Event], states: Sequence[GameState],
                    blind: set[Audience]) -> None:
    """Compare segment ``k`` of both games, event by event, for the seats (and the
    public) still blind; a seat to which an event reveals a difference
    (:func:`_revealed`) is no longer compared from there on.

    In the segment that draws the changed outcome, public data that differ announce it
    (Rare & Precious makes the amulets in play public): it is public chance, like a die.
    Later, public data cannot legitimately differ while the zones a seat sees do not.
    """
    from .views import redact

    lo, hi = original.bounds[k], original.bounds[k + 1]
    announced = lo <= twin.changed < hi
    count = min(hi - lo, len(new))
    for i in range(count):
        if not blind:
            return
        ea, eb = original.events[lo + i], new[i]
        x, y = original.states[lo + i + 1], states[i]
        seq = lo + i + 1
        if ea.TYPE != eb.TYPE:
            first = _ordered(blind)[0]
            raise _twin_fail(
                "a seat's copy of the log has other events in a twin it cannot tell apart",
                original, seq, seed, twin, f"{_whom(blind)}, {_after(original, k)}: "
                f"{_shown(ea, original.redacted(lo + i, first))} in the game, "
                f"{_shown(eb, redact(eb, y, first))} in the twin")
        blind -= _revealed(original, x, y, blind, announced)
        for seat in _ordered(blind):
            if ea == eb and seat is not None:
                same = set(ea.visible_fields(x, seat)) == set(eb.visible_fields(y, seat))
            else:
                same = original.redacted(lo + i, seat) == redact(eb, y, seat)
            if not same:
                raise _twin_fail(
                    "a seat's copy of the log shows facts it cannot see" if seat is not None
                    else "the public copy of the log shows facts some seat cannot see",
                    original, seq, seed, twin, f"{_who(seat)}, {_after(original, k)}: "
                    f"{_shown(ea, original.redacted(lo + i, seat))} in the game, "
                    f"{_shown(eb, redact(eb, y, seat))} in the twin")
    if blind and hi - lo != len(new):
        seat = _ordered(blind)[0]
        if hi - lo > len(new):
            extra = _shown(original.events[lo + count], original.redacted(lo + count, seat))
        else:
            extra = _shown(new[count], redact(new[count], states[count], seat))
        raise _twin_fail(
            "a seat's copy of the log has other events in a twin it cannot tell apart",
            original, lo + count + 1, seed, twin,
            f"{_whom(blind)}, {_after(original, k)}: {hi - lo} events in the game, "
            f"{len(new)} in the twin, the first extra one: {extra}")


def _action(action: Action | None) -> str:
    return "no action" if action is None else f"{action.TYPE} ({action})"


def _after(original: _Original, k: int) -> str:
    return "at setup" if k == 0 else f"after {original.decisions[k - 1]}"


def _shown(event: Event, shown: tuple[dict[str, Any], tuple[str, ...]]) -> str:
    text = f"{event.TYPE} {shown[0]}"
    return text if len(text) <= 240 else text[:237] + "..."


_VIEW_FIELDS = tuple(f.name for f in fields(View) if f.name != "ruleset")


def _compare_views(original: _Original, twin: Twin, seed: int, k: int, b: Game,
                   blind: set[Audience], action: Action | None) -> None:
    for seat in _ordered(blind):
        va, vb = original.view(k, seat), b.view(seat)
        if va == vb:
            continue
        differ = [name for name in _VIEW_FIELDS if getattr(va, name) != getattr(vb, name)]
        seq = original.bounds[k + 1]
        where = f"{_who(seat)}, {_after(original, k)}"
        if {"agenda", "current_step", "current_player"} & set(differ):
            raise _twin_fail(
                "the decisions asked depend on facts a seat cannot see", original, seq,
                seed, twin, f"{where}: next {_steps(va.agenda, va.current_step)} in the "
                f"game, {_steps(vb.agenda, vb.current_step)} in the twin")
        if differ == ["legal_actions"]:
            check = ("the twin does not offer the action the game took"
                     if action not in vb.legal_actions
                     else "the legal actions depend on facts the deciding seat cannot see")
            raise _twin_fail(check, original, seq, seed, twin,
                             f"{where}, step {_steps((), va.current_step)}: {_action(action)}")
        raise _twin_fail(
            ("a view shows facts the seat cannot see" if seat is not None else
             "the public view shows facts some seat cannot see")
            + " (a twin game with other hidden cards differs)", original, seq, seed, twin,
            f"{where}: {', '.join(differ)}")


def _steps(agenda: Sequence[Step], current: Step | None) -> str:
    steps = list(agenda) or ([current] if current is not None else [])
    if not steps:
        return "nothing (the game is over)"
    return ", ".join(f"{s.kind} (traveller {s.piece}, seat {s.seat})" for s in steps[:4])


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
    trip; the same seed gives the same log; a seat's copy of the log, and the public
    copy, have no seed; twin games look the same to each seat and to the public until
    they may see the difference (:func:`check_twin`).
    """
    ruleset = plugins if isinstance(plugins, Ruleset) else Ruleset.build(plugins, options)
    decisions = events = tried = 0
    for n in range(games):
        game, t = check_game(ruleset, players, seed + n, apply_all=apply_all)
        decisions += sum(1 for _ in _decided(game.events))
        events += len(game.events)
        tried += t
    return ConformanceReport(ruleset.ids, players, games, decisions, events, tried)


@frozen
class DifferentialConformance:
    """What a differential run (:func:`run_differential`) covered: the plugins and the
    option values of each ruleset played (``rulesets[i]`` is played with
    ``options[i]``), the player counts, and the games and decisions compared."""

    rulesets: tuple[tuple[str, ...], ...]
    options: tuple[FrozenMap[str, object], ...]
    players: tuple[int, ...]
    games: int
    decisions: int


_DISTRIBUTION = "tokaido-rules"
"""The core's distribution, whose plugins are the built-in ones."""


@functools.cache
def fast_plugins() -> dict[str, tuple[FastRules, bool]]:
    """The installed plugins that give fast rules (``tokaido_fast_rules``), by id, each
    with its rules and whether it comes in the core's own distribution (the built-in
    plugins) rather than a third party's. A plugin that fails to load is left out."""
    own = {_DISTRIBUTION}
    found: dict[str, tuple[FastRules, bool]] = {}
    for plugin_id, entry in sorted(installed_plugins().items()):
        try:
            plugin = load_plugin(plugin_id)
        except TokaidoError:
            continue
        hook = getattr(plugin, "tokaido_fast_rules", None)
        rules = hook() if callable(hook) else None
        if isinstance(rules, FastRules):
            found[plugin_id] = (rules, entry.dist is not None and entry.dist.name in own)
    return found


def fast_options() -> dict[str, tuple[object, ...]]:
    """Every option the installed plugins' fast rules implement, with those values."""
    found: dict[str, tuple[object, ...]] = {}
    for rules, _ in fast_plugins().values():
        found.update(rules.options)
    return found


@functools.cache
def covered_plugin_sets() -> tuple[tuple[str, ...], ...]:
    """Every combination of the built-in plugins that give fast rules (:func:`fast_plugins`)
    that the fast simulator covers and that makes a ruleset (``base`` and any of the
    others whose requirements are met and that do not conflict), smallest first, as the
    ids :meth:`Ruleset.build` takes; then each installed third-party plugin that gives
    fast rules with ``base`` alone and with the largest built-in combination (so that
    the differential suite stays bounded however many are installed). (Remembered: it
    builds every combination once, a second or two.)"""
    plugins = fast_plugins()
    others = sorted(pid for pid, (_, own) in plugins.items() if own and pid != "base")
    found: list[tuple[str, ...]] = []
    for size in range(len(others) + 1):
        for chosen in itertools.combinations(others, size):
            ids = ("base", *chosen)
            if _covered(ids):
                found.append(ids)
    largest = max(found, key=len, default=("base",))
    for pid in sorted(pid for pid, (_, own) in plugins.items() if not own):
        for ids in (("base", pid), (*largest, pid)):
            if ids not in found and _covered(ids):
                found.append(ids)
    return tuple(found)


def _covered(ids: tuple[str, ...]) -> bool:
    try:
        ruleset = Ruleset.build(ids)
    except TokaidoError:
        return False  # a requirement missing, or a conflict
    return covers(ruleset)


def covered_options() -> tuple[dict[str, object], ...]:
    """The option values of the base game the fast simulator covers, one ruleset each:
    the defaults, then each option at each of its other values (the rest at their
    defaults), then every option away from its default at once."""
    return tuple(options for _, options in _option_rulesets(("base",)))


def _option_rulesets(ids: tuple[str, ...], owner: str | None = None,
                     ) -> list[tuple[tuple[str, ...], dict[str, object]]]:
    """``ids`` at its defaults, with each covered option of its plugins (of plugin
    ``owner`` alone, if given) at each of its other values, and with every such option
    away from its default at once."""
    defaults = dict(Ruleset.build(ids).options)
    implemented = fast_options()
    names = [name for name in implemented if name in defaults
             and (owner is None or name.startswith(owner + "."))]
    out: list[tuple[tuple[str, ...], dict[str, object]]] = [(ids, {})]
    for name in names:
        out += [(ids, {name: value}) for value in implemented[name]
                if value != defaults[name]]
    away = {name: next(v for v in implemented[name] if v != defaults[name])
            for name in names}
    if len(away) > 1:
        out.append((ids, away))
    return out


def covered_rulesets() -> tuple[tuple[tuple[str, ...], dict[str, object]], ...]:
    """What :func:`run_differential` plays by default, as (plugin ids, options) pairs:
    every covered plugin combination (:func:`covered_plugin_sets`) at its option
    defaults; base and every other plugin that registers options, with base, with each
    of its options at each of its other values and all of them changed at once; and the
    largest combination with every covered option changed at once."""
    sets = covered_plugin_sets()
    out: list[tuple[tuple[str, ...], dict[str, object]]] = [(ids, {}) for ids in sets]
    for ids in sets:
        if len(ids) <= 2:
            out += [pair for pair in _option_rulesets(ids, ids[-1])[1:] if pair not in out]
    largest = max((ids for ids in sets if all(fast_plugins()[pid][1] for pid in ids)),
                  key=len)
    if len(largest) > 2:
        out += [pair for pair in _option_rulesets(largest)[-1:] if pair not in out]
    return tuple(out)


def run_differential(
    players: int | Iterable[int] = (2, 3, 4, 5),
    games: int = 4,
    seed: int = 0,
    *,
    options: Iterable[Mapping[str, object]] | None = None,
    rulesets: Iterable[tuple[Iterable[str], Mapping[str, object]]] | None = None,
    logs: bool = True,
    chance: str = EVENT,
) -> DifferentialConformance:
    """The differential mode of the kit: play ``games`` games of each covered ruleset at
    each player count on the fast simulator (:class:`~tokaido_rules.fast.FastGame`) and
    on the reference engine side by side (:func:`~tokaido_rules.fast.differential`),
    and raise :class:`ConformanceError` at the first game in which they differ.

    At every decision the seat to play, the legal actions (the same tuple, in the same
    order) and the count of events must be equal; at the end the scores and, with
    ``logs``, the log of the fast game's reference replay and the reference log, byte
    for byte. ``rulesets``: (plugin ids, options) pairs to play, by default every covered
    combination (:func:`covered_rulesets`); ``options`` instead plays base alone with
    each of these option values. A ruleset the simulator does not cover raises
    :class:`ConformanceError`. Game ``n`` of a ruleset and player count has seed
    ``s = seed + n``, is chosen by the policy ``s % 3`` of
    :func:`~tokaido_rules.fast.differential` (``random``, ``eager``, ``seek``) and, for
    an odd ``s``, has its travellers given instead of offered. The cost is that of the
    reference games: a few milliseconds a decision. ``chance``: how the games key chance,
    ``"event"`` or ``"purpose"`` (the duplicate format's, :class:`~tokaido_rules.Setup`'s
    ``keying``); another value is a :class:`~tokaido_rules.SetupError`."""
    setup = Setup(keying=chance)
    counts = (players,) if isinstance(players, int) else tuple(players)
    pairs: list[tuple[tuple[str, ...], dict[str, object]]]
    if options is not None:
        pairs = [(("base",), dict(values)) for values in options]
    else:
        pairs = [(tuple(ids), dict(values))
                 for ids, values in (covered_rulesets() if rulesets is None else rulesets)]
    played: list[FrozenMap[str, object]] = []
    played_ids: list[tuple[str, ...]] = []
    total = decisions = 0
    for ids, values in pairs:
        ruleset = Ruleset.build(ids, values)
        why = why_not_covered(ruleset)
        if why is not None:
            raise ConformanceError(f"the fast simulator does not cover {list(ids)} with "
                                   f"options {values}: {why}")
        played.append(FrozenMap(values))
        played_ids.append(ruleset.ids)
        for n in range(games):
            report = differential(counts, (seed + n,), plugins=ruleset,
                                  travellers=(seed + n) % 2 == 1,
                                  policy=_POLICIES[(seed + n) % len(_POLICIES)], logs=logs,
                                  setup=setup, stop_after=1)
            total += report.games
            decisions += report.decisions
            if not report.ok:
                raise ConformanceError(f"the fast simulator differs from the reference "
                                       f"engine ({list(ruleset.ids)}, options {values}, "
                                       f"policy {_POLICIES[(seed + n) % len(_POLICIES)]}"
                                       f"{'' if chance == EVENT else ', chance by ' + chance}): "
                                       f"{report.differences[0]}")
    return DifferentialConformance(tuple(played_ids), tuple(played), counts, total, decisions)


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
