"""The argument models of the tools (pydantic v2): validation, defaults, limits, and
the descriptions the MCP layer turns into input schemas.

Conventions for every tool:

- Arguments are one JSON object; an unknown argument, a wrong type or a value
  out of its limits is an `invalid_argument` error that names the field.
- `null` means "not given": the default applies.
- Integers must be JSON integers (no strings, no booleans); text must be
  valid Unicode.
- `repo` names a served workspace by its slug (its folder name, made unique
  among those served: `reactor`, `reactor-2`) or by its root path. It may be
  left out when one workspace is served; `get_callers` without it searches
  every served workspace.
- Positions are LSP's: 0-based line, 0-based character counted in UTF-16
  code units, end exclusive. `symbol_at` checks them against the file in one
  place (`pybridge.query.source.check_position`), whose message names the
  valid range; the schema only says they are non-negative integers.
- Paths are relative to the workspace root or absolute inside it; a path
  outside the workspace is refused and never read.

Limits: `find_symbol.limit` 1..500 (default 50); `find_references.limit`
1..500 (default 100); `get_callers.max_results` 1..500 (default 100); names
and queries up to 1,000 characters; paths up to 4,096; symbol keys up to 256;
cursors up to 8,192.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from pybridge.facts import DECL_KINDS

NAMED_KINDS = DECL_KINDS[:10]     # CLASS … RECORD_COMPONENT: what names resolve among
LIMIT_MAX = 500
FIND_SYMBOL_LIMIT = 50
FIND_REFERENCES_LIMIT = 100
GET_CALLERS_MAX = 100
NAME_MAX = 1000
PATH_MAX = 4096
KEY_MAX = 256
CURSOR_MAX = 8192


def _unicode(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it contains a lone surrogate)") from None
    return value


def _kind(value: str) -> str:
    kind = value.strip().upper()
    if kind not in NAMED_KINDS:
        hint = (" (parameters, locals and type parameters are reached through symbol_at)"
                if kind in DECL_KINDS else "")
        raise ValueError(f"must be one of {', '.join(NAMED_KINDS)}{hint}")
    return kind


def _text(max_length: int, description: str, min_length: int = 1) -> Any:
    return Annotated[str, Field(min_length=min_length, max_length=max_length, strict=True,
                                description=description), AfterValidator(_unicode)]


Repo = Annotated[str | None, Field(description=(
    "The workspace: its slug (folder name, e.g. `reactor`; `status` lists it) or its root path. "
    "Optional when one workspace is served."), max_length=PATH_MAX), AfterValidator(
        lambda v: v if v is None else _unicode(v))]
Module = Annotated[str | None, Field(description=(
    "Only this module: its id `groupId:artifactId` (as `status` lists it) or its artifactId alone. "
    "Default: every module."), max_length=NAME_MAX), AfterValidator(
        lambda v: v if v is None else _unicode(v))]
Scope = Annotated[Literal["main", "test"] | None, Field(description=(
    "Only `main` or only `test` sources. Default: both."))]
Cursor = Annotated[str | None, Field(max_length=CURSOR_MAX, description=(
    "The `nextCursor` of the previous page. Keep every other argument unchanged while paging; "
    "a cursor is valid for the generation that issued it."))]
SymbolName = _text(NAME_MAX, (
    "The symbol, by name: a simple name (`greet`), a qualified name (`Greeter.greet` or "
    "`com.acme.Greeter.greet`), one overload (`greet(String)`, `Box(T)`, `sum(int...)`), a path "
    "form (`src/main/java/com/acme/Greeter.java#greet`) or a SCIP symbol (full, or its descriptor "
    "`com/acme/Greeter#greet().`). Resolves among types, methods, constructors, fields, enum "
    "constants and record components; several matches are an `ambiguous` error listing candidates."))


class ToolArgs(BaseModel):
    """Base: unknown arguments are refused; null means "use the default"."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _null_is_default(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None or cls._required(k)}
        return data

    @classmethod
    def _required(cls, name: Any) -> bool:
        field = cls.model_fields.get(name) if isinstance(name, str) else None
        return field is not None and field.is_required()


class SyncArgs(ToolArgs):
    """Index the workspace with the Eclipse compiler and publish a new generation."""

    repo: Repo = None


class StatusArgs(ToolArgs):
    """What is indexed, and whether it is fresh."""

    repo: Repo = None


class FindSymbolArgs(ToolArgs):
    """Exact discovery of declarations by name."""

    query: _text(NAME_MAX, (
        "What to find: a simple name (`Greeter`), a qualified name (`Greeter.greet`, "
        "`com.acme.Greeter.greet`), one overload (`greet(String)`), a path form "
        "(`src/main/java/com/acme/Greeter.java#greet`) or a SCIP symbol. Names are exact and "
        "case-sensitive."))
    repo: Repo = None
    kind: Annotated[str | None, Field(max_length=40, description=(
        "Only declarations of this kind: " + ", ".join(NAMED_KINDS) + ". Default: all of them."
    )), AfterValidator(lambda v: v if v is None else _kind(v))] = None
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        f"Declarations per page, 1 to {LIMIT_MAX}. Default {FIND_SYMBOL_LIMIT}."))] = FIND_SYMBOL_LIMIT
    cursor: Cursor = None


class SymbolAtArgs(ToolArgs):
    """The symbol declared or referenced at a position."""

    repo: Repo = None
    path: _text(PATH_MAX, "The source file: relative to the workspace root, or absolute inside it.")
    line: Annotated[int, Field(strict=True, json_schema_extra={"minimum": 0},
                               description="0-based line (LSP).")]
    character: Annotated[int, Field(strict=True, json_schema_extra={"minimum": 0}, description=(
        "0-based character in UTF-16 code units (LSP); the end of a name counts as on it."))]


class FindReferencesArgs(ToolArgs):
    """Every reference to one exact symbol, paged, with coverage."""

    symbolKey: _text(KEY_MAX, (
        "The symbol's key, from find_symbol, symbol_at or an earlier answer. A key names one "
        "generation; after a sync an old key fails with `stale_key` and its `replacement`."))
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        f"References per page, 1 to {LIMIT_MAX}. Default {FIND_REFERENCES_LIMIT}."
    ))] = FIND_REFERENCES_LIMIT
    cursor: Cursor = None


class GetCallersArgs(ToolArgs):
    """Call sites of a method or constructor, by name."""

    symbol: SymbolName
    repo: Annotated[str | None, Field(max_length=PATH_MAX, description=(
        "The workspace (slug or root path). Default: search every served workspace.")),
        AfterValidator(lambda v: v if v is None else _unicode(v))] = None
    include_tests: Annotated[bool, Field(strict=True, description=(
        "Include call sites in test sources. Default true."))] = True
    max_results: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        f"At most this many callers, 1 to {LIMIT_MAX}. Default {GET_CALLERS_MAX}; `truncated` "
        "says when there were more."))] = GET_CALLERS_MAX


class NameArgs(ToolArgs):
    repo: Repo = None
    symbol: SymbolName


class FindReferencesByNameArgs(NameArgs):
    """Every occurrence of a named symbol, definition included."""


class GoToDefinitionArgs(NameArgs):
    """Where a named symbol is defined."""


class CallHierarchyArgs(NameArgs):
    """One level of incoming and outgoing calls of a named symbol."""


ARG_MODELS: dict[str, type[ToolArgs]] = {
    "sync": SyncArgs,
    "status": StatusArgs,
    "find_symbol": FindSymbolArgs,
    "symbol_at": SymbolAtArgs,
    "find_references": FindReferencesArgs,
    "get_callers": GetCallersArgs,
    "findReferences": FindReferencesByNameArgs,
    "goToDefinition": GoToDefinitionArgs,
    "callHierarchy": CallHierarchyArgs,
}

from .structure_models import ARG_MODELS as _STRUCTURE_ARGS  # noqa: E402 - it imports this module's types

ARG_MODELS.update(_STRUCTURE_ARGS)
