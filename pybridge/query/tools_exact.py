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
    find_references {"symbol": symbol, "references": [reference…],
                     "relations": {"overrides", "overriddenBy", "extends", "extendedBy",
                                   "implements", "implementedBy": [summary…]},
                     "meta": {"generation", "total", "referenceCoverage", "callerCoverage",
                              "coverageBlockers": {"count", "places"}, "limitations"},
                     "nextCursor"?}
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pybridge.facts import REF_KINDS
from pybridge.store import DeclRow
from pybridge.store.structure import external_symbols

from .coverage import coverage
from .errors import QueryError
from .models import FindReferencesArgs, FindSymbolArgs, SymbolAtArgs
from .paging import check_generation, cursor_position, new_cursor, open_key
from .resolve import lookup
from .source import check_position, workspace_path
from .view import View, rng
from .workspace import Served, Workspaces

RELATION_NAMES = {
    ("from", "overrides"): "overrides", ("to", "overrides"): "overriddenBy",
    ("from", "extends"): "extends", ("to", "extends"): "extendedBy",
    ("from", "implements"): "implements", ("to", "implements"): "implementedBy",
}


@contextmanager
def viewing(ws: Served) -> Iterator[View]:
    reader = ws.reader()
    try:
        yield View(ws, reader)
    finally:
        reader.close()


def find_symbol(spaces: Workspaces, a: FindSymbolArgs) -> dict:
    ws = spaces.pick(a.repo)
    with viewing(ws) as v:
        module = v.module_arg(a.module)
        args = a.model_dump(exclude={"cursor"})
        start = 0
        if a.cursor is not None:
            start = cursor_position(v, "find_symbol", args, a.cursor)
            if not isinstance(start, int) or isinstance(start, bool) or start < 0:
                raise QueryError("invalid_cursor", "This cursor is garbled; repeat the query without "
                                 "a cursor.")
        seen: set[int] = set()
        found: list[DeclRow] = []
        for d in lookup(v, a.query):
            if ((a.kind is None or d.kind == a.kind) and module in (None, d.module)
                    and a.scope in (None, d.scope) and d.symbol_id not in seen):
                seen.add(d.symbol_id)
                found.append(d)
        page = found[start:start + a.limit]
        out: dict = {"symbols": [v.symbol(d) for d in page], "total": len(found)}
        if not found and a.module is None and a.scope is None:   # a library or JDK type by its name
            library = [s for s in external_symbols(v.r, a.query) if a.kind in (None, s.kind)]
            if library:
                return {"symbols": [v.symbol_of(s) for s in library[:a.limit]], "total": len(library),
                        **v.envelope()}
        if start + a.limit < len(found):
            out["nextCursor"] = new_cursor(v, "find_symbol", args, start + a.limit)
        if not found:
            out["hint"] = ("No declaration matches. Names are exact and case-sensitive: try the simple "
                           "name, drop the parameter list or the filters; parameters and locals are "
                           "found with symbol_at.")
        out.update(v.envelope())
        return out


def _at_rank(hit, line: int, character: int, target_kind: str | None) -> tuple:
    span = hit.name_span if isinstance(hit, DeclRow) else hit.span
    at_end = (span.end_line, span.end_char) == (line, character)
    kind = -1 if isinstance(hit, DeclRow) else REF_KINDS.index(hit.kind)
    return (at_end, kind, 0 if target_kind == "CONSTRUCTOR" else 1)


def symbol_at(spaces: Workspaces, a: SymbolAtArgs) -> dict:
    ws = spaces.pick(a.repo)
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
        return {"symbol": symbols[0], "alternatives": symbols[1:], **v.envelope()}


def relations(v: View, sid: int) -> dict:
    rows = v.r.relations(sid)
    others = {row.to_id if row.from_id == sid else row.from_id for row in rows}
    summaries = v.summaries(others)
    out: dict[str, list] = {name: [] for name in RELATION_NAMES.values()}
    for row in rows:
        for side, this, other in (("from", row.from_id, row.to_id), ("to", row.to_id, row.from_id)):
            items = out[RELATION_NAMES[(side, row.kind)]]
            if this == sid and other in summaries and summaries[other] not in items:
                items.append(summaries[other])
    return out


def find_references(spaces: Workspaces, a: FindReferencesArgs) -> dict:
    ws, reader, parsed, info = open_key(spaces, a.symbolKey)
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
        rows = reader.references(info.id, module=module, scope=a.scope, after=after,
                                 limit=a.limit + 1)
        more, rows = len(rows) > a.limit, rows[:a.limit]
        decl = v.first_decls([info.id])[info.id]
        out: dict = {
            "symbol": v.symbol_of(info),
            "references": v.references(rows),
            "relations": relations(v, info.id),
            "meta": {
                "generation": v.gen.number,
                "total": reader.count_references(info.id, module=module, scope=a.scope),
                **coverage(reader, info, decl, module, a.scope, ws.memo(v.gen.number)),
                "limitations": v.limitations(module, a.scope),
            },
        }
        if more:
            out["nextCursor"] = new_cursor(v, "find_references", args, list(rows[-1].sort_key))
        out.update(v.envelope())
        return out
    finally:
        reader.close()

