"""tokaido-rules: the rules of the board game Tokaido as an event-sourced Python library.

Start with :func:`new_game`; ask a :class:`Game` for its :meth:`~Game.legal_actions` and
:meth:`~Game.apply` one. Content and rules come from plugins (the base game included),
written against the hooks in :mod:`tokaido_rules.hookspecs` and the names exported here.
"""

from __future__ import annotations

from ._version import __version__
from .bots import determinize
from .engine import (
    Context,
    Game,
    ReproductionError,
    Score,
    initial_state,
    new_game,
    replay,
    reproduce,
)
from .errors import (
    BotError,
    FoldError,
    IllegalActionError,
    LogError,
    LogFormatError,
    LogPluginError,
    LogSequenceError,
    LogStateError,
    LogVersionError,
    MissingRequirementError,
    OptionError,
    PluginConflictError,
    PluginDefinitionError,
    PluginError,
    RulesetError,
    SetupError,
    StaleActionError,
    TokaidoError,
    UnknownBotError,
    UnknownPluginError,
)
from .events import (
    Action,
    AgendaSet,
    Automatic,
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
    decisions,
    field_names,
    fold,
    relative_piece,
)
from .frozen import FrozenMap
from .hookspecs import hookimpl
from .log import (
    LogFeed,
    Verification,
    dump_log,
    dump_state,
    load_log,
    load_state,
    verify_log,
)
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
from .moves import schedule_arrival
from .registry import Registry, SpaceKind
from .ruleset import PluginInfo, Rules, Ruleset, Setup, installed_plugins
from .scene import Note, Scene, TravellerFacts, traveller_facts
from .views import UnknownSeatError, View
from .wire import (
    decode_action,
    decode_step,
    decode_view,
    encode_action,
    encode_step,
    encode_view,
    schemas,
)

__all__ = [
    # games
    "Game", "Score", "Setup", "View", "new_game", "replay", "initial_state", "reproduce",
    "determinize",
    # logs
    "Verification", "dump_log", "load_log", "verify_log", "dump_state", "load_state",
    "LogFeed",
    # the wire format
    "decode_action", "decode_step", "decode_view", "encode_action", "encode_step",
    "encode_view", "schemas",
    # plugins
    "Context", "PluginInfo", "Registry", "Rules", "Ruleset", "hookimpl", "installed_plugins",
    "schedule_arrival", "Note", "Scene", "SpaceKind", "TravellerFacts", "traveller_facts",
    # state and content
    "Card", "FrozenMap", "GameState", "Piece", "Space", "Staged", "Step", "Traveller",
    "collection_zone", "secret_zone",
    # events
    "Action", "AgendaSet", "Automatic", "CardsMoved", "CoinsChanged", "CounterChanged", "DataSet",
    "DeckSet", "Event", "GameOver", "Move", "QueueSet", "Scored", "TravellerSet", "decisions",
    "fold", "field_names", "relative_piece",
    # errors
    "BotError", "FoldError", "IllegalActionError", "LogError", "LogFormatError", "LogPluginError",
    "LogSequenceError", "LogStateError", "LogVersionError", "MissingRequirementError",
    "OptionError", "PluginConflictError", "PluginDefinitionError", "PluginError",
    "ReproductionError",
    "RulesetError",
    "SetupError", "StaleActionError", "TokaidoError", "UnknownBotError", "UnknownPluginError",
    "UnknownSeatError",
    "__version__",
]
