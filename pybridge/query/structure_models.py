"""Argument and result models of the structure tools (DESIGN section 7, "Structure tools").

Argument models validate like every tool's (`models.ToolArgs`: unknown
arguments refused, null means the default). Result models are what the
handlers of `tools_structure` return (`results.Result` subclasses: the
registry derives the output schemas from them); their `to_json` is `dump`,
which leaves out the fields left at their default, so optional marks such as
`cycle` or `seen` appear only where they hold.

Positions: `range` objects are 0-based (LSP); flat `line` and `column`
fields are 1-based, as an editor shows them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .models import KEY_MAX, PATH_MAX, Cursor, Module, Repo, Scope, ToolArgs, _unicode
from .results import Model, Range, Result

HIERARCHY_DEPTH_MAX = 20
NODES_DEFAULT = 200
NODES_MAX = 1000
IMPLEMENTATIONS_DEFAULT = 100
GRAPH_DEPTH_MAX = 5
GRAPH_LIMIT_DEFAULT = 60
OUTLINE_DEFAULT = 100
DIAGNOSTICS_DEFAULT = 100
LIST_MAX = 1000

SymbolKey = Annotated[str, Field(min_length=1, max_length=KEY_MAX, strict=True, description=(
    "From find_symbol or symbol_at.")), AfterValidator(_unicode)]
Path = Annotated[str, Field(min_length=1, max_length=PATH_MAX, strict=True, description=(
    "The source file (workspace-relative, or absolute in it).")),
    AfterValidator(_unicode)]


def _limit(maximum: int, what: str) -> Any:
    """A `limit` argument (its bounds and default are in the schema; `truncated` says it cut)."""
    return Field(ge=1, le=maximum, strict=True, description=what)


# arguments -------------------------------------------------------------------


class TypeHierarchyArgs(ToolArgs):
    """Supertypes and subtypes of a type, direct and indirect, as trees."""

    symbolKey: SymbolKey
    direction: Annotated[Literal["super", "sub", "both"], Field(description=(
        "`super`: what it extends and implements; `sub`: what extends or implements it."))] = "both"
    depth: Annotated[int | None, Field(ge=1, le=HIERARCHY_DEPTH_MAX, strict=True, description=(
        "Levels to follow (default: all)."))] = None
    limit: Annotated[int, _limit(NODES_MAX, "Nodes per tree.")] = NODES_DEFAULT


class FindImplementationsArgs(ToolArgs):
    """Classes implementing a type, or methods overriding a method, at any depth."""

    symbolKey: SymbolKey
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, _limit(LIST_MAX, "Implementations listed.")] = IMPLEMENTATIONS_DEFAULT


class CallGraphArgs(ToolArgs):
    """Transitive callers or callees of a method, with the tests they reach."""

    symbolKey: SymbolKey
    direction: Annotated[Literal["in", "out"], Field(description=(
        "`in`: who calls it, transitively; `out`: what it calls."))] = "in"
    depth: Annotated[int, Field(ge=1, le=GRAPH_DEPTH_MAX, strict=True, description=(
        "Levels of calls."))] = 2
    include_tests: Annotated[bool, Field(strict=True, description=(
        "Follow calls in test sources; list the tests reached (`affectedTests`)."))] = True
    limit: Annotated[int, _limit(LIST_MAX, "Edges.")] = GRAPH_LIMIT_DEFAULT


class OutlineArgs(ToolArgs):
    """The declarations of one file as a tree."""

    repo: Repo = None
    path: Path
    limit: Annotated[int, _limit(LIST_MAX, "Declarations listed.")] = OUTLINE_DEFAULT


class DiagnosticsArgs(ToolArgs):
    """The compiler's errors per file, from the generation."""

    repo: Repo = None
    path: Annotated[str | None, Field(max_length=PATH_MAX, description=(
        "Only this file (default: every file with a problem)."))] = None
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, _limit(LIST_MAX, "Problems per page.")] = DIAGNOSTICS_DEFAULT
    cursor: Cursor = None


class DescribeArgs(ToolArgs):
    """Signature, modifiers, annotations, Javadoc and counts of one symbol."""

    symbolKey: SymbolKey


# results ---------------------------------------------------------------------


class StructureResult(Result):
    """A structure answer: the freshness envelope every answer carries (always present, null
    where unknown), then the tool's fields. Serialized by `dump`."""

    commit: str | None = Field(description="The workspace's git HEAD at sync, or null.")
    generated_at: str | None = Field(description="When the answering generation was published.")
    stale: bool = Field(description="True when files changed since that sync: call sync.")
    freshness: str = Field(description="`fresh` or `stale`.")
    checked_at: str | None = Field(description="When freshness was checked.")
    changed: list[str] | None = Field(default=None, description="The first changed paths, when stale.")

    def to_json(self) -> dict[str, Any]:
        return dump(self)


class Node(Model):
    """A symbol in a structure answer."""

    symbolKey: str = Field(description="Key for the exact tools.")
    symbol: str | None = Field(default=None, description="SCIP symbol (library and JDK symbols too).")
    dottedPath: str | None = Field(default=None, description="e.g. com.acme.Greeter.greet")
    display: str | None = Field(default=None, description="e.g. greet(String)")
    kind: str | None = Field(default=None, description="CLASS, INTERFACE, METHOD, ...")
    external: bool = Field(default=False, description="A library or JDK symbol (no declaration here).")
    path: str | None = Field(default=None, description="Declaring file, relative to the workspace root.")
    line: int | None = Field(default=None, description="1-based line of the name.")
    module: str | None = Field(default=None, description="Declaring module.")
    scope: str | None = Field(default=None, description="main or test.")


class Coverage(Model):
    complete: bool = Field(description="True: no file of the generation could hide one more answer "
                                       "(every file binding-complete as far as this question goes).")
    blockers: int = Field(description="How many problems could hide one.")
    places: list[dict[str, Any]] = Field(description="The first of them: path, line, column (1-based), "
                                                     "reason.")


class TreeNode(Node):
    relation: str | None = Field(default=None, description="extends or implements: the edge to the parent.")
    seen: bool = Field(default=False, description="Shown already elsewhere in this tree (children not repeated).")
    beyond: str | None = Field(default=None, description="Why the tree stops here (`library`: the supertypes "
                                                 "of library types are not indexed; `depth`; `limit`).")
    children: list[dict[str, Any]] = Field(default_factory=list, description=(
        "Its own supertypes or subtypes: nodes of this same shape."))


class TypeHierarchyResult(StructureResult):
    root: Node
    supertypes: list[TreeNode] | None = Field(default=None, description="Direct supertypes, each with its own.")
    subtypes: list[TreeNode] | None = Field(default=None, description="Direct subtypes, each with its own.")
    nodes: int = Field(description="Nodes shown.")
    truncated: bool = Field(description="True when `limit` cut a tree.")
    subtypeCoverage: Coverage | None = Field(default=None, description="Whether the subtypes are all known.")


class Implementation(Node):
    direct: bool = Field(description="Implements, extends or overrides it directly.")


class FindImplementationsResult(StructureResult):
    root: Node
    implementations: list[Implementation] = Field(description=(
        "For a type: every class, enum or record (anonymous classes and enum constant bodies "
        "included) that is a subtype, directly or not. For a method: every method overriding it."))
    overrides: list[Node] | None = Field(default=None, description="For a method: the methods it overrides, at "
                                                           "any depth (library ones included).")
    total: int
    truncated: bool
    coverage: Coverage


class GraphNode(Node):
    id: int = Field(description="The node's number in this answer; edges name nodes by it.")
    depth: int = Field(description="Calls away from the root (0: the root).")
    test: bool = Field(default=False, description="A test method (JUnit @Test and the like, or JUnit 3 test*).")
    expanded: bool = Field(default=True, description="False when depth or limit stopped the walk here.")
    overriders: int | None = Field(default=None, description="(out) methods overriding this callee: a call here "
                                                     "may dispatch to them.")


class Edge(Model):
    caller: int = Field(alias="from", description="Node id of the caller.")
    callee: int = Field(alias="to", description="Node id of the callee.")
    kind: str = Field(description="invocation, construction or method_reference.")
    path: str = Field(description="The call site's file.")
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based.")
    through: int | None = Field(default=None, description="(in) node id of the overridden method the call site "
                                                  "names; the call may dispatch to the callee.")
    cycle: bool = Field(default=False, description="The callee is already on the path to this caller: cut here.")
    sites: int = Field(default=1, description="How many call sites from the caller to the callee (the first "
                                              "one is shown).")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CallGraphResult(StructureResult):
    root: int = Field(description="Node id of the root.")
    direction: str
    nodes: list[GraphNode]
    edges: list[Edge]
    affectedTests: list[int] | None = Field(default=None, description="(in, include_tests) node ids of the test "
                                                              "methods reached.")
    truncated: bool = Field(description="True when `limit` stopped the walk.")
    callerCoverage: bool | None = Field(default=None, description="(in) True: the root's callers are complete.")
    coverageBlockers: int | None = Field(default=None, description="(in) How many problems could hide a caller.")


class OutlineItem(Model):
    symbolKey: str
    kind: str
    name: str
    signature: str | None = Field(default=None, description="The header as written, without annotations and Javadoc.")
    modifiers: list[str] = Field(default_factory=list)
    range: Range = Field(description="The whole declaration, Javadoc and annotations included (0-based).")
    line: int = Field(description="1-based line of the name.")
    children: list[dict[str, Any]] = Field(default_factory=list, description=(
        "Nested declarations: items of this same shape."))


class OutlineResult(StructureResult):
    path: str
    module: str
    scope: str
    bindingComplete: bool
    declarations: list[OutlineItem] = Field(description="Top-level declarations, members nested.")
    total: int
    truncated: bool


class Problem(Model):
    kind: str = Field(description="syntax, unresolved_type, unresolved_method, unresolved_field, "
                                  "unresolved_variable, unresolved_import, unresolved_name, other_error.")
    name: str | None = Field(default=None, description="The unresolved name.")
    message: str
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based.")
    range: Range


class FileDiagnostics(Model):
    path: str
    module: str
    scope: str
    bindingComplete: bool
    failure: str | None = Field(default=None, description="Why the indexer failed on this file, if it did.")
    problems: list[Problem]


class DiagnosticsResult(StructureResult):
    files: list[FileDiagnostics] = Field(description="Files with problems (or the file asked for).")
    total: int = Field(description="Problems matching, on every page.")
    filesNotBindingComplete: int = Field(description="In the filter.")
    nextCursor: str | None = None
    lastEdit: dict[str, Any] | None = None     # under serve: what the last catch-up's edit rebound (status: live)


class Counts(Model):
    references: int
    callers: int | None = Field(default=None, description="Call sites (methods and constructors).")
    implementations: int | None = Field(default=None, description="Subtypes (types) or overriders (methods).")


class DescribeResult(StructureResult):
    symbol: Node
    signature: str | None
    modifiers: list[str]
    declaringType: Node | None
    annotations: list[str]
    javadoc: str | None = Field(description="The Javadoc comment as written, or null.")
    overrides: list[Node]
    counts: Counts


def dump(model: BaseModel) -> dict[str, Any]:
    """The answer's JSON: by alias, fields left at their default left out."""
    return model.model_dump(mode="json", by_alias=True, exclude_defaults=True)
