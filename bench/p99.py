"""find_references over MCP on the hottest symbols of a big reactor: p50, p99, max (issue 27 part 3).

    .venv/bin/python bench/p99.py                          # reactor4 (1,695 files), 760 symbols
    .venv/bin/python bench/p99.py --n 50                   # a quick check
    .venv/bin/python bench/p99.py --answers after.jsonl --compare before.jsonl
    .venv/bin/python bench/p99.py --facade                 # in process: CPU time per call too
    .venv/bin/python bench/p99.py --ab PYBRIDGE_STDIO_FAST  # one switch off, then on: the ratio in one run

Builds (once, cached under bench/work/) the reactor `bench/workspaces.py`
names (`reactor4`: guava, commons-lang3 with its tests, commons-collections4,
commons-text with its tests; 1,695 files), syncs it into
`bench/work/state-<name>` when that holds no store, and picks the `--n`
symbols with the most references in the current generation (workspace,
library and JDK symbols alike; ties by symbol id). Their keys are minted from
the store's secret (not timed). Then one `pybridge serve` over stdio, one MCP
client session (the SDK's), and `find_references {"symbolKey": key}` (the
first page, 100 rows) for each symbol in order, `--rounds` times; every call is
timed from the client's send to its parsed answer, and the server's on-CPU time
per call is read from `/proc/PID/task/*/schedstat` (Linux): on a loaded machine
the wall clock mostly measures the wait for a CPU. Prints p50, p99 and max per
round as JSON (`--markdown`: the RESULTS.md rows too).

`--answers FILE` writes each answer (its structured content, `checked_at`
left out: the only field that is a clock reading) as one JSON line, in the
order asked; `--compare FILE` then says whether every answer equals the
other file's, byte for byte, and names the first that differs.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import queries
import workspaces

from pybridge.query.keys import load_secret, make_key
from pybridge.store import Store

VOLATILE = ("checked_at",)


def prepare(name: str, say=print, state: Path | None = None) -> tuple[Path, Path]:
    from pybridge.sync import sync
    from pybridge.worker import Worker

    root = workspaces.ensure_reactor(workspaces.REACTORS[name], say)
    state = state or workspaces.WORK / f"state-{name}"
    if not (state / "store.sqlite").exists():
        state.mkdir(parents=True, exist_ok=True)
        say(f"  syncing {root} into {state}")
        t0 = time.perf_counter()
        with Worker() as w:
            result = sync(root, state_dir=state, worker=w)
        say(f"  synced: generation {result.generation}, {time.perf_counter() - t0:.1f} s")
    return root, state


def hottest(state: Path, n: int) -> list[tuple[int, int, str]]:
    """(symbol id, references, key) of the n symbols with the most references in the current generation."""
    with Store.open(state / "store.sqlite") as store:
        gen = store.current_generation()
        if gen is None:
            raise SystemExit(f"{state} holds no published generation; delete it and run again")
        conn = sqlite3.connect(f"file:{state / 'store.sqlite'}?mode=ro", uri=True)
        try:
            top = conn.execute(
                "SELECT r.target_id, count(*) AS n FROM refs r JOIN manifest m ON m.generation_id = ?"
                " AND m.file_version_id = r.file_version_id GROUP BY r.target_id ORDER BY n DESC, r.target_id"
                " LIMIT ?", (gen.id, n)).fetchall()
        finally:
            conn.close()
        with store.reader() as r:
            infos = r.symbols([sid for sid, _ in top])
    secret = load_secret(state)
    return [(sid, count, make_key(secret, sid, infos[sid].key)) for sid, count in top]


def _answer(res: Any) -> tuple[dict, bool]:
    data, is_error = queries._unpack(res)
    return {k: v for k, v in data.items() if k not in VOLATILE}, is_error


async def _session(root: Path, state: Path, keys: list[str], rounds: int, errlog: Any,
                   env: dict[str, str] | None = None) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = queries.serve_command(root, state)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env={**os.environ, **(env or {})})
    out: dict[str, Any] = {"rounds": [], "answers": []}
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            # The client's own collector is not the server's latency: what the SDK and this script
            # allocated so far (about 40,000 objects, a 28 ms full collection) is moved out of its reach.
            gc.freeze()
            server = _server_pid()
            for i in range(rounds):
                times: list[float] = []
                cpu: list[float] = []
                client: list[float] = []
                answers: list[str] = []
                errors = 0
                for key in keys:
                    c0 = on_cpu_ns(server)
                    t0, k0 = time.perf_counter(), time.process_time()
                    res = await session.call_tool("find_references", {"symbolKey": key})
                    data, is_error = _answer(res)
                    times.append(time.perf_counter() - t0)
                    client.append(time.process_time() - k0)
                    cpu.append((on_cpu_ns(server) - c0) / 1e9)
                    errors += is_error
                    answers.append(json.dumps(data, sort_keys=True, ensure_ascii=False))
                slow = sorted(range(len(times)), key=lambda j: -times[j])[:10]
                c = queries.percentiles(cpu)
                k = queries.percentiles(client)
                out["rounds"].append({**queries.percentiles(times), "errors": errors,
                                      "server_cpu_p50_ms": c["p50_ms"], "server_cpu_p99_ms": c["p99_ms"],
                                      "server_cpu_max_ms": c["max_ms"],
                                      # the client's own CPU per call (the SDK's parsing and its
                                      # validation of the answer against the output schema)
                                      "client_cpu_p50_ms": k["p50_ms"], "client_cpu_p99_ms": k["p99_ms"],
                                      "slowest": [[j, round(times[j] * 1e3, 2)] for j in slow]})
                if i == 0:
                    out["answers"] = answers
    return out


def _server_pid() -> int:
    """The pid of the `pybridge serve` this process started (its child)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me \
                    and b"serve" in (entry / "cmdline").read_bytes():
                return int(entry.name)
        except (OSError, IndexError):
            continue
    raise SystemExit("the server process was not found under /proc")


def on_cpu_ns(pid: int) -> int:
    """Nanoseconds the process's threads have run on a CPU (`/proc/PID/task/*/schedstat`): the
    server's own work per call, which a loaded machine does not inflate the way it does the wall
    clock (it waits for a CPU, it does not run longer)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def _in_process(root: Path, state: Path, keys: list[str], rounds: int) -> dict:
    """The same calls through the facade in this process: wall and CPU time per call (the CPU time
    is what a loaded machine does not inflate)."""
    from pybridge.query import Facade

    out: dict[str, Any] = {"rounds": [], "answers": []}
    with Facade([root], state_dirs={str(root): state}) as f:
        for i in range(rounds):
            times: list[float] = []
            cpu: list[float] = []
            answers: list[str] = []
            errors = 0
            for key in keys:
                t0, c0 = time.perf_counter(), time.process_time()
                data, is_error = f.call("find_references", {"symbolKey": key})
                cpu.append(time.process_time() - c0)
                times.append(time.perf_counter() - t0)
                errors += is_error
                answers.append(json.dumps({k: v for k, v in data.items() if k not in VOLATILE},
                                          sort_keys=True, ensure_ascii=False))
            slow = sorted(range(len(times)), key=lambda j: -times[j])[:10]
            c = queries.percentiles(cpu)
            out["rounds"].append({**queries.percentiles(times), "errors": errors,
                                  "cpu_p50_ms": c["p50_ms"], "cpu_p99_ms": c["p99_ms"], "cpu_max_ms": c["max_ms"],
                                  "slowest": [[j, round(times[j] * 1e3, 2)] for j in slow]})
            if i == 0:
                out["answers"] = answers
    return out


def _ab(root: Path, state: Path, keys: list[str], args: argparse.Namespace, log: Path) -> dict:
    """The same session with `args.ab`=0 and =1, alternately; the last round of each is compared."""
    runs: dict[str, list[dict]] = {"0": [], "1": []}
    first: dict[str, list[str]] = {}
    with open(log, "a") as errlog:
        for _ in range(args.pairs):
            for value in ("0", "1"):
                result = anyio.run(_session, root, state, keys, args.rounds, errlog, {args.ab: value})
                first.setdefault(value, result["answers"])
                last = result["rounds"][-1]
                last.pop("slowest")
                runs[value].append({**last, "loadAverage": load_average()})

    def mean(value: str, field: str) -> float:
        return sum(r[field] for r in runs[value]) / len(runs[value])
    return {"switch": args.ab, "symbols": len(keys), "rounds": args.rounds, "off": runs["0"], "on": runs["1"],
            "answersEqual": first["0"] == first["1"],
            "ratio": {f: round(mean("1", f) / mean("0", f), 3)
                      for f in ("server_cpu_p50_ms", "server_cpu_p99_ms", "server_cpu_max_ms", "p50_ms", "p99_ms")}}


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reactor", default="reactor4", choices=sorted(workspaces.REACTORS))
    parser.add_argument("--n", type=int, default=760, help="how many of the hottest symbols")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the symbols in one session")
    parser.add_argument("--answers", type=Path, help="write every answer of the first round here (JSON lines)")
    parser.add_argument("--compare", type=Path, help="compare the answers with this file's")
    parser.add_argument("--facade", action="store_true",
                        help="call the facade in this process instead of an MCP session (CPU time too)")
    parser.add_argument("--ab", metavar="VAR",
                        help="serve with VAR=0 then VAR=1 (`--pairs` times), and print the server-CPU ratio "
                             "of the last rounds (on / off)")
    parser.add_argument("--pairs", type=int, default=1, help="with --ab: how many off/on pairs")
    parser.add_argument("--state", type=Path,
                        help="the state folder to serve (default bench/work/state-<reactor>); a copy keeps the "
                             "shared one untouched (serve writes its locks and cursors there)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    def say(message: str) -> None:
        print(message, file=sys.stderr)

    root, state = prepare(args.reactor, say, args.state)
    hot = hottest(state, args.n)
    say(f"  {len(hot)} symbols, {hot[0][1]} to {hot[-1][1]} references each")
    load_before = load_average()
    log = (state.parent / f"{state.name}-serve.log" if args.state
           else workspaces.WORK / f"p99-serve-{args.reactor}.log")
    keys = [k for _, _, k in hot]
    if args.ab:
        print(json.dumps(_ab(root, state, keys, args, log), indent=2))
        return
    if args.facade:
        result = _in_process(root, state, keys, args.rounds)
    else:
        with open(log, "a") as errlog:
            result = anyio.run(_session, root, state, keys, args.rounds, errlog)
    answers = result.pop("answers")
    if args.answers:
        args.answers.write_text("".join(a + "\n" for a in answers), encoding="utf-8")
    report: dict[str, Any] = {
        "reactor": args.reactor, "via": "facade" if args.facade else "mcp-stdio", "symbols": len(hot),
        "referencesMost": hot[0][1], "referencesLeast": hot[-1][1],
        "rounds": result["rounds"], "loadAverageBefore": load_before, "loadAverageAfter": load_average(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}",
    }
    if args.compare:
        other = args.compare.read_text(encoding="utf-8").splitlines()
        differing = [i for i, (a, b) in enumerate(zip(answers, other, strict=False)) if a != b]
        report["compare"] = {"with": str(args.compare), "answers": len(answers), "other": len(other),
                             "equal": not differing and len(answers) == len(other),
                             "differing": len(differing), "firstDiffering": differing[:5]}
    print(json.dumps(report, indent=2))
    if args.markdown:
        for i, r in enumerate(report["rounds"], 1):
            cpu = " | ".join(f"{r[k]:.2f}" for k in ("server_cpu_p50_ms", "server_cpu_p99_ms", "server_cpu_max_ms")
                             if k in r)
            print(f"| round {i} | {r['n']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['max_ms']:.2f} | {cpu} | "
                  f"{r['errors']} | {load_before} |")


if __name__ == "__main__":
    main()
