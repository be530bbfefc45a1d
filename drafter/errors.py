"""Exceptions for the user's mistakes. Rejections of candidates are data (Verdict), never these."""


class DrafterError(Exception):
    """A problem the user can fix: the message says what and where."""


class ConfigError(DrafterError):
    """A bad option, model spec or configuration key."""


class SourceError(DrafterError):
    """SRC is missing, unreadable or cannot be imported."""


class ModelError(DrafterError):
    """The model backend cannot be used at all (bad replay file, unreachable server)."""


class WorkspaceError(DrafterError):
    """The workspace cannot hold a run: not a folder, not writable, full, or its index is not drafter's."""


class UnknownIdError(DrafterError):
    """An id names no candidate, mutant or target of the run."""
