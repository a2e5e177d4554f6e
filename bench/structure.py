"""Latency and answer size of the structure tools (DESIGN section 7) on commons-lang3 and guava.

    .venv/bin/python bench/structure.py [--n 1000] [--only guava] [--json bench/structure.json]

For each workspace (built and synced when missing: `bench/work/<name>`, state in
`bench/work/state-<name>`; the release jars the spot checks of
tests/query/test_structure_real.py read are fetched into `bench/work/jars/` too), it
samples N declarations with the seeded RNG of bench/queries.py, mints their
keys, and times each tool through the facade (in process) and through an MCP
stdio session against `pybridge serve` (the SDK's client, which validates each
result against the tool's output schema), and through a bare JSON-RPC stdio
client (no validation: the server's and the pipe's share):

- type_hierarchy {symbolKey} (types), find_implementations {symbolKey} (types, methods),
- call_graph {symbolKey, direction in, depth 1 | 3 | 5} (methods, constructors),
- outline {path}, diagnostics {path}, describe {symbolKey} (every sampled symbol),
- find_references {symbolKey}: a control, the existing exact tool measured in the same run, so the
  figures can be read against the load of the machine at the time.

Every answer is a default answer (no limit given). Sizes are the bytes of the
JSON result against the 32 KB budget.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import queries
import workspaces

BUDGET = 32 * 1024
TYPES = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")
JARS = {"guava": ["com.google.guava:guava:33.3.1-jre:jar"],
        "commons-lang3": ["org.apache.commons:commons-lang3:3.14.0:jar",
                          "org.apache.commons:commons-lang3:3.14.0:jar:tests"]}


def prepare(name: str, say=print) -> tuple[Path, Path]:
    from pybridge.sync import sync
    from pybridge.worker import Worker

    root = workspaces.ensure(workspaces.ARTIFACTS[name], say)
    state = workspaces.WORK / f"state-{name}"
    if not (state / "store.sqlite").exists():
        state.mkdir(parents=True, exist_ok=True)
        with Worker() as w:
            sync(root, state_dir=state, worker=w)
    jars = workspaces.WORK / "jars"
    for gav in JARS[name]:
        parts = gav.split(":")
        file = jars / (f"{parts[1]}-{parts[2]}" + (f"-{parts[4]}" if len(parts) > 4 else "") + ".jar")
        if not file.exists():
            workspaces.copy(gav, jars)
    return root, state


def calls(root: Path, state: Path, symbols: list[dict]) -> list[tuple[str, str, dict]]:
    """(label, tool, args) for every measurement, keys minted from the store's secret."""
    from pybridge.query import Facade

    with Facade([root], state_dirs={str(root): state}) as f:
        ws = f.spaces.pick(None)
        reader = ws.reader()
        try:
            from pybridge.query.view import View
            v = View(ws, reader)
            keyed = [(s, v.key(s["id"], s["key"])) for s in symbols]
        finally:
            reader.close()
    out = []
    for s, key in keyed:
        if s["kind"] in TYPES:
            out.append(("type_hierarchy", "type_hierarchy", {"symbolKey": key}))
        if s["kind"] in TYPES or s["kind"] == "METHOD":
            out.append(("find_implementations", "find_implementations", {"symbolKey": key}))
        if s["kind"] in ("METHOD", "CONSTRUCTOR"):
            for depth in (1, 3, 5):
                out.append((f"call_graph depth {depth}", "call_graph", {"symbolKey": key, "depth": depth}))
        out.append(("outline", "outline", {"path": s["path"]}))
        out.append(("diagnostics", "diagnostics", {"path": s["path"]}))
        out.append(("describe", "describe", {"symbolKey": key}))
        # a control measured in the same run: an existing exact tool (quiet-machine figures in RESULTS.md)
        out.append(("find_references (control)", "find_references", {"symbolKey": key}))
    return out


def summarize(times: dict[str, list[float]], sizes: dict[str, list[int]], errors: dict[str, int]) -> dict:
    out = {}
    for label in times:
        s = sorted(sizes[label])
        out[label] = {**queries.percentiles(times[label]), "errors": errors[label],
                      "size_p50": s[len(s) // 2] if s else 0, "size_max": s[-1] if s else 0,
                      "over_budget": sum(1 for x in s if x > BUDGET)}
    return out


def facade_run(root: Path, state: Path, plan: list[tuple[str, str, dict]]) -> dict:
    from pybridge.query import Facade

    times: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    errors: dict[str, int] = {}
    with Facade([root], state_dirs={str(root): state}) as f:
        for _label, tool, args in plan[:20]:       # warm caches (source lines, freshness)
            f.call(tool, args)
        for label, tool, args in plan:
            t0 = time.perf_counter()
            result, is_error = f.call(tool, args)
            dt = time.perf_counter() - t0
            times.setdefault(label, []).append(dt)
            sizes.setdefault(label, []).append(len(json.dumps(result, ensure_ascii=False).encode()))
            errors[label] = errors.get(label, 0) + int(is_error)
    return summarize(times, sizes, errors)


async def _mcp(root: Path, state: Path, plan: list[tuple[str, str, dict]], errlog) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = queries.serve_command(root, state)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    times: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    errors: dict[str, int] = {}
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for _label, tool, args in plan[:20]:
                await session.call_tool(tool, args)
            for label, tool, args in plan:
                t0 = time.perf_counter()
                res = await session.call_tool(tool, args)
                dt = time.perf_counter() - t0
                data, is_error = queries._unpack(res)
                times.setdefault(label, []).append(dt)
                sizes.setdefault(label, []).append(len(res.content[0].text.encode()))
                errors[label] = errors.get(label, 0) + int(is_error)
    return summarize(times, sizes, errors)


def mcp_run(root: Path, state: Path, plan: list[tuple[str, str, dict]], log: Path) -> dict:
    with open(log, "a") as errlog:
        return anyio.run(_mcp, root, state, plan, errlog)


def raw_run(root: Path, state: Path, plan: list[tuple[str, str, dict]], log: Path) -> dict:
    """The same calls over stdio with a bare JSON-RPC client (one line out, one line in, no schema
    validation): what the server and the pipe cost, without the Python SDK client's own work."""
    cmd = queries.serve_command(root, state)
    times: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}
    errors: dict[str, int] = {}
    with open(log, "a") as errlog:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog)
        assert proc.stdin is not None and proc.stdout is not None
        rid = 0

        def ask(method: str, params: dict | None = None, notify: bool = False) -> dict:
            nonlocal rid
            rid += 1
            message = {"jsonrpc": "2.0", "method": method, **({} if notify else {"id": rid}),
                       **({"params": params} if params is not None else {})}
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
            while not notify:
                reply = json.loads(proc.stdout.readline())
                if reply.get("id") == rid:
                    return reply
            return {}

        try:
            ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "bench-structure", "version": "1"}})
            ask("notifications/initialized", notify=True)
            ask("tools/list")
            time.sleep(5)                                  # serve's background worker warm-up
            for _label, tool, args in plan[:20]:
                ask("tools/call", {"name": tool, "arguments": args})
            for label, tool, args in plan:
                t0 = time.perf_counter()
                reply = ask("tools/call", {"name": tool, "arguments": args})
                dt = time.perf_counter() - t0
                result = reply.get("result") or {}
                times.setdefault(label, []).append(dt)
                sizes.setdefault(label, []).append(len(result.get("content", [{}])[0].get("text", "").encode()))
                errors[label] = errors.get(label, 0) + int(bool(result.get("isError")) or "error" in reply)
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)
    return summarize(times, sizes, errors)


def machine() -> dict:
    def first(cmd: list[str]) -> str:
        try:
            out = subprocess.run(cmd, capture_output=True, text=True)
            return (out.stdout or out.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "os": platform.platform(), "load": os.getloadavg(),
            "commit": first(["git", "-C", str(Path(__file__).resolve().parent.parent), "rev-parse", "--short",
                             "HEAD"])}


def table(name: str, facade: dict, mcp: dict, raw: dict | None = None) -> str:
    raw = raw or {}
    rows = [f"### {name}", "", "| tool | n | facade p50 / p99 ms | MCP, SDK client p50 / p99 ms | "
            "MCP, bare client p50 / p99 ms | errors | size p50 / max (bytes) | over 32 KB |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    nan = float("nan")
    for label, f in facade.items():
        m, r = mcp.get(label, {}), raw.get(label, {})
        errors = f["errors"] + m.get("errors", 0) + r.get("errors", 0)
        rows.append(f"| {label} | {f['n']} | {f['p50_ms']:.2f} / {f['p99_ms']:.2f} | "
                    f"{m.get('p50_ms', nan):.2f} / {m.get('p99_ms', nan):.2f} | "
                    f"{r.get('p50_ms', nan):.2f} / {r.get('p99_ms', nan):.2f} | "
                    f"{errors} | {f['size_p50']} / {f['size_max']} | {f['over_budget']} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="symbols sampled per workspace (default 1000)")
    ap.add_argument("--only", choices=["commons-lang3", "guava"], help="one workspace only")
    ap.add_argument("--no-mcp", action="store_true", help="facade only")
    ap.add_argument("--json", type=Path, default=None, help="write the raw figures here")
    args = ap.parse_args()
    report: dict = {"machine": machine(), "workspaces": {}}
    for name in ([args.only] if args.only else ["commons-lang3", "guava"]):
        root, state = prepare(name)
        symbols = queries.sample_symbols(state, args.n)
        plan = calls(root, state, symbols)
        print(f"{name}: {len(symbols)} symbols, {len(plan)} calls", flush=True)
        facade = facade_run(root, state, plan)
        log = workspaces.WORK / f"serve-{name}.log"
        mcp = {} if args.no_mcp else mcp_run(root, state, plan, log)
        raw = {} if args.no_mcp else raw_run(root, state, plan, log)
        report["workspaces"][name] = {"symbols": len(symbols), "facade": facade, "mcp": mcp, "raw": raw}
        print(table(name, facade, mcp, raw), flush=True)
    report["machine"]["load_end"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    print(json.dumps(report["machine"]))


if __name__ == "__main__":
    main()
