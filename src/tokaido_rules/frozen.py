"""An immutable, hashable mapping for use inside frozen state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

K = TypeVar("K")
V = TypeVar("V")


_store = dict.__setitem__
_update = dict.update
_pop = dict.pop


class FrozenMap(dict[K, V]):
    """A ``dict`` that refuses every mutation; "changes" return a new map.

    It subclasses ``dict`` so that lookups run at native speed and it serializes as a
    plain JSON object.
    """

    __slots__ = ("_hash",)

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refused: a FrozenMap never changes (use :meth:`set`, :meth:`merge` or
        :meth:`without` for a changed copy)."""
        raise TypeError("FrozenMap is immutable; use .set() or .without()")

    __setitem__ = _refuse
    __delitem__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse
    __ior__ = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash  # type: ignore[attr-defined,no-any-return]
        except AttributeError:
            h = hash(frozenset(self.items()))
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        return f"FrozenMap({dict.__repr__(self)})"

    def set(self, key: K, value: V) -> FrozenMap[K, V]:
        """Return a copy with ``key`` bound to ``value``."""
        new = FrozenMap(self)
        _store(new, key, value)  # the copy is not shared yet
        return new

    def merge(self, items: Mapping[K, V] | Iterable[tuple[K, V]]) -> FrozenMap[K, V]:
        """Return a copy with every pair of ``items`` added or replaced."""
        new = FrozenMap(self)
        _update(new, items)
        return new

    def without(self, key: K) -> FrozenMap[K, V]:
        """Return a copy without ``key`` (no error if absent)."""
        if key not in self:
            return self
        new = FrozenMap(self)
        _pop(new, key)
        return new

    def __reduce__(self) -> Any:
        return (FrozenMap, (dict(self),))


EMPTY: FrozenMap[Any, Any] = FrozenMap()


def freeze(items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> FrozenMap[Any, Any]:
    """Convert a mapping to a :class:`FrozenMap` (the attrs converter of state fields);
    the values of a mapping that was not frozen yet are frozen too (:func:`freeze_value`)."""
    if isinstance(items, FrozenMap):
        return items
    pairs = items.items() if isinstance(items, Mapping) else items
    return FrozenMap({k: freeze_value(v) for k, v in pairs})


_PLAIN = (str, int, bool, type(None))


def freeze_value(value: Any) -> Any:
    r"""A value fit for the state: immutable all the way down, and what a log can hold.

    Lists and tuples become tuples, mappings with string keys :class:`FrozenMap`\ s, sets
    frozensets (of frozen values); strings, integers, booleans and ``None`` stay. Anything
    else (a float, an arbitrary object) raises :class:`TypeError`: it would not survive
    the log's JSON, or could be changed behind the state's back.
    """
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple or kind is list:
        frozen = tuple(freeze_value(v) for v in value)
        return value if kind is tuple and all(
            a is b for a, b in zip(frozen, value, strict=True)) else frozen
    if isinstance(value, Mapping):
        if not all(type(k) is str for k in value):
            raise TypeError(f"a mapping in the state needs string keys, got {value!r}")
        if isinstance(value, FrozenMap) and all(
                freeze_value(v) is v for v in value.values()):
            return value
        return FrozenMap({k: freeze_value(v) for k, v in value.items()})
    if kind is set or kind is frozenset:
        return frozenset(freeze_value(v) for v in value)
    raise TypeError(f"{kind.__name__} value {value!r} cannot enter the state (use int, str, "
                    "bool, None, tuples and mappings of them)")
