"""The one error tree of pybridge.

Every error names what to do next. `code` is the stable tool error code
(DESIGN section 7) that the query layer reports when the error reaches a tool.
"""

from __future__ import annotations


class PybridgeError(Exception):
    """Base class. `str(err)` is a sentence that says what to do."""

    code = "invalid_argument"

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class WorkspaceError(PybridgeError):
    """The workspace cannot be read (a malformed or missing build file such as a pom.xml, a module cycle)."""

    code = "sync_failed"


class WorkerError(PybridgeError):
    """The indexer worker failed. `cause` names why: crashed, killed, oom, timeout, error."""

    code = "sync_failed"

    def __init__(self, message: str, cause: str, **details: object) -> None:
        super().__init__(message, **details)
        self.cause = cause


class StoreError(PybridgeError):
    """The SQLite store cannot be opened or written."""

    code = "sync_failed"
