"""Argument and result models of the structure tools (DESIGN section 7, "Structure tools").

Argument models validate like every tool's (`models.ToolArgs`: unknown
arguments refused, null means the default). Result models are what the
handlers of `tools_structure` return; `dump` turns one into the answer's
JSON (fields left at their default are left out, so optional marks such as
`cycle` or `seen` appear only where they hold).

Positions: `range` objects are 0-based (LSP); flat `line` and `column`
fields are 1-based, as an editor shows them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .models import KEY_MAX, PATH_MAX, Cursor, Module, Repo, Scope, ToolArgs, _unicode

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
    "The symbol's key, from find_symbol, symbol_at or an earlier answer.")), AfterValidator(_unicode)]
Path = Annotated[str, Field(min_length=1, max_length=PATH_MAX, strict=True, description=(
    "The source file: relative to the workspace root, or absolute inside it.")),
    AfterValidator(_unicode)]


def _limit(default: int, maximum: int, what: str) -> Any:
    return Field(ge=1, le=maximum, strict=True, description=(
        f"At most this many {what}, 1 to {maximum}. Default {default}; `truncated` says when "
        f"there were more."))


# arguments -------------------------------------------------------------------


class TypeHierarchyArgs(ToolArgs):
    """Supertypes and subtypes of a type, direct and indirect, as trees."""

    symbolKey: SymbolKey
    direction: Annotated[Literal["super", "sub", "both"], Field(description=(
        "`super`: what it extends and implements; `sub`: what extends or implements it; "
        "`both` (default)."))] = "both"
    depth: Annotated[int | None, Field(ge=1, le=HIERARCHY_DEPTH_MAX, strict=True, description=(
        f"Levels to follow, 1 to {HIERARCHY_DEPTH_MAX}. Default: all."))] = None
    limit: Annotated[int, _limit(NODES_DEFAULT, NODES_MAX, "nodes per tree")] = NODES_DEFAULT


class FindImplementationsArgs(ToolArgs):
    """Classes implementing a type, or methods overriding a method, at any depth."""

    symbolKey: SymbolKey
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, _limit(IMPLEMENTATIONS_DEFAULT, LIST_MAX, "implementations")] = IMPLEMENTATIONS_DEFAULT


class CallGraphArgs(ToolArgs):
    """Transitive callers or callees of a method, with the tests they reach."""

    symbolKey: SymbolKey
    direction: Annotated[Literal["in", "out"], Field(description=(
        "`in` (default): who calls it, transitively; `out`: what it calls."))] = "in"
    depth: Annotated[int, Field(ge=1, le=GRAPH_DEPTH_MAX, strict=True, description=(
        f"Levels, 1 to {GRAPH_DEPTH_MAX}. Default 2."))] = 2
    include_tests: Annotated[bool, Field(strict=True, description=(
        "Follow calls in test sources, and list the test methods reached as `affectedTests` "
        "(direction `in`). Default true."))] = True
    limit: Annotated[int, _limit(GRAPH_LIMIT_DEFAULT, LIST_MAX, "edges")] = GRAPH_LIMIT_DEFAULT


class OutlineArgs(ToolArgs):
    """The declarations of one file as a tree."""

    repo: Repo = None
    path: Path
    limit: Annotated[int, _limit(OUTLINE_DEFAULT, LIST_MAX, "declarations")] = OUTLINE_DEFAULT


class DiagnosticsArgs(ToolArgs):
    """The compiler's errors per file, from the generation."""

    repo: Repo = None
    path: Annotated[str | None, Field(max_length=PATH_MAX, description=(
        "Only this file (relative to the workspace root or absolute inside it). Default: every "
        "file with a problem."))] = None
    module: Module = None
    scope: Scope = None
    limit: Annotated[int, _limit(DIAGNOSTICS_DEFAULT, LIST_MAX, "problems")] = DIAGNOSTICS_DEFAULT
    cursor: Cursor = None


class DescribeArgs(ToolArgs):
    """Signature, modifiers, annotations, Javadoc and counts of one symbol."""

    symbolKey: SymbolKey


ARG_MODELS: dict[str, type[ToolArgs]] = {
    "type_hierarchy": TypeHierarchyArgs,
    "find_implementations": FindImplementationsArgs,
    "call_graph": CallGraphArgs,
    "outline": OutlineArgs,
    "diagnostics": DiagnosticsArgs,
    "describe": DescribeArgs,
}


# results ---------------------------------------------------------------------


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Envelope(Out):
    """The freshness envelope every answer carries."""

    commit: str | None = Field(description="The workspace's git HEAD at sync, or null.")
    generated_at: str | None = Field(description="When the answering generation was published.")
    stale: bool = Field(description="True when files changed since that sync: call sync.")
    freshness: str = Field(description="`fresh` or `stale`.")
    checked_at: str | None = Field(description="When freshness was checked.")
    changed: list[str] | None = Field(default=None, description="The first changed paths, when stale.")


class Pos(Out):
    line: int = Field(description="0-based line.")
    character: int = Field(description="0-based UTF-16 character.")


class Range(Out):
    start: Pos
    end: Pos


class Node(Out):
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


class Coverage(Out):
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


class TypeHierarchyOut(Envelope):
    root: Node
    supertypes: list[TreeNode] | None = Field(default=None, description="Direct supertypes, each with its own.")
    subtypes: list[TreeNode] | None = Field(default=None, description="Direct subtypes, each with its own.")
    nodes: int = Field(description="Nodes shown.")
    truncated: bool = Field(description="True when `limit` cut a tree.")
    subtypeCoverage: Coverage | None = Field(default=None, description="Whether the subtypes are all known.")


class Implementation(Node):
    direct: bool = Field(description="Implements, extends or overrides it directly.")


class FindImplementationsOut(Envelope):
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


class Edge(Out):
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


class CallGraphOut(Envelope):
    root: int = Field(description="Node id of the root.")
    direction: str
    nodes: list[GraphNode]
    edges: list[Edge]
    affectedTests: list[int] | None = Field(default=None, description="(in, include_tests) node ids of the test "
                                                              "methods reached.")
    truncated: bool = Field(description="True when `limit` stopped the walk.")
    callerCoverage: bool | None = Field(default=None, description="(in) True: the root's callers are complete.")
    coverageBlockers: int | None = Field(default=None, description="(in) How many problems could hide a caller.")


class OutlineItem(Out):
    symbolKey: str
    kind: str
    name: str
    signature: str | None = Field(default=None, description="The header as written, without annotations and Javadoc.")
    modifiers: list[str] = Field(default_factory=list)
    range: Range = Field(description="The whole declaration, Javadoc and annotations included (0-based).")
    line: int = Field(description="1-based line of the name.")
    children: list[dict[str, Any]] = Field(default_factory=list, description=(
        "Nested declarations: items of this same shape."))


class OutlineOut(Envelope):
    path: str
    module: str
    scope: str
    bindingComplete: bool
    declarations: list[OutlineItem] = Field(description="Top-level declarations, members nested.")
    total: int
    truncated: bool


class Problem(Out):
    kind: str = Field(description="syntax, unresolved_type, unresolved_method, unresolved_field, "
                                  "unresolved_variable, unresolved_import, unresolved_name, other_error.")
    name: str | None = Field(default=None, description="The unresolved name.")
    message: str
    line: int = Field(description="1-based.")
    column: int = Field(description="1-based.")
    range: Range


class FileDiagnostics(Out):
    path: str
    module: str
    scope: str
    bindingComplete: bool
    failure: str | None = Field(default=None, description="Why the indexer failed on this file, if it did.")
    problems: list[Problem]


class DiagnosticsOut(Envelope):
    files: list[FileDiagnostics] = Field(description="Files with problems (or the file asked for).")
    total: int = Field(description="Problems matching, on every page.")
    filesNotBindingComplete: int = Field(description="In the filter.")
    nextCursor: str | None = None


class Counts(Out):
    references: int
    callers: int | None = Field(default=None, description="Call sites (methods and constructors).")
    implementations: int | None = Field(default=None, description="Subtypes (types) or overriders (methods).")


class DescribeOut(Envelope):
    symbol: Node
    signature: str | None
    modifiers: list[str]
    declaringType: Node | None
    annotations: list[str]
    javadoc: str | None = Field(description="The Javadoc comment as written, or null.")
    overrides: list[Node]
    counts: Counts


OUTPUT_MODELS: dict[str, type[BaseModel]] = {
    "type_hierarchy": TypeHierarchyOut,
    "find_implementations": FindImplementationsOut,
    "call_graph": CallGraphOut,
    "outline": OutlineOut,
    "diagnostics": DiagnosticsOut,
    "describe": DescribeOut,
}


def dump(model: BaseModel) -> dict[str, Any]:
    """The answer's JSON: by alias, fields left at their default left out."""
    return model.model_dump(mode="json", by_alias=True, exclude_defaults=True)


DESCRIPTIONS: dict[str, str] = {
    "type_hierarchy": (
        "Supertypes and subtypes of a type (symbolKey), direct and indirect, as trees whose edges say "
        "extends or implements. Library and JDK supertypes appear by SCIP symbol; `subtypeCoverage` "
        "says whether the subtypes are provably all."
    ),
    "find_implementations": (
        "For a type: every class, enum or record implementing or extending it at any depth, anonymous "
        "classes and enum constant bodies included (works from a library type's key, e.g. java.util.List "
        "via symbol_at on a use). For a method: every overrider, and the methods it overrides. "
        "`coverage.complete` true means the list is provably complete."
    ),
    "call_graph": (
        "Transitive callers (direction in) or callees (out) of a method or constructor, depth 1-5: nodes "
        "(each once) and edges (one per caller and callee, with its first call site, 1-based, and the count "
        "of sites) and kind; cycles are cut and "
        "marked; calls through an overridden method carry `through`. With direction in, `affectedTests` "
        "lists the test methods reached."
    ),
    "outline": (
        "The declarations of one file as a tree: key, kind, name, signature and modifiers as written, "
        "range (0-based) and 1-based line."
    ),
    "diagnostics": (
        "The compiler's errors at the last sync (syntax errors, unresolved names and types) per file, "
        "with each file's binding-completeness. Filter by path, module or scope; pages with nextCursor."
    ),
    "describe": (
        "One symbol in full: signature, modifiers, declaring type, annotations, the Javadoc as written, "
        "the methods it overrides, and counts of references, call sites and implementations."
    ),
}
