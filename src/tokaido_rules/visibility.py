"""Who may see what: the visibility of zones and game data, per seat (rules reference,
Hidden information).

Zones and data keys declare their visibility when registered; anything undeclared is
hidden (fail closed). Events declare which of their fields a seat may see
(:meth:`~tokaido_rules.events.Event.visible_fields`), using these functions. What every
seat may see (the public view, a spectator's) is the intersection over the seats: the
``*_to_all`` and ``public_*`` functions.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .frozen import EMPTY, FrozenMap
from .model import GameState

if TYPE_CHECKING:
    from .registry import Registry

T = TypeVar("T")

Visibility = Literal["public", "hidden", "seat"] | Callable[[GameState, int, str], bool]
"""Who sees a zone or data key: everyone, nobody, the seat (or piece) its name ends with,
or whoever a function ``(state, seat, name) -> bool`` says."""


def _family(name: str) -> tuple[str, int] | None:
    prefix, _, suffix = name.rpartition(".")
    return (prefix, int(suffix)) if suffix.isdigit() and prefix else None


Resolved = bool | int | Callable[[GameState, int, str], bool]
"""A rule applied to one name: seen by all or none, by the seat of piece ``n``, or ask."""


def _resolve(rule: Visibility, name: str) -> Resolved:
    if rule == "public":
        return True
    if rule == "hidden":
        return False
    if rule == "seat":
        family = _family(name)
        return False if family is None else family[1]
    assert callable(rule)
    return rule


def _check(resolved: Resolved, state: GameState, seat: int, name: str) -> bool:
    if resolved is True or resolved is False:
        return resolved
    if type(resolved) is int:
        return resolved < len(state.pieces) and state.pieces[resolved].seat == seat
    assert callable(resolved)
    return bool(resolved(state, seat, name))


def _seen_by(asked: tuple[tuple[str, Resolved], ...], state: GameState, seat: int
             ) -> list[bool]:
    """Whether ``seat`` sees each name of a split's names asked per seat (``asked``:
    their rules resolved), in order: :func:`_check` with a seat's own name written
    out, one call for all of them (a view asks this for every seat)."""
    pieces = state.pieces
    return [resolved < len(pieces) and pieces[resolved].seat == seat
            if type(resolved) is int else _check(resolved, state, seat, name)
            for name, resolved in asked]


def zone_visible(state: GameState, seat: int, zone: str) -> bool:
    """Whether ``seat`` may see the cards of ``zone`` (undeclared zones are hidden)."""
    return _check(_resolved(state.rules.registry, _ZONES, zone), state, seat, zone)


def visible_zones(state: GameState, seat: int) -> dict[str, tuple[str, ...]]:
    """Every zone ``seat`` may see, with its cards: :func:`zone_visible` over all zones
    in one pass (views are made at every decision)."""
    return _visible(state, seat, state.zones, _ZONES)


def split_zones(state: GameState, seat: int) -> tuple[dict[str, tuple[str, ...]],
                                                    dict[str, tuple[str, ...]]]:
    """The zones ``seat`` may see and those it may not, each with its cards, in one pass
    (a view shows the first and only the card backs of the second)."""
    return _split(state, seat, state.zones, _ZONES)


def data_visible(state: GameState, seat: int, key: str) -> bool:
    """Whether ``seat`` may see a game data value (undeclared keys are hidden)."""
    return _check(_resolved(state.rules.registry, _DATA, key), state, seat, key)


def visible_data(state: GameState, seat: int) -> dict[str, Any]:
    """Every game data value ``seat`` may see: :func:`data_visible` over all keys in
    one pass."""
    return _split(state, seat, state.data, _DATA)[0]


def zone_visible_to_all(state: GameState, zone: str) -> bool:
    """Whether every seat may see the cards of ``zone``: :func:`zone_visible` for each
    seat of the game (what a spectator sees)."""
    resolved = _resolved(state.rules.registry, _ZONES, zone)
    return all(_check(resolved, state, seat, zone) for seat in range(state.players))


def data_visible_to_all(state: GameState, key: str) -> bool:
    """Whether every seat may see a game data value: :func:`data_visible` for each
    seat of the game."""
    resolved = _resolved(state.rules.registry, _DATA, key)
    return all(_check(resolved, state, seat, key) for seat in range(state.players))


def split_public_zones(state: GameState) -> tuple[dict[str, tuple[str, ...]],
                                                  dict[str, tuple[str, ...]]]:
    """:func:`split_zones` for the public view: the zones every seat may see, and the
    others (those some seat, or none, may not see), each with its cards."""
    return _split_public(state, state.zones, _ZONES)


def public_data(state: GameState) -> dict[str, Any]:
    """The game data values every seat may see (:func:`data_visible_to_all` over all
    keys in one pass)."""
    return _split_public(state, state.data, _DATA)[0]


_ZONES = "zones"
_DATA = "data"
"""The two kinds of names with a visibility rule."""


class _Kept:
    """What this module remembers of one registry's names, to answer fast: the rules
    resolved so far, the :data:`Plan` s made so far, the last split made, per kind of
    names, and the card backs last counted of each hidden zone (:func:`hidden_backs`).
    It holds its registry weakly: a server has a registry per table, and a table gone
    takes its registry with it."""

    __slots__ = ("backs", "last", "plans", "ref", "registry", "rules", "shared")

    def __init__(self, registry: Registry | None) -> None:
        self.registry = registry
        """The registry while this is :data:`_last` (then ``None`` once in :data:`_KEPT`,
        which holds it by :attr:`ref` only)."""
        self.ref: Callable[[], Registry | None] = (
            (lambda: None) if registry is None else weakref.ref(registry))
        self.rules: dict[str, dict[str, Resolved]] = {_ZONES: {}, _DATA: {}}
        self.plans: dict[str, dict[tuple[str, ...], Plan]] = {_ZONES: {}, _DATA: {}}
        self.last: dict[str, Split] = {}
        self.backs: dict[str, tuple[tuple[str, ...], Any]] = {}
        self.shared: dict[str, tuple[Mapping[str, Any], Any]] = {}


_KEPT: dict[int, _Kept] = {}
"""By registry (its id; an entry holds its registry weakly, without a callback, and is
asked whether it is still that registry). Kept here, not on the registry, which every
view reaches: what is remembered as games are played (the names of their zones and
data, which seats asked, the last split's cards) would tell one table's bot what other
games have had. An entry whose registry is gone is dropped when :data:`_KEPT_MOST` is
reached; a registry made later at the same address is never answered from it."""

_KEPT_MOST = 4096
"""How many registries :data:`_KEPT` remembers at most: a server has one per table
(many more than one per kind of table), and tables are played in turns, so too few
would forget each table's plans before its next view."""


_last = _Kept(None)
"""The entry used last: nearly always the one asked for next. It holds its registry
(one, the last one asked for), which a weak reference alone would have to call for."""


def _kept(registry: Registry) -> _Kept:
    global _last
    kept = _last
    if kept.registry is registry:
        return kept
    key = id(registry)
    found = _KEPT.get(key)
    if found is None or found.ref() is not registry:
        if len(_KEPT) >= _KEPT_MOST:
            for gone in [k for k, v in _KEPT.items() if v.ref() is None]:
                del _KEPT[gone]
            if len(_KEPT) >= _KEPT_MOST:
                _KEPT.clear()
        found = _KEPT[key] = _Kept(registry)
    kept.registry = None  # held weakly from now on, in _KEPT
    found.registry = registry
    _last = found
    return found


def hidden_backs(registry: Registry, hidden: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """:meth:`Registry.zone_backs` of ``hidden`` (zones with their cards), counted again
    only for a zone whose cards are not the very tuple counted last for that zone name
    with this registry: a hidden deck keeps its cards, the same tuple, over many
    decisions, and counting the backs of a deck checks every card of it."""
    kept = _kept(registry).backs
    if len(kept) > 1024:  # zone names are few; bounded all the same
        kept.clear()
    backs = {}
    for name, cards in hidden.items():
        found = kept.get(name)
        if found is None or found[0] is not cards:
            found = kept[name] = (cards, registry.zone_backs({name: cards})[name])
        backs[name] = found[1]
    return backs


def _shared_or_split(registry: Registry, kind: str, values: Mapping[str, Any]
                     ) -> tuple[_Kept, Any, Split | None]:
    """For :func:`view_zones` and :func:`view_data`: the registry's entry, and either
    what its views share for these very ``values`` or (``None`` for that) their split."""
    kept = _kept(registry)
    found = kept.shared.get(kind)
    if found is not None and found[0] is values:
        return kept, found[1], None
    last = kept.last.get(kind)
    if last is None or last[0] is not values:
        last = kept.last[kind] = _split_anew(registry, kind, values, last)
    return kept, None, last


def view_zones(state: GameState, seat: int | None) -> tuple[
        FrozenMap[str, tuple[str, ...]], FrozenMap[str, FrozenMap[str, int]]]:
    """The zones a view of ``seat`` shows (``None``: the public view), with their cards,
    and the card backs of the others (:func:`hidden_backs`), as a view holds them.

    When no zone's rule is asked per seat (each zone is seen by every seat or by none),
    the split depends on no seat, and the public view's is the same: both maps are then
    made once per state's zones (by identity) and shared by every view of it, read
    only. Else they are made for this seat (the public view: what every seat sees)."""
    zones = state.zones
    registry = state.rules.registry
    kept, found, last = _shared_or_split(registry, _ZONES, zones)
    if last is None:
        return found  # type: ignore[no-any-return]
    if last[3]:  # a name asked per seat
        if seat is None:
            shown, hidden = _split_public(state, zones, _ZONES)
        else:
            shown, hidden = _split(state, seat, zones, _ZONES)
        return FrozenMap(shown), FrozenMap(hidden_backs(registry, hidden)) if hidden else EMPTY
    never = last[2]
    made = (FrozenMap(last[1]), FrozenMap(hidden_backs(registry, never)) if never else EMPTY)
    kept.shared[_ZONES] = (zones, made)
    return made


def view_data(state: GameState, seat: int | None) -> FrozenMap[str, Any]:
    """The game data a view of ``seat`` shows (``None``: the public view), as a view
    holds it: when no key's rule is asked per seat, made once per state's data (by
    identity) and shared by every view of it, read only, as :func:`view_zones`."""
    data = state.data
    registry = state.rules.registry
    kept, found, last = _shared_or_split(registry, _DATA, data)
    if last is None:
        return found  # type: ignore[no-any-return]
    if last[3]:
        if seat is None:
            return FrozenMap(_split_public(state, data, _DATA)[0])
        shown = FrozenMap(last[1])
        for (name, _), seen in zip(last[3], _seen_by(last[3], state, seat), strict=True):
            if seen:
                _store(shown, name, data[name])  # not shared yet
        return shown
    made = FrozenMap(last[1])
    kept.shared[_DATA] = (data, made)
    return made


_store = dict.__setitem__


def _rules(registry: Registry, kind: str) -> dict[str, Resolved]:
    """The rules resolved so far for one kind of names."""
    return _kept(registry).rules[kind]


def _resolved(registry: Registry, kind: str, name: str) -> Resolved:
    rules = _rules(registry, kind)
    resolved = rules.get(name)
    if resolved is None:
        rule = (_zone_rule(registry.zones, name) if kind == _ZONES
                else _data_rule(registry.data_keys, name))
        resolved = rules[name] = _resolve(rule, name)
    return resolved


def _visible(state: GameState, seat: int, items: Mapping[str, T], kind: str) -> dict[str, T]:
    return _split(state, seat, items, kind)[0]


Plan = tuple[tuple[str, ...], Callable[[Mapping[str, Any]], Any],
             tuple[str, ...], Callable[[Mapping[str, Any]], Any],
             tuple[tuple[str, Resolved], ...]]
"""For one tuple of names: the names every seat sees and what picks their values out of
a mapping, the same for the names no seat sees, and the names whose rule is asked for
each seat and state (a seat's own, or a plugin's function)."""

Split = tuple[Mapping[str, Any], dict[str, Any], dict[str, Any], tuple[tuple[str, Resolved], ...]]
"""A mapping of names (a state's zones or data, itself) split by its :data:`Plan`: what
every seat sees, what none sees, and the names still to ask. It holds for any seat and
as long as the mapping is the same object (mappings of a state never change)."""

_PLANS_KEPT = 4096


def _picker(names: tuple[str, ...]) -> Callable[[Mapping[str, Any]], Any]:
    """What takes the values of ``names`` (in order) out of a mapping, as a tuple."""
    if len(names) == 1:
        name = names[0]
        return lambda items: (items[name],)
    if not names:
        return lambda items: ()
    return itemgetter(*names)


def _plan(registry: Registry, kind: str, names: tuple[str, ...]) -> Plan:
    """The :data:`Plan` of ``names``, made from the declared rules alone (names are
    public) and kept (:data:`_KEPT`): views are made at every decision, and the names of
    a game's zones and data change only now and then."""
    plans = _kept(registry).plans[kind]
    plan = plans.get(names)
    if plan is None:
        always: list[str] = []
        never: list[str] = []
        ask: list[tuple[str, Resolved]] = []
        for name in names:
            resolved = _resolved(registry, kind, name)
            if resolved is True:
                always.append(name)
            elif resolved is False:
                never.append(name)
            else:
                ask.append((name, resolved))
        plan = (tuple(always), _picker(tuple(always)), tuple(never), _picker(tuple(never)),
                tuple(ask))
        if len(plans) >= _PLANS_KEPT:
            plans.clear()
        plans[names] = plan
    return plan


def _split(state: GameState, seat: int, items: Mapping[str, T],
           kind: str) -> tuple[dict[str, T], dict[str, T]]:
    """The items ``seat`` may see and those it may not."""
    if not items:
        return {}, {}
    registry = state.rules.registry
    kept = _kept(registry)
    last = kept.last.get(kind)
    if last is None or last[0] is not items:  # else the same mapping as last time
        last = kept.last[kind] = _split_anew(registry, kind, items, last)
    shown: dict[str, T] = last[1].copy()
    hidden: dict[str, T] = last[2].copy()
    for (name, _), seen in zip(last[3], _seen_by(last[3], state, seat), strict=True):
        if seen:
            shown[name] = items[name]
        else:
            hidden[name] = items[name]
    return shown, hidden


def _split_public(state: GameState, items: Mapping[str, T],
                  kind: str) -> tuple[dict[str, T], dict[str, T]]:
    """The items every seat may see and the others: :func:`_split` with the names whose
    rule is asked shown only if every seat sees them (a seat's own name never is, in a
    game of two seats or more)."""
    if not items:
        return {}, {}
    registry = state.rules.registry
    kept = _kept(registry)
    last = kept.last.get(kind)
    if last is None or last[0] is not items:
        last = kept.last[kind] = _split_anew(registry, kind, items, last)
    shown: dict[str, T] = last[1].copy()
    hidden: dict[str, T] = last[2].copy()
    seats = range(state.players)
    for name, resolved in last[3]:
        if all(_check(resolved, state, seat, name) for seat in seats):
            shown[name] = items[name]
        else:
            hidden[name] = items[name]
    return shown, hidden


def _split_anew(registry: Registry, kind: str, items: Mapping[str, Any],
                last: Split | None) -> Split:
    """The :data:`Split` of ``items``: made from ``last``, the split of the mapping before,
    when ``items`` has the same names in the same order (an event changes a value or two,
    seldom the names), else from the names' :data:`Plan`."""
    if last is not None and len(last[0]) == len(items):
        always, never = last[1], last[2]
        new_always = new_never = None
        for (name, value), (name_before, value_before) in zip(
                items.items(), last[0].items(), strict=True):
            if name is not name_before and name != name_before:
                break
            if value is value_before:
                continue
            if name in always:
                if new_always is None:
                    new_always = always.copy()
                new_always[name] = value
            elif name in never:
                if new_never is None:
                    new_never = never.copy()
                new_never[name] = value
            # else a name whose rule is asked at every split, which reads its value then
        else:
            return (items, always if new_always is None else new_always,
                    never if new_never is None else new_never, last[3])
    always_names, get_always, never_names, get_never, ask = _plan(registry, kind, tuple(items))
    return (items, dict(zip(always_names, get_always(items), strict=False)),
            dict(zip(never_names, get_never(items), strict=False)), ask)


def _zone_rule(zones: dict[str, Visibility], zone: str) -> Visibility:
    """The rule of a zone: its own, else its family's (``name.<n>``), else hidden."""
    rule = zones.get(zone)
    if rule is None:
        family = _family(zone)
        rule = zones.get(family[0]) if family is not None else None
        if rule != "seat" and not callable(rule):
            rule = "hidden" if rule is None else rule
    return rule


def _data_rule(data_keys: dict[str, Visibility], key: str) -> Visibility:
    """The rule of the longest declared prefix of ``key``, else hidden."""
    best = ""
    for prefix in data_keys:
        if key.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return data_keys[best] if best else "hidden"
