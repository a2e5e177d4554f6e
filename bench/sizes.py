"""Answer sizes: the bytes (and approximate tokens, bytes / 4) of each tool's default answer.

    .venv/bin/python bench/sizes.py --label after               # this checkout
    PYTHONPATH=/tmp/before .venv/bin/python bench/sizes.py --label before
                                                                # another checkout's pybridge

On commons-lang3 and guava (the workspaces of `bench/run.py`, built when
missing), each workspace is synced by the pybridge under test into its own
state folder (`bench/work/state-sizes-LABEL/NAME`), then every tool is called
through the facade with its default arguments (no limit, no cursor) for:

- a seeded sample of nameable declarations (`queries.sample_symbols`), and
- the HEAVIEST most-referenced declarations (the answers that grow without a bound), with the rows
  each answer lists and, for `find_references`, also the page of an explicit `limit` of 500.

The size of an answer is the UTF-8 byte length of its JSON, written compactly
(`separators=(",", ":")`), as the MCP text content carries it since issue 9
(before, the text content had a space after every `,` and `:`, about 10% more).
`tools/list` is measured as the MCP ListToolsResult the server sends. Results
go to `bench/sizes-LABEL.json`; `bench/report.py` renders every `sizes-*.json`
into the "Answer sizes" section of RESULTS.md (written by this script too).

Targets (issues 9 and 21, DESIGN section 7): `tools/list` at most 16 KB; the
default `find_references` page 100 references (seed 001) and near 32 KB; no
answer unbounded (the largest default answer of the other tools, heaviest
symbols included, stays under 32 KB).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import queries  # noqa: E402 - after the sys.path set-up
import report  # noqa: E402 - after the sys.path set-up
import workspaces  # noqa: E402 - after the sys.path set-up

NAMES = ("commons-lang3", "guava")
HEAVIEST = 5
TOOLS = ("find_symbol", "symbol_at", "find_references", "findReferences", "goToDefinition", "callHierarchy",
         "get_callers", "status")
CALLABLE = ("METHOD", "CONSTRUCTOR")


def size(obj) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def tools_list_bytes() -> int:
    from mcp import types

    from pybridge.mcp.server import tool_list
    from pybridge.query import TOOL_NAMES

    return len(types.ListToolsResult(tools=tool_list(TOOL_NAMES)).model_dump_json(
        by_alias=True, exclude_none=True).encode("utf-8"))


def heaviest(state: Path, n: int) -> list[dict]:
    """The n nameable declarations with the most references."""
    from pybridge.store import Store

    store = Store.open(state / "store.sqlite")
    try:
        with store.reader() as r:
            ids = range(1, store.stats()["symbols"] + 1)
            cands = [s.id for s in r.symbols(ids).values()
                     if not s.external and s.kind in queries.KINDS and queries.nameable(s.dotted, s.scip)]
            counts = sorted(((r.count_references(i), i) for i in cands), reverse=True)[:n]
            decls = {d.symbol_id: d for d in r.declarations(symbol=[i for _, i in counts], limit=None)}
    finally:
        store.close()
    return [{"id": i, "kind": d.kind, "name": d.name, "dotted": d.dotted, "scip": d.scip, "key": d.key,
             "path": d.path, "scope": d.scope, "references": c} for c, i in counts if (d := decls.get(i))]


def positions(state: Path, symbols: list[dict]) -> None:
    """Each symbol's declaration name position (for symbol_at)."""
    from pybridge.store import Store

    store = Store.open(state / "store.sqlite")
    try:
        with store.reader() as r:
            decls = {d.symbol_id: d for d in r.declarations(symbol=[s["id"] for s in symbols], limit=None)}
    finally:
        store.close()
    for s in symbols:
        d = decls.get(s["id"])
        if d is not None:
            s["line"], s["character"] = d.name_span.start_line, d.name_span.start_char


def args_for(tool: str, sym: dict, key: str | None) -> dict | None:
    if tool == "find_symbol":
        return {"query": sym["dotted"]}
    if tool == "symbol_at":
        return {"path": sym["path"], "line": sym["line"], "character": sym["character"]} if "line" in sym else None
    if tool == "find_references":
        return {"symbolKey": key} if key else None
    if tool in ("findReferences", "goToDefinition"):
        return {"symbol": sym["scip"]}
    if tool in ("callHierarchy", "get_callers"):
        return {"symbol": sym["scip"]} if sym["kind"] in CALLABLE else None
    return {}


def rows_of(tool: str, result: dict) -> int:
    """The rows an answer lists: references, call sites (both directions of callHierarchy), callers."""
    if tool == "callHierarchy":
        return len(result.get("incomingCalls", [])) + len(result.get("outgoingCalls", []))
    return len(result.get("callers" if tool == "get_callers" else "references", []))


def stats(values: list[int]) -> dict:
    s = sorted(values)
    if not s:
        return {"n": 0}

    def pick(q):  # nearest rank
        return s[min(len(s) - 1, max(int(q * len(s) + 0.5) - 1, 0))]

    return {"n": len(s), "p50": pick(0.5), "p99": pick(0.99), "max": s[-1]}


def measure(name: str, label: str, samples: int, seed: int, say) -> dict:
    from pybridge.query import Facade
    from pybridge.sync import sync

    a = workspaces.ARTIFACTS[name]
    root = workspaces.ensure(a, say=say)
    state = workspaces.WORK / f"state-sizes-{label}" / name
    if not (state / "store.sqlite").exists():
        say(f"{name}: syncing into {state}")
        t0 = time.perf_counter()
        sync(root, state_dir=state)
        say(f"{name}: synced in {time.perf_counter() - t0:.1f} s")
    sample = queries.sample_symbols(state, samples, seed=seed)
    heavy = heaviest(state, HEAVIEST)
    positions(state, sample + heavy)
    out: dict = {"workspace": name, "sampled": len(sample), "tools": {}, "heaviest": []}
    facade = Facade([root], state_dirs={str(root): state})
    try:
        def key_of(sym):
            result, is_error = facade.call("find_symbol", {"query": sym["dotted"], "limit": 100})
            return None if is_error else queries._keys(result, sym["scip"])

        for tool in TOOLS:
            sizes, errors, worst = [], 0, None
            for sym in sample if tool != "status" else sample[:1]:
                args = args_for(tool, sym, key_of(sym) if tool == "find_references" else None)
                if args is None:
                    continue
                result, is_error = facade.call(tool, args)
                if is_error:
                    errors += 1
                    continue
                n = size(result)
                sizes.append(n)
                if worst is None or n > worst[0]:
                    worst = (n, sym["dotted"])
            out["tools"][tool] = {**stats(sizes), "errors": errors, "worst": worst[1] if worst else None}
            say(f"{name} {label} {tool}: {out['tools'][tool]}")
        for sym in heavy:
            row = {"symbol": sym["dotted"], "kind": sym["kind"], "references": sym["references"], "bytes": {},
                   "rows": {}}
            for tool in ("find_references", "find_references limit=500", "findReferences", "callHierarchy",
                         "get_callers"):
                name_only = tool.split()[0]
                args = args_for(name_only, sym, key_of(sym) if name_only == "find_references" else None)
                if args is None:
                    continue
                if tool.endswith("limit=500"):
                    args = {**args, "limit": 500}
                result, is_error = facade.call(name_only, args)
                row["bytes"][tool] = None if is_error else size(result)
                row["rows"][tool] = None if is_error else rows_of(name_only, result)
            out["heaviest"].append(row)
            say(f"{name} {label} heaviest {sym['dotted']} ({sym['references']} refs): {row['bytes']} "
                f"rows {row['rows']}")
    finally:
        facade.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="what is measured, e.g. before or after")
    ap.add_argument("--only", action="append", choices=NAMES, help="one workspace (repeatable)")
    ap.add_argument("--samples", type=int, default=300, help="sampled declarations per workspace (default 300)")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    import pybridge

    t0 = time.monotonic()

    def say(m):
        print(f"[{time.monotonic() - t0:6.1f}s] {m}", flush=True)

    res = {"label": args.label, "pybridge": str(Path(pybridge.__file__).parent),
           "command": " ".join(([f"PYTHONPATH={os.environ['PYTHONPATH']}"] if os.environ.get("PYTHONPATH") else [])
                               + [".venv/bin/python bench/sizes.py", *sys.argv[1:]]),
           "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "samples": args.samples, "seed": args.seed, "tools_list_bytes": tools_list_bytes(), "workspaces": {}}
    say(f"pybridge from {res['pybridge']}; tools/list {res['tools_list_bytes']} bytes")
    for name in args.only or NAMES:
        res["workspaces"][name] = measure(name, args.label, args.samples, args.seed, say)
    path = HERE / f"sizes-{args.label}.json"
    path.write_text(json.dumps(res, indent=2) + "\n")
    report.write_sizes()
    say(f"done: {path}, and the answer-size section of {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
