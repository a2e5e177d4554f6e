"""The plain rows the store hands back. Kinds are spelled as in `pybridge.facts`.

The rows a query makes by the thousand (symbols, declarations, references, relations, problems)
are NamedTuples: a frozen dataclass sets each field through `object.__setattr__`,
which made building 10,000 reference rows for a depth-3 call graph cost more than the SQL."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pybridge.facts import Span

# A result row as sqlite3 returns it: the column types are SQLite's, known only per query.
Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class GenerationInfo:
    id: int                    # internal row id (never shown to users)
    number: int                # 1, 2, 3… per store
    published_at: str          # ISO 8601, UTC
    snapshot: dict[str, Any]   # the fingerprint the sync passed to `stage`
    meta: dict[str, Any]       # the sync's metadata, plus `counts` computed at publish
    current: bool              # the generation readers get by default


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str                  # relative to the workspace root
    module: str
    scope: str
    content_sha256: str
    size: int
    binding_complete: bool
    failure: str | None
    declarations: int
    references: int
    problems: int
    file_version_id: int


@dataclass(frozen=True, slots=True)
class ModuleScope:
    module: str
    scope: str
    files: int
    binding_complete_files: int
    failed_files: int
    references: int


class SymbolInfo(NamedTuple):
    """A symbol table row: the binding key and what was first known about it."""

    id: int
    key: str
    kind: str | None
    name: str | None
    display: str | None
    dotted: str | None
    scip: str | None
    external: bool             # a library/JDK declaration


class DeclRow(NamedTuple):
    symbol_id: int
    key: str
    kind: str
    name: str
    display: str
    dotted: str
    scip: str
    path: str
    module: str
    scope: str
    name_span: Span
    span: Span
    modifiers: int
    container_id: int | None
    container_key: str | None


class RefRow(NamedTuple):
    path: str
    module: str
    scope: str
    span: Span
    kind: str
    flags: int
    target_id: int
    target_key: str
    container_id: int | None
    container_key: str | None
    # (path, line, char, kind code, ord): pass the last row's sort_key as
    # `after` to get the next page. Plain JSON-able scalars.
    sort_key: tuple[str, int, int, int, int]


class CallSite(NamedTuple):
    """A call site as a call graph reads it (`Reader.call_sites`): no binding keys, no end."""
    path: str
    line: int
    col: int
    kind: str
    flags: int
    target_id: int
    container_id: int | None


class RelationRow(NamedTuple):
    kind: str
    from_id: int
    from_key: str
    to_id: int
    to_key: str
    path: str                  # the file that declares the relation


class ProblemRow(NamedTuple):
    path: str
    module: str
    scope: str
    kind: str
    name: str
    message: str
    span: Span
    is_error: bool


@dataclass(frozen=True, slots=True)
class BlockedRow:
    """A simple name one file leaves unaccounted for (DESIGN section 8)."""
    path: str
    module: str
    scope: str
    name: str
    reason: str              # one of pybridge.facts.BLOCK_REASONS
    span: Span               # the token (the first of `count` in a row migrated from 0003_blocked_names)
    count: int               # tokens the row stands for: 1 (more only in a migrated row)
    can_name: int            # pybridge.facts.CAN_NAME_* mask of what the token can name
    arity: int               # the number of arguments of the call it names; -1: no call, or unknown


@dataclass(slots=True)
class FileRows:
    """The stored facts of one file of a generation, each table in the order its one-file query gives
    (`Reader.file_references`, `file_declarations`, `file_relations`, `problems(path=...)`)."""

    references: list[RefRow] = field(default_factory=list)
    declarations: list[DeclRow] = field(default_factory=list)
    relations: list[RelationRow] = field(default_factory=list)
    problems: list[ProblemRow] = field(default_factory=list)
