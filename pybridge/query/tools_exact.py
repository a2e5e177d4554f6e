"""The exact discovery and reference tools: find_symbol, symbol_at, find_references.

`find_references` and `symbol_at` work on positions and keys of the synced
code, so they refuse a workspace whose files changed since the sync
(`stale_snapshot`). `find_symbol` is discovery by name: it answers and marks
the envelope stale, like the name tools.

Results (plus the freshness envelope)::

    find_symbol     {"symbols": [symbol…], "total", "nextCursor"?, "hint"? (when empty)}
    symbol_at       {"symbol": symbol + "occurrence": {"role": "definition"|"reference",
                                                        "kind", "range"},
                     "alternatives": [the other symbols named at the same position, e.g. the
                                      class of `new Circle(…)` after its constructor]}
    find_references {"symbol": symbol, "references": [reference… ("module" and "scope" only where
                     they differ from "shared")], "shared": {"module", "scope"}? (when not empty),
                     "containers": [{"symbolKey", "name"}…] (view.container),
                     "relations": {"overrides", "overriddenBy", "extends", "extendedBy",
                                   "implements", "implementedBy": [summary…],
                                   "generatedFrom"?, "generatedAccessors"? (Lombok; only when not empty),
                                   "totals"? (per list, when a list was cut at RELATION_SHOWN)},
                     "meta": {"generation", "total", "referenceCoverage", "callerCoverage",
                              "coverageBlockers": {"count", "places": [{"path", "line",
                              "column" (1-based), "reason"}]}, "limitations"},
                     "nextCursor"?}

`find_references` filters: `kinds` (reference kinds), `include_javadoc` and
`include_imports` (default true: omitted, the answer is every reference).
`meta.total` counts what the filters keep. Coverage is the symbol's, whatever
the kind filters: it says whether any reference could be missing.

`find_references` pages (seed 001): a page holds `limit` references (default
100, at most 500), exactly, and no byte bound cuts it. Its rows are kept small
instead: the source line without its indentation, cut around the reference
(`source.snippet`), the container as an index into `containers`, and the
module and scope said once in `shared` (a row carries its own only where they
differ). A default page of a much-used symbol is about 32 KB (bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pybridge.facts import REF_IN_IMPORT, REF_IN_JAVADOC, REF_KINDS
from pybridge.store import DeclRow, Reader, RefRow, scope_matches
from pybridge.sync.meta import GenerationMeta

from .coverage import coverage
from .errors import QueryError
from .library import unused_class
from .models import FindReferencesArgs, FindSymbolArgs, SymbolAtArgs
from .paging import check_generation, cursor_offset, cursor_position, new_cursor, open_key
from .registry import Call, tool
from .resolve import lookup, lookup_external
from .results import FindReferencesResult, FindSymbolResult, SymbolAtResult
from .source import check_position, workspace_path
from .view import View, fit, rng, viewing

RELATION_SHOWN = 10     # summaries per relation list; `relations.totals` counts the rest
_BATCH = 500

RELATION_NAMES = {
    ("from", "overrides"): "overrides", ("to", "overrides"): "overriddenBy",
    ("from", "extends"): "extends", ("to", "extends"): "extendedBy",
    ("from", "implements"): "implements", ("to", "implements"): "implementedBy",
    ("from", "generated_from"): "generatedFrom", ("to", "generated_from"): "generatedAccessors",
}


@tool("find_symbol", args=FindSymbolArgs, result=FindSymbolResult, description="""
    Find declarations by name: symbolKey, SCIP symbol, dotted path, kind, declaration, module and
    scope. Pass the symbolKey to find_references.""")
def find_symbol(call: Call, a: FindSymbolArgs) -> FindSymbolResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        module = v.module_arg(a.module)
        args = a.model_dump(exclude={"cursor"})
        start = cursor_offset(v, "find_symbol", args, a.cursor)
        seen: set[int] = set()
        found: list[DeclRow] = []
        for d in lookup(v, a.query):
            if ((a.kind is None or d.kind == a.kind) and module in (None, d.module)
                    and scope_matches(a.scope, d.scope) and d.symbol_id not in seen):
                seen.add(d.symbol_id)
                found.append(d)
        limit_given = "limit" in a.model_fields_set
        env = v.envelope()
        if not found and a.module is None and a.scope is None:   # a library or JDK type by its name
            library = [s for s in lookup_external(v, a.query) if a.kind in (None, s.kind)]
            if library:
                shown = [v.symbol_of(s) for s in library[:a.limit]]
                return FindSymbolResult.model_validate(fit(
                    lambda k: {"symbols": shown[:k], "total": len(library), **env}, len(shown),
                    limit_given=limit_given)[0])
        symbols = [v.symbol(d) for d in found[start:start + a.limit]]
        where = (unused_class(GenerationMeta.of(v.gen), a.query.strip(), ws.memo(v.gen.number))
                 if not found and "." in a.query else None)
        unused = (f"{a.query.strip()} is a class of {where} on the classpath, but no file of the workspace "
                  f"uses it: it has no references to list (and no symbolKey).") if where else None

        def build(k: int) -> dict[str, Any]:
            out: dict[str, Any] = {"symbols": symbols[:k], "total": len(found)}
            if start + k < len(found):
                out["nextCursor"] = new_cursor(v, "find_symbol", args, start + k)
            if not found:
                out["hint"] = unused or (
                    "No declaration matches. Names are exact and case-sensitive: try the "
                    "simple name, drop the parameter list or the filters; parameters and "
                    "locals are found with symbol_at.")
            return {**out, **env}

        return FindSymbolResult.model_validate(fit(build, len(symbols), limit_given=limit_given)[0])


def borrows_its_name(d: DeclRow) -> bool:
    """A declaration named at a token that belongs to another one: an anonymous
    class (`new Foo() {…}`, an enum constant's body `LARGE(10) {…}`) is declared
    at the name before its body, outside its own span."""
    return (d.span.start_line, d.span.start_char) > (d.name_span.start_line, d.name_span.start_char)


def _at_rank(hit: DeclRow | RefRow, line: int, character: int,
             target_kind: str | None) -> tuple[bool, bool, int, int]:
    """What a person means by a position: a name that ends there after one
    that contains it; the declaration named by the token before what it
    references, and both before an anonymous class that borrows the token
    (the constant `LARGE`, not `LARGE.<anonymous>`; the constructor and the
    class of `new Foo() {…}`, not the anonymous class); a constructor before
    its class at `new Foo(…)`."""
    span = hit.name_span if isinstance(hit, DeclRow) else hit.span
    at_end = (span.end_line, span.end_char) == (line, character)
    borrowed = isinstance(hit, DeclRow) and borrows_its_name(hit)
    kind = -1 if isinstance(hit, DeclRow) else REF_KINDS.index(hit.kind)
    return (at_end, borrowed, kind, 0 if target_kind == "CONSTRUCTOR" else 1)


@tool("symbol_at", args=SymbolAtArgs, result=SymbolAtResult, description="""
    The symbol declared or referenced at a position of a file, with its symbolKey. The way to
    reach parameters and locals.""")
def symbol_at(call: Call, a: SymbolAtArgs) -> SymbolAtResult:
    ws = call.spaces.pick(a.repo)
    rel = workspace_path(ws.spellings, a.path)
    with viewing(ws) as v:
        v.require_fresh()
        info = v.r.file(rel)
        if info is None:
            raise QueryError("not_found", f"{rel} is not a source file of generation {v.gen.number} "
                             f"of {ws.slug}; pass the path of an indexed .java file (relative to "
                             f"{ws.root}).")
        lines = ws.sources.lines(rel, ws.encoding(v.gen, info.module))
        check_position(rel, lines, a.line, a.character)
        hits = v.r.at(rel, a.line, a.character)
        targets = v.r.symbols({h.target_id for h in hits if not isinstance(h, DeclRow)})
        kinds = {sid: s.kind for sid, s in targets.items()}
        hits.sort(key=lambda h: _at_rank(h, a.line, a.character, h.kind if isinstance(h, DeclRow)
                                         else kinds.get(h.target_id)))
        symbols, seen = [], set()
        for h in hits:
            sid = h.symbol_id if isinstance(h, DeclRow) else h.target_id
            if sid in seen or (isinstance(h, DeclRow) and h.kind == "INITIALIZER"):
                continue
            seen.add(sid)
            if isinstance(h, DeclRow):
                obj = v.symbol(h)
                obj["occurrence"] = {"role": "definition", "kind": "definition",
                                     "range": rng(h.name_span)}
            else:
                target = targets.get(sid)
                if target is None:
                    continue
                obj = v.symbol_of(target)
                obj["occurrence"] = {"role": "reference", "kind": h.kind, "range": rng(h.span)}
            symbols.append(obj)
        if not symbols:
            raise QueryError("not_found", f"No name is declared or referenced at line {a.line}, "
                             f"character {a.character} of {rel} (0-based, UTF-16, as in LSP); point "
                             f"at a name's token.")
        return SymbolAtResult.model_validate({"symbol": symbols[0], "alternatives": symbols[1:],
                                              **v.envelope()})


def relations(v: View, sid: int, shown: int = RELATION_SHOWN) -> dict[str, Any]:
    """The compiler's relation facts of the symbol, each list cut at `shown` (`totals` then
    counts every list that was cut)."""
    ids: dict[str, list[int]] = {name: [] for name in RELATION_NAMES.values()}
    for row in v.r.relations(sid):
        for side, this, other in (("from", row.from_id, row.to_id), ("to", row.to_id, row.from_id)):
            items = ids[RELATION_NAMES[(side, row.kind)]]
            if this == sid and other not in items:
                items.append(other)
    summaries = v.summaries({i for items in ids.values() for i in items[:shown]})
    out: dict[str, Any] = {name: [summaries[i] for i in items[:shown] if i in summaries]
                 for name, items in ids.items()
                 if items or name not in ("generatedFrom", "generatedAccessors")}   # Lombok: when present
    totals = {name: len(items) for name, items in ids.items() if len(items) > shown}
    if totals:
        out["totals"] = totals
    return out


def _kept(a: FindReferencesArgs) -> Callable[[RefRow], bool] | None:
    skip = (0 if a.include_javadoc else REF_IN_JAVADOC) | (0 if a.include_imports else REF_IN_IMPORT)
    return (lambda r: not r.flags & skip) if skip else None


def _page(reader: Reader, sid: list[int], a: FindReferencesArgs, module: str | None,
          after: Sequence[object] | None) -> tuple[list[RefRow], bool, int]:
    """One page of references under the filters, whether more follow, and their total."""
    keep = _kept(a)
    kinds = list(a.kinds) if a.kinds else None
    if keep is None:
        rows = reader.references(sid, kinds=kinds, module=module, scope=a.scope, after=after,
                                 limit=a.limit + 1)
        total = reader.count_references(sid, kinds=kinds, module=module, scope=a.scope)
        return rows[:a.limit], len(rows) > a.limit, total
    rows = []
    while len(rows) <= a.limit:
        batch = reader.references(sid, kinds=kinds, module=module, scope=a.scope, after=after,
                                  limit=_BATCH)
        rows += [r for r in batch if keep(r)]
        if len(batch) < _BATCH:
            break
        after = batch[-1].sort_key
    total = sum(1 for r in reader.references(sid, kinds=kinds, module=module, scope=a.scope)
                if keep(r))
    return rows[:a.limit], len(rows) > a.limit, total


@tool("find_references", args=FindReferencesArgs, result=FindReferencesResult, description="""
    Every reference to one symbol, exact: path, range, kind, container, source line;
    overrides/extends/implements facts; pages of 100 (limit up to 500) with nextCursor.
    meta.referenceCoverage true: the list is complete (an empty one proves absence); false: read
    meta.coverageBlockers.""")
def find_references(call: Call, a: FindReferencesArgs) -> FindReferencesResult:
    ws, reader, parsed, info = open_key(call.spaces, a.symbolKey)
    try:
        v = View(ws, reader)
        v.require_fresh()
        check_generation(v, parsed, info)
        module = v.module_arg(a.module)
        args = a.model_dump(exclude={"cursor"})
        after = None
        if a.cursor is not None:
            after = cursor_position(v, "find_references", args, a.cursor)
            if (not isinstance(after, list) or len(after) != 5 or not isinstance(after[0], str)
                    or not all(isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2**62
                               for x in after[1:])):
                raise QueryError("invalid_cursor", "This cursor is garbled; repeat the query "
                                 "without a cursor.")
            after = tuple(after)
        # A field's references include the calls of its generated accessors (each row says `via`).
        targets = [info.id, *v.generated_accessors(info.id)]
        rows, more, total = _page(reader, targets, a, module, after)
        decl = v.first_decls([info.id])[info.id]
        items, containers = v.references(rows, info.id)
        out: dict[str, Any] = {"symbol": v.symbol_of(info), "references": items, **shared(items),
                               "containers": containers, "relations": relations(v, info.id), "meta": {
                                   "generation": v.gen.number,
                                   "total": total,
                                   **v.flat_blockers(coverage(reader, info, decl, module, a.scope,
                                                              ws.memo(v.gen.number))),
                                   "limitations": v.limitations(module, a.scope),
                               }, **v.envelope()}
        if more:
            out["nextCursor"] = new_cursor(v, "find_references", args, list(rows[-1].sort_key))
        return FindReferencesResult.prebuilt(out)
    finally:
        reader.close()


def shared(items: list[dict[str, Any]]) -> dict[str, Any]:
    """`shared`: the module and the scope most rows have, said once; the rows that have them drop
    theirs (in place). Nothing for an empty page."""
    if not items:
        return {}
    common = {}
    for field in ("module", "scope"):
        values = [x[field] for x in items]
        common[field] = max(dict.fromkeys(values), key=values.count)
        for x in items:
            if x[field] == common[field]:
                del x[field]
    return {"shared": common}
