"""Initiation (rules reference, Base variants): no traveller tiles; everyone starts with 7 coins."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING

from tokaido_rules import (
    Context,
    PluginInfo,
    Registry,
    SetupError,
    Staged,
    Step,
    hookimpl,
)

if TYPE_CHECKING:
    from tokaido_rules.fast import FastRules

STARTING_COINS = 7


def run_start(ctx: Context, step: Step) -> None:
    if ctx.rules.setup.travellers is not None:
        raise SetupError("the initiation variant has no travellers; do not choose any")
    for i, p in enumerate(ctx.state.pieces):
        if p.seat is not None:
            ctx.coins(i, STARTING_COINS)


class Initiation:
    """Initiation: the game without travellers, for a first play."""

    tokaido_plugin = PluginInfo(
        "initiation", "1.0.0", requires=("base",),
        description="Base variant: no traveller tiles, every player starts with 7 coins.",
    )

    @hookimpl
    def tokaido_register(self, registry: Registry) -> None:
        registry.add_step("initiation.start", run=run_start,
                          doc="At setup, instead of the traveller tiles: every player "
                              "starts with 7 coins.")

    @hookimpl(wrapper=True)
    def tokaido_setup_steps(
        self, state: object
    ) -> Generator[None, list[Sequence[Staged]], list[Sequence[Staged]]]:
        """Replace the traveller offer by 7 coins each."""
        results = yield
        kept = [[s for s in group if s.step.kind != "base.offer_travellers"] for group in results]
        return [*kept, [Staged(100, Step("initiation.start"))]]

    @hookimpl
    def tokaido_fast_rules(self) -> FastRules | None:
        """The plugin's rules on the fast simulator (imported only when asked)."""
        from .fast import INITIATION

        return INITIATION


plugin = Initiation()
