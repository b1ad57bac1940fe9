"""tokaido-rules: the rules of the board game Tokaido as an event-sourced Python library.

Start with :func:`new_game`; ask a :class:`Game` for its :meth:`~Game.legal_actions` and
:meth:`~Game.apply` one. Content and rules come from plugins (the base game included),
written against the hooks in :mod:`tokaido_rules.hookspecs` and the names exported here.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .engine import Context, Game, Score, initial_state, new_game, replay
from .errors import (
    FoldError,
    IllegalActionError,
    MissingRequirementError,
    OptionError,
    PluginConflictError,
    PluginDefinitionError,
    RulesetError,
    SetupError,
    TokaidoError,
    UnknownPluginError,
)
from .events import (
    Action,
    AgendaSet,
    CardsMoved,
    CoinsChanged,
    CounterChanged,
    DataSet,
    DeckSet,
    Event,
    GameOver,
    Move,
    QueueSet,
    Scored,
    TravellerSet,
    fold,
)
from .frozen import FrozenMap
from .hookspecs import hookimpl
from .model import (
    Card,
    GameState,
    Piece,
    Space,
    Staged,
    Step,
    Traveller,
    collection_zone,
    secret_zone,
)
from .registry import Registry
from .ruleset import PluginInfo, Rules, Ruleset, Setup, installed_plugins

try:
    __version__ = version("tokaido-rules")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "Action", "AgendaSet", "Card", "CardsMoved", "CoinsChanged", "Context", "CounterChanged",
    "DataSet", "DeckSet", "Event", "FoldError", "FrozenMap", "Game", "GameOver", "GameState",
    "IllegalActionError", "MissingRequirementError", "Move", "OptionError", "Piece",
    "PluginConflictError", "PluginDefinitionError", "PluginInfo", "QueueSet", "Registry",
    "Rules", "Ruleset", "RulesetError", "Score", "Scored", "Setup", "SetupError", "Space",
    "Staged", "Step", "TokaidoError", "Traveller", "TravellerSet", "UnknownPluginError",
    "__version__", "collection_zone", "fold", "hookimpl", "initial_state", "installed_plugins",
    "new_game", "replay", "secret_zone",
]
