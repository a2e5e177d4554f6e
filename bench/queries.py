"""Query latency through the facade (in process) and through an MCP stdio session.

Each measurement is a function that returns a dict, or `{"skipped": reason}`
when the piece it needs is not there yet (`pybridge.query`, `pybridge serve`).
Symbols are sampled from the store with a seeded RNG: types, methods,
constructors, fields and enum constants declared in the workspace (members of
anonymous and local classes left out: they have no name to look up). Each tool
gets the argument form DESIGN section 7 gives it:

- find_symbol      {"query": dotted name}
- find_references  {"symbolKey": key}, the key minted by find_symbol beforehand (not timed)
- get_callers      {"symbol": SCIP symbol}   (methods and constructors of the sample)
- callHierarchy    {"repo": root, "symbol": SCIP symbol}   (idem)
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import anyio

from pybridge.store import Store

KINDS = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "METHOD", "CONSTRUCTOR", "FIELD", "ENUM_CONSTANT")
CALLABLE = ("METHOD", "CONSTRUCTOR")
TOOLS = ("find_references", "get_callers", "callHierarchy", "find_symbol")


def nameable(dotted: str | None, scip: str | None) -> bool:
    """Members of anonymous and local classes have no Java name (`….<anonymous>.m`, SCIP `local N`):
    agents reach them through symbol_at, so the name-based sample leaves them out."""
    return bool(dotted and scip) and "<" not in dotted and not scip.startswith("local ")


def sample_symbols(state: Path, n: int, seed: int = 20240601) -> list[dict]:
    """n nameable declarations of the current generation, drawn with a seeded RNG."""
    store = Store.open(state / "store.sqlite")
    try:
        with store.reader() as r:
            ids = range(1, store.stats()["symbols"] + 1)
            cands = sorted(s.id for s in r.symbols(ids).values()
                           if not s.external and s.kind in KINDS and nameable(s.dotted, s.scip))
            picked = random.Random(seed).sample(cands, min(n, len(cands)))
            decls = {d.symbol_id: d for d in r.declarations(symbol=picked, limit=None)} if picked else {}
    finally:
        store.close()
    return [{"id": i, "kind": d.kind, "name": d.name, "dotted": d.dotted, "scip": d.scip, "key": d.key,
             "path": d.path, "scope": d.scope} for i in picked if (d := decls.get(i))]


def percentiles(samples: list[float]) -> dict:
    s = sorted(samples)
    if not s:
        return {"n": 0}

    def rank(q):  # nearest rank
        return s[max(math.ceil(q * len(s)) - 1, 0)]

    return {"n": len(s), "p50_ms": rank(0.50) * 1e3, "p99_ms": rank(0.99) * 1e3, "max_ms": s[-1] * 1e3}


def _keys(result, scip: str | None) -> str | None:
    """The symbolKey in a find_symbol answer, preferring the candidate with this SCIP symbol."""
    found: list[dict] = []

    def walk(x):
        if isinstance(x, dict):
            if "symbolKey" in x:
                found.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(result)
    for d in found:
        if scip and scip in d.values():
            return d["symbolKey"]
    return found[0]["symbolKey"] if found else None


def tool_args(tool: str, sym: dict, root: Path, key: str | None) -> dict | None:
    if tool == "find_symbol":
        return {"query": sym["dotted"]}
    if tool == "find_references":
        return {"symbolKey": key} if key else None
    if sym["kind"] not in CALLABLE:
        return None
    if tool == "get_callers":
        return {"symbol": sym["scip"]}
    return {"repo": str(root), "symbol": sym["scip"]}


async def _time_tools(call, symbols: list[dict], root: Path, say, label: str) -> dict:
    """`await call(name, args) -> (result, is_error)`. Mints keys with find_symbol (not timed),
    then times each tool over the sample; latency percentiles are over answers that are not errors."""
    keys = {}
    for sym in symbols:
        result, is_error = await call("find_symbol", {"query": sym["dotted"], "limit": 100})
        keys[sym["id"]] = None if is_error else _keys(result, sym["scip"])
    out = {"symbols": len(symbols), "keys_minted": sum(1 for k in keys.values() if k)}
    for tool in TOOLS:
        ok, codes = [], {}
        for sym in symbols:
            args = tool_args(tool, sym, root, keys[sym["id"]])
            if args is None:
                continue
            t0 = time.perf_counter()
            result, is_error = await call(tool, args)
            dt = time.perf_counter() - t0
            if is_error:
                code = result.get("code", "?") if isinstance(result, dict) else "?"
                codes[code] = codes.get(code, 0) + 1
            else:
                ok.append(dt)
        p = out[tool] = {**percentiles(ok), "errors": sum(codes.values()), "error_codes": codes}
        say(f"    {label} {tool}: {p['n']} answers, {p['errors']} errors"
            + (f", p50 {p['p50_ms']:.2f} ms, p99 {p['p99_ms']:.2f} ms" if p["n"] else ""))
    return out


# ------------------------------------------------------------------ facade

def facade_missing() -> str | None:
    """Why the facade cannot be used, or None when `from pybridge.query import Facade, TOOL_NAMES` works."""
    try:
        from pybridge.query import TOOL_NAMES, Facade  # noqa: F401 - only whether the import works
    except ImportError as exc:
        return f"pybridge.query (the facade) is not there yet ({exc})"
    return None


def facade_latency(root: Path, state: Path, symbols: list[dict], say=print) -> dict:
    missing = facade_missing()
    if missing:
        return {"skipped": f"{missing}; facade latency not measured"}
    from pybridge.query import Facade

    f = Facade([root], state_dirs={str(root): state})
    try:
        async def call(name, args):
            return f.call(name, args)
        return anyio.run(_time_tools, call, symbols, root, say, "facade")
    finally:
        close = getattr(f, "close", None)
        if close:
            close()


# ------------------------------------------------------------------ MCP stdio

def serve_command(root: Path, state: Path) -> list[str]:
    script = Path(sys.executable).with_name("pybridge")
    exe = [str(script)] if script.exists() else [sys.executable, "-m", "pybridge.cli"]
    return [*exe, "serve", "--repo", str(root), "--state-dir", str(state)]


def serve_missing(root: Path, state: Path) -> str | None:
    """Why `pybridge serve` cannot be measured, or None when it can."""
    cmd = serve_command(root, state)
    help_run = subprocess.run([*cmd[:cmd.index("serve") + 1], "--help"], capture_output=True, text=True)
    if help_run.returncode != 0:
        return "the `pybridge serve` command does not exist yet; MCP latency not measured"
    missing = facade_missing()
    if missing:
        return f"`pybridge serve` exists but {missing}; not measured"
    return None


def _unpack(res) -> tuple[dict, bool]:
    data = getattr(res, "structured_content", None)
    if data is None:
        content = getattr(res, "content", None) or []
        text = next((c.text for c in content if getattr(c, "type", "") == "text"), "{}")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = {"error": text}
    return data, bool(getattr(res, "is_error", False))


async def _mcp_session(root: Path, state: Path, symbols: list[dict], errlog, say, measure_tools: bool) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = serve_command(root, state)
    # the server inherits this process's environment (the SDK's default passes only a few variables)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    t0 = time.perf_counter()
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            t_init = time.perf_counter() - t0
            res = await session.call_tool("find_symbol", {"query": symbols[0]["dotted"]})
            first = time.perf_counter() - t0
            out = {"initialize_s": t_init, "first_answer_s": first, "first_answer_error": _unpack(res)[1]}
            if measure_tools:
                async def call(name, args):
                    return _unpack(await session.call_tool(name, args))
                out["tools"] = await _time_tools(call, symbols, root, say, "mcp")
            return out


def _run_session(root: Path, state: Path, symbols: list[dict], say, measure_tools: bool, log: Path) -> dict:
    with open(log, "a") as errlog:
        try:
            return anyio.run(_mcp_session, root, state, symbols, errlog, say, measure_tools)
        except Exception as exc:  # noqa: BLE001 - a server that fails is a result, not a crash of the bench
            while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
                exc = exc.exceptions[0]
            lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
            return {"failed": f"{type(exc).__name__}: {exc}; server log {log} ends: {lines[-1] if lines else ''}"}


def serve_first_answer(root: Path, state: Path, symbols: list[dict], runs: int, log: Path, say=print) -> dict:
    """Time from spawning `pybridge serve` to its first answer (initialize, then one find_symbol), `runs` times."""
    missing = serve_missing(root, state)
    if missing:
        return {"skipped": missing}
    times, inits = [], []
    for i in range(runs):
        r = _run_session(root, state, symbols, say, False, log)
        if "failed" in r:
            return r
        times.append(r["first_answer_s"])
        inits.append(r["initialize_s"])
        say(f"    serve start -> first answer, run {i + 1}/{runs}: {r['first_answer_s']:.3f} s "
            f"(initialize done at {r['initialize_s']:.3f} s)")
    return {"seconds": sorted(times)[len(times) // 2], "runs": times, "initialize_runs": inits}


def mcp_latency(root: Path, state: Path, symbols: list[dict], log: Path, say=print) -> dict:
    missing = serve_missing(root, state)
    if missing:
        return {"skipped": missing}
    r = _run_session(root, state, symbols, say, True, log)
    return r.get("tools", r)
