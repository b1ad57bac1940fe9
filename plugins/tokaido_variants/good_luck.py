"""Good Luck (rules reference, Crossroads variants): at the start, in departure order,
each player may pay 1 coin for a random amulet, usable from the first move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from attrs import frozen

from tokaido_base import departure_order
from tokaido_crossroads import AMULETS, gain_amulet
from tokaido_rules import (
    Action,
    Context,
    GameState,
    PluginInfo,
    Registry,
    Rules,
    Staged,
    Step,
    hookimpl,
)

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

SETUP_ORDER = 200
"""After the travellers are chosen (their starting coins are known)."""
PICK = f"pick.{AMULETS}"
"""The chance kind of the random amulet (scripted outcome: the amulet)."""


@frozen
class BuyLuck(Action):
    """Pay 1 coin for a random amulet, or not."""

    TYPE: ClassVar[str] = "good-luck.buy"
    PUBLIC: ClassVar[bool] = True
    piece: int
    buy: bool

    def __str__(self) -> str:
        return f"seat {self.seat}: {'buy' if self.buy else 'do not buy'} a random amulet"


def run_offer(ctx: Context, step: Step) -> None:
    ctx.schedule(*(Step("good-luck.buy", i, ctx.state.pieces[i].seat)
                   for i in departure_order(ctx.state)))


def legal_buy(state: GameState, step: Step) -> list[Action]:
    if state.pieces[step.piece].coins < 1 or not state.zone(AMULETS):
        return []
    seat = step.seat if step.seat is not None else -1
    return [BuyLuck(seat, step.piece, False), BuyLuck(seat, step.piece, True)]


def resolve_buy(ctx: Context, step: Step, action: BuyLuck) -> None:
    if action.buy:
        ctx.pay_for_cards(action.piece, 1, ())
        amulet = ctx.random_pick(PICK, ctx.state.zone(AMULETS))
        gain_amulet(ctx, action.piece, amulet, chance=PICK)


class GoodLuck:
    """Good Luck: a random amulet for 1 coin before the journey."""

    tokaido_plugin = PluginInfo(
        "good-luck", "1.0.0", requires=("crossroads",),
        description="Crossroads variant: each player may buy a random amulet at the start.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("good-luck.offer", run=run_offer,
                          doc="At setup: each player in departure order is offered a "
                              "random amulet (``good-luck.buy``).")
        registry.add_step("good-luck.buy",
                          words="buy a lucky amulet, or not",
                          legal=legal_buy, answers=(BuyLuck,),
                          doc="Pay 1 coin for a random amulet, or not (only with a coin, "
                              "while amulets are left).")
        registry.add_action(BuyLuck, resolve_buy)

    @hookimpl
    def tokaido_setup_steps(self, state: GameState) -> Sequence[Staged]:
        return [Staged(SETUP_ORDER, Step("good-luck.offer"))]

    @hookimpl
    def tokaido_action_space(self, rules: Rules) -> Sequence[tuple[object, ...]]:
        return [("good-luck.buy", "self", b) for b in (False, True)]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast_crossroads import GOOD_LUCK

        return GOOD_LUCK


plugin = GoodLuck()
