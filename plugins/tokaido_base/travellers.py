"""The ten base travellers' powers (rules reference, The ten base travellers), each in one place.

The rules code asks these functions at the moments a power can apply; nothing else in
the plugin tests a traveller's name.
"""

from __future__ import annotations

from collections.abc import Iterator

from tokaido_rules import GameState

HIROSHIGE = "hiroshige"
CHUUBEI = "chuubei"
KINKO = "kinko"
YOSHIYASU = "yoshiyasu"
SATSUKI = "satsuki"
MITSUKUNI = "mitsukuni"
SASAYAKKO = "sasayakko"
HIROTADA = "hirotada"
UMEGAE = "umegae"
ZENEMON = "zenemon"

POWER = "traveller_powers"
"""The score category of points a power adds on top of a card's own."""

INN_ARRIVAL_POWERS = {HIROSHIGE: "base.hiroshige", CHUUBEI: "base.chuubei"}
"""Powers used on arrival at each intermediate inn, before the meal: traveller -> step."""


def meal_price(state: GameState, piece: int, printed: int) -> int:
    """Kinko pays 1 coin less for every meal (1-coin meals are free)."""
    if state.pieces[piece].traveller == KINKO:
        return max(0, printed - 1)
    return printed


def souvenir_prices(
    state: GameState, piece: int, prices: tuple[int, ...], names: tuple[str, ...]
) -> Iterator[tuple[str | None, int, int]]:
    """The ways to pay for souvenirs: ``(discounted card, cost, coins needed to buy)``.

    Sasayakko: with 2 or more cards the cheapest is free, but she must be able to pay
    them all. Zen-emon: one card he names costs 1 (option ``base.zenemon_discount``:
    ``"choice"`` lets him name it, ``"most_expensive"`` always takes the dearest).
    """
    total = sum(prices)
    traveller = state.pieces[piece].traveller
    if traveller == SASAYAKKO and len(prices) >= 2:
        yield None, total - min(prices), total
    elif traveller == ZENEMON and prices:
        if state.rules.option("base.zenemon_discount") == "most_expensive":
            i = max(range(len(prices)), key=lambda k: (prices[k], -k))
            yield names[i], total - prices[i] + 1, total - prices[i] + 1
        else:
            for i, name in enumerate(names):
                if name not in names[:i]:
                    yield name, total - prices[i] + 1, total - prices[i] + 1
    else:
        yield None, total, total


STOP_POWERS = {
    HIROTADA: ("temple", 150, "base.hirotada"),
    UMEGAE: ("encounter", 50, "base.umegae"),
}
"""Powers used at a kind of road stop, whatever option the traveller takes there:
traveller -> (space kind, order, step). Hirotada may add a bank coin to his donation
(option ``base.hirotada_bank_coin``: ``"choice"`` he decides, ``"auto"`` always) after the
space's action; Umegae gains 1 point and 1 coin before the encounter card."""


def stop_power(state: GameState, piece: int, kind: str) -> tuple[int, str] | None:
    """The power a traveller uses at a road stop of ``kind``: ``(order, step)``, or
    ``None``. With ``base.hirotada_bank_coin = "auto"`` Hirotada has none: his coin
    follows each temple action instead (:func:`bank_coin_after_temple_action`)."""
    traveller = state.pieces[piece].traveller or ""
    power = STOP_POWERS.get(traveller)
    if power is None or power[0] != kind:
        return None
    if traveller == HIROTADA and state.rules.option("base.hirotada_bank_coin") == "auto":
        return None
    return power[1], power[2]


def bank_coin_after_temple_action(state: GameState, piece: int) -> bool:
    """Whether a temple action (a donation, or another plugin's temple option) earns a
    bank coin at once: Hirotada's, with ``base.hirotada_bank_coin = "auto"`` (so two
    coins where he takes two temple actions at one stop)."""
    return (state.pieces[piece].traveller == HIROTADA
            and state.rules.option("base.hirotada_bank_coin") == "auto")


def draws_two_encounters(state: GameState, piece: int) -> bool:
    """Yoshiyasu draws two encounters and keeps one."""
    return state.pieces[piece].traveller == YOSHIYASU


def draws_free_meal(state: GameState, piece: int) -> bool:
    """Satsuki draws a free meal at every meal inn before seeing the hand."""
    return state.pieces[piece].traveller == SATSUKI


def gain_bonus(state: GameState, piece: int, kind: str, tags: frozenset[str]) -> int:
    """Mitsukuni scores 1 more for each hot spring (anything counting for Bather) and
    each achievement card."""
    if state.pieces[piece].traveller != MITSUKUNI:
        return 0
    return 1 if kind == "achievement" or "bather" in tags else 0
