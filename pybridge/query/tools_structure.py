"""The structure tools (DESIGN section 7): type_hierarchy, find_implementations,
call_graph, outline, diagnostics, describe.

Each tool is declared in the registry (`registry.tool`) beside its handler
`handler(call, args) -> result model` (`structure_models`), answered from the
published generation alone: the compiler's relations (extends, implements,
overrides), the call references, the declarations with their full ranges,
and the problems.

Choices where the contract is silent:

- The symbolKey tools (type_hierarchy, find_implementations, call_graph,
  describe) and `outline` refuse a workspace whose files changed since the
  sync (`stale_snapshot`), like `find_references`: their positions and
  source-derived text would be wrong. `diagnostics` answers from the
  generation and marks the envelope stale: "what did the compiler say at
  the last sync" is the question.
- A constant of an enum with a class body is an anonymous subclass of the
  enum: the indexer records its `extends` (since indexer version 5), and
  these tools add it too, for a generation indexed before (the anonymous
  class's container is the constant, whose container is the enum).
- Library and JDK supertypes are shown at every depth: the indexer stores
  the supertypes of every library type above a workspace type (read from
  the class files through JDT's bindings), so find_implementations of a
  library type walks through library types too (a class extending
  `AbstractList` implements `Collection`). `java.lang.Object` is left out.
- find_implementations lists classes, enums and records (anonymous ones
  included); sub-interfaces are walked through and shown by type_hierarchy.
- call_graph `in` counts as a caller of X every container of a call to X
  or to a method X overrides (such a call may dispatch to X; the edge's
  `through` names the method the call site names). `out` lists the methods
  called; a callee with overriders says how many (`overriders`), since the
  call may dispatch to any of them. A test method is a method of test scope
  annotated `@Test`, `@ParameterizedTest`, `@RepeatedTest`, `@TestFactory`,
  `@TestTemplate` or `@Theory`, or a public `test…()` method (JUnit 3).
- Signatures, modifiers, annotations and Javadoc are read from the source
  text inside the declaration's stored full range (`structure_source`), as
  written; the modifiers are the keywords written, not the implicit ones.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pybridge.facts import REF_IN_IMPORT, REF_IN_JAVADOC, Span
from pybridge.store import CallSite, DeclRow, SymbolInfo, scope_matches
from pybridge.store import structure as sq

from .coverage import coverage
from .errors import QueryError, invalid
from .library import display_of
from .library_outline import library_file, library_outline
from .library_view import library_header
from .paging import check_generation, cursor_offset, new_cursor, open_key
from .registry import Call, tool
from .results import Position, Range
from .source import Lines, workspace_path
from .structure_models import (
    CallGraphArgs,
    CallGraphResult,
    Counts,
    Coverage,
    DescribeArgs,
    DescribeResult,
    DiagnosticsArgs,
    DiagnosticsResult,
    Edge,
    FileDiagnostics,
    FindImplementationsArgs,
    FindImplementationsResult,
    GraphNode,
    Implementation,
    Node,
    OutlineArgs,
    OutlineItem,
    OutlineResult,
    Problem,
    TreeNode,
    TypeHierarchyArgs,
    TypeHierarchyResult,
    dump,
)
from .structure_source import Header, declaration_header
from .view import CALLABLE_KINDS, TYPE_KINDS, View, viewing
from .workspace import Served, Workspaces

CALL_KINDS = ("invocation", "construction", "method_reference")
CLASS_LIKE = frozenset({"CLASS", "ENUM", "RECORD"})
OUTLINE_SKIP = frozenset({"PARAMETER", "LOCAL", "TYPE_PARAMETER", "INITIALIZER"})
TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory",
                              "TestTemplate", "Theory"})
WALK_MAX = 20_000          # symbols a transitive walk visits at most (bounds the work, not the answer)
BLOCKERS_SHOWN = 20
ROWS_PER_EDGE = 20         # call_graph reads at most limit x this many call sites per level
NOT_A_CALL = REF_IN_JAVADOC | REF_IN_IMPORT   # `{@link #m()}` is a method_reference, not a call


def _range(span: Span) -> Range:
    return Range(start=Position(line=span.start_line, character=span.start_char),
                 end=Position(line=span.end_line, character=span.end_char))


class _Nodes:
    """Node objects for symbol ids, built in batches."""

    def __init__(self, v: View) -> None:
        self.v = v
        self.infos: dict[int, SymbolInfo] = {}

    def load(self, ids: Iterable[int]) -> None:
        infos = self.infos
        want = [i for i in set(ids) if i not in infos]
        if want:
            self.infos.update(self.v.r.symbols(want))
            self.v.first_decls(want)

    def decl(self, sid: int) -> DeclRow | None:
        return self.v.first_decls([sid])[sid]

    def kind(self, sid: int) -> str | None:
        d = self.decl(sid)
        if d is not None:
            return d.kind
        info = self.infos.get(sid)
        return info.kind if info else None

    def fields(self, sid: int, full: bool = False) -> dict[str, Any]:
        """A node's fields; list rows leave out the SCIP symbol and module of workspace
        symbols (`full` keeps them: the root; library symbols always carry their SCIP symbol)."""
        self.load([sid])
        d = self.decl(sid)
        info = self.infos.get(sid)
        if d is not None and not full:
            return {"symbolKey": self.v.key(sid, d.key), "dottedPath": d.dotted,
                    "display": d.display or d.name or d.dotted.rsplit(".", 1)[-1], "kind": d.kind,
                    "path": d.path, "line": d.name_span.start_line + 1, "scope": d.scope}
        if d is not None:
            return {"symbolKey": self.v.key(sid, d.key), "symbol": self.v.scip(d.scip, d.module),
                    "dottedPath": d.dotted, "display": d.display or d.name or d.dotted.rsplit(".", 1)[-1],
                    "kind": d.kind,
                    "path": d.path, "line": d.name_span.start_line + 1, "module": d.module,
                    "scope": d.scope}
        assert info is not None
        return {"symbolKey": self.v.key(sid, info.key), "symbol": self.v.scip(info.scip, None),
                "dottedPath": info.dotted, "display": display_of(info), "kind": info.kind,
                "external": True}

    def node(self, sid: int) -> Node:
        return Node(**self.fields(sid, full=True))


def _open(spaces: Workspaces, token: str, run: Callable[[View, SymbolInfo], Any]) -> Any:
    ws, reader, parsed, info = open_key(spaces, token)
    try:
        v = View(ws, reader)
        v.require_fresh()
        check_generation(v, parsed, info)
        return run(v, info)
    finally:
        reader.close()


def _header(v: View, d: DeclRow) -> Header | None:
    lines = v.ws.sources.lines(d.path, v.ws.encoding(v.gen, d.module))
    return declaration_header(lines, d.span, d.name_span, d.kind)


# the type graph --------------------------------------------------------------


def _enum_body_parent(v: View, d: DeclRow | None) -> int | None:
    """The enum an enum constant's class body extends (d: an anonymous class's declaration)."""
    if d is None or d.kind != "CLASS" or d.container_id is None:
        return None
    constant = v.first_decls([d.container_id])[d.container_id]
    if constant is None or constant.kind != "ENUM_CONSTANT":
        return None
    return constant.container_id


def _enum_bodies(v: View, enum: DeclRow) -> list[int]:
    """The anonymous classes of an enum's constants with class bodies."""
    decls = sq.file_declarations(v.r, enum.path, members_only=True)
    constants = {d.symbol_id for d in decls if d.kind == "ENUM_CONSTANT" and d.container_id == enum.symbol_id}
    return [d.symbol_id for d in decls if d.kind == "CLASS" and d.container_id in constants]


def _supertypes(v: View, ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    out: dict[int, list[tuple[int, str]]] = {i: [] for i in ids}
    for row in v.r.relations(ids, direction="from", kinds=["extends", "implements"]):
        if (row.to_id, row.kind) not in out[row.from_id]:
            out[row.from_id].append((row.to_id, row.kind))
    for i, d in v.first_decls(ids).items():
        parent = _enum_body_parent(v, d)
        if parent is not None and all(p != parent for p, _ in out[i]):
            out[i].append((parent, "extends"))
    return out


def _subtypes(v: View, ids: list[int]) -> dict[int, list[tuple[int, str]]]:
    out: dict[int, list[tuple[int, str]]] = {i: [] for i in ids}
    for row in v.r.relations(ids, direction="to", kinds=["extends", "implements"]):
        if (row.from_id, row.kind) not in out[row.to_id]:
            out[row.to_id].append((row.from_id, row.kind))
    for i, d in v.first_decls(ids).items():
        if d is not None and d.kind == "ENUM":
            for body in _enum_bodies(v, d):
                if all(c != body for c, _ in out[i]):
                    out[i].append((body, "extends"))
    return out


def _walk(v: View, root: int, step: Callable[[View, list[int]], dict[int, list[tuple[int, str]]]],
          depth: int | None, cap: int) -> tuple[dict[int, list[tuple[int, str]]], bool]:
    """Breadth-first adjacency from root, level by level, up to depth levels and about cap nodes.
    Returns (adjacency of the nodes expanded, whether cap stopped it)."""
    adjacency: dict[int, list[tuple[int, str]]] = {}
    seen = {root}
    frontier = [root]
    level = 0
    while frontier and (depth is None or level < depth):
        if len(seen) > cap:
            return adjacency, True
        step_out = step(v, frontier)
        adjacency.update(step_out)
        nxt = []
        for i in frontier:
            for child, _rel in step_out[i]:
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        frontier = nxt
        level += 1
    return adjacency, False


def _hierarchy_coverage(v: View) -> Coverage:
    """The same for every symbol of a generation: computed once per generation."""
    made: Coverage = v.ws.memo(v.gen.number)(("hierarchy_coverage",), lambda: _hierarchy_blockers(v))
    return made.model_copy(deep=True)


def _hierarchy_blockers(v: View) -> Coverage:
    count, rows = sq.hierarchy_blockers(v.r, BLOCKERS_SHOWN)
    any_failed = any(ms.failed_files for ms in v.r.module_scopes())
    failed = [f for f in v.r.files() if f.failure] if any_failed else []
    places: list[dict[str, Any]] = [
        {"path": p.path, "line": p.span.start_line + 1, "column": p.span.start_char + 1,
         "reason": (f"unresolved `{p.name}` could hide a subtype: {p.message}" if p.name
                    else f"syntax error: {p.message}")} for p in rows]
    for f in failed:
        if len(places) < BLOCKERS_SHOWN:
            places.append({"path": f.path, "line": 1, "column": 1,
                           "reason": f"the indexer failed on this file: {f.failure}"})
    total = count + len(failed)
    return Coverage(complete=total == 0, blockers=total, places=places)


def _tree(nodes: _Nodes, root: int, adjacency: dict[int, list[tuple[int, str]]], limit: int,
          depth: int | None, capped: bool) -> tuple[list[TreeNode], int, bool]:
    """The trees under root, each node's children once (a repeat is `seen`)."""
    nodes.load({c for kids in adjacency.values() for c, _ in kids})
    walk = _TreeWalk(nodes, adjacency, limit, depth, capped, {root})
    return walk.build(root, 0), walk.count, walk.truncated


@dataclass
class _TreeWalk:
    """One tree of `_tree` (a class, not a recursive closure: a closure that calls itself is a
    reference cycle, and every answer's objects would wait for the cyclic GC)."""

    nodes: _Nodes
    adjacency: dict[int, list[tuple[int, str]]]
    limit: int
    depth: int | None
    capped: bool
    shown: set[int]
    count: int = 0
    truncated: bool = False

    def build(self, sid: int, level: int) -> list[TreeNode]:
        out = []
        for child, relation in self.adjacency.get(sid, []):
            if self.count >= self.limit:
                self.truncated = True
                break
            self.count += 1
            fields = self.nodes.fields(child)
            item = TreeNode(**fields, relation=relation)
            if child in self.shown:
                item.seen = True
            else:
                self.shown.add(child)
                if child in self.adjacency:
                    item.children = [dump(c) for c in self.build(child, level + 1)]
                elif self.depth is not None and level + 1 >= self.depth:
                    item.beyond = "depth"
                elif self.capped:
                    item.beyond = "limit"
                    self.truncated = True
            out.append(item)
        return out


def _need_type(info: SymbolInfo, kind: str | None, tool: str) -> None:
    if kind not in TYPE_KINDS:
        raise invalid(f"{tool} takes a type (class, interface, enum, record or annotation); "
                      f"{info.dotted or info.name} is a {kind or 'symbol'}. Pass the key of its type "
                      f"(describe names the declaring type).", field="symbolKey")


@tool("type_hierarchy", args=TypeHierarchyArgs, result=TypeHierarchyResult, description="""
    Supertypes and subtypes of a type, direct and indirect, as trees with extends/implements
    edges, library and JDK types included (SCIP symbol); `subtypeCoverage`: the subtypes are
    provably all.""")
def type_hierarchy(call: Call, a: TypeHierarchyArgs) -> TypeHierarchyResult:
    def run(v: View, info: SymbolInfo) -> TypeHierarchyResult:
        nodes = _Nodes(v)
        nodes.load([info.id])
        _need_type(info, nodes.kind(info.id), "type_hierarchy")
        out: dict[str, Any] = {"root": nodes.node(info.id)}
        total = 0
        truncated = False
        for direction, step in (("super", _supertypes), ("sub", _subtypes)):
            if a.direction not in (direction, "both"):
                continue
            adjacency, capped = _walk(v, info.id, step, a.depth, a.limit)
            tree, n, cut = _tree(nodes, info.id, adjacency, a.limit, a.depth, capped)
            out["supertypes" if direction == "super" else "subtypes"] = tree
            total += n
            truncated = truncated or cut
        if a.direction != "super":
            out["subtypeCoverage"] = _hierarchy_coverage(v)
        return TypeHierarchyResult(**out, nodes=total, truncated=truncated, **v.envelope())

    result: TypeHierarchyResult = _open(call.spaces, a.symbolKey, run)
    return result


# implementations -------------------------------------------------------------


def _closure(v: View, root: int, step: Callable[[list[int]], list[tuple[int, int]]]) -> dict[int, set[int]]:
    """Transitive walk: for each symbol reached, the symbols it was reached from."""
    parents: dict[int, set[int]] = {}
    frontier = [root]
    while frontier and len(parents) < WALK_MAX:
        nxt = []
        for src, dst in step(frontier):
            if dst == root:
                continue
            if dst not in parents:
                parents[dst] = set()
                nxt.append(dst)
            parents[dst].add(src)
        frontier = nxt
    return parents


def _overriders(v: View, root: int) -> dict[int, set[int]]:
    def step(ids: list[int]) -> list[tuple[int, int]]:
        return [(r.to_id, r.from_id) for r in v.r.relations(ids, direction="to", kinds=["overrides"])]
    return _closure(v, root, step)


def _overridden(v: View, root: int) -> dict[int, None]:
    return _overridden_all(v, [root])[root]


def _overridden_all(v: View, roots: list[int]) -> dict[int, dict[int, None]]:
    """For each root, every method it overrides at any depth, in the order `_overridden(v, root)`
    finds them, with one query per level for all roots (a call graph's frontier has hundreds of
    methods). The relations come in one global order, so each root's share keeps its own order."""
    reached: dict[int, dict[int, None]] = {r: {} for r in roots}
    frontier: dict[int, list[int]] = {r: [r] for r in roots}
    while frontier:
        owners: dict[int, list[int]] = {}
        for root, ms in frontier.items():
            for m in ms:
                owners.setdefault(m, []).append(root)
        nxt: dict[int, list[int]] = {}
        for rel in v.r.relations(sorted(owners), direction="from", kinds=["overrides"]):
            for root in owners[rel.from_id]:
                seen = reached[root]
                if rel.to_id != root and rel.to_id not in seen and len(seen) < WALK_MAX:
                    seen[rel.to_id] = None
                    nxt.setdefault(root, []).append(rel.to_id)
        frontier = nxt
    return reached


def _all_subtypes(v: View, root: int) -> dict[int, set[int]]:
    def step(ids: list[int]) -> list[tuple[int, int]]:
        return [(parent, child) for parent, kids in _subtypes(v, ids).items() for child, _ in kids]
    return _closure(v, root, step)


@tool("find_implementations", args=FindImplementationsArgs, result=FindImplementationsResult,
      description="""
    Every implementation of a type or override of a method, at any depth. A type: its classes,
    enums and records, anonymous ones included (library types too: key from symbol_at on a use).
    A method: its overriders, and what it overrides (`overrides`). `coverage.complete`: the list
    is provably complete.""")
def find_implementations(call: Call, a: FindImplementationsArgs) -> FindImplementationsResult:
    def run(v: View, info: SymbolInfo) -> FindImplementationsResult:
        nodes = _Nodes(v)
        nodes.load([info.id])
        kind = nodes.kind(info.id)
        module = v.module_arg(a.module)
        overrides = None
        if kind in CALLABLE_KINDS:
            found = _overriders(v, info.id)
            direct = {s for s, src in found.items() if info.id in src
                      and not (_targets(v, s) & set(found))}
            up = _overridden(v, info.id)
            nodes.load(up)
            overrides = [nodes.node(s) for s in sorted(up, key=lambda s: _order(nodes, s))]
        elif kind in TYPE_KINDS:
            found = _all_subtypes(v, info.id)
            direct = {s for s, src in found.items() if info.id in src}
        else:
            raise invalid(f"find_implementations takes a type or a method; {info.dotted or info.name} "
                          f"is a {kind or 'symbol'}.", field="symbolKey")
        nodes.load(found)
        chosen = []
        for s in found:
            d = nodes.decl(s)
            if d is None or (kind in TYPE_KINDS and d.kind not in CLASS_LIKE):
                continue
            if module not in (None, d.module) or not scope_matches(a.scope, d.scope):
                continue
            chosen.append(s)
        chosen.sort(key=lambda s: _order(nodes, s))
        items = [Implementation(**nodes.fields(s), direct=s in direct) for s in chosen[:a.limit]]
        out = FindImplementationsResult(root=nodes.node(info.id), implementations=items, total=len(chosen),
                                     truncated=len(chosen) > a.limit, coverage=_hierarchy_coverage(v),
                                     **v.envelope())
        if overrides is not None:
            out.overrides = overrides
        return out

    result: FindImplementationsResult = _open(call.spaces, a.symbolKey, run)
    return result


def _targets(v: View, sid: int) -> set[int]:
    return {r.to_id for r in v.r.relations([sid], direction="from", kinds=["overrides"])}


def _order(nodes: _Nodes, sid: int) -> tuple[int, str, int, int]:
    d = nodes.decl(sid)
    if d is None:
        info = nodes.infos.get(sid)
        return (1, info.dotted or "" if info else "", 0, 0)
    return (0, d.path, d.name_span.start_line, d.name_span.start_char)


# call graph ------------------------------------------------------------------


def _is_test(v: View, d: DeclRow | None) -> bool:
    if d is None or d.scope == "main" or d.kind != "METHOD":
        return False
    h = _header(v, d)
    if h is None:
        return False
    for ann in h.annotations:
        name = ann[1:].split("(", 1)[0].strip().rsplit(".", 1)[-1]
        if name in TEST_ANNOTATIONS:
            return True
    return (d.name.startswith("test") and "public" in h.modifiers and "static" not in h.modifiers
            and (d.display or "").endswith("()"))


@tool("call_graph", args=CallGraphArgs, result=CallGraphResult, description="""
    Transitive callers or callees of a method or constructor, with the tests they reach: `nodes`
    (each once) and `edges` (per caller and callee: first call site, `sites`); cycles are cut and
    marked; a call through an overridden method has `through`.""")
def call_graph(call: Call, a: CallGraphArgs) -> CallGraphResult:
    def run(v: View, info: SymbolInfo) -> CallGraphResult:
        nodes = _Nodes(v)
        nodes.load([info.id])
        kind = nodes.kind(info.id)
        if kind not in CALLABLE_KINDS:
            raise invalid(f"call_graph takes a method or constructor; {info.dotted or info.name} is a "
                          f"{kind or 'symbol'}. For a class, pass the key of one of its constructors "
                          f"(find_symbol with kind CONSTRUCTOR).", field="symbolKey")
        scope = None if a.include_tests else "main"
        ids = {info.id: 0}
        order = [info.id]
        depth_of = {info.id: 0}
        parent: dict[int, int] = {}
        edges: list[Edge] = []
        seen_edges: dict[tuple[int, int, int | None], Edge] = {}
        expanded: set[int] = set()
        truncated = False
        frontier = [info.id]
        for level in range(1, a.depth + 1):
            if not frontier or truncated:
                break
            cap = ROWS_PER_EDGE * a.limit
            pairs = (_callers(v, frontier, scope, cap) if a.direction == "in"
                     else _callees(v, frontier, scope, cap))
            if len(pairs) >= cap:
                truncated = True          # more call sites than this answer reads at one level
            expanded.update(frontier)
            nxt = []
            for src, other, row, through in pairs:
                same = seen_edges.get((src, other, through))
                if same is not None:
                    same.sites += 1
                    continue
                if len(edges) >= a.limit:
                    truncated = True
                    break
                new = other not in ids
                cycle = False
                if new:
                    ids[other] = len(order)
                    order.append(other)
                    depth_of[other] = level
                    parent[other] = src
                    nxt.append(other)
                else:
                    cycle = _ancestor(parent, src, other)
                caller, callee = (other, src) if a.direction == "in" else (src, other)
                edge = Edge.model_validate({"from": ids[caller], "to": ids[callee], "kind": row.kind,
                                            "path": row.path, "line": row.line + 1, "column": row.col + 1})
                if through is not None:
                    if through not in ids:
                        ids[through] = len(order)
                        order.append(through)
                        depth_of[through] = depth_of[src]
                        expanded.add(through)      # its callers are src's: they are walked with src
                    edge.through = ids[through]
                if cycle:
                    edge.cycle = True
                edges.append(edge)
                seen_edges[(src, other, through)] = edge
            frontier = nxt
        nodes.load(order)
        overriders: dict[int, int] = {}
        if a.direction == "out":
            callees = order[1:]
            for rel in v.r.relations(callees, direction="to", kinds=["overrides"]) if callees else []:
                overriders[rel.to_id] = overriders.get(rel.to_id, 0) + 1
        out_nodes = []
        tests = []
        for sid in order:
            node = GraphNode(**nodes.fields(sid, full=sid == info.id), id=ids[sid], depth=depth_of[sid])
            if sid not in expanded and depth_of[sid] > 0:
                node.expanded = False
            if sid in overriders:
                node.overriders = overriders[sid]
            if a.direction == "in" and a.include_tests and _is_test(v, nodes.decl(sid)):
                node.test = True
                tests.append(ids[sid])
            out_nodes.append(node)
        result = CallGraphResult(root=0, direction=a.direction, nodes=out_nodes, edges=edges,
                              truncated=truncated, **v.envelope())
        if a.direction == "in":
            if a.include_tests:
                result.affectedTests = tests
            decl = nodes.decl(info.id)
            cov = coverage(v.r, info, decl, None, scope, v.ws.memo(v.gen.number))
            result.callerCoverage = cov["callerCoverage"]
            result.coverageBlockers = cov["coverageBlockers"]["count"]
        return result

    graph: CallGraphResult = _open(call.spaces, a.symbolKey, run)
    return graph


def _ancestor(parent: dict[int, int], start: int, target: int) -> bool:
    """Whether target is start or on start's discovery path back to the root."""
    node: int | None = start
    hops = 0
    while node is not None and hops < 100:
        if node == target:
            return True
        node = parent.get(node)
        hops += 1
    return False


def _callers(v: View, frontier: list[int], scope: str | None,
             cap: int) -> list[tuple[int, int, CallSite, int | None]]:
    """(frontier node, caller, call site, overridden method named at the site or None)."""
    via: dict[int, list[tuple[int, int | None]]] = {}
    ups = _overridden_all(v, frontier)
    for sid in frontier:
        via.setdefault(sid, []).append((sid, None))
        for up in ups[sid]:
            via.setdefault(up, []).append((sid, up))
    rows = v.r.call_sites(sorted(via), by="target", scope=scope, limit=cap)
    out = []
    for row in rows:
        if row.container_id is None or row.flags & NOT_A_CALL:
            continue
        for sid, through in via[row.target_id]:
            out.append((sid, row.container_id, row, through))
    return out


def _callees(v: View, frontier: list[int], scope: str | None,
             cap: int) -> list[tuple[int, int, CallSite, int | None]]:
    rows = [r for r in v.r.call_sites(frontier, by="container", limit=cap) if not r.flags & NOT_A_CALL]
    if scope is not None:
        decls = v.first_decls({r.target_id for r in rows})
        rows = [r for r in rows if (d := decls.get(r.target_id)) is None or scope_matches(scope, d.scope)]
    return [(row.container_id, row.target_id, row, None) for row in rows if row.container_id is not None]


# outline ---------------------------------------------------------------------


OUTLINES_KEPT = 128
_OUTLINES: OrderedDict[tuple[str, int, str, int], tuple[Lines | None, tuple[list[OutlineItem], int, bool]]] = \
    OrderedDict()
"""The last outlines built, per workspace, generation, file and limit, each with the source lines it
was read from (`Sources.lines` hands back the same list while the file is unchanged, so an edited
file is read anew). A generation never changes; the items are not modified once built."""
_OUTLINES_LOCK = threading.Lock()


@tool("outline", args=OutlineArgs, result=OutlineResult, description="""
    The declarations of one file as a tree: key, kind, name, signature and modifiers as written,
    range, line of the name. Also a library file that goToDefinition returned.""")
def outline(call: Call, a: OutlineArgs) -> OutlineResult:
    ws = call.spaces.pick(a.repo)
    library = library_file(ws.state, a.path)
    if library is not None:         # a library file that goToDefinition or describe extracted
        with viewing(ws) as v:
            return library_outline(v, library, a.limit)
    rel = workspace_path(ws.spellings, a.path)
    with viewing(ws) as v:
        reader = v.r
        v.require_fresh()
        info = reader.file(rel)
        if info is None:
            raise _no_file(v, ws, rel)
        lines = ws.sources.lines(rel, ws.encoding(v.gen, info.module))
        memo_key = (str(ws.root), v.gen.number, rel, a.limit)
        with _OUTLINES_LOCK:
            hit = _OUTLINES.get(memo_key)
            if hit is not None and hit[0] is not lines:
                hit = None                    # the file changed on disk since: built anew
            if hit is not None:
                _OUTLINES.move_to_end(memo_key)
        if hit is not None:
            roots, total, truncated = hit[1]
            return OutlineResult(path=rel, module=info.module, scope=info.scope,
                                 bindingComplete=info.binding_complete, declarations=roots, total=total,
                                 truncated=truncated, **v.envelope())
        decls = sq.file_declarations(reader, rel, members_only=True)
        container = {d.symbol_id: _parent(d) for d in decls}
        shown = [d for d in decls if d.kind not in OUTLINE_SKIP]
        shown.sort(key=lambda d: (d.span.start_line, d.span.start_char, -d.span.end_line,
                                  -d.span.end_char, d.kind != "ENUM_CONSTANT"))
        ids = {d.symbol_id for d in shown}
        items: dict[int, OutlineItem] = {}
        kids: dict[int | None, list[int]] = {}
        count = 0
        for d in shown:
            up = container.get(d.symbol_id)
            hops = 0
            while up is not None and up not in ids and hops < 100:
                up = container.get(up)
                hops += 1
            if up is not None and up not in items:
                continue                      # its parent was cut by the limit
            if count >= a.limit:
                continue
            anonymous = not d.name
            h = None if anonymous else declaration_header(lines, d.span, d.name_span, d.kind)
            item = OutlineItem(
                symbolKey=v.key(d.symbol_id, d.key), kind=d.kind, name=d.name or "<anonymous>",
                range=_range(h.span if h is not None and h.span is not None else d.span),
                line=d.name_span.start_line + 1)
            if h is not None:
                item.signature = h.signature
                if h.modifiers:
                    item.modifiers = h.modifiers
            items[d.symbol_id] = item
            count += 1
            kids.setdefault(up, []).append(d.symbol_id)

        roots = [_finish(items, kids, sid) for sid in kids.get(None, [])]
        with _OUTLINES_LOCK:
            _OUTLINES[memo_key] = (lines, (roots, len(shown), count < len(shown)))
            while len(_OUTLINES) > OUTLINES_KEPT:
                _OUTLINES.popitem(last=False)
        return OutlineResult(path=rel, module=info.module, scope=info.scope,
                          bindingComplete=info.binding_complete, declarations=roots, total=len(shown),
                          truncated=count < len(shown), **v.envelope())


def _finish(items: dict[int, OutlineItem], kids: dict[int | None, list[int]], sid: int) -> OutlineItem:
    """An outline item with its children (a module function: a recursive closure is a reference cycle)."""
    item = items[sid]
    if sid in kids:
        item.children = [dump(_finish(items, kids, k)) for k in kids[sid]]
    return item


def _no_file(v: View, ws: Served, rel: str) -> QueryError:
    return QueryError("not_found", f"{rel} is not a source file of generation {v.gen.number} of "
                      f"{ws.slug}; pass the path of an indexed .java file (relative to {ws.root}).")


# diagnostics -----------------------------------------------------------------


@tool("diagnostics", args=DiagnosticsArgs, result=DiagnosticsResult, description="""
    The compiler's errors per file at the last sync (syntax, unresolved names and types) and
    each file's binding-completeness; filter by path, module or scope.""")
def diagnostics(call: Call, a: DiagnosticsArgs) -> DiagnosticsResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        reader = v.r
        module = v.module_arg(a.module)
        rel = workspace_path(ws.spellings, a.path) if a.path is not None else None
        args = a.model_dump(exclude={"cursor"})
        start = cursor_offset(v, "diagnostics", args, a.cursor)
        if rel is not None:
            one = reader.file(rel)
            if one is None:
                raise _no_file(v, ws, rel)
            files = [one] if module in (None, one.module) and scope_matches(a.scope, one.scope) else []
        else:
            files = reader.files(module=module, scope=a.scope)
        total = reader.count_problems(path=rel, module=module, scope=a.scope) if files else 0
        rows = reader.problems(path=rel, module=module, scope=a.scope, limit=start + a.limit) if files else []
        page = rows[start:start + a.limit]
        by_path: dict[str, FileDiagnostics] = {}
        infos = {f.path: f for f in files}
        listed = [f for f in files if rel is not None or not f.binding_complete or f.problems]
        for f in listed:
            if start == 0 or any(p.path == f.path for p in page):
                by_path[f.path] = FileDiagnostics(path=f.path, module=f.module, scope=f.scope,
                                                  bindingComplete=f.binding_complete,
                                                  problems=[], failure=f.failure)
        for p in page:
            fd = by_path.get(p.path)
            if fd is None:
                f = infos[p.path]
                fd = by_path[p.path] = FileDiagnostics(path=f.path, module=f.module, scope=f.scope,
                                                       bindingComplete=f.binding_complete, problems=[],
                                                       failure=f.failure)
            fd.problems.append(Problem(kind=p.kind, name=p.name or None, message=p.message,
                                       line=p.span.start_line + 1, column=p.span.start_char + 1,
                                       range=_range(p.span)))
        out = DiagnosticsResult(files=sorted(by_path.values(), key=lambda f: f.path), total=total,
                             filesNotBindingComplete=sum(1 for f in files if not f.binding_complete),
                             **v.envelope())
        if start + a.limit < total:
            out.nextCursor = new_cursor(v, "diagnostics", args, start + a.limit)
        live = ws.freshness.live_fields()
        if live is not None and live.get("lastEdit") is not None:
            out.lastEdit = live["lastEdit"]
        return out


# describe --------------------------------------------------------------------


def _parent(d: DeclRow) -> int | None:
    """The enclosing declaration (a top-level type is stored as its own container)."""
    return None if d.container_id == d.symbol_id else d.container_id


def _declaring_type(v: View, d: DeclRow | None) -> int | None:
    up = _parent(d) if d is not None else None
    hops = 0
    while up is not None and hops < 100:
        c = v.first_decls([up])[up]
        if c is None or c.kind in TYPE_KINDS:
            return up
        up = c.container_id
        hops += 1
    return None


@tool("describe", args=DescribeArgs, result=DescribeResult, description="""
    One symbol in full: signature, modifiers, declaring type, annotations, Javadoc, what it
    overrides, counts of references, call sites and implementations.""")
def describe(call: Call, a: DescribeArgs) -> DescribeResult:
    def run(v: View, info: SymbolInfo) -> DescribeResult:
        nodes = _Nodes(v)
        nodes.load([info.id])
        d = nodes.decl(info.id)
        kind = nodes.kind(info.id)
        h = _header(v, d) if d is not None and d.name else None
        if d is None and info.external:     # a library symbol: read from its sources (library_view)
            h = library_header(v, info, allow_online=call.allow_online)
        owner = _declaring_type(v, d)
        if d is None and info.dotted and "." in info.dotted and kind not in TYPE_KINDS:
            owner = None   # a library member: its type is named by its dotted path
        overrides = [r.to_id for r in v.r.relations([info.id], direction="from", kinds=["overrides"])]
        nodes.load(overrides)
        counts = Counts(references=v.r.count_references(info.id))
        if kind in CALLABLE_KINDS:
            counts.callers = sq.count_calls(v.r, info.id)
            counts.implementations = len(_overriders(v, info.id))
        elif kind in TYPE_KINDS:
            nodes.load(s := _all_subtypes(v, info.id))
            counts.implementations = len(s)
        return DescribeResult(
            symbol=nodes.node(info.id), signature=h.signature if h else None,
            modifiers=h.modifiers if h else [], declaringType=nodes.node(owner) if owner else None,
            annotations=h.annotations if h else [], javadoc=h.javadoc if h else None,
            overrides=[nodes.node(s) for s in dict.fromkeys(overrides)], counts=counts,
            **v.envelope())

    result: DescribeResult = _open(call.spaces, a.symbolKey, run)
    return result

