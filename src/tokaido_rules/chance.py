"""The project's own pseudo-random generator.

Its output is specified here, not by Python's ``random`` module, so that a seed gives the
same game on every Python version. It is counter based: the value of draw ``i`` made while
producing event number ``seq`` depends only on ``(seed, seq, i)``. The game state therefore
needs no generator state beyond its seed and its event count, both of which the fold of the
events reproduces.

That is *event keying*, the default. A game may instead use *purpose keying*
(:data:`PURPOSE`, recorded in its log header): a draw's stream then comes from the seed,
the draw's *purpose* (its chance kind, e.g. ``"shuffle.<deck>"`` or a seat's die) and
how many draws of that purpose came before (:func:`purpose_stream`), not from the event
count, so that games of the same seed whose decisions differ still get the same chance
outcomes for the same purposes (the duplicate format). The per-purpose counts are then
part of the state, reproduced by the fold of the events.

The specification is the arbitrary-precision arithmetic of the ``_big_*`` functions.
On PyPy, where a product above 63 bits is a slow big integer, the ``_word_*`` functions
compute the same numbers in wrapping machine words (``__pypy__.intop``); elsewhere the
big-integer route is the faster one. Tests check that both give the same numbers.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
"""The finaliser's multipliers, written out as literals in the big-integer functions:
a constant is cheaper than a global on CPython."""


def new_seed() -> int:
    """A game seed nobody can guess: 64 bits from :mod:`secrets`.

    The seed determines every shuffle and draw of a game (the generator is counter
    based), so whoever finds it knows every deck: a 32-bit seed was found from one
    seat's view in minutes. Log headers take any seed from 0 to 2**64 - 1."""
    return secrets.randbits(64)


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game of seed ``seed``, derived one way
    (BLAKE2b): what a bot's choices show of its own seed tells nothing of the game's,
    whose seed would tell every deck."""
    digest = hashlib.blake2b(f"{seed}:{seat}".encode(), digest_size=8,
                             person=b"tokaido-play-bot").digest()
    return int.from_bytes(digest, "big")


EVENT = "event"
"""Chance keyed by the event count (the default; a log header without ``chance``)."""
PURPOSE = "purpose"
"""Chance keyed by purpose: the k-th draw of a purpose is the same whatever came before."""
KEYINGS = (EVENT, PURPOSE)
"""The ways chance can be keyed, as a log header's ``chance`` field names them."""

_PURPOSE_CODES: dict[str, int] = {}


def purpose_code(purpose: str) -> int:
    """A purpose's number, below ``2**62`` (BLAKE2b of its text, so the same on every
    Python and platform; cached, as the purposes of a ruleset are few)."""
    code = _PURPOSE_CODES.get(purpose)
    if code is None:
        digest = hashlib.blake2b(purpose.encode(), digest_size=8,
                                 person=b"tokaido-purpose").digest()
        code = int.from_bytes(digest, "big") >> 2
        if len(_PURPOSE_CODES) < 4096:
            _PURPOSE_CODES[purpose] = code
    return code


def purpose_stream(seed: int, purpose: str, count: int) -> int:
    """The stream of draw occurrence ``count`` (from 0) of ``purpose`` under ``seed``:
    :func:`event_stream` twice, first keyed by the purpose's code, then by the count;
    its draws are :func:`draw_below` and :func:`shuffle` as for an event's stream."""
    return event_stream(event_stream(seed, purpose_code(purpose)), count)


def random_below(seed: int, seq: int, draw: int, n: int) -> int:
    """Return a number in ``range(n)`` for draw ``draw`` of event ``seq`` under ``seed``.

    The 64-bit hash is mapped to the range by multiply-and-shift; its bias is at most
    ``n / 2**64``.
    """
    return draw_below(event_stream(seed, seq), draw, n)


# --- the specification: arbitrary-precision integers --------------------------------


def _big_event_stream(seed: int, seq: int) -> int:
    """The hash shared by every draw of event ``seq`` (computed once for many draws)."""
    # the SplitMix64 finaliser (a bijection on 64-bit integers with good avalanche),
    # written out: this runs for every draw of every game
    z = (seed + _GOLDEN * (seq + 1)) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _big_draw_below(stream: int, draw: int, n: int) -> int:
    """Draw ``draw`` of an :func:`event_stream`, as a number in ``range(n)``."""
    if n <= 0:
        raise ValueError("random_below needs n >= 1")
    z = (stream + _GOLDEN * (draw + 1)) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return ((z ^ (z >> 31)) * n) >> 64


def _big_shuffle(items: list[T], stream: int, draw: int = 0) -> int:
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


# --- the same numbers in signed 64-bit machine words ----------------------------------

_WRAP = 1 << 64
_TOP = (1 << 63) - 1
_SMALL = 1 << 31
"""Below this, ``n`` times half a word fits a machine word."""
_LOW = (1 << 32) - 1


def _signed(x: int) -> int:
    """``x`` modulo ``2**64``, as a signed 64-bit word."""
    x &= _MASK
    return x - _WRAP if x > _TOP else x


def _wrapping_add(a: int, b: int) -> int:
    """``a + b`` wrapped to a signed 64-bit word, as ``__pypy__.intop.int_add`` does."""
    return _signed(a + b)


def _wrapping_mul(a: int, b: int) -> int:
    """``a * b`` wrapped to a signed 64-bit word, as ``__pypy__.intop.int_mul`` does."""
    return _signed(a * b)


def _unsigned_rshift(a: int, b: int) -> int:
    """``a`` read as an unsigned 64-bit word, shifted right by ``b`` (``uint_rshift``)."""
    return (a & _MASK) >> b


_add: Callable[[int, int], int] = _wrapping_add
_mul: Callable[[int, int], int] = _wrapping_mul
_ushr: Callable[[int, int], int] = _unsigned_rshift
try:  # PyPy's machine-word operations, which its JIT compiles to single instructions
    from __pypy__ import intop  # type: ignore[import-not-found]

    _add, _mul, _ushr = intop.int_add, intop.int_mul, intop.uint_rshift
    _MACHINE_WORDS = True
except ImportError:  # elsewhere the model above stands in, so tests can run the route
    _MACHINE_WORDS = False

_S_GOLDEN = _GOLDEN - _WRAP
_S_MIX1 = _MIX1 - _WRAP
_S_MIX2 = _MIX2 - _WRAP


def _word_hash(z: int) -> int:
    """The SplitMix64 finaliser of the signed word ``z``, as a signed word."""
    z = _mul(z ^ _ushr(z, 30), _S_MIX1)
    z = _mul(z ^ _ushr(z, 27), _S_MIX2)
    return z ^ _ushr(z, 31)


def _word_event_stream(seed: int, seq: int) -> int:
    """The hash shared by every draw of event ``seq``: :func:`_big_event_stream`
    in machine words."""
    start = seed if 0 <= seed <= _TOP else _signed(seed)
    z = _word_hash(_add(start, _mul(_S_GOLDEN, seq + 1)))
    return z if z >= 0 else z + _WRAP


def _word_below(z: int, n: int) -> int:
    """The high word of ``z * n``, ``z`` a signed word read as unsigned."""
    if n < _SMALL:
        # z = hi * 2**32 + lo, so (z * n) >> 64 is (hi * n + (lo * n >> 32)) >> 32,
        # every product within a word; a negative z stands for z + 2**64.
        high = ((z >> 32) * n + (((z & _LOW) * n) >> 32)) >> 32
        return high + n if z < 0 else high
    return ((z & _MASK) * n) >> 64


def _word_draw_below(stream: int, draw: int, n: int) -> int:
    """Draw ``draw`` of an :func:`event_stream`, as a number in ``range(n)``:
    :func:`_big_draw_below` in machine words."""
    if n <= 0:
        raise ValueError("random_below needs n >= 1")
    start = stream if 0 <= stream <= _TOP else _signed(stream)
    return _word_below(_word_hash(_add(start, _mul(_S_GOLDEN, draw + 1))), n)


def _word_shuffle(items: list[T], stream: int, draw: int = 0) -> int:
    """Shuffle ``items`` in place and return the next draw number:
    :func:`_big_shuffle` in machine words."""
    start = stream if 0 <= stream <= _TOP else _signed(stream)
    for i in range(len(items) - 1, 0, -1):
        j = _word_below(_word_hash(_add(start, _mul(_S_GOLDEN, draw + 1))), i + 1)
        items[i], items[j] = items[j], items[i]
        draw += 1
    return draw


if _MACHINE_WORDS:
    event_stream = _word_event_stream
    draw_below = _word_draw_below
    shuffle = _word_shuffle
else:
    event_stream = _big_event_stream
    draw_below = _big_draw_below
    shuffle = _big_shuffle
