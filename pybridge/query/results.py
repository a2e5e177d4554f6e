"""The result models of the tools (pydantic): what every answer holds, field by field.

Handlers return these models; the facade serializes them
(`model_dump(mode="json", exclude_unset=True)`: a field a handler did not set,
such as `nextCursor` on the last page, is absent from the JSON), and the MCP
layer derives each tool's output schema from them. Models forbid extra
fields, so an answer can only carry what its schema declares.

Positions (DESIGN section 7): a `range` or `position` object is 0-based
(LSP: line, character in UTF-16 code units, end exclusive); every flat
`line` or `column` field is 1-based, as an editor shows it (the column counted
in Unicode code points).

Compact rows: what repeats across the rows of one answer is said once.
Reference rows name their container by index into the answer's
`containers` table; call rows name their caller or callee by index into
`symbols`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Result(Model):
    """Base of a tool's answer."""

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)


class Envelope(Result):
    """The freshness envelope every answer carries."""

    commit: str | None = Field(None, description="The workspace's git HEAD at sync, or null.")
    generated_at: str | None = Field(None, description="When the answering generation was published (ISO 8601).")
    stale: bool | None = Field(None, description="True when files changed since that sync.")
    freshness: Literal["fresh", "stale"] | None = None
    checked_at: str | None = Field(None, description="When freshness was checked (ISO 8601).")
    changed: list[str] | None = Field(None, description="The first changed paths, when stale.")


ENVELOPE_FIELDS = tuple(Envelope.model_fields)
"""The envelope's fields: every answer's, described once (`registry.CONVENTIONS`), not in each
output schema."""


class Position(Model):
    line: int
    character: int


class Range(Model):
    start: Position
    end: Position


class Declaration(Model):
    path: str
    range: Range = Field(description="The name.")
    fullRange: Range = Field(description="The whole declaration.")


class Summary(Model):
    symbolKey: str
    symbol: str | None = Field(None, description="SCIP symbol (scip-java conventions).")
    dottedPath: str | None = None
    display: str | None = Field(None, description="e.g. greet(String)")
    kind: str | None = None


class Symbol(Model):
    symbolKey: str = Field(description="Opaque key for the exact tools.")
    symbol: str | None = Field(None, description="SCIP symbol (scip-java conventions).")
    dottedPath: str | None = None
    name: str | None = None
    display: str | None = None
    kind: str | None = None
    module: str | None = Field(None, description="groupId:artifactId; null for library and JDK symbols.")
    scope: str | None = None
    external: bool = False
    generated: bool = Field(False, description="Generated: by Lombok (at its annotation) or in generated sources.")
    declaration: Declaration | None = None


class Occurrence(Model):
    role: Literal["definition", "reference"]
    kind: str
    range: Range


class SymbolHere(Symbol):
    occurrence: Occurrence


class Reference(Model):
    path: str
    range: Range
    kind: str = Field(description="A reference kind, or `definition` (findReferences).")
    module: str
    scope: str
    container: int | None = Field(None, description="Index into `containers`; null for none.")
    context: str | None = Field(None, description="The source line.")
    javadoc: bool = False
    import_: bool = Field(False, alias="import", serialization_alias="import")
    generated: bool = Field(False, description="In generated code (Lombok, generated sources).")
    via: Summary | None = Field(None, description="On a field's references: the generated accessor called.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Limitation(Model):
    kind: str
    module: str | None = None
    scope: str | None = None
    message: str | None = None


class Blocker(Model):
    path: str
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based.")
    name: str | None = Field(None, description="The blocked simple name (null: the whole file blocks).")
    reason: str


class Blockers(Model):
    count: int
    places: list[Blocker]


class Meta(Model):
    generation: int
    total: int
    referenceCoverage: bool
    callerCoverage: bool | None
    coverageBlockers: Blockers
    limitations: list[Limitation]


class Relations(Model):
    overrides: list[Summary]
    overriddenBy: list[Summary]
    extends: list[Summary]
    extendedBy: list[Summary]
    implements: list[Summary]
    implementedBy: list[Summary]
    generatedFrom: list[Summary] | None = Field(None, description="Lombok: the field an accessor was generated from.")
    generatedAccessors: list[Summary] | None = Field(None, description="Lombok: a field's generated accessors.")
    totals: dict[str, int] | None = Field(None, description="Per list, when a list was cut.")


# admin -----------------------------------------------------------------------------------------


class ScopeCoverage(Model):
    module: str
    scope: str
    files: int
    bindingComplete: int
    problems: int


class SyncCoverage(Model):
    bindingComplete: bool
    scopes: list[ScopeCoverage]


class SyncResult(Envelope):
    repo: str
    generation: int = Field(description="The current generation (unchanged when nothing was published).")
    durationSeconds: float
    reusedFiles: int
    reindexedFiles: int = Field(0, description="Files the compiler indexed; the others were reused.")
    published: bool = Field(True, description="False when no input changed: nothing was published, and "
                                              "the current generation, its keys and cursors stay valid.")
    unchanged: bool = False
    incremental: bool = Field(False, description="Only the files an edit can affect were re-indexed.")
    counts: dict[str, int]
    coverage: SyncCoverage
    limitations: list[Limitation]


class ModuleInfo(Model):
    module: str
    groupId: str
    artifactId: str
    version: str | None = None
    release: int | str | None = None
    encoding: str | None = None
    scopes: list[str | None]


class ScopeStatus(Model):
    module: str | None = None
    scope: str | None = None
    files: int | None = None
    bindingComplete: int | None = None
    failedFiles: int = 0
    references: int | None = None
    problems: int | None = None
    limitations: list[Any] = []


class WorkspaceStatus(Envelope):
    repo: str
    root: str
    stateDir: str
    synced: bool
    generation: int | None
    generations: list[int]
    publishedAt: str | None = None
    modules: list[ModuleInfo]
    scopes: list[ScopeStatus]
    counts: dict[str, int]
    limitations: list[Limitation]
    hint: str | None = None
    live: dict[str, Any] | None = Field(None, description="Under `serve`, the live index: watching, watchMode, "
                                        "pending, syncing, lagSeconds, lastCatchUp, worker.")


class StatusResult(Envelope):
    """One workspace's status (the fields of `WorkspaceStatus`), or, without `repo` while
    several workspaces are served, `workspaces` and a combined envelope."""

    repo: str | None = None
    root: str | None = None
    stateDir: str | None = None
    synced: bool | None = None
    generation: int | None = None
    generations: list[int] | None = None
    publishedAt: str | None = None
    modules: list[ModuleInfo] | None = None
    scopes: list[ScopeStatus] | None = None
    counts: dict[str, int] | None = None
    limitations: list[Limitation] | None = None
    hint: str | None = None
    live: dict[str, Any] | None = Field(None, description="Under `serve`, the live index: watching, watchMode, "
                                        "pending, syncing, lagSeconds, lastCatchUp, worker.")
    workspaces: list[WorkspaceStatus] | None = None


# exact -----------------------------------------------------------------------------------------


class FindSymbolResult(Envelope):
    symbols: list[Symbol]
    total: int
    nextCursor: str | None = Field(None, description="Pass back as `cursor` for the next page.")
    hint: str | None = None


class SymbolAtResult(Envelope):
    symbol: SymbolHere
    alternatives: list[SymbolHere] = Field(description="Other symbols at the same token.")


class FindReferencesResult(Envelope):
    symbol: Symbol
    references: list[Reference]
    containers: list[Summary] = Field(description="The containers the rows' `container` indexes point to.")
    relations: Relations
    meta: Meta
    nextCursor: str | None = Field(None, description="Pass back as `cursor` (other arguments unchanged).")


# names -----------------------------------------------------------------------------------------


class FindReferencesByNameResult(Envelope):
    symbol: Symbol
    resolvedSymbol: str | None = None
    references: list[Reference]
    containers: list[Summary]
    total: int
    truncated: bool
    meta: Meta


class Definition(Model):
    path: str
    range: Range
    fullRange: Range
    module: str
    scope: str
    context: str | None = None


class GoToDefinitionResult(Envelope):
    symbol: Symbol
    resolvedSymbol: str | None = None
    definitions: list[Definition]


class CallSite(Model):
    path: str
    range: Range
    kind: str
    context: str | None = None


class IncomingCall(Model):
    caller: int | None = Field(description="Index into `symbols`; null outside any declaration.")
    callSite: CallSite


class OutgoingCall(Model):
    callee: int | None = Field(description="Index into `symbols`.")
    callSite: CallSite


class CallHierarchyResult(Envelope):
    symbol: Symbol
    resolvedSymbol: str | None = None
    symbols: list[Summary] = Field(description="Callers and callees, indexed by the calls.")
    incomingCalls: list[IncomingCall]
    outgoingCalls: list[OutgoingCall]
    incomingTotal: int
    outgoingTotal: int
    truncated: bool


class Caller(Model):
    path: str
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based, in code points.")
    caller_fn: str | None = None
    repo: str
    snippet: str


class WorkspaceEnvelope(Envelope):
    repo: str
    generation: int


class GetCallersResult(Envelope):
    callers: list[Caller]
    total: int
    truncated: bool
    resolvedSymbol: str | None = None
    workspaces: list[WorkspaceEnvelope]
    notSynced: list[str] | None = None


# errors ----------------------------------------------------------------------------------------


class Candidate(Model):
    symbol: str | None = None
    dottedPath: str | None = None
    kind: str | None = None
    display: str | None = None
    path: str | None = None
    line: int | None = Field(None, description="1-based.")
    repo: str | None = None


ERROR_FIELDS: dict[str, dict[str, Any]] = {
    "error": {"type": "string"},
    "code": {"type": "string"},
    "field": {"type": ["string", "null"]},
    "candidates": {"type": "array", "items": {"type": "object"}},
    "candidateTotal": {"type": "integer"},
    "replacement": {"type": ["string", "null"]},
    "changed": {"type": "array", "items": {"type": "string"}},
    "hint": {"type": "string"},
    "served": {"type": "array", "items": {"type": "string"}},
    "cause": {"type": ["string", "null"]},
    "internal": {"type": "boolean"},
}
"""The fields an error object may carry, as JSON schema (`errors` documents them by code)."""
