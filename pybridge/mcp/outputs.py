"""Output models of the MCP tools: the shape of a successful result.

They document the answers for agents (field descriptions become the output
schema) and let clients validate structured content. Every model allows
extra fields, so adding a field to an answer never breaks a client; the
fields listed are the ones an agent can rely on. List items are described
in words rather than nested schemas: clients validate every item of every
answer against the schema, and on a 100-reference page nested item schemas
made that check cost more than the query itself (bench/RESULTS.md). An error result has
`error` and `code` instead (clients do not validate error results).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class Enveloped(Out):
    """The freshness envelope that every answer carries."""

    commit: str | None = Field(None, description="The workspace's git HEAD at sync, or null.")
    generated_at: str | None = Field(None, description="When the answering generation was published (ISO 8601).")
    stale: bool | None = Field(None, description="True when files changed since that sync: call sync for "
                                                 "exact answers.")
    freshness: str | None = Field(None, description="`fresh` or `stale`.")
    checked_at: str | None = Field(None, description="When freshness was checked (ISO 8601).")


class Position(Out):
    line: int = Field(description="0-based line.")
    character: int = Field(description="0-based UTF-16 character.")


class Range(Out):
    start: Position
    end: Position


class Location(Out):
    path: str = Field(description="Relative to the workspace root.")
    range: Range = Field(description="The name's range (LSP).")


class Summary(Out):
    symbolKey: str | None = Field(None, description="Opaque key for find_references; valid for this generation.")
    symbol: str | None = Field(None, description="SCIP symbol string (scip-java conventions).")
    dottedPath: str | None = Field(None, description="e.g. com.acme.Greeter.greet")
    display: str | None = Field(None, description="e.g. greet(String)")
    kind: str | None = Field(None, description="CLASS, INTERFACE, ENUM, RECORD, ANNOTATION, METHOD, CONSTRUCTOR, "
                                                "FIELD, ENUM_CONSTANT, RECORD_COMPONENT, PARAMETER, LOCAL, "
                                                "TYPE_PARAMETER.")


class Symbol(Summary):
    module: str | None = Field(None, description="groupId:artifactId of the declaring module (null for libraries).")
    scope: str | None = Field(None, description="main or test.")
    declaration: Location | None = Field(None, description="Where it is declared (null for library symbols).")


class Reference(Location):
    kind: str = Field(description="read, write, read_write, invocation, construction, method_reference, type_use "
                                  "(findReferences adds definition).")
    container: Summary | None = Field(None, description="The enclosing method, constructor, initializer, field "
                                                        "or type.")
    context: str | None = Field(None, description="The source line.")


SYMBOL_FIELDS = ("symbolKey, symbol (SCIP), dottedPath, name, display, kind, module, scope, external, "
                 "declaration {path, range, fullRange} or null.")
REFERENCE_FIELDS = ("path, range {start, end: {line, character}} (0-based, UTF-16), kind, module, scope, "
                    "container {symbolKey, symbol, dottedPath, display, kind} or null, context (the source line), "
                    "javadoc, import.")


class SyncOut(Out):
    generation: int = Field(description="The number of the published generation.")
    counts: dict[str, Any] = Field(description="files, declarations, references, problems, modules, symbols, ...")
    limitations: list[dict[str, Any]] = Field(description="Named limitations: classpath_unresolved, "
                                                          "annotation_processing_not_run, ...")


class StatusOut(Enveloped):
    generation: int | None = Field(None, description="The current generation, or null before the first sync.")


class FindSymbolOut(Enveloped):
    symbols: list[dict[str, Any]] = Field(description=f"Matching declarations; each: {SYMBOL_FIELDS}")
    total: int | None = Field(None, description="All matches.")
    nextCursor: str | None = Field(None, description="Pass back as `cursor` for the next page.")


class SymbolAtOut(Enveloped):
    symbol: Symbol | None = Field(None, description="The symbol at the position (with `occurrence`).")
    alternatives: list[dict[str, Any]] | None = Field(None, description="Other symbols at the same token (e.g. the "
                                                                        "class beside its constructor in `new C()`).")


class FindReferencesOut(Enveloped):
    symbol: Symbol = Field(description="The symbol, with its declaration.")
    references: list[dict[str, Any]] = Field(description=f"This page of references; each: {REFERENCE_FIELDS}")
    relations: dict[str, Any] | None = Field(None, description="overrides, overriddenBy, extends, extendedBy, "
                                                               "implements, implementedBy.")
    meta: dict[str, Any] = Field(description="generation, total, referenceCoverage, callerCoverage, "
                                             "coverageBlockers, limitations.")
    nextCursor: str | None = Field(None, description="Pass back as `cursor` (other arguments unchanged) for more.")


class Caller(Out):
    path: str
    line: int = Field(description="1-based line.")
    column: int = Field(description="1-based column.")
    caller_fn: str | None = Field(None, description="The calling method, constructor, initializer or field.")
    repo: str
    snippet: str


class GetCallersOut(Enveloped):
    callers: list[dict[str, Any]] = Field(description="Each: path, line (1-based), column (1-based), caller_fn, "
                                                      "repo, snippet.")
    total: int = Field(description="All call sites found, before max_results.")
    truncated: bool = Field(description="True when more than max_results call sites exist.")


class FindReferencesByNameOut(Enveloped):
    symbol: Symbol | None = None
    references: list[dict[str, Any]] = Field(description=f"Every occurrence, definition sites included (kind "
                                                         f"`definition`); each: {REFERENCE_FIELDS}")


class GoToDefinitionOut(Enveloped):
    symbol: Symbol | None = None
    definitions: list[dict[str, Any]] = Field(description="The definition sites; each: path, range, fullRange, "
                                                          "module, scope, context.")


class CallHierarchyOut(Enveloped):
    symbol: Symbol | None = None
    incomingCalls: list[dict[str, Any]] = Field(description="`caller` (symbol) and `callSite`.")
    outgoingCalls: list[dict[str, Any]] = Field(description="`callee` (symbol) and `callSite`.")


OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    "sync": SyncOut, "status": StatusOut, "find_symbol": FindSymbolOut, "symbol_at": SymbolAtOut,
    "find_references": FindReferencesOut, "get_callers": GetCallersOut,
    "findReferences": FindReferencesByNameOut, "goToDefinition": GoToDefinitionOut,
    "callHierarchy": CallHierarchyOut,
}

from pybridge.query.structure_models import OUTPUT_MODELS as _STRUCTURE_OUT  # noqa: E402

OUTPUT_MODELS.update(_STRUCTURE_OUT)
