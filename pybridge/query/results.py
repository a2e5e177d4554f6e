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

The seed tools (`findReferences`, `find_references`, `get_callers`,
`callHierarchy`; DESIGN section 7, `../shared/seeds/`) answer in their seed
document's shape: every field the document shows keeps its name, type and
meaning, and pybridge's own fields stand beside them. A model says which of
its fields a seed shows in `seed_fields` (and a seed tool's result which seed
it follows in `seed`): the MCP output schema types those fields
(`pybridge.mcp.schemas`), so a client that validates answers checks them.

Compact rows (pybridge's own shapes only): what repeats across the rows of one
`find_references` page is said once. Its rows name their container by index
into the answer's `containers` table, and carry `module` and `scope` only
where they differ from the page's `shared` ones.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from typing_extensions import Self


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed_fields: ClassVar[tuple[str, ...]] = ()
    """The fields a seed document shows (typed in the output schema); empty: none, or (for a
    nested model inside a seed field) all of them."""
    seed_optional: ClassVar[tuple[str, ...]] = ()
    """Seed fields that may be absent (never null when present)."""


class Result(Model):
    """Base of a tool's answer."""

    seed: ClassVar[str | None] = None
    """The seed document (file name in `../shared/seeds/`) whose shape the answer follows."""
    seed_shape: ClassVar[bool] = False
    """The seed shows the answer: its output schema requires the seed's fields (and the envelope
    when the seed shows it), and leaves pybridge's own fields to its open top level."""
    seed_envelope: ClassVar[bool] = False
    """The seed shows the freshness envelope: the output schema requires its fields by name (their
    types are the instructions', said once for every tool)."""

    _prebuilt: dict[str, Any] | None = PrivateAttr(None)

    @classmethod
    def prebuilt(cls, data: dict[str, Any]) -> Self:
        """The result whose JSON is `data`, put in the model's field order, without the round trip
        through the model (`model_validate`, then `model_dump`: 15% of a find_references call's CPU on
        a 100-row page, bench/RESULTS.md "A flat p99"). Only for a builder that makes exactly the
        dump's shape (nested objects in their models' field order, JSON values, no field left unset
        as null); its tests compare the two byte for byte, and every client test validates the
        answers against the output schema. `PYBRIDGE_PREBUILT_RESULTS=0` validates as before."""
        if os.environ.get("PYBRIDGE_PREBUILT_RESULTS", "1") == "0":
            return cls.model_validate(data)
        result = cls.model_construct()
        order = cls.model_fields
        result._prebuilt = {**{name: data[name] for name in order if name in data},
                            **{name: value for name, value in data.items() if name not in order}}
        return result

    def to_json(self) -> dict[str, Any]:
        if self._prebuilt is not None:
            return self._prebuilt
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
ENVELOPE_SEED = tuple(f for f in ENVELOPE_FIELDS if f != "changed")
"""The envelope as the seeds of findReferences and callHierarchy show it (`changed` is pybridge's)."""


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


class Container(Model):
    symbolKey: str
    name: str = Field(description="Type.member(params), e.g. ArrayUtilsTest.testAdd(); a type's simple name.")


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
    origin: str | None = None       # external: g:a:v, a jar path or jdk:<module> (docs/tools.md)
    generated: bool = Field(False, description="Generated: by Lombok (at its annotation) or in generated sources.")
    declaration: Declaration | None = None


class Occurrence(Model):
    role: Literal["definition", "reference"]
    kind: str
    range: Range


class SymbolHere(Symbol):
    occurrence: Occurrence


class Reference(Model):
    """A row of `find_references` (compact: see the module's docstring)."""

    path: str
    range: Range
    kind: str = Field(description="A reference kind.")
    module: str | None = Field(None, description="Absent when it is `shared.module`.")
    scope: str | None = Field(None, description="Absent when it is `shared.scope`.")
    container: int | None = Field(None, description="Index into `containers`; null for none.")
    context: str | None = Field(None, description="The source line, trimmed (see `source.snippet`).")
    javadoc: bool = False
    import_: bool = Field(False, alias="import", serialization_alias="import")
    generated: bool = Field(False, description="In generated code (Lombok, generated sources).")
    via: Summary | None = Field(None, description="On a field's references: the generated accessor called.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Shared(Model):
    """What every row of a page has unless it says otherwise."""

    module: str | None = None
    scope: str | None = None


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
    seed_fields = ("referenceCoverage", "callerCoverage")

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
    state: str = "ready"
    indexing: dict[str, Any] | None = None
    syncError: dict[str, Any] | None = None
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
    state: str | None = None
    indexing: dict[str, Any] | None = None
    syncError: dict[str, Any] | None = None
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
    seed = "001_c4f6831c1dc53aab.txt"     # its notes name these fields; it shows no answer
    seed_fields = ("meta", "nextCursor")
    seed_optional = ("nextCursor",)

    symbol: Symbol
    references: list[Reference]
    shared: Shared | None = Field(None, description="The rows' module and scope, said once (a row that "
                                                    "differs says its own).")
    containers: list[Container] = Field(description="The containers the rows' `container` indexes point to.")
    relations: Relations
    meta: Meta
    nextCursor: str | None = Field(None, description="Pass back as `cursor` (other arguments unchanged).")


# names -----------------------------------------------------------------------------------------

class NamedReference(Model):
    """A row of `findReferences`: the seed's `path` and `range`, then pybridge's fields."""

    seed_fields = ("path", "range")

    path: str
    range: Range
    kind: str = Field(description="A reference kind, or `definition`.")
    module: str
    scope: str
    container: Container | None = Field(None, description="The enclosing declaration; null for none.")
    context: str | None = Field(None, description="The source line, trimmed.")
    javadoc: bool = False
    import_: bool = Field(False, alias="import", serialization_alias="import")
    generated: bool = Field(False, description="In generated code (Lombok, generated sources).")
    via: Summary | None = Field(None, description="On a field's references: the generated accessor called.")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FindReferencesByNameResult(Envelope):
    seed = "000_0b0ca0a93f870c03.txt"
    seed_fields = ("symbol", "resolvedSymbol", "references")
    seed_envelope = True
    seed_shape = True
    seed_optional = ("resolvedSymbol",)

    symbol: str = Field(description="The name asked, as given.")
    resolvedSymbol: str | None = Field(None, description="The SCIP symbol, when the name asked was not it.")
    symbolInfo: Symbol
    references: list[NamedReference]
    total: int
    truncated: bool
    meta: Meta


class Definition(Model):
    path: str
    range: Range
    fullRange: Range
    module: str | None
    scope: str | None
    context: str | None = None
    view: str | None = None         # a library symbol's: sources or class_file (docs/tools.md)
    javadoc: str | None = None
    note: str | None = None


class GoToDefinitionResult(Envelope):
    seed = "000_0b0ca0a93f870c03.txt"      # its resolution rung
    seed_fields = ("symbol", "resolvedSymbol")
    seed_optional = ("resolvedSymbol",)

    symbol: str = Field(description="The name asked, as given.")
    resolvedSymbol: str | None = Field(None, description="The SCIP symbol, when the name asked was not it.")
    symbolInfo: Symbol
    definitions: list[Definition]


class CallPeer(Model):
    """The caller or callee of a call: the seed's `symbol` (SCIP), `displayName` and `kind`, then its
    key and names."""

    seed_fields = ("symbol", "displayName", "kind")

    symbol: str
    displayName: str
    kind: str
    symbolKey: str
    dottedPath: str | None = None
    display: str | None = Field(None, description="e.g. greet(String)")


class Location(Model):
    path: str
    range: Range


class CallRow(Model):
    seed_fields = ("symbol", "location")

    symbol: CallPeer | None = Field(description="Null only for a call outside any declaration.")
    location: Location = Field(description="The call site.")
    kind: str = Field(description="invocation, construction or method_reference.")
    context: str | None = Field(None, description="The source line, trimmed.")


class CallHierarchyResult(Envelope):
    seed = "003_5b8f363586d578f6.txt"
    seed_fields = ("symbol", "resolvedSymbol", "incomingCalls", "outgoingCalls")
    seed_envelope = True
    seed_shape = True
    seed_optional = ("resolvedSymbol",)

    symbol: str = Field(description="The name asked, as given.")
    resolvedSymbol: str | None = Field(None, description="The SCIP symbol, when the name asked was not it.")
    symbolInfo: Symbol
    incomingCalls: list[CallRow]
    outgoingCalls: list[CallRow]
    incomingTotal: int
    outgoingTotal: int
    truncated: bool


class Caller(Model):
    seed_fields = ("path", "line", "column", "caller_fn", "repo", "snippet")

    path: str
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based, in code points.")
    caller_fn: str | None = Field(description="The enclosing method, qualified, with its parameter types.")
    repo: str = Field(description="The workspace root.")
    snippet: str
    slug: str = Field(description="The workspace's slug.")


class WorkspaceEnvelope(Envelope):
    repo: str = Field(description="The workspace root.")
    slug: str
    generation: int


class GetCallersResult(Envelope):
    seed = "002_64d81e31907cc2a8.txt"
    seed_fields = ("symbol", "callers", "total", "truncated")
    seed_shape = True

    symbol: str = Field(description="The name asked, as given.")
    callers: list[Caller]
    total: int
    truncated: bool
    resolvedSymbol: str | None = Field(None, description="The SCIP symbol, when the name asked was not it.")
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
