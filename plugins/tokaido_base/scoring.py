"""Counting helpers for the base game: souvenir sets, panoramas, achievements, temples."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from tokaido_rules import GameState

from .content import PANORAMAS

DONATION = "base.donation"
"""The counter of coins a traveller has donated at temples (for the temple ranking)."""

TEMPLE_RANK_POINTS = (10, 7, 4)
TEMPLE_OTHER_DONOR = 2


def set_total(family_counts: Iterable[int]) -> int:
    """Points of a souvenir collection from the number of cards of each family.

    Set ``k`` holds one card of every family owning at least ``k`` cards, and a set of
    ``m`` cards scores 1 + 3 + ... + (2m - 1) = m**2.
    """
    counts = [c for c in family_counts if c > 0]
    total = 0
    k = 1
    while True:
        m = sum(1 for c in counts if c >= k)
        if m == 0:
            return total
        total += m * m
        k += 1


def family_counts(state: GameState, piece: int) -> Counter[str]:
    """How many cards of each souvenir family a traveller owns."""
    return Counter(_family_counts(state, piece))


def _family_counts(state: GameState, piece: int) -> dict[str, int]:
    cards = state.rules.registry.cards
    counts: dict[str, int] = {}
    for card in state.collection(piece):
        family = cards[card].family
        if family is not None:
            counts[family] = counts.get(family, 0) + 1
    return counts


def souvenir_points(state: GameState, piece: int, new_family: str) -> int:
    """The points a new card of ``new_family`` scores for this traveller.

    With ``c`` cards of that family already, the card joins set ``c + 1``; if ``m``
    families hold more than ``c`` cards, that set grows from ``m`` to ``m + 1`` cards,
    worth ``(m + 1)**2 - m**2 = 2m + 1`` more points (see :func:`set_total`)."""
    counts = _family_counts(state, piece)
    held = counts.get(new_family, 0)
    return 2 * sum(1 for n in counts.values() if n > held) + 1


def panorama_sections(state: GameState, piece: int, kind: str) -> int:
    """How many sections of the ``kind`` panorama a traveller has."""
    sections = _SECTION_SETS.get(kind)
    if sections is not None:  # each section is one card: count them in one pass
        return len(sections.intersection(state.collection(piece)))
    prefix = kind + "."
    return sum(1 for c in state.collection(piece) if c.startswith(prefix))


def panorama_complete(state: GameState, piece: int, kind: str) -> bool:
    collection = state.collection(piece)
    sections = _SECTIONS_LAST_FIRST[kind]
    # the last section first: when one is missing, it is usually that one (and this runs
    # for every panorama space within reach of every move)
    if sections[0] not in collection:
        return False
    return all(section in collection for section in sections[1:])


_SECTIONS_LAST_FIRST = {
    kind: tuple(f"{kind}.{n}" for n in range(count, 0, -1)) for kind, count in PANORAMAS.items()
}
_SECTION_SETS = {kind: frozenset(sections) for kind, sections in _SECTIONS_LAST_FIRST.items()}


def open_panoramas(state: GameState, piece: int) -> list[str]:
    """The panorama types a traveller has not completed, in a fixed order."""
    return [k for k in PANORAMAS if not panorama_complete(state, piece, k)]


def tagged_count(state: GameState, piece: int, tag: str) -> int:
    cards = state.rules.registry.cards
    return sum(1 for c in state.collection(piece) if tag in cards[c].tags)


def tagged_price(state: GameState, piece: int, tag: str) -> int:
    cards = state.rules.registry.cards
    return sum(cards[c].price for c in state.collection(piece) if tag in cards[c].tags)


def meals_eaten(state: GameState, piece: int) -> set[str]:
    cards = state.rules.registry.cards
    return {c for c in state.collection(piece) if cards[c].kind == "meal"}


def achievement_count(state: GameState, piece: int) -> int:
    cards = state.rules.registry.cards
    return sum(1 for c in state.collection(piece) if cards[c].kind == "achievement")


def departure_order(state: GameState) -> list[int]:
    """The seated travellers in the order they leave the start inn (the last in the queue
    first); the neutral traveller is left out."""
    seated = [i for i, p in enumerate(state.pieces) if p.seat is not None]
    return sorted(seated, key=state.order_key)


def temple_ranking(donations: list[int]) -> list[int]:
    """Dense ranking points for each donation amount (0 for non-donors).

    The largest amount scores 10, the next distinct amount 7, the next 4, every other
    donor 2; equal amounts share a rank and no rank is skipped.
    """
    distinct = sorted({d for d in donations if d > 0}, reverse=True)
    points = {
        amount: TEMPLE_RANK_POINTS[i] if i < len(TEMPLE_RANK_POINTS) else TEMPLE_OTHER_DONOR
        for i, amount in enumerate(distinct)
    }
    return [points.get(d, 0) for d in donations]
