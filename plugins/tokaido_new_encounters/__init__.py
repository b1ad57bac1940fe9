"""The New Encounters promo cards as a tokaido-rules plugin (entry point
``new-encounters``, requires ``base``): Itamae, Kitoushi, Saru and Takuhatsuso are
shuffled into the encounter deck (rules reference, New Encounters).

Each card always joins the collection and counts for Chatterbox, paid for or not. The
optional payments (1 coin) are not card prices: no Kinko discount, no Hospitality, no
Devotion. A paid effect that would give nothing is not offered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from attrs import frozen

from tokaido_base import (
    CHATTERBOX,
    ENCOUNTERS,
    HOT_SPRINGS,
    MEALS,
    PANORAMAS,
    drawn,
    meals_eaten,
    open_panoramas,
    take_panorama,
)
from tokaido_rules import (
    Action,
    Card,
    Context,
    GameState,
    PluginInfo,
    Registry,
    Rules,
    Step,
    hookimpl,
)

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

VERSION = "1.0.0"
ITAMAE, KITOUSHI, SARU, TAKUHATSUSO = "itamae", "kitoushi", "saru", "takuhatsuso"
TAKUHATSUSO_POINTS = 4


@frozen
class PayPromo(Action):
    """Pay 1 coin for a promo encounter's effect, or not (Itamae, Takuhatsuso)."""

    TYPE: ClassVar[str] = "new-encounters.pay"
    PUBLIC: ClassVar[bool] = True
    piece: int
    card: str
    pay: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'pay 1 coin for' if self.pay else 'decline'} {self.card}"


@frozen
class KitoushiPanorama(Action):
    """Kitoushi: pay 1 coin for the next section of a panorama (``None``: decline)."""

    TYPE: ClassVar[str] = "new-encounters.kitoushi"
    PUBLIC: ClassVar[bool] = True
    piece: int
    panorama: str | None

    def __str__(self) -> str:
        if self.panorama is None:
            return f"seat {self.seat}: decline Kitoushi"
        return f"seat {self.seat}: pay 1 coin for the next {self.panorama} section"


def _seat(step: Step) -> int:
    return step.seat if step.seat is not None else -1


def run_effect(ctx: Context, step: Step) -> None:
    """A promo card's effect: Saru at once, the others as a decision if it can be paid
    for and would give something."""
    card = str(step.data["card"])
    p = ctx.state.pieces[step.piece]
    if card == SARU:
        deck = ctx.state.zone(HOT_SPRINGS)
        if deck:
            points = ctx.registry.cards[deck[0]].points
            ctx.gain(step.piece, deck[0], HOT_SPRINGS, category="hot_springs", points=points)
        return
    if p.coins < 1:
        return
    gives = {
        ITAMAE: bool(ctx.state.zone(MEALS)),
        KITOUSHI: bool(open_panoramas(ctx.state, step.piece)),
        TAKUHATSUSO: True,
    }[card]
    if gives:
        ctx.schedule(Step(f"new-encounters.{card}_choice", step.piece, step.seat))


def legal_pay(card: str) -> Callable[[GameState, Step], list[Action]]:
    def legal(state: GameState, step: Step) -> list[Action]:
        return [PayPromo(_seat(step), step.piece, card, False),
                PayPromo(_seat(step), step.piece, card, True)]

    return legal


def resolve_pay(ctx: Context, step: Step, action: PayPromo) -> None:
    if not action.pay:
        return
    ctx.coins(action.piece, -1)
    if action.card == TAKUHATSUSO:
        ctx.score(action.piece, "encounters", TAKUHATSUSO_POINTS)
        return
    # Itamae: the top meal joins the collection if not eaten yet (not an inn meal).
    meal = ctx.state.zone(MEALS)[0]
    private = drawn(action.piece)
    ctx.move_cards(MEALS, private, (meal,), from_top=True)
    if meal in meals_eaten(ctx.state, action.piece):
        ctx.move_cards(private, MEALS, (meal,))
    else:
        points = ctx.registry.cards[meal].points
        ctx.gain(action.piece, meal, private, from_top=True, category="meals", points=points)


def legal_kitoushi(state: GameState, step: Step) -> list[Action]:
    seat = _seat(step)
    return [KitoushiPanorama(seat, step.piece, None), *(
        KitoushiPanorama(seat, step.piece, k) for k in open_panoramas(state, step.piece))]


def resolve_kitoushi(ctx: Context, step: Step, action: KitoushiPanorama) -> None:
    if action.panorama is not None:
        ctx.coins(action.piece, -1)
        take_panorama(ctx, action.piece, action.panorama)


class NewEncounters:
    """New Encounters: four promo encounter cards in the encounter deck."""

    tokaido_plugin = PluginInfo(
        "new-encounters", VERSION, requires=("base",),
        description="The four New Encounters promo cards, shuffled into the encounter deck.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        cards = (ITAMAE, KITOUSHI, SARU, TAKUHATSUSO)
        for name in cards:
            registry.add_card(Card(name, "encounter", name.title(), tags={CHATTERBOX},
                                   effect="new-encounters.effect"))
        registry.add_to_deck(ENCOUNTERS, cards)
        registry.add_step(
            "new-encounters.effect", run=run_effect,
            doc="A promo encounter's effect: Saru's hot spring card at once; Itamae, "
                "Kitoushi and Takuhatsuso ask for 1 coin, if it can be paid and would give "
                "something.")
        registry.add_step(
            "new-encounters.itamae_choice", words="pay 1 coin for the top meal, or not",
            legal=legal_pay(ITAMAE), answers=(PayPromo,),
            doc="Itamae: pay 1 coin for the top meal card (kept if not eaten yet), or not.")
        registry.add_step(
            "new-encounters.takuhatsuso_choice", words="pay 1 coin for 4 points, or not",
            legal=legal_pay(TAKUHATSUSO),
            answers=(PayPromo,), doc="Takuhatsuso: pay 1 coin for 4 points, or not.")
        registry.add_step(
            "new-encounters.kitoushi_choice", words="pay 1 coin for a panorama section, or not",
            legal=legal_kitoushi,
            answers=(KitoushiPanorama,),
            doc="Kitoushi: pay 1 coin for the next section of a panorama of the "
                "traveller's choice, or not.")
        registry.add_action(PayPromo, resolve_pay)
        registry.add_action(KitoushiPanorama, resolve_kitoushi)

    @hookimpl
    def tokaido_action_space(self, rules: Rules) -> Sequence[tuple[object, ...]]:
        keys: list[tuple[object, ...]] = [
            ("new-encounters.pay", "self", card, pay)
            for card in (ITAMAE, TAKUHATSUSO) for pay in (False, True)]
        keys += [("new-encounters.kitoushi", "self", k) for k in (None, *PANORAMAS)]
        return keys

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import RULES

        return RULES


plugin = NewEncounters()

__all__ = ["VERSION", "KitoushiPanorama", "NewEncounters", "PayPromo", "plugin"]
