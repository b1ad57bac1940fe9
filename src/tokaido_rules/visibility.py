"""Who may see what: the visibility of zones and game data, per seat (rules reference,
Hidden information).

Zones and data keys declare their visibility when registered; anything undeclared is
hidden (fail closed). Events declare which of their fields a seat may see
(:meth:`~tokaido_rules.events.Event.visible_fields`), using these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar

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
    registry = state.rules.registry
    rules = _rules(registry, _ZONES)
    shown: dict[str, tuple[str, ...]] = {}
    hidden: dict[str, tuple[str, ...]] = {}
    for name, cards in state.zones.items():
        resolved = rules.get(name)
        if resolved is None:
            resolved = _resolved(registry, _ZONES, name)
        if resolved is True or (resolved is not False and _check(resolved, state, seat, name)):
            shown[name] = cards
        else:
            hidden[name] = cards
    return shown, hidden


def data_visible(state: GameState, seat: int, key: str) -> bool:
    """Whether ``seat`` may see a game data value (undeclared keys are hidden)."""
    return _check(_resolved(state.rules.registry, _DATA, key), state, seat, key)


def visible_data(state: GameState, seat: int) -> dict[str, Any]:
    """Every game data value ``seat`` may see: :func:`data_visible` over all keys in
    one pass."""
    return _visible(state, seat, state.data, _DATA)


_ZONES = "_zone_rules"
_DATA = "_data_rules"
"""The two kinds of names with a visibility rule; each names the registry attribute
that remembers the rules resolved so far."""


def _rules(registry: Registry, kind: str) -> dict[str, Resolved]:
    """The rules resolved so far for one kind of names, kept on the registry."""
    rules: dict[str, Resolved] | None = registry.__dict__.get(kind)
    if rules is None:
        rules = registry.__dict__[kind] = {}
    return rules


def _resolved(registry: Registry, kind: str, name: str) -> Resolved:
    rules = _rules(registry, kind)
    resolved = rules.get(name)
    if resolved is None:
        rule = (_zone_rule(registry.zones, name) if kind == _ZONES
                else _data_rule(registry.data_keys, name))
        resolved = rules[name] = _resolve(rule, name)
    return resolved


def _visible(state: GameState, seat: int, items: Mapping[str, T], kind: str) -> dict[str, T]:
    registry = state.rules.registry
    rules = _rules(registry, kind)
    visible = {}
    for name, value in items.items():
        resolved = rules.get(name)
        if resolved is None:
            resolved = _resolved(registry, kind, name)
        if resolved is True or (resolved is not False and _check(resolved, state, seat, name)):
            visible[name] = value
    return visible


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
