"""Who may see what: the visibility of zones and game data, per seat (RULES.md 7).

Zones and data keys declare their visibility when registered; anything undeclared is
hidden (fail closed). Events declare which of their fields a seat may see
(:meth:`~tokaido_rules.events.Event.visible_fields`), using these functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from .model import GameState

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
    registry = state.rules.registry
    rules: dict[str, Resolved] = registry.__dict__.setdefault("_zone_rules", {})
    resolved = rules.get(zone)
    if resolved is None:
        resolved = rules[zone] = _resolve(_zone_rule(registry.zones, zone), zone)
    return _check(resolved, state, seat, zone)


def _zone_rule(zones: dict[str, Visibility], zone: str) -> Visibility:
    """The rule of a zone: its own, else its family's (``name.<n>``), else hidden."""
    rule = zones.get(zone)
    if rule is None:
        family = _family(zone)
        rule = zones.get(family[0]) if family is not None else None
        if rule != "seat" and not callable(rule):
            rule = "hidden" if rule is None else rule
    return rule


def data_visible(state: GameState, seat: int, key: str) -> bool:
    """Whether ``seat`` may see a game data value (undeclared keys are hidden)."""
    registry = state.rules.registry
    rules: dict[str, Resolved] = registry.__dict__.setdefault("_data_rules", {})
    resolved = rules.get(key)
    if resolved is None:
        resolved = rules[key] = _resolve(_data_rule(registry.data_keys, key), key)
    return _check(resolved, state, seat, key)


def _data_rule(data_keys: dict[str, Visibility], key: str) -> Visibility:
    """The rule of the longest declared prefix of ``key``, else hidden."""
    best = ""
    for prefix in data_keys:
        if key.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    return data_keys[best] if best else "hidden"
