"""Crossroads decisions and events."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar

from attrs import frozen

from tokaido_rules import Action, Event, GameState, Move, field_names

OPTION_LABELS = {
    "base.village": "the village", "base.farm": "the farm", "base.panorama": "the panorama",
    "base.hot_spring": "the hot spring", "base.temple": "a donation",
    "base.encounter": "an encounter", "crossroads.cherry_tree": "a cherry tree",
    "crossroads.bath_house": "a bath house", "crossroads.gaming_room": "the gaming room",
    "crossroads.amulet": "an amulet", "crossroads.legendary": "a legendary object",
    "crossroads.calligraphy": "a calligraphy",
}


def die_purpose(piece: int) -> str:
    """The purpose of a traveller's Fortune die rolls (:meth:`DieRolled.chance_purpose`)."""
    return f"die.crossroads.fortune.{piece}"


@frozen
class DieRolled(Event):
    """The Fortune die was rolled for a traveller (X counts 0)."""

    TYPE: ClassVar[str] = "crossroads.die_rolled"
    PUBLIC: ClassVar[bool] = True
    piece: int
    face: int

    def apply(self, state: GameState) -> GameState:
        return state

    def chance_kind(self) -> str | None:
        return "die.crossroads.fortune"

    def chance_purpose(self) -> str | None:
        """Each traveller's rolls are a sequence of their own (under purpose keying, a
        seat's n-th roll is the same whoever plays it)."""
        return die_purpose(self.piece)

    def chance_outcome(self) -> Any:
        return self.face


@frozen
class TakeOption(Action):
    """Take one option of a stop: the base action or the Crossroads one (``option`` is
    its step kind; ``None`` skips a second option). ``health``: use the Health amulet to
    take both, this one first."""

    TYPE: ClassVar[str] = "crossroads.take_option"
    PUBLIC: ClassVar[bool] = True
    piece: int
    option: str | None
    health: bool = False

    def __str__(self) -> str:
        if self.option is None:
            return f"seat {self.seat}: take no second option"
        label = OPTION_LABELS.get(self.option, self.option)
        return f"seat {self.seat}: take {label}" + (" (Health: both)" if self.health else "")


@frozen
class TakeAmulet(Action):
    """Buy an amulet of one's choice (1 coin); which one stays secret. ``None``: buy
    nothing (``crossroads.optional_purchase``)."""

    TYPE: ClassVar[str] = "crossroads.take_amulet"
    piece: int
    amulet: str | None

    def visible_fields(self, state: GameState, seat: int) -> Collection[str]:
        owner = state.pieces[self.piece].seat
        return field_names(TakeAmulet) if seat == owner else ("seat", "piece")

    def __str__(self) -> str:
        if self.amulet is None:
            return f"seat {self.seat}: take no amulet"
        return f"seat {self.seat}: take the {self.amulet} amulet"


@frozen
class BuyLegendary(Action):
    """Buy one legendary object at its price (``None``: nothing, with
    ``crossroads.optional_purchase``)."""

    TYPE: ClassVar[str] = "crossroads.buy_legendary"
    PUBLIC: ClassVar[bool] = True
    piece: int
    card: str | None

    def __str__(self) -> str:
        if self.card is None:
            return f"seat {self.seat}: buy no legendary object"
        return f"seat {self.seat}: buy {self.card}"


@frozen
class TakeCalligraphy(Action):
    """Buy one calligraphy card for 1 coin (``None``: nothing, with
    ``crossroads.optional_purchase``)."""

    TYPE: ClassVar[str] = "crossroads.take_calligraphy"
    PUBLIC: ClassVar[bool] = True
    piece: int
    card: str | None

    def __str__(self) -> str:
        if self.card is None:
            return f"seat {self.seat}: take no calligraphy"
        return f"seat {self.seat}: take the {self.card} calligraphy"


@frozen
class Gamble(Action):
    """Jirocho at an intermediate inn: stake 1 coin on the Fortune die, or not."""

    TYPE: ClassVar[str] = "crossroads.gamble"
    PUBLIC: ClassVar[bool] = True
    piece: int
    stake: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'stake 1 coin on' if self.stake else 'do not roll'} the die"


@frozen
class UseVitality(Action):
    """After taking the lead, use Vitality to move again at once, or not."""

    TYPE: ClassVar[str] = "crossroads.use_vitality"
    PUBLIC: ClassVar[bool] = True
    piece: int
    use: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'use Vitality and move again' if self.use else 'stay'}"


@frozen
class UseFortune(Action):
    """Use Fortune: roll the die and gain its face in coins. The decision stays open."""

    TYPE: ClassVar[str] = "crossroads.use_fortune"
    PUBLIC: ClassVar[bool] = True
    CONSUMES_STEP: ClassVar[bool] = False
    piece: int

    def __str__(self) -> str:
        return f"seat {self.seat}: use Fortune (roll for coins)"


@frozen
class UseDevotion(Action):
    """Use Devotion: coins paid for cards at this stop go onto the temple donation."""

    TYPE: ClassVar[str] = "crossroads.use_devotion"
    PUBLIC: ClassVar[bool] = True
    CONSUMES_STEP: ClassVar[bool] = False
    piece: int

    def __str__(self) -> str:
        return f"seat {self.seat}: use Devotion (purchases here become donations)"


@frozen
class FriendshipMove(Move):
    """Use Friendship to stop on a single space another traveller occupies (off-road)."""

    TYPE: ClassVar[str] = "crossroads.friendship_move"

    def __str__(self) -> str:
        return f"seat {self.seat}: use Friendship to join the traveller at {self.position}"


@frozen
class HospitalityMeal(Action):
    """Use Hospitality to take a meal of the inn's hand for free."""

    TYPE: ClassVar[str] = "crossroads.hospitality_meal"
    PUBLIC: ClassVar[bool] = True
    piece: int
    meal: str

    def __str__(self) -> str:
        return f"seat {self.seat}: use Hospitality for a free {self.meal}"
