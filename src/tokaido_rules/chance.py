"""The project's own pseudo-random generator.

Its output is specified here, not by Python's ``random`` module, so that a seed gives the
same game on every Python version. It is counter based: the value of draw ``i`` made while
producing event number ``seq`` depends only on ``(seed, seq, i)``. The game state therefore
needs no generator state beyond its seed and its event count, both of which the fold of the
events reproduces.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def random_below(seed: int, seq: int, draw: int, n: int) -> int:
    """Return a number in ``range(n)`` for draw ``draw`` of event ``seq`` under ``seed``.

    The 64-bit hash is mapped to the range by multiply-and-shift; its bias is at most
    ``n / 2**64``.
    """
    return draw_below(event_stream(seed, seq), draw, n)


def event_stream(seed: int, seq: int) -> int:
    """The hash shared by every draw of event ``seq`` (computed once for many draws)."""
    # the SplitMix64 finaliser (a bijection on 64-bit integers with good avalanche),
    # written out: this runs for every draw of every game
    z = (seed + _GOLDEN * (seq + 1)) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def draw_below(stream: int, draw: int, n: int) -> int:
    """Draw ``draw`` of an :func:`event_stream`, as a number in ``range(n)``."""
    if n <= 0:
        raise ValueError("random_below needs n >= 1")
    z = (stream + _GOLDEN * (draw + 1)) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return ((z ^ (z >> 31)) * n) >> 64


def shuffle(items: list[T], stream: int, draw: int = 0) -> int:
    """Shuffle ``items`` in place (Fisher-Yates, from the last item down), item ``i``
    swapped with the one at :func:`draw_below` ``(stream, draw, i + 1)``, draws counted
    up from ``draw``; return the next draw number. The same numbers as calling
    :func:`draw_below` each time, with the hash written out: shuffles run at every
    game's setup and at every decision of a bot that samples what it cannot see."""
    for i in range(len(items) - 1, 0, -1):
        z = (stream + _GOLDEN * (draw + 1)) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        items[i], items[j] = items[j], items[i]
        draw += 1
    return draw
