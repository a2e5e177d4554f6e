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
1..500 (default 100); `findReferences.limit` 1..500 (default 100);
`callHierarchy.limit` 1..500 per direction (default 50);
`get_callers.max_results` 1..500 (default 100); names and queries up to 1,000
characters; paths up to 4,096; symbol keys up to 256; cursors up to 8,192.

The tools are declared with these models in `registry` (each family module).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from pybridge.conventions import argument_doc
from pybridge.facts import DECL_KINDS, REF_KINDS

NAMED_KINDS = DECL_KINDS[:10]     # CLASS … RECORD_COMPONENT: what names resolve among
LIMIT_MAX = 500
FIND_SYMBOL_LIMIT = 50
FIND_REFERENCES_LIMIT = 100
GET_CALLERS_MAX = 100
NAME_REFERENCES_LIMIT = 100
CALL_HIERARCHY_LIMIT = 50
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
    """The Field of a text argument, typed `Annotated[str, _text(...), UNICODE]`."""
    return Field(min_length=min_length, max_length=max_length, strict=True, description=description)


UNICODE = AfterValidator(_unicode)


Repo = Annotated[str | None, Field(description=argument_doc("repo"), max_length=PATH_MAX), AfterValidator(
        lambda v: v if v is None else _unicode(v))]
Module = Annotated[str | None, Field(description=argument_doc("module"), max_length=NAME_MAX), AfterValidator(
        lambda v: v if v is None else _unicode(v))]
Scope = Annotated[Literal["main", "test"] | None, Field(description=argument_doc("scope"))]
Cursor = Annotated[str | None, Field(max_length=CURSOR_MAX, description=argument_doc("cursor"))]
SymbolName = Annotated[str, _text(NAME_MAX, argument_doc("symbol")), UNICODE]


RefKind = Literal["read", "write", "read_write", "invocation", "construction", "method_reference",
                  "type_use"]
assert set(get_args(RefKind)) == set(REF_KINDS)


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

    query: Annotated[str, _text(NAME_MAX, (
        "A name (`Greeter`, `greet(String)`, ...) or SCIP symbol.")), UNICODE]
    repo: Repo = None
    kind: Annotated[str | None, Field(max_length=40, description=(
        "Only this kind: " + ", ".join(NAMED_KINDS) + "."
    )), AfterValidator(lambda v: v if v is None else _kind(v))] = None
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        "Declarations per page."))] = FIND_SYMBOL_LIMIT
    cursor: Cursor = None


class SymbolAtArgs(ToolArgs):
    """The symbol declared or referenced at a position."""

    repo: Repo = None
    path: Annotated[str, _text(PATH_MAX, argument_doc("path")), UNICODE]
    line: Annotated[int, Field(strict=True, json_schema_extra={"minimum": 0},
                               description="0-based line (LSP).")]
    character: Annotated[int, Field(strict=True, json_schema_extra={"minimum": 0}, description=(
        "0-based UTF-16 character (LSP); a name's end counts as on it."))]


class FindReferencesArgs(ToolArgs):
    """Every reference to one exact symbol, paged, with coverage."""

    symbolKey: Annotated[str, _text(KEY_MAX, argument_doc("symbolKey")), UNICODE]
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        "References per page."))] = FIND_REFERENCES_LIMIT
    cursor: Cursor = None
    kinds: Annotated[list[RefKind] | None, Field(min_length=1, max_length=len(REF_KINDS), description=(
        "Only references of these kinds (default: all)."))] = None
    include_javadoc: Annotated[bool, Field(strict=True, description=(
        "Include Javadoc mentions (`{@link ...}`)."))] = True
    include_imports: Annotated[bool, Field(strict=True, description=(
        "Include imports."))] = True


class GetCallersArgs(ToolArgs):
    """Call sites of a method or constructor, by name."""

    symbol: SymbolName
    repo: Repo = None       # without it: every served workspace (the description and CONVENTIONS say so)
    include_tests: Annotated[bool, Field(strict=True, description=(
        "Include call sites in test sources."))] = True
    max_results: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        "At most this many call sites."))] = GET_CALLERS_MAX


class NameArgs(ToolArgs):
    repo: Repo = None
    symbol: SymbolName


class FindReferencesByNameArgs(NameArgs):
    """Every occurrence of a named symbol, definition included."""

    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        "At most this many occurrences."))] = NAME_REFERENCES_LIMIT


class GoToDefinitionArgs(NameArgs):
    """Where a named symbol is defined."""


class CallHierarchyArgs(NameArgs):
    """One level of incoming and outgoing calls of a named symbol."""

    limit: Annotated[int, Field(ge=1, le=LIMIT_MAX, strict=True, description=(
        "At most this many calls per direction."))] = CALL_HIERARCHY_LIMIT
