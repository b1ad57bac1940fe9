"""The analysis of a seat's decisions: every legal action scored, the best one, the
points lost by the one played, and a mark (``tokaido analyse``, the replay viewer's
marks, the hint in ``tokaido play``).

A decision is analysed from the deciding seat's :class:`~tokaido_rules.View` alone,
by any bot that can say what it thinks of every legal action
(:class:`~tokaido_rules.estimates.Evaluates`: ``evaluate(view)``; the ISMCTS bot,
registered as :data:`DEFAULT_BOT`, is one). A whole game is analysed for one seat by
taking that seat's view at each of its decisions, never the full state: two games that
differ only in what the seat cannot see get the same analysis.

Each decision gets a fresh evaluator seeded from the analysis's seed and the
decision's ``seq`` (:func:`decision_seed`), so the analysis of a decision depends on
its view, the bot, its options and the seed only: the same arguments give the same
figures, whether the decision is analysed alone (:func:`hint`, as ``tokaido play``
does) or with the whole game (:func:`analyse_game`).

Marks, by the points lost (the best action's mean final margin minus the played
action's):

- ``best``: the action played is the best one (or as good, on average);
- ``inaccuracy``: it loses at least :data:`INACCURACY` points, and its margin's 95%
  interval lies wholly below the best action's;
- ``mistake``: the same with at least :data:`MISTAKE` points;
- no mark (``None``): anything else: it loses little, or the intervals overlap, so
  the search cannot tell the two apart with its playouts.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final, Literal

from attrs import frozen

from .bots import BotLike, bot_name, determinize, make_bot
from .engine import Game, initial_state
from .errors import BotError, TokaidoError
from .estimates import ActionEstimate, Evaluates
from .events import Action, Automatic, fold
from .log import load_log
from .render import describe_action
from .views import View
from .wire import encode_action

__all__ = [
    "DEFAULT_BOT", "FORMAT", "INACCURACY", "MISTAKE", "AnalysisError", "DecisionAnalysis",
    "GameAnalysis", "Mark", "NotAnEvaluatorError", "analyse_game", "analyse_log",
    "analyse_view", "decision_seed", "hint", "load_analysis", "make_evaluator", "mark",
    "seat_decisions", "FORMAT_VERSION",
]

DEFAULT_BOT: Final = "ismcts"
"""The bot that analyses when none is named (registered by the ISMCTS bot's module)."""
INACCURACY: Final = 1.0
"""Points lost (mean final margin) from which a clearly worse action is an inaccuracy."""
MISTAKE: Final = 3.0
"""Points lost from which a clearly worse action is a mistake."""
FORMAT: Final = "tokaido-analysis"
"""The ``format`` of an analysis document (``tokaido analyse --format json``)."""
FORMAT_VERSION: Final = 1
"""The layout of an analysis document written (and the one read back)."""

Mark = Literal["best", "inaccuracy", "mistake"]
"""A decision's mark (``None`` where none is given: see the module's doc)."""


class AnalysisError(TokaidoError, ValueError):
    """An analysis cannot be made or read: a seat that is not in the game, an evaluator
    whose figures do not fit the decision, an analysis document that is malformed or
    does not fit the log it is shown with."""


class NotAnEvaluatorError(BotError):
    """The bot named to analyse has no ``evaluate(view)``
    (:class:`~tokaido_rules.estimates.Evaluates`): it can play but not score actions."""


@frozen
class DecisionAnalysis:
    """One decision of ``seat``, analysed from its view: the figures of every legal
    action (:class:`~tokaido_rules.estimates.ActionEstimate`, in the order of the legal
    actions), the index of the best one (the highest mean margin; the first on a tie),
    and of the one played (``None`` for a hint, before anything is played)."""

    seat: int
    seq: int
    """The decision's place in the log: the ``seq`` its action has (the view's)."""
    step: str
    """The kind of decision (the step's kind, e.g. the move of a traveller)."""
    estimates: tuple[ActionEstimate, ...]
    labels: tuple[str, ...]
    """Each action in the words of the table (display names)."""
    best: int
    played: int | None = None

    @property
    def best_action(self) -> Action:
        return self.estimates[self.best].action

    @property
    def lost(self) -> float | None:
        """Points lost by the action played: the best mean margin minus its own (never
        negative); ``None`` before anything is played."""
        if self.played is None:
            return None
        return max(0.0, self.estimates[self.best].margin - self.estimates[self.played].margin)

    @property
    def win(self) -> float:
        """The estimated probability of winning after the action played (before it,
        after the best action)."""
        return self.estimates[self.best if self.played is None else self.played].win

    @property
    def mark(self) -> Mark | None:
        """``best``, ``inaccuracy``, ``mistake`` or ``None`` (see the module's doc)."""
        if self.played is None:
            return None
        return mark(self.estimates[self.best], self.estimates[self.played])

    def document(self) -> dict[str, Any]:
        """This analysis as JSON-ready data (one item of an analysis document's
        ``decisions``)."""
        return {
            "seq": self.seq, "seat": self.seat, "step": self.step, "best": self.best,
            "played": self.played, "lost": _round(self.lost), "win": _round(self.win),
            "mark": self.mark,
            "actions": [{"action": encode_action(e.action), "label": label,
                         "playouts": e.playouts, "margin": _round(e.margin),
                         "margin_low": _round(e.margin_low),
                         "margin_high": _round(e.margin_high), "win": _round(e.win),
                         "win_low": _round(e.win_low), "win_high": _round(e.win_high)}
                        for e, label in zip(self.estimates, self.labels, strict=True)],
        }

    def line(self) -> str:
        """One line: seq, action played, best action, points lost, win probability."""
        played = "-" if self.played is None else self.labels[self.played]
        lost = "" if self.lost is None else f" · lost {self.lost:.1f}"
        said = f" · {self.mark}" if self.mark else ""
        return (f"seq {self.seq}: played {played} · best {self.labels[self.best]}{lost}"
                f" · win {self.win:.0%}{said}")


def _round(value: float | None) -> float | None:
    """Figures to 4 places: enough for a search's intervals, and stable text. A bound
    the search could not set (an action tried too few times: an infinite interval) is
    ``None``, JSON's ``null``: JSON has no infinity."""
    return None if value is None or not math.isfinite(value) else round(value, 4)


def mark(best: ActionEstimate, played: ActionEstimate) -> Mark | None:
    """The mark of playing ``played`` where ``best`` was best (see the module's doc)."""
    lost = best.margin - played.margin
    if played is best or lost <= 0:
        return "best"
    if played.margin_high >= best.margin_low:  # the search cannot tell them apart
        return None
    if lost >= MISTAKE:
        return "mistake"
    if lost >= INACCURACY:
        return "inaccuracy"
    return None


def decision_seed(seed: int, seat: int, seq: int) -> int:
    """The seed of the evaluator of ``seat``'s decision at ``seq`` in an analysis seeded
    ``seed`` (BLAKE2b: every decision gets its own stream, and none tells the game's)."""
    digest = hashlib.blake2b(f"{seed}:{seat}:{seq}".encode(), digest_size=8,
                             person=b"tokaido-analyse").digest()
    return int.from_bytes(digest, "big")


def make_evaluator(bot: BotLike = DEFAULT_BOT, seed: int = 0,
                   options: Mapping[str, object] | None = None) -> Evaluates:
    """A bot that can analyse (:func:`~tokaido_rules.bots.make_bot`): one without
    ``evaluate`` raises :class:`NotAnEvaluatorError` naming it; an unknown name or a bad
    option, :class:`~tokaido_rules.UnknownBotError`."""
    made = make_bot(bot, seed, options)
    evaluate = getattr(made, "evaluate", None)
    if not callable(evaluate):
        name = bot_name(bot)
        raise NotAnEvaluatorError(f"bot {name!r} cannot analyse: it has no evaluate(view) "
                                  "(name a bot that scores every action, e.g. "
                                  f"{DEFAULT_BOT})", name)
    return made  # type: ignore[return-value]


def analyse_view(view: View, evaluator: Evaluates,
                 played: Action | None = None) -> DecisionAnalysis:
    """Analyse the decision ``view``'s seat faces: the evaluator's figures for every
    legal action, the best one and, when ``played`` is given, the one played. Raises
    :class:`AnalysisError` when the seat does not decide, when ``played`` is not a legal
    action, or when the figures do not fit the legal actions."""
    actions = view.legal_actions
    if view.seat is None or not actions:
        raise AnalysisError(f"seat {view.seat} does not decide at seq {view.seq}: nothing "
                            "to analyse")
    index = None
    if played is not None:
        index = next((i for i, a in enumerate(actions) if a == played), None)
        if index is None:
            raise AnalysisError(f"the action played at seq {view.seq} is not one of seat "
                                f"{view.seat}'s legal actions: {played}")
    try:
        estimates = tuple(evaluator.evaluate(view))
    except TokaidoError:
        raise
    except Exception as exc:
        raise BotError(f"bot {bot_name(evaluator)!r} failed to evaluate seq {view.seq}: "
                       f"{type(exc).__name__}: {exc}", bot_name(evaluator)) from exc
    if len(estimates) != len(actions) or any(
            not isinstance(e, ActionEstimate) or e.action != a
            for e, a in zip(estimates, actions, strict=False)):
        raise AnalysisError(f"bot {bot_name(evaluator)!r} did not give one estimate per "
                            f"legal action, in their order, at seq {view.seq}")
    best = max(range(len(estimates)), key=lambda i: (estimates[i].margin, -i))
    step = view.current_step
    return DecisionAnalysis(seat=view.seat, seq=view.seq,
                            step="" if step is None else step.kind, estimates=estimates,
                            labels=_labels(view), best=best, played=index)


def _labels(view: View) -> tuple[str, ...]:
    """The legal actions in words: drawn on a completion of the view, whose public part
    (the board, the pieces, the names) is all that the words read."""
    state = determinize(view, 0).state
    return tuple(describe_action(state, a) for a in view.legal_actions)


def hint(view: View, bot: BotLike = DEFAULT_BOT, *, seed: int = 0,
         options: Mapping[str, object] | None = None) -> DecisionAnalysis:
    """The analysis of the decision ``view``'s seat faces, before it plays: what
    ``tokaido play``'s ``hint`` prints, and what a table can offer. The evaluator is
    made for this decision (:func:`decision_seed`), so the hint is the figure the later
    analysis of the game gives."""
    if view.seat is None:
        raise AnalysisError("a hint is for a seat's view, not the public view")
    evaluator = make_evaluator(bot, decision_seed(seed, view.seat, view.seq), options)
    return analyse_view(view, evaluator)


@frozen
class GameAnalysis:
    """Every decision of ``seat`` in a game, analysed (:func:`analyse_game`)."""

    seat: int
    players: int
    plugins: tuple[str, ...]
    bot: str
    options: Mapping[str, object]
    seed: int
    decisions: tuple[DecisionAnalysis, ...]

    def document(self) -> dict[str, Any]:
        """The analysis document (``tokaido analyse --format json``; what ``tokaido
        replay --analysis`` reads): see the CLI reference."""
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "seat": self.seat,
                "players": self.players, "plugins": list(self.plugins), "bot": self.bot,
                "options": {k: self.options[k] for k in sorted(self.options)},
                "seed": self.seed,
                "thresholds": {"inaccuracy": INACCURACY, "mistake": MISTAKE},
                "decisions": [d.document() for d in self.decisions]}

    def lines(self) -> list[str]:
        """The text of ``tokaido analyse``: one line per decision."""
        return [d.line() for d in self.decisions]


def seat_decisions(game: Game, seat: int) -> Iterator[tuple[View, Action]]:
    """``seat``'s view at each of its decisions in ``game``, with the action it
    played: every decision it took with a choice (those the engine took by itself, and
    those with a single legal action, are left out: there is nothing to analyse)."""
    events = game.events
    state = initial_state(game.state.rules, game.seed)
    automatic = False
    for event in events:
        if isinstance(event, Action) and not automatic and event.seat == seat:
            view = Game(state, ()).view(seat)
            if len(view.legal_actions) > 1:
                yield view, event
        automatic = type(event) is Automatic
        state = fold(state, event)


def analyse_game(game: Game, seat: int, bot: BotLike = DEFAULT_BOT, *, seed: int = 0,
                 options: Mapping[str, object] | None = None,
                 progress: Callable[[int], None] | None = None) -> GameAnalysis:
    """Analyse every decision ``seat`` took in ``game`` (:func:`seat_decisions`), each
    from its view, by ``bot`` (a registered name, a class or factory: made afresh for
    each decision, :func:`decision_seed`). ``progress`` is called with the count done
    after each decision. Raises :class:`AnalysisError` for a seat not in the game,
    :class:`NotAnEvaluatorError` for a bot that cannot analyse."""
    if type(seat) is not int or not 0 <= seat < game.players:
        raise AnalysisError(f"no seat {seat!r} in a {game.players}-player game")
    make_evaluator(bot, 0, options)  # a bot that cannot analyse is refused before any work
    found = []
    for view, played in seat_decisions(game, seat):
        evaluator = make_evaluator(bot, decision_seed(seed, seat, view.seq), options)
        found.append(analyse_view(view, evaluator, played))
        if progress is not None:
            progress(len(found))
    return GameAnalysis(seat=seat, players=game.players, plugins=game.ruleset.ids,
                        bot=bot_name(bot), options=dict(options or {}), seed=seed,
                        decisions=tuple(found))


def analyse_log(source: str | Path, seat: int, bot: BotLike = DEFAULT_BOT, *,
                seed: int = 0, options: Mapping[str, object] | None = None,
                progress: Callable[[int], None] | None = None) -> GameAnalysis:
    """:func:`analyse_game` of a full log (text or path, as
    :func:`~tokaido_rules.load_log` reads it). A seat's copy of a log cannot be analysed
    (:func:`~tokaido_rules.load_log` refuses it with a
    :class:`~tokaido_rules.LogFormatError`): it does not name every card its seat saw
    (cards that came into sight without moving, such as an inn's meals), so the seat's
    views, and its legal actions, cannot be rebuilt from it."""
    return analyse_game(load_log(source), seat, bot, seed=seed, options=options,
                        progress=progress)


# --- reading an analysis document back (the replay viewer) -----------------------------


def load_analysis(text: str) -> dict[str, Any]:
    """An analysis document (:meth:`GameAnalysis.document`), checked for what the
    replay viewer reads: its format, seat, players, plugins and, per decision, its seq,
    mark and per-action figures. Raises :class:`AnalysisError` naming the problem."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise AnalysisError(f"the analysis is not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise AnalysisError(f"not an analysis document (format {FORMAT!r} expected)")
    if doc.get("format_version") != FORMAT_VERSION:
        raise AnalysisError(f"analysis format_version {doc.get('format_version')!r} is not "
                            f"{FORMAT_VERSION}")
    if type(doc.get("seat")) is not int or type(doc.get("players")) is not int:
        raise AnalysisError("the analysis's seat and players must be integers")
    if not isinstance(doc.get("plugins"), list) or not isinstance(doc.get("decisions"), list):
        raise AnalysisError("the analysis's plugins and decisions must be lists")
    for n, item in enumerate(doc["decisions"]):
        if not (isinstance(item, dict) and type(item.get("seq")) is int
                and item.get("mark") in (None, "best", "inaccuracy", "mistake")
                and isinstance(item.get("actions"), list) and item["actions"]
                and all(isinstance(a, dict) and isinstance(a.get("label"), str)
                        and all(isinstance(a.get(k), int | float) for k in _FIGURES)
                        for a in item["actions"])
                and _index(item.get("best"), item["actions"])
                and (item.get("played") is None or _index(item.get("played"), item["actions"]))):
            raise AnalysisError(f"decision {n} of the analysis is malformed")
    return doc


_FIGURES = ("playouts", "margin", "margin_low", "margin_high", "win", "win_low", "win_high")


def _index(value: object, items: list[Any]) -> bool:
    return type(value) is int and 0 <= value < len(items)
