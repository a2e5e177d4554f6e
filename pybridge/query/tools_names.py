"""The name tools: findReferences, goToDefinition, callHierarchy, get_callers.

They take a name (see `resolve`), answer from the published generation even
when files changed since (the envelope then says `stale: true`), and report
no match as `not_found` and several as `ambiguous`. Calls are references of
kind invocation, construction and method_reference, without Javadoc mentions
(`{@link #m()}` is not a call).

They answer in the shapes of the seed documents (`../shared/seeds/`, DESIGN
section 7): `symbol` echoes the name asked; `resolvedSymbol` is the SCIP
symbol it resolved to, present only when the name asked was not that string;
the symbol's full object (with the `symbolKey` that leads to the exact tools)
is `symbolInfo`. pybridge's own fields stand beside the seed's, and no row
points into a table (compaction is for pybridge's own tools).

Results (plus the freshness envelope)::

    findReferences  (seed 000) {"symbol", "resolvedSymbol"?, "symbolInfo",
                     "references": [{"path", "range", + "kind" (a reference kind, or
                     "definition"), "module", "scope", "container": summary | null, "context",
                     "javadoc"?, "import"?, "generated"?, "via"?}],
                     "total", "truncated", "meta"}
    goToDefinition  (seed 000's resolution) {"symbol", "resolvedSymbol"?, "symbolInfo",
                     "definitions": [{"path", "range", "fullRange", "module", "scope", "context"}]}
    callHierarchy   (seed 003) {"symbol", "resolvedSymbol"?, "symbolInfo",
                     "incomingCalls": [call], "outgoingCalls": [call],
                     "incomingTotal", "outgoingTotal", "truncated"}
                     call = {"symbol": {"symbol" (SCIP), "displayName", "kind", + "symbolKey",
                             "dottedPath", "display"}, "location": {"path", "range"},
                             + "kind" (invocation, construction, method_reference), "context"}
    get_callers     (seed 002) {"symbol", "callers": [{"path", "line", "column", "caller_fn",
                     "repo" (the workspace root), "snippet", + "slug"}], "total", "truncated",
                     "resolvedSymbol"?, "workspaces": [envelope + repo, slug, generation…],
                     "notSynced"? (served workspaces skipped because never synced)}

`findReferences` lists at most `limit` occurrences (default 100) and
`callHierarchy` at most `limit` calls per direction (default 50); `get_callers`
at most `max_results` (default 100). Given no limit, an answer is also cut by
bytes (`view.fit`, 32 KB): `total`s and `truncated` say when more exist
(find_references pages them all). A limit the caller gave is honoured as given.
`get_callers` positions are 1-based, the column counted in Unicode code
points (characters as Python and most editors count them).
"""

from __future__ import annotations

from typing import Any

from pybridge.facts import REF_IN_JAVADOC, codepoints
from pybridge.store import CALL_KINDS, Reader, RefRow, SymbolInfo

from .coverage import coverage
from .errors import QueryError
from .freshness import combine
from .library_view import library_definitions
from .models import CallHierarchyArgs, FindReferencesByNameArgs, GetCallersArgs, GoToDefinitionArgs
from .registry import Call, tool
from .resolve import Resolved, ambiguous, not_found, resolve, resolved_candidate
from .results import CallHierarchyResult, FindReferencesByNameResult, GetCallersResult, GoToDefinitionResult
from .source import snippet
from .view import View, fit, qualified, rng, viewing

_BATCH = 500


def _resolve(v: View, text: str) -> Resolved:
    res = resolve(v, text)
    if res is None:
        raise not_found(text, f"{v.ws.slug} (generation {v.gen.number})")
    return res


def _resolved_symbol(v: View, res: Resolved, text: str) -> dict[str, Any]:
    """`resolvedSymbol`: the SCIP symbol, when the name asked was not that very string."""
    scip = v.scip(res.decls[0].scip, res.decls[0].module) if res.decls else v.scip(
        res.external.scip if res.external is not None else None, None)
    return {"resolvedSymbol": scip} if scip is not None and scip != text else {}


def _head(v: View, res: Resolved, text: str) -> dict[str, Any]:
    """What a name tool's answer starts with: the name asked, the SCIP symbol it resolved to (when
    it was not that), and the symbol's full object."""
    info = v.symbol(res.decls[0]) if res.decls else v.symbol_of(_info(v, res))
    return {"symbol": text, **_resolved_symbol(v, res, text), "symbolInfo": info}


def _info(v: View, res: Resolved) -> SymbolInfo:
    if res.external is not None:
        return res.external
    info = v.r.symbol(res.symbol_id)
    assert info is not None, "a resolved symbol has its row"
    return info


def calls_to(r: Reader, sid: int, *, scope: str | None = None, limit: int) -> tuple[list[RefRow], int]:
    """Up to `limit` call references to the symbol (Javadoc mentions left out), and their total.

    Javadoc mentions of methods are method_reference references (never
    invocation or construction), so the total counts those two kinds and the
    method references outside Javadoc."""
    total = r.count_references(sid, kinds=["invocation", "construction"], scope=scope)
    total += sum(1 for x in r.references(sid, kinds=["method_reference"], scope=scope)
                 if not x.flags & REF_IN_JAVADOC)
    rows: list[RefRow] = []
    after = None
    while len(rows) < limit:
        page = r.references(sid, kinds=CALL_KINDS, scope=scope, after=after, limit=_BATCH)
        rows += [x for x in page if not x.flags & REF_IN_JAVADOC]
        if len(page) < _BATCH:
            break
        after = page[-1].sort_key
    return rows[:limit], total


@tool("findReferences", args=FindReferencesByNameArgs, result=FindReferencesByNameResult,
      description="""
    Every occurrence of a named symbol, definition included, up to limit (total, truncated).
    Paging, kind filters: find_references with symbolInfo.symbolKey.""")
def find_references_by_name(call: Call, a: FindReferencesByNameArgs) -> FindReferencesByNameResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        res = _resolve(v, a.symbol)
        sid = res.symbol_id
        targets = [sid, *v.generated_accessors(sid)]    # a field: also its generated accessors' calls
        rows = v.r.references(targets, limit=a.limit)
        total = v.r.count_references(targets) + len(res.decls)
        refs, containers = v.references(rows, sid)
        for x in refs:      # the container itself in each row: a seed tool's rows point into no table
            x["container"] = containers[x["container"]] if x["container"] is not None else None
        items = [v.definition(d) for d in res.decls] + refs
        items.sort(key=lambda x: (x["path"], x["range"]["start"]["line"],
                                  x["range"]["start"]["character"], x["kind"] != "definition"))
        items = items[:a.limit]
        info = _info(v, res)
        meta = {"generation": v.gen.number, "total": total,
                **v.flat_blockers(coverage(v.r, info, res.decl, None, None, ws.memo(v.gen.number))),
                "limitations": v.limitations()}
        head = _head(v, res, a.symbol)
        env = v.envelope()

        def build(k: int) -> dict[str, Any]:
            return {**head, "references": items[:k], "total": total, "truncated": total > k, "meta": meta,
                    **env}

        answer, _ = fit(build, len(items), limit_given="limit" in a.model_fields_set)
        return FindReferencesByNameResult.model_validate(answer)


@tool("goToDefinition", args=GoToDefinitionArgs, result=GoToDefinitionResult, description="""
    The declaration sites of a named symbol: path, range of the name, full range, source
    line.""")
def go_to_definition(call: Call, a: GoToDefinitionArgs) -> GoToDefinitionResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        res = _resolve(v, a.symbol)
        if res.external is not None:
            return GoToDefinitionResult.model_validate({**_head(v, res, a.symbol), **library_definitions(
                v, res.external, allow_online=call.allow_online), **v.envelope()})
        definitions = [{
            "path": d.path, "range": rng(d.name_span), "fullRange": rng(d.span), "module": d.module,
            "scope": d.scope,
            "context": snippet(v.line_text(d.path, d.module, d.name_span.start_line), d.name_span.start_char),
        } for d in res.decls]
        return GoToDefinitionResult.model_validate({**_head(v, res, a.symbol), "definitions": definitions,
                                                    **v.envelope()})


def _call(v: View, r: RefRow, peer: dict[str, Any] | None) -> dict[str, Any]:
    """One call of callHierarchy: the seed's `symbol` (the caller or callee) and `location` (the call
    site), then the reference's kind and source line."""
    return {"symbol": _peer(peer) if peer is not None else None,
            "location": {"path": r.path, "range": rng(r.span)}, "kind": r.kind,
            "context": snippet(v.line_text(r.path, r.module, r.span.start_line), r.span.start_char)}


def _peer(summary: dict[str, Any]) -> dict[str, Any]:
    """A caller or callee as seed 003 names it: SCIP `symbol`, `displayName` (the simple name) and
    `kind`, then its key, dotted path and display (`greet(String)`)."""
    dotted, display = summary.get("dottedPath"), summary.get("display") or ""
    name = dotted.rsplit(".", 1)[-1] if dotted else display.split("(", 1)[0]
    return {"symbol": summary.get("symbol") or "", "displayName": name, "kind": summary.get("kind") or "",
            "symbolKey": summary["symbolKey"], "dottedPath": dotted, "display": display or None}


def _without_class_twins(rows: list[RefRow], callees: dict[int, dict[str, Any]]) -> list[RefRow]:
    """`new Circle(2.0)` is one construction reference to the constructor and one to
    the class at the same token: the constructor is the callee (the class stays
    when no constructor is declared, as for a default constructor)."""
    ctor_sites = {(x.path, x.span) for x in rows if x.kind == "construction"
                  and (callees.get(x.target_id) or {}).get("kind") == "CONSTRUCTOR"}
    return [x for x in rows if not (x.kind == "construction" and (x.path, x.span) in ctor_sites
                                    and (callees.get(x.target_id) or {}).get("kind") != "CONSTRUCTOR")]


@tool("callHierarchy", args=CallHierarchyArgs, result=CallHierarchyResult, description="""
    One level of calls of a named method: incomingCalls (callers) and outgoingCalls (callees)
    with call sites, up to limit per direction (totals, truncated).""")
def call_hierarchy(call: Call, a: CallHierarchyArgs) -> CallHierarchyResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        res = _resolve(v, a.symbol)
        sid = res.symbol_id
        incoming, incoming_total = calls_to(v.r, sid, limit=a.limit)
        outgoing_all = [x for x in v.r.calls_from(sid) if not x.flags & REF_IN_JAVADOC]
        callees = v.summaries({x.target_id for x in outgoing_all})
        outgoing_all = _without_class_twins(outgoing_all, callees)
        outgoing = outgoing_all[:a.limit]
        callers = v.summaries({x.container_id for x in incoming if x.container_id},
                              {x.container_id: x.module for x in incoming if x.container_id})
        incoming_calls = [_call(v, x, callers.get(x.container_id) if x.container_id else None)
                          for x in incoming]
        outgoing_calls = [_call(v, x, callees.get(x.target_id)) for x in outgoing]
        head = _head(v, res, a.symbol)
        env = v.envelope()

        def build(k: int) -> dict[str, Any]:
            ins, outs = incoming_calls[:k], outgoing_calls[:k]
            return {**head, "incomingCalls": ins, "outgoingCalls": outs,
                    "incomingTotal": incoming_total, "outgoingTotal": len(outgoing_all),
                    "truncated": incoming_total > len(ins) or len(outgoing_all) > len(outs), **env}

        answer, _ = fit(build, max(len(incoming_calls), len(outgoing_calls)),
                        limit_given="limit" in a.model_fields_set)
        return CallHierarchyResult.model_validate(answer)


@tool("get_callers", args=GetCallersArgs, result=GetCallersResult, description="""
    Call sites of a method or constructor by name (path, line, column, caller_fn, snippet), up to
    max_results (total, truncated); every served workspace unless repo is given.""")
def get_callers(call: Call, a: GetCallersArgs) -> GetCallersResult:
    spaces = call.spaces
    targets = [spaces.pick(a.repo)] if a.repo is not None else list(spaces.served)
    scope = None if a.include_tests else "main"
    callers: list[dict[str, Any]] = []
    resolved_symbol: dict[str, Any]
    total, envelopes, resolved_symbol, unsynced, ambiguities, resolved = 0, [], {}, [], [], []
    for ws in targets:
        try:
            reader = ws.reader()
        except QueryError as exc:
            if a.repo is not None or exc.code != "not_synced":
                raise
            unsynced.append(ws.slug)
            continue
        with reader:
            v = View(ws, reader)
            try:
                res = resolve(v, a.symbol)
            except QueryError as exc:
                if exc.code != "ambiguous":
                    raise
                ambiguities.append(exc)
                continue
            if res is None:
                continue
            resolved.append(resolved_candidate(v, res))
            resolved_symbol = resolved_symbol or _resolved_symbol(v, res, a.symbol)
            rows, count = calls_to(reader, res.symbol_id, scope=scope,
                                   limit=max(a.max_results - len(callers), 0))
            total += count
            fns = v.summaries({x.container_id for x in rows if x.container_id},
                              {x.container_id: x.module for x in rows if x.container_id})
            root = str(ws.root)
            for x in rows:
                line = v.line_text(x.path, x.module, x.span.start_line)
                fn = fns.get(x.container_id) if x.container_id else None
                callers.append({
                    "path": x.path,
                    "line": x.span.start_line + 1,
                    "column": (codepoints(line, x.span.start_char) if line is not None
                               else x.span.start_char) + 1,
                    "caller_fn": qualified(fn["dottedPath"], fn["display"], fn["kind"]) if fn else None,
                    "repo": root,
                    "snippet": snippet(line, x.span.start_char) or "",
                    "slug": ws.slug,
                })
            envelopes.append({"repo": root, "slug": ws.slug, "generation": v.gen.number, **v.envelope()})
    if len(unsynced) == len(targets):
        raise (targets[0].not_synced() if len(targets) == 1 else QueryError(
            "not_synced", "None of the served workspaces has been synced yet; call sync (with repo) "
                          "first."))
    if ambiguities:   # ambiguous anywhere: name one symbol, whichever workspace declares it
        candidates = [c for exc in ambiguities for c in exc.extra["candidates"]] + resolved
        raise ambiguous(a.symbol, candidates,
                        sum(exc.extra["candidateTotal"] for exc in ambiguities) + len(resolved))
    if not envelopes:
        where = targets[0].slug if len(targets) == 1 else "any served workspace"
        raise not_found(a.symbol, where)
    more = {"notSynced": unsynced} if unsynced else {}
    env = combine(envelopes)

    def build(k: int) -> dict[str, Any]:
        return {"symbol": a.symbol, "callers": callers[:k], "total": total, "truncated": total > k,
                **resolved_symbol, "workspaces": envelopes, **more, **env}

    return GetCallersResult.model_validate(fit(build, len(callers), limit_given="max_results" in a.model_fields_set)[0])
