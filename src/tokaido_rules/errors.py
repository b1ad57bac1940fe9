"""The exceptions tokaido-rules raises.

Every error the library raises on bad input derives from :class:`TokaidoError`, so a
program can catch them all at once; each subclass names one kind of problem.
"""

from __future__ import annotations


class TokaidoError(Exception):
    """Base class of every error raised by tokaido-rules on bad input."""


class IllegalActionError(TokaidoError, ValueError):
    """An action was applied that is not legal now; the message says why.

    The game it was applied to is unchanged.
    """


class RulesetError(TokaidoError, ValueError):
    """The list of plugins cannot make a ruleset."""


class UnknownPluginError(RulesetError):
    """A plugin id is not installed (no entry point in the ``tokaido_rules`` group)."""


class MissingRequirementError(RulesetError):
    """An enabled plugin requires a plugin that is not enabled."""


class PluginConflictError(RulesetError):
    """Two enabled plugins declare that they cannot be used together."""


class PluginDefinitionError(RulesetError):
    """A plugin registered malformed content (a duplicate or unprefixed name, ...)."""


class OptionError(TokaidoError, ValueError):
    """An unknown rule option, or a value the option does not accept."""


class SetupError(TokaidoError, ValueError):
    """A game cannot be set up as asked (player count, travellers, stacked decks, ...)."""


class FoldError(TokaidoError):
    """An event does not fit the state it is applied to (e.g. a draw from an empty deck)."""
