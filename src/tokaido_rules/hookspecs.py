"""The hook specifications: how plugins give the game its content and rules.

Every hook is prefixed ``tokaido_`` and grouped by when it fires. Implement them with
:data:`tokaido_rules.hookimpl`. Implementations are called in the ruleset's canonical
plugin order (a plugin after every plugin it requires, then by id). A wrapper
(``wrapper=True``) receives the results of every plain implementation and may change
them; of several wrappers, the one earlier in the canonical order is the outermost. Hooks that fire
during play receive the :class:`~tokaido_rules.engine.Context` (to emit events) or the
read-only :class:`~tokaido_rules.model.GameState`.

Lifecycle::

    ruleset built:  tokaido_register -> tokaido_preset_options
    game created:   tokaido_neutral_travellers, tokaido_space_slots
    setup:          (decks shuffled, start queue drawn) -> tokaido_setup_steps
    each turn:      tokaido_decider, tokaido_forbidden_stops, tokaido_extra_actions
                    -> move -> tokaido_arrival_steps -> (steps run; cards gained fire
                    tokaido_card_gained; payments go through tokaido_pay)
    game end:       tokaido_end_steps -> tokaido_tiebreak
    learning:       tokaido_action_space (the numbered decisions of a ruleset)
    fast simulator: tokaido_fast_rules (the plugin's rules for tokaido_rules.fast)
    pictures:       tokaido_render_notes (what a plugin adds to a drawn game or view),
                    tokaido_render_glossary (its words for its cards and travellers)
    any time:       tokaido_invariants (checked by the conformance tests)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .engine import Context
    from .events import Action
    from .fast import FastRules
    from .model import GameState, Space, Staged, Step
    from .registry import Registry
    from .ruleset import Rules
    from .scene import Note, Scene

PROJECT = "tokaido_rules"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


# --- ruleset built ------------------------------------------------------------------


@hookspec
def tokaido_register(registry: Registry) -> None:
    """Add the plugin's content: board, cards, decks, travellers, steps, actions,
    events, options and score categories.

    Called once when a ruleset is built, in canonical plugin order. ``registry`` is bound
    to the calling plugin: every name it adds must start with the plugin id and a dot.
    """


@hookspec
def tokaido_preset_options(registry: Registry) -> Mapping[str, object] | None:
    """Return option values (``"plugin.option" -> value``) this plugin sets by default.

    Called once per plugin when a ruleset is built, after registration; ``registry``
    tells which options exist (``registry.options``), so a preset can set the options of
    a plugin only when that plugin is enabled. Used by preset plugins (e.g. the online
    rules) and by variants that are an option of another plugin. Options given
    explicitly to the game win over presets; two presets giving different values for one
    option are a :class:`~tokaido_rules.errors.PluginConflictError`.
    """


# --- game created -------------------------------------------------------------------


@hookspec(firstresult=True)
def tokaido_neutral_travellers(players: int) -> int | None:
    """Return how many neutral travellers (with no seat) join a game of ``players``.

    Called once per game. First non-``None`` result wins; none means 0.
    """


@hookspec(firstresult=True)
def tokaido_space_slots(players: int, space: Space) -> int | None:
    """Return how many travellers a road space holds with ``players`` seats.

    Called once per space when a game is created (inns always hold everyone).
    First non-``None`` result wins; none means 1.
    """


# --- setup --------------------------------------------------------------------------


@hookspec
def tokaido_setup_steps(state: GameState) -> Sequence[Staged]:
    """Return the steps that set the game up (traveller choice, starting adjustments).

    Called once, after the decks are shuffled and the start queue is drawn. All
    plugins' steps run in ``order`` (ties by plugin order).
    """


# --- each turn ----------------------------------------------------------------------


@hookspec(firstresult=True)
def tokaido_decider(state: GameState, piece: int) -> int | None:
    """Return the seat that decides for a piece that has no seat (a neutral traveller).

    Called whenever such a piece must move. First non-``None`` result wins.
    """


@hookspec
def tokaido_forbidden_stops(
    state: GameState, piece: int, positions: tuple[int, ...]
) -> Mapping[int, str] | None:
    """Return the positions among ``positions`` where ``piece`` may not stop, each with
    the reason (e.g. ``{12: "stopping at a temple needs at least 1 coin"}``).

    Called once per move decision with every destination that has a free slot. A stop
    any plugin forbids is not legal; the reason is the message of the
    :class:`~tokaido_rules.errors.IllegalActionError` raised if it is attempted anyway.
    """


@hookspec
def tokaido_extra_actions(state: GameState, step: Step) -> Sequence[Action]:
    """Return additional legal actions for the decision ``step`` (e.g. using an item).

    Called whenever the legal actions of a decision are computed; ``step.kind`` is
    ``"core.move"`` for a move. The action types must be registered with a resolver.
    """


@hookspec
def tokaido_ask_decision(state: GameState, step: Step) -> bool | None:
    """Return True to have the decision ``step`` asked even though it has one possible
    answer, which the engine would otherwise take on its own (a step registered with
    ``automatic``).

    Called only then: when the engine is about to take such a decision's single answer.
    Any plugin returning True keeps the decision open.

    A plugin whose :func:`tokaido_extra_actions` depend on something only the decider
    knows (a card held secretly) returns True wherever such actions could be offered, so
    that whether the decision is asked never tells the table that the card is held.
    It must depend only on what every seat can see (the shape of play is public).
    """


@hookspec
def tokaido_arrival_steps(state: GameState, piece: int) -> Sequence[Staged]:
    """Return the steps a traveller's stop triggers (the space's action, arrival powers,
    the meal at an inn, ...).

    Called right after a move. All contributions run in ``order``. A plugin may wrap
    this hook (``wrapper=True``) to replace or reorder what others contributed.
    """


@hookspec
def tokaido_card_gained(ctx: Context, piece: int, card: str, source: str) -> None:
    """React to ``card`` joining ``piece``'s collection from zone ``source``.

    Called by :meth:`Context.gain` after the card moved and its own points were scored;
    e.g. a traveller power that scores extra for certain cards.
    """


@hookspec(firstresult=True)
def tokaido_pay(ctx: Context, piece: int, amount: int, cards: tuple[str, ...]) -> bool | None:
    """Handle the payment of ``amount`` coins for ``cards`` and return ``True``.

    Called by :meth:`Context.pay_for_cards`. Return ``None`` to leave the payment to
    others; if nobody handles it, the coins go to the bank. First non-``None`` wins.
    """


# --- game end -----------------------------------------------------------------------


@hookspec
def tokaido_end_steps(state: GameState) -> Sequence[Staged]:
    """Return the end-of-game scoring steps (achievements, temple ranking, ...).

    Called once, when every traveller has reached the final inn and nothing is pending.
    All contributions run in ``order``.
    """


@hookspec
def tokaido_tiebreak(state: GameState, piece: int) -> int | None:
    """Return a number that breaks ties between equal totals (higher wins).

    Called for each seat when ranking; results of all plugins are added.
    """


# --- learning agents ------------------------------------------------------------------


@hookspec
def tokaido_action_space(rules: Rules) -> Sequence[tuple[object, ...]]:
    """Return the key (:meth:`~tokaido_rules.events.Action.key`) of every decision this
    plugin's action types can produce in a game with these ``rules``.

    Called once per game by the reinforcement-learning adapters, which number the keys
    of all plugins into a fixed action space. A superset is fine (keys never legal are
    simply always masked); a missing key makes the adapter refuse the decision.
    """


# --- the fast simulator ---------------------------------------------------------------


@hookspec
def tokaido_fast_rules() -> FastRules | None:
    """Return the plugin's rules for the fast simulator (:mod:`tokaido_rules.fast`), a
    :class:`~tokaido_rules.fast.FastRules`, or ``None`` if it has none (then no ruleset
    that enables the plugin is played on the fast simulator:
    :func:`~tokaido_rules.fast.why_not_covered` says so).

    Called by the fast simulator only (never by the reference engine), once per ruleset,
    when it is first asked whether it covers the ruleset or to play it. Import the
    module that holds the fast rules inside the implementation, so that a program that
    plays only the reference engine never loads :mod:`tokaido_rules.fast`. The object
    returned is shared by every ruleset: it holds no state of a game (what it needs per
    ruleset and player count it makes in :meth:`~tokaido_rules.fast.FastRules.prepare`).
    """


# --- pictures -----------------------------------------------------------------------


@hookspec
def tokaido_render_notes(scene: Scene) -> Sequence[Note]:
    """Return what the plugin adds to a picture: labelled notes about a traveller
    (``Note.piece``) or about the table (``piece=None``), such as the sizes of its piles
    or the amulets a traveller holds. The core draws the board, the travellers, their
    coins, scores and collections; it names no card, so what only a plugin knows how to
    present (secret cards included) is the plugin's to note.

    Called by :mod:`tokaido_rules.render` every time it draws a game or a seat's view
    (text or SVG), with the :class:`~tokaido_rules.Scene` being drawn. A scene
    holds only what the picture may show (drawing a seat's view, what that seat sees:
    :meth:`Scene.cards <tokaido_rules.Scene.cards>` is ``None`` for a zone it
    cannot see), so a note made from it alone shows nothing hidden. Name things by their
    display names (``scene.registry.card_name(...)``), never by ids. The notes of all
    plugins are drawn in plugin order.
    """


@hookspec
def tokaido_render_glossary(registry: Registry) -> Mapping[str, str] | None:
    """Return the plugin's words for its own things, which pictures and the descriptions
    of decisions show beside a card's registered price and points, by key:

    - ``"traveller:<id>"``: the traveller's power, in one short sentence;
    - ``"card:<id>"``: what the card does, in a few words (an encounter's effect, a
      calligraphy's end-game points), where its price and points do not say it all;
    - ``"kind:<kind>"``: what one card of that kind is called (``"legendary object"``),
      where the kind id with spaces for underscores would not do;
    - ``"family:<family>"``: a souvenir family's display name (``Card.family``);
    - ``"sets"``: how souvenir sets score, one short line;
    - ``"tiebreak"``: what breaks a tie for first place, a few words.

    Called by :mod:`tokaido_rules.render` once per ruleset, the first time it needs a
    word (:func:`~tokaido_rules.render.card_facts`,
    :func:`~tokaido_rules.render.traveller_facts`,
    :func:`~tokaido_rules.render.final_standings`, pictures), with the ruleset's
    registry. The glossaries merge in plugin order, a later plugin's word for a key
    replacing an earlier one's (Crossroads restates how sets score, with its fifth
    family). Use display names, never ids, and name no card a seat might not see (the
    words go into every seat's pictures).
    """


# --- checks -------------------------------------------------------------------------


@hookspec
def tokaido_invariants(state: GameState) -> Sequence[str]:
    """Return a description of every plugin invariant that ``state`` breaks (none: ``[]``).

    Called by the conformance tests after every event.
    """
