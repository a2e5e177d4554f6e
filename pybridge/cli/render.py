"""Readable text for the short CLI commands (the JSON is the tools' own).

Positions print editor-style: `path:line:column`, 1-based.
"""

from __future__ import annotations

import json
from typing import Any, Callable


def _at(loc: dict[str, Any] | None) -> str:
    if not loc:
        return "(library)"
    start = (loc.get("range") or {}).get("start", {})
    return f"{loc.get('path', '?')}:{start.get('line', 0) + 1}:{start.get('character', 0) + 1}"


def _sym(s: dict[str, Any] | None) -> str:
    if not s:
        return "?"
    owner = s.get("dottedPath", "?")
    if s.get("kind") in ("METHOD", "CONSTRUCTOR") and s.get("display"):
        owner = owner.rsplit(".", 1)[0] + "." + s["display"]
    return f"{s.get('kind', '?')} {owner}"


def _stale(r: dict[str, Any]) -> str:
    if r.get("stale"):
        return "\n(stale: files changed since the last sync; run `pybridge sync` for exact answers)"
    return ""


def status(r: dict[str, Any]) -> str:
    if "workspaces" in r:
        return "\n\n".join(status(w) for w in r["workspaces"])
    if not r.get("synced", True) or r.get("generation") is None:
        return f"{r.get('repo')}: not synced yet. {r.get('hint', 'Run pybridge sync.')}"
    lines = [f"{r.get('repo')}: generation {r['generation']} ({r.get('freshness')}), published {r.get('publishedAt')}"]
    for s in r.get("scopes", []):
        lines.append(f"  {s['module']} {s['scope']}: {s['files']} files, {s['bindingComplete']} fully bound, "
                     f"{s.get('problems', 0)} problems")
    for lim in r.get("limitations", []):
        lines.append(f"  limitation {lim['kind']}: {lim.get('module') or 'all modules'}")
    return "\n".join(lines)


def symbols(r: dict[str, Any]) -> str:
    if not r.get("symbols"):
        hint: str = r.get("hint", "no match")
        return hint
    lines = [f"{_sym(s):70} {_at(s.get('declaration')) if not s.get('origin') else '(' + s['origin'] + ')'}"
             f"\n    key {s['symbolKey']}" for s in r["symbols"]]
    if r.get("nextCursor"):
        lines.append(f"... {r.get('total')} in all (use --json and the cursor for more)")
    return "\n".join(lines) + _stale(r)


def _cut(shown: int, total: int, what: str) -> str:
    return f"(showing the first {shown} of {total} {what}; --limit N shows up to 500)"


def references(r: dict[str, Any]) -> str:
    rows, total = r.get("references", []), r.get("total", len(r.get("references", [])))
    lines = [f"{_sym(r.get('symbolInfo'))}: {total} occurrences"]
    for ref in rows:
        container = ref.get("container") or {}
        lines.append(f"  {_at(ref):60} {ref['kind']:16} in {container.get('name', '-')}")
    if r.get("truncated"):
        lines.append(_cut(len(rows), total, "occurrences"))
    return "\n".join(lines) + _stale(r)


def callers(r: dict[str, Any]) -> str:
    rows, total = r.get("callers", []), r.get("total", 0)
    lines = [f"{total} call sites"]
    for c in rows:
        lines.append(f"  {c.get('slug', c['repo'])}:{c['path']}:{c['line']}:{c['column']}  {c.get('caller_fn')}\n"
                     f"      {c.get('snippet', '').strip()}")
    if r.get("truncated"):
        lines.append(_cut(len(rows), total, "call sites"))
    return "\n".join(lines)


def hierarchy(r: dict[str, Any]) -> str:
    lines = [_sym(r.get("symbolInfo")), "  calls:"]
    for call in r.get("outgoingCalls", []):
        lines.append(f"    {_sym(call.get('symbol')):70} at {_at(call.get('location'))}")
    lines.append("  called by:")
    for call in r.get("incomingCalls", []):
        lines.append(f"    {_sym(call.get('symbol')):70} at {_at(call.get('location'))}")
    if r.get("truncated"):
        lines.append(f"(cut: {r.get('outgoingTotal')} calls out, {r.get('incomingTotal')} calls in in all; "
                     f"`pybridge tool callHierarchy` with a larger limit shows more)")
    return "\n".join(lines) + _stale(r)


def error(r: dict[str, Any]) -> str:
    """An error result as a person reads it (the JSON stays with --json and `pybridge tool`)."""
    lines = [f"error ({r.get('code')}): {r.get('error')}"]
    candidates = r.get("candidates") or []
    if candidates:
        lines.append("candidates:")
        for c in candidates:
            where = f"{c.get('path')}:{c.get('line')}" if c.get("path") else "(library)"
            repo = f"{c['repo']}:" if c.get("repo") else ""
            lines.append(f"  {c.get('kind', '?'):12} {c.get('display') or c.get('dottedPath')}  at {repo}{where}")
        total = r.get("candidateTotal", len(candidates))
        if total > len(candidates):
            lines.append(f"  ... {total} in all; the first {len(candidates)} are listed")
    if r.get("replacement"):
        lines.append(f"replacement key: {r['replacement']}")
    if r.get("changed"):
        lines.append("changed: " + ", ".join(r["changed"]))
    if r.get("served"):
        lines.append("served: " + ", ".join(r["served"]))
    return "\n".join(lines)


def definitions(r: dict[str, Any]) -> str:
    rows = [f"  {_at(d)}" + (f"\n    {d['note']}" if d.get("note") else "") for d in r.get("definitions", [])]
    return "\n".join([_sym(r.get("symbolInfo")), *rows]) + _stale(r)


RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "status": status, "find_symbol": symbols, "findReferences": references, "get_callers": callers,
    "callHierarchy": hierarchy, "goToDefinition": definitions,
}


def fallback(result: dict[str, Any]) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)
