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
    """A plugin is malformed: its declaration (id, version), a hook implementation, or
    the content it registered (a duplicate or unprefixed name, ...).

    Raised while a ruleset is built, before any game exists. ``plugin`` is the id of the
    plugin at fault and ``hook`` the hook concerned, each ``None`` when the problem is
    not about one (a requirement cycle, no board). Hook implementations are checked
    before any plugin is registered: a hook name that matches no hook specification
    (the message suggests the nearest), arguments the specification does not have, a
    method named like a hook but not marked ``@hookimpl``, a wrapper that is not a
    generator. A ruleset that fails to build leaves nothing registered.
    """

    def __init__(self, message: str, plugin: str | None = None,
                 hook: str | None = None) -> None:
        self.plugin = plugin
        self.hook = hook
        super().__init__(message)

    def __reduce__(self) -> tuple[type[PluginDefinitionError],
                                  tuple[str, str | None, str | None]]:
        """Rebuilt whole when it crosses a process boundary (a worker of a batch)."""
        return (type(self), (str(self), self.plugin, self.hook))


class PluginError(TokaidoError):
    """A plugin's code raised an exception, or its hook returned a value of the wrong
    type.

    ``plugin`` is the id of the plugin at fault (``None`` when it cannot be told apart
    from the others implementing the hook, or for an action type no plugin registered,
    which has no resolver). ``hook`` says which code: the hook's name,
    or a function the plugin registered for a step kind or an action type (``"run of
    step 'base.inn'"``; also ``legal actions`` and ``automatic test`` of a step,
    ``mutator`` and ``resolver`` of an action); the exception raised is the error's
    ``__cause__``. The game the code ran for is unchanged: a failed
    :meth:`~tokaido_rules.Game.apply` returns nothing. A :class:`TokaidoError` the
    plugin raises on purpose passes through as it is.
    """

    def __init__(self, message: str, plugin: str | None, hook: str) -> None:
        self.plugin = plugin
        self.hook = hook
        super().__init__(message)

    def __reduce__(self) -> tuple[type[PluginError], tuple[str, str | None, str]]:
        """Rebuilt whole when it crosses a process boundary (a worker of a batch)."""
        return (type(self), (str(self), self.plugin, self.hook))


class OptionError(TokaidoError, ValueError):
    """An unknown rule option, or a value the option does not accept."""


class SetupError(TokaidoError, ValueError):
    """A game cannot be set up as asked (player count, travellers, stacked decks, ...)."""


class BotError(TokaidoError):
    """A bot failed: it raised while choosing, answered an action that is not legal, or
    could not be made. ``bot`` is its name (the registered one where it has one). The
    game is left as it was before the bot was asked: nothing was applied."""

    def __init__(self, message: str, bot: str = "") -> None:
        super().__init__(message)
        self.bot = bot

    def __reduce__(self) -> tuple[type[BotError], tuple[str, str]]:
        # raised in a worker process (--jobs, Dask), it travels back whole
        return (type(self), (str(self), self.bot))


class UnknownBotError(BotError, SetupError):
    """A bot name that no installed package registers (entry-point group
    ``tokaido_rules.bots``), or an option the bot does not declare or a value it
    cannot take: refused before any game is played."""


class FoldError(TokaidoError):
    """An event does not fit the state it is applied to (e.g. a draw from an empty deck)."""


class StaleActionError(TokaidoError):
    """An action was sent for an earlier point of the game (``expected_seq`` is behind).

    Servers pass the sequence number the player saw; the game is unchanged.
    """


class LogError(TokaidoError, ValueError):
    """An event log cannot be loaded. ``line`` is the 1-based line number (``None`` when
    the problem is the file as a whole). Nothing is half-loaded."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class LogFormatError(LogError):
    """A line is not valid: bad JSON, a missing or unknown key, a key named twice in one
    object, a value of the wrong type, an unknown event type or step kind, a line too
    long; or the log goes beyond a limit of :mod:`tokaido_rules.log` (``MAX_EVENTS``,
    ``MAX_CARDS``, ``MAX_LOG_CARDS``, ``MAX_IDLE``)."""


class LogSequenceError(LogError):
    """Sequence numbers have a gap, a repeat, or are out of order."""


class LogVersionError(LogError):
    """The log's format, a plugin or an event is newer than the installed code, or an
    older event version has no upcaster."""


class LogPluginError(LogError):
    """A plugin the log was written with is not installed, or the ruleset is invalid."""


class LogStateError(LogError):
    """An event does not fit the state it applies to (e.g. a draw from an empty deck)."""


class CompiledBuildWarning(RuntimeWarning):
    """A compiled build is present but not used: built from another source (``fast.py``
    or a plugin's fast module changed since ``tokaido build-fast``), or it fails to
    load (another Python, a build cut short, a library of another build). The pure
    Python simulator runs instead, with the same games; the message says why and what
    to run (``tokaido build-fast`` again, or ``tokaido build-fast --remove``)."""
