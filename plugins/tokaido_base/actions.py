"""The base game's decisions and its own event type."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar

from attrs import frozen

from tokaido_rules import Action, Event, GameState


@frozen
class TravellersOffered(Event):
    """A seat is dealt two traveller tiles to choose from (a chance outcome)."""

    TYPE: ClassVar[str] = "base.travellers_offered"
    seat: int
    travellers: tuple[str, ...]

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        """Only the seat dealt the tiles sees them."""
        return ("seat", "travellers") if seat == self.seat else ("seat",)

    def apply(self, state: GameState) -> GameState:
        return state.with_data(f"base.offer.{self.seat}", self.travellers)

    def chance_kind(self) -> str | None:
        return f"travellers.{self.seat}"

    def chance_outcome(self) -> Any:
        return self.travellers


@frozen
class ChooseTraveller(Action):
    """Keep one of the two offered traveller tiles."""

    TYPE: ClassVar[str] = "base.choose_traveller"
    PUBLIC: ClassVar[bool] = True
    traveller: str

    def __str__(self) -> str:
        return f"seat {self.seat}: choose {self.traveller}"


@frozen
class BuySouvenirs(Action):
    """Buy some (possibly none) of the souvenirs revealed at a village.

    ``discount`` names the card Zen-emon pays 1 coin for (``None`` otherwise).
    """

    TYPE: ClassVar[str] = "base.buy_souvenirs"
    PUBLIC: ClassVar[bool] = True
    piece: int
    cards: tuple[str, ...]
    discount: str | None = None

    def key(self, state: GameState) -> tuple[Any, ...]:
        """The cards as positions among the revealed souvenirs (whatever they are)."""
        offer = state.zone("base.village")
        indices = tuple(offer.index(c) for c in self.cards)
        discount = None if self.discount is None else offer.index(self.discount)
        return (self.TYPE, "self", indices, discount)

    def __str__(self) -> str:
        if not self.cards:
            return f"seat {self.seat}: buy no souvenir"
        extra = f" (1 coin for {self.discount})" if self.discount else ""
        return f"seat {self.seat}: buy {', '.join(self.cards)}{extra}"


def _drop_bank_coin(data: dict[str, Any]) -> dict[str, Any]:
    """Upcaster to version 2: Hirotada's bank coin became its own decision."""
    if data.get("bank_coin"):
        raise ValueError("a v1 donation with Hirotada's bank coin has no v2 equivalent")
    return {k: v for k, v in data.items() if k != "bank_coin"}


@frozen
class Donate(Action):
    """Donate 1 to 3 coins at a temple.

    Version 2 dropped ``bank_coin``: Hirotada's bank coin is now :class:`AddBankCoin`.
    """

    TYPE: ClassVar[str] = "base.donate"
    VERSION: ClassVar[int] = 2
    UPCASTERS: ClassVar[dict[int, Any]] = {1: _drop_bank_coin}
    PUBLIC: ClassVar[bool] = True
    piece: int
    amount: int

    def __str__(self) -> str:
        return f"seat {self.seat}: donate {self.amount}"


@frozen
class AddBankCoin(Action):
    """Hirotada adds (or not) one coin from the bank to his donation at a temple stop."""

    TYPE: ClassVar[str] = "base.add_bank_coin"
    PUBLIC: ClassVar[bool] = True
    piece: int
    add: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'add' if self.add else 'do not add'} a coin from the bank"


@frozen
class KeepEncounter(Action):
    """Yoshiyasu keeps one of the two encounter cards he drew."""

    TYPE: ClassVar[str] = "base.keep_encounter"
    PUBLIC: ClassVar[bool] = True
    piece: int
    card: str

    def __str__(self) -> str:
        return f"seat {self.seat}: keep encounter {self.card}"


@frozen
class ChoosePanorama(Action):
    """Take the next section of a panorama of one's choice (Annaibito, Hiroshige), or
    none (``panorama`` is ``None``, with ``base.panorama_choice_optional``)."""

    TYPE: ClassVar[str] = "base.choose_panorama"
    PUBLIC: ClassVar[bool] = True
    piece: int
    panorama: str | None

    def __str__(self) -> str:
        if self.panorama is None:
            return f"seat {self.seat}: take no panorama section"
        return f"seat {self.seat}: take the next {self.panorama} section"


@frozen
class SatsukiMeal(Action):
    """Satsuki keeps the meal she drew for free, or returns it under the deck."""

    TYPE: ClassVar[str] = "base.satsuki_meal"
    PUBLIC: ClassVar[bool] = True
    piece: int
    keep: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'keep' if self.keep else 'return'} the free meal"


@frozen
class BuyMeal(Action):
    """Buy one meal of the inn's hand, or none (``meal`` is ``None``)."""

    TYPE: ClassVar[str] = "base.buy_meal"
    PUBLIC: ClassVar[bool] = True
    piece: int
    meal: str | None

    def __str__(self) -> str:
        return f"seat {self.seat}: " + (f"buy {self.meal}" if self.meal else "buy no meal")
