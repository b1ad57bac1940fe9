"""What a search knows of each option of one decision, in one shape for every user.

A searching bot (ISMCTS) ends a decision with figures for each legal action: how many
playouts went through it, their mean final margin and their share of wins, each with a
95% interval. The analysis of a game, the hints at a table and the replay viewer's marks
read the same figures, whoever computed them: any bot with an ``evaluate(view)`` method
(:class:`Evaluates`) can analyse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from attrs import frozen

if TYPE_CHECKING:
    from .events import Action
    from .views import View

__all__ = ["ActionEstimate", "Evaluates"]


@frozen
class ActionEstimate:
    """One legal action's figures, from the deciding seat's side.

    ``margin`` is the mean final margin (the seat's score minus the best other seat's, as
    :func:`~tokaido_rules.bots.outcome` counts it) over ``playouts``; ``win`` the share of
    playouts the seat won (a tie for first shares the win). The ``_low``/``_high`` pairs
    are 95% intervals."""

    action: Action
    playouts: int
    margin: float
    margin_low: float
    margin_high: float
    win: float
    win_low: float
    win_high: float


class Evaluates(Protocol):
    """A bot that can say what it thinks of every legal action of ``view``: one
    :class:`ActionEstimate` per action of ``view.legal_actions``, in their order."""

    def evaluate(self, view: View) -> tuple[ActionEstimate, ...]: ...
