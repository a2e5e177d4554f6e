"""Readable text for the short CLI commands (the JSON is the tools' own).

Positions print editor-style: `path:line:column`, 1-based.
"""

from __future__ import annotations

import json
from typing import Callable


def _at(loc: dict | None) -> str:
    if not loc:
        return "(library)"
    start = (loc.get("range") or {}).get("start", {})
    return f"{loc.get('path', '?')}:{start.get('line', 0) + 1}:{start.get('character', 0) + 1}"


def _sym(s: dict | None) -> str:
    if not s:
        return "?"
    owner = s.get("dottedPath", "?")
    if s.get("kind") in ("METHOD", "CONSTRUCTOR") and s.get("display"):
        owner = owner.rsplit(".", 1)[0] + "." + s["display"]
    return f"{s.get('kind', '?')} {owner}"


def _stale(r: dict) -> str:
    if r.get("stale"):
        return "\n(stale: files changed since the last sync; run `pybridge sync` for exact answers)"
    return ""


def status(r: dict) -> str:
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


def symbols(r: dict) -> str:
    if not r.get("symbols"):
        return r.get("hint", "no match")
    lines = [f"{_sym(s):70} {_at(s.get('declaration'))}\n    key {s['symbolKey']}" for s in r["symbols"]]
    if r.get("nextCursor"):
        lines.append(f"... {r.get('total')} in all (use --json and the cursor for more)")
    return "\n".join(lines) + _stale(r)


def references(r: dict) -> str:
    lines = [f"{_sym(r.get('symbol'))}: {len(r.get('references', []))} occurrences"]
    for ref in r.get("references", []):
        container = ref.get("container") or {}
        lines.append(f"  {_at(ref):60} {ref['kind']:16} in {container.get('dottedPath', '-')}")
    return "\n".join(lines) + _stale(r)


def callers(r: dict) -> str:
    lines = [f"{r.get('total', 0)} call sites" + (" (truncated)" if r.get("truncated") else "")]
    for c in r.get("callers", []):
        lines.append(f"  {c['repo']}:{c['path']}:{c['line']}:{c['column']}  {c.get('caller_fn')}\n"
                     f"      {c.get('snippet', '').strip()}")
    return "\n".join(lines)


def hierarchy(r: dict) -> str:
    lines = [_sym(r.get("symbol")), "  calls:"]
    for call in r.get("outgoingCalls", []):
        lines.append(f"    {_sym(call.get('callee')):70} at {_at(call.get('callSite'))}")
    lines.append("  called by:")
    for call in r.get("incomingCalls", []):
        lines.append(f"    {_sym(call.get('caller')):70} at {_at(call.get('callSite'))}")
    return "\n".join(lines) + _stale(r)


def definitions(r: dict) -> str:
    return "\n".join([_sym(r.get("symbol"))] + [f"  {_at(d)}" for d in r.get("definitions", [])]) + _stale(r)


RENDERERS: dict[str, Callable[[dict], str]] = {
    "status": status, "find_symbol": symbols, "findReferences": references, "get_callers": callers,
    "callHierarchy": hierarchy, "goToDefinition": definitions,
}


def fallback(result: dict) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)
