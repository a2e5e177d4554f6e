"""The name tools: findReferences, goToDefinition, callHierarchy, get_callers.

They take a name (see `resolve`), answer from the published generation even
when files changed since (the envelope then says `stale: true`), and report
no match as `not_found` and several as `ambiguous`. `resolvedSymbol` (the
qualified name with its parameter list) appears only when it differs from
what was asked. Calls are references of kind invocation, construction and
method_reference, without Javadoc mentions (`{@link #m()}` is not a call).
Each answer also carries `symbol`, whose `symbolKey` leads to the exact
tools.

Results (plus the freshness envelope)::

    findReferences  {"symbol", "references": [reference… definitions included, as kind
                     "definition"], "containers": [summary…], "total", "truncated", "meta",
                     "resolvedSymbol"?}
    goToDefinition  {"symbol", "definitions": [{"path", "range", "fullRange", "module",
                     "scope", "context"}], "resolvedSymbol"?}
    callHierarchy   {"symbol", "symbols": [summary…], "incomingCalls": [{"caller": index|null,
                     "callSite"}], "outgoingCalls": [{"callee": index|null, "callSite"}],
                     "incomingTotal", "outgoingTotal", "truncated", "resolvedSymbol"?}
                     callSite = {"path", "range", "kind", "context"}
    get_callers     {"callers": [{"path", "line", "column", "caller_fn", "repo", "snippet"}],
                     "total", "truncated", "resolvedSymbol"?, "workspaces": [envelope + repo…],
                     "notSynced"? (served workspaces skipped because never synced)}

`findReferences` lists at most `limit` occurrences (default 100) and
`callHierarchy` at most `limit` calls per direction (default 50); `total`s and
`truncated` say when more exist (find_references pages them all).
`get_callers` positions are 1-based, the column counted in Unicode code
points (characters as Python and most editors count them).
"""

from __future__ import annotations

from typing import Any

from pybridge.facts import REF_IN_JAVADOC, codepoints
from pybridge.store import CALL_KINDS, Reader, RefRow

from .coverage import coverage
from .errors import QueryError
from .freshness import combine
from .models import CallHierarchyArgs, FindReferencesByNameArgs, GetCallersArgs, GoToDefinitionArgs
from .registry import Call, tool
from .resolve import Resolved, ambiguous, candidate, not_found, resolve
from .results import CallHierarchyResult, FindReferencesByNameResult, GetCallersResult, GoToDefinitionResult
from .source import context
from .view import Table, View, fit, pick, qualified, rng, viewing

_BATCH = 500


def _resolve(v: View, text: str) -> Resolved:
    res = resolve(v, text)
    if res is None:
        raise not_found(text, f"{v.ws.slug} (generation {v.gen.number})")
    return res


def _extras(v: View, res: Resolved) -> dict[str, Any]:
    d = res.decl
    return {"resolvedSymbol": qualified(d.dotted, d.display, d.kind)} if res.changed else {}


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
    Every occurrence of a named symbol, its definition included (LSP-style), up to limit with
    total and truncated. For paging, kind filters and keys use find_references with the answer's
    symbol.symbolKey.""")
def find_references_by_name(call: Call, a: FindReferencesByNameArgs) -> FindReferencesByNameResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        res = _resolve(v, a.symbol)
        sid = res.symbol_id
        targets = [sid, *v.generated_accessors(sid)]    # a field: also its generated accessors' calls
        rows = v.r.references(targets, limit=a.limit)
        total = v.r.count_references(targets) + len(res.decls)
        refs, containers = v.references(rows, sid)
        items = [v.definition(d) for d in res.decls] + refs
        items.sort(key=lambda x: (x["path"], x["range"]["start"]["line"],
                                  x["range"]["start"]["character"], x["kind"] != "definition"))
        items = items[:a.limit]
        info = v.r.symbol(sid)
        assert info is not None, "a resolved symbol has its row"
        meta = {"generation": v.gen.number, "total": total,
                **v.flat_blockers(coverage(v.r, info, res.decl, None, None, ws.memo(v.gen.number))),
                "limitations": v.limitations()}
        head = {"symbol": v.symbol(res.decl), **_extras(v, res)}
        env = v.envelope()

        def build(k: int) -> dict[str, Any]:
            page = [dict(x) for x in items[:k]]
            return {**head, "references": page, "containers": pick(page, containers, "container"),
                    "total": total, "truncated": total > k, "meta": meta, **env}

        answer, _ = fit(build, len(items), limit_given="limit" in a.model_fields_set)
        return FindReferencesByNameResult.model_validate(answer)


@tool("goToDefinition", args=GoToDefinitionArgs, result=GoToDefinitionResult, description="""
    Where a named symbol is defined: its declaration sites (path, range of the name, full range,
    source line).""")
def go_to_definition(call: Call, a: GoToDefinitionArgs) -> GoToDefinitionResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        res = _resolve(v, a.symbol)
        definitions = [{
            "path": d.path, "range": rng(d.name_span), "fullRange": rng(d.span), "module": d.module,
            "scope": d.scope, "context": context(v.line_text(d.path, d.module, d.name_span.start_line)),
        } for d in res.decls]
        return GoToDefinitionResult.model_validate({
            "symbol": v.symbol(res.decl), **_extras(v, res), "definitions": definitions,
            **v.envelope()})


def _site(v: View, r: RefRow) -> dict[str, Any]:
    return {"path": r.path, "range": rng(r.span), "kind": r.kind,
            "context": context(v.line_text(r.path, r.module, r.span.start_line))}


def _without_class_twins(rows: list[RefRow], callees: dict[int, dict[str, Any]]) -> list[RefRow]:
    """`new Circle(2.0)` is one construction reference to the constructor and one to
    the class at the same token: the constructor is the callee (the class stays
    when no constructor is declared, as for a default constructor)."""
    ctor_sites = {(x.path, x.span) for x in rows if x.kind == "construction"
                  and (callees.get(x.target_id) or {}).get("kind") == "CONSTRUCTOR"}
    return [x for x in rows if not (x.kind == "construction" and (x.path, x.span) in ctor_sites
                                    and (callees.get(x.target_id) or {}).get("kind") != "CONSTRUCTOR")]


@tool("callHierarchy", args=CallHierarchyArgs, result=CallHierarchyResult, description="""
    One level of the call hierarchy of a named method: incomingCalls (who calls it) and
    outgoingCalls (what it calls), each with the call site, up to limit per direction with totals
    and truncated.""")
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
        table = Table({**callees, **callers})
        incoming_calls = [{"caller": table.index(x.container_id), "callSite": _site(v, x)}
                          for x in incoming]
        outgoing_calls = [{"callee": table.index(x.target_id), "callSite": _site(v, x)}
                          for x in outgoing]
        head = {"symbol": v.symbol(res.decl), **_extras(v, res)}
        env = v.envelope()

        def build(k: int) -> dict[str, Any]:
            ins = [dict(x) for x in incoming_calls[:k]]
            outs = [dict(x) for x in outgoing_calls[:k]]
            both = [{"i": x["caller"]} for x in ins] + [{"i": x["callee"]} for x in outs]
            symbols = pick(both, table.rows, "i")
            for x, y in zip(ins + outs, both, strict=True):
                x["caller" if "caller" in x else "callee"] = y["i"]
            return {**head, "symbols": symbols, "incomingCalls": ins, "outgoingCalls": outs,
                    "incomingTotal": incoming_total, "outgoingTotal": len(outgoing_all),
                    "truncated": incoming_total > len(ins) or len(outgoing_all) > len(outs), **env}

        answer, _ = fit(build, max(len(incoming_calls), len(outgoing_calls)),
                        limit_given="limit" in a.model_fields_set)
        return CallHierarchyResult.model_validate(answer)


@tool("get_callers", args=GetCallersArgs, result=GetCallersResult, description="""
    Who calls a method or constructor, by name: call sites with path, line and column, the calling
    function and a snippet, up to max_results with total and truncated, in every served
    workspace unless repo is given.""")
def get_callers(call: Call, a: GetCallersArgs) -> GetCallersResult:
    spaces = call.spaces
    targets = [spaces.pick(a.repo)] if a.repo is not None else list(spaces.served)
    scope = None if a.include_tests else "main"
    callers: list[dict[str, Any]] = []
    extras: dict[str, Any]
    total, envelopes, extras, unsynced, ambiguities, resolved = 0, [], {}, [], [], []
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
            resolved.append(candidate(v, res.decl))
            extras = extras or _extras(v, res)
            rows, count = calls_to(reader, res.symbol_id, scope=scope,
                                   limit=max(a.max_results - len(callers), 0))
            total += count
            fns = v.summaries({x.container_id for x in rows if x.container_id},
                              {x.container_id: x.module for x in rows if x.container_id})
            for x in rows:
                line = v.line_text(x.path, x.module, x.span.start_line)
                fn = fns.get(x.container_id) if x.container_id else None
                callers.append({
                    "path": x.path,
                    "line": x.span.start_line + 1,
                    "column": (codepoints(line, x.span.start_char) if line is not None
                               else x.span.start_char) + 1,
                    "caller_fn": qualified(fn["dottedPath"], fn["display"], fn["kind"]) if fn else None,
                    "repo": ws.slug,
                    "snippet": context(line.strip()) if line is not None else "",
                })
            envelopes.append({"repo": ws.slug, "generation": v.gen.number, **v.envelope()})
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
        return {"callers": callers[:k], "total": total, "truncated": total > k, **extras,
                "workspaces": envelopes, **more, **env}

    return GetCallersResult.model_validate(fit(build, len(callers), limit_given="max_results" in a.model_fields_set)[0])
