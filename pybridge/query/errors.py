"""Tool errors: a stable `code` and a sentence that says what to do (DESIGN section 7).

Every failure of a tool becomes one JSON object::

    {"error": "<what to do>", "code": "<code>", ...extra}

Extra fields by code: `stale_key` adds `replacement` (a key or null) and
`hint`; `stale_snapshot` adds `changed` (workspace-relative paths) and
`hint`; `indexing` (a never-synced workspace's first sync is running) adds
`filesDone`, `filesTotal`, `etaSeconds` (null until known) and `phase`;
`not_synced` after a failed first sync adds `syncError`; `ambiguous` adds
`candidates` and `candidateTotal`; `unknown_repo` adds `served`; validation
failures add `field`.
"""

from __future__ import annotations

from typing import Any

from pybridge.errors import PybridgeError

CODES = (
    "invalid_argument", "unknown_repo", "not_synced", "not_found", "ambiguous", "invalid_key",
    "stale_key", "stale_snapshot", "invalid_cursor", "stale_cursor", "sync_failed", "indexing",
    "stale_base", "rename_refused",
)


class QueryError(PybridgeError):
    """A tool error. `code` is one of CODES; `extra` goes into the error object."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        assert code in CODES, code
        super().__init__(message, **extra)
        self.code = code
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return clean_object({"error": self.message, "code": self.code, **self.extra})


def invalid(message: str, **extra: Any) -> QueryError:
    return QueryError("invalid_argument", message, **extra)


def show(value: Any, limit: int = 80) -> str:
    """A user-supplied value quoted for a message: shortened, and always valid UTF-8."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[:limit] + "…"
    return "`" + safe_text(text) + "`"


def safe_text(text: str) -> str:
    """`text` with lone surrogates (which JSON may carry but UTF-8 cannot) escaped."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def clean(value: Any) -> Any:
    """`value` with every string made encodable (error objects echo user input)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return clean_object(value)
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def clean_object(value: dict[Any, Any]) -> dict[str, Any]:
    """`clean` of a JSON object (its keys made strings)."""
    return {safe_text(str(k)): clean(v) for k, v in value.items()}
