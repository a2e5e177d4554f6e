"""The live index, end to end: from a file write to the fresh `find_references` answer, over MCP stdio.

    .venv/bin/python bench/live.py                                  # commons-lang3 and guava, 50 edits each
    .venv/bin/python bench/live.py --workspaces guava --edits 10    # fewer edits
    .venv/bin/python bench/live.py --workspaces --gradle samples/gradle-reactor --edits 20 --no-write
                                                                    # a Gradle workspace (its main files in turn)
    .venv/bin/python bench/live.py --workspaces --folder samples/lombok --edits 3 --no-write
                                                                    # any folder, its build tool detected

For each workspace (bench/workspaces.py builds them from Maven Central) the
bench copies it to a temporary folder (bench/work stays untouched), syncs it
once, starts `pybridge serve` over stdio (watching on, a warm worker), and
then, for each of N different main-scope files: takes the key of the file's
primary type (`find_symbol`, outside the timing), appends a comment line to
the file, and times from just before the write to the first
`find_references` answer that is fresh and comes from a newer generation
(a `stale_key` while keys are bound to generations is followed by the
`replacement` key, inside the timing). p50 and p99 (nearest rank) over the
edits go into the "Live index" section of bench/RESULTS.md (the rest of the
file is kept) and into bench/live-results.json.

`--fresh-wait` is passed to `serve`: how long an exact tool waits for the
catch-up (the default 300 s lets a full re-index finish, so that the figure
measures the catch-up rather than the bound).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.queries import _unpack, serve_command  # noqa: E402 - after the sys.path set-up
from bench.report import write_section  # noqa: E402 - after the sys.path set-up
from bench.run import machine, versions  # noqa: E402 - after the sys.path set-up
from bench.workspaces import ARTIFACTS, ensure  # noqa: E402 - after the sys.path set-up
from pybridge.sync import sync  # noqa: E402 - after the sys.path set-up

BEGIN, END = "<!-- live-bench:begin -->", "<!-- live-bench:end -->"


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def pick_files(root: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """(relative path, dotted name of its primary type) for n main-scope files, sampled with `seed` (a
    multi-project build's `*/src/main/java` too; when it has fewer than n, they are taken in turn)."""
    mains = [root / "src/main/java"] if (root / "src/main/java").is_dir() else \
        sorted(p for p in root.glob("**/src/main/java") if "buildSrc" not in p.parts)
    files = sorted((p, main) for main in mains for p in main.rglob("*.java")
                   if p.name not in ("package-info.java", "module-info.java"))
    random.Random(seed).shuffle(files)
    out = []
    for p, main in files:
        text = p.read_text(encoding="utf-8", errors="replace")
        if not re.search(rf"\b(class|interface|enum|record|@interface)\s+{re.escape(p.stem)}\b", text):
            continue
        dotted = ".".join(p.relative_to(main).with_suffix("").parts)
        out.append((p.relative_to(root).as_posix(), dotted))
        if len(out) == n:
            break
    return [out[i % len(out)] for i in range(n)] if out else []


async def _session(root: Path, state: Path, files: list[tuple[str, str]], fresh_wait: float, errlog, say) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = [*serve_command(root, state), "--fresh-wait", str(fresh_wait)]
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    samples: list[dict] = []
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, args: dict) -> tuple[dict, bool]:
                return _unpack(await session.call_tool(name, args))

            for _ in range(600):        # the watcher reports its mode within a second or so
                status, _err = await call("status", {})
                if status.get("live", {}).get("watchMode") not in (None, "starting"):
                    break
                await anyio.sleep(0.05)
            say(f"  watching: {status.get('live', {}).get('watchMode')}")
            t_warm = time.perf_counter()
            for _ in range(2400):       # serve starts and warms its worker in the background (a few seconds)
                if status.get("live", {}).get("worker", {}).get("warm"):
                    break
                await anyio.sleep(0.05)
                status, _err = await call("status", {})
            say(f"  worker warm after {time.perf_counter() - t_warm:.1f} s more")
            t_check = time.perf_counter()
            for _ in range(2400):       # and its start-up check (with the rehearsal of one edit) is over
                live = status.get("live", {})
                if live.get("lastCheck") is not None and not live.get("syncing") and not live.get("pending"):
                    break
                await anyio.sleep(0.05)
                status, _err = await call("status", {})
            say(f"  start-up check {status.get('live', {}).get('lastCheck', {}).get('outcome')} after "
                f"{time.perf_counter() - t_check:.1f} s more")
            for i, (rel, dotted) in enumerate(files):
                found, is_error = await call("find_symbol", {"query": dotted})
                symbols = [] if is_error else [s for s in found["symbols"] if s["dottedPath"] == dotted]
                if not symbols:
                    say(f"  skip {rel}: {dotted} not found")
                    continue
                key = symbols[0]["symbolKey"]
                before, is_error = await call("find_references", {"symbolKey": key, "limit": 1})
                if is_error:
                    say(f"  skip {rel}: {before.get('code')}")
                    continue
                generation = before["meta"]["generation"]
                path = root / rel
                text = path.read_bytes()
                t0 = time.perf_counter()
                path.write_bytes(text + f"\n// pybridge live bench edit {i}\n".encode())
                answer, tries = None, 0
                while tries < 50:
                    tries += 1
                    answer, is_error = await call("find_references", {"symbolKey": key, "limit": 100})
                    if is_error and answer.get("code") == "stale_key" and answer.get("replacement"):
                        key = answer["replacement"]
                        continue
                    if is_error or (answer["freshness"] == "fresh" and answer["meta"]["generation"] > generation):
                        break
                elapsed = time.perf_counter() - t0
                ok = not is_error and answer is not None and answer["meta"]["generation"] > generation
                live = (await call("status", {}))[0].get("live", {})
                last = live.get("lastCatchUp") or {}
                samples.append({"file": rel, "seconds": elapsed, "ok": ok, "tries": tries,
                                "error": None if ok else (answer or {}).get("error"),
                                "syncSeconds": last.get("syncSeconds"), "generation": last.get("generation")})
                say(f"  {i + 1}/{len(files)} {rel}: {elapsed:.3f} s{'' if ok else ' FAILED'}"
                    f" (catch-up sync {last.get('syncSeconds')} s)")
            worker = (await call("status", {}))[0].get("live", {}).get("worker", {})
            say(f"  worker restarts: {worker.get('restartCauses')}")
    return {"samples": samples, "worker": worker}


def run_workspace(name: str, edits: int, seed: int, fresh_wait: float, say=print,
                  source: Path | None = None) -> dict:
    source = source or ensure(ARTIFACTS[name], say=say)
    folder = source.name if source is not None and name not in ARTIFACTS else name
    scratch = Path(tempfile.mkdtemp(prefix=f"pybridge-live-{folder}-"))
    try:
        root, state = scratch / folder, scratch / "state"
        shutil.copytree(source, root)
        t = time.perf_counter()
        result = sync(root, state_dir=state)
        full = time.perf_counter() - t
        say(f"  {name}: full sync {full:.1f} s, {result.counts['files']} files")
        files = pick_files(root, edits, seed)
        with open(scratch / "serve.log", "w") as errlog:
            out = anyio.run(_session, root, state, files, fresh_wait, errlog, say)
        times = [s["seconds"] for s in out["samples"] if s["ok"]]
        return {"workspace": name, "files": result.counts["files"], "full_sync_s": full, "edits": len(out["samples"]),
                "ok": len(times), "first_s": out["samples"][0]["seconds"] if out["samples"] else None,
                "p50_s": nearest_rank(times, 0.5) if times else None,
                "p99_s": nearest_rank(times, 0.99) if times else None, "max_s": max(times) if times else None,
                "worker": out["worker"], "samples": out["samples"]}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def report(results: list[dict], command: str, mach: dict, vers: dict) -> str:
    lines = [BEGIN, "## Live index: from a file write to the fresh answer (`bench/live.py`)", "",
             f"Command: `{command}`, at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; pybridge commit "
             f"{vers['commit']}. Machine: {mach['cpu']} ({mach['cores']} cores), {mach['ram_gb']:.1f} GB RAM, "
             f"{mach['os']}; load average at start {mach['load_at_start']}, at end "
             f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}.", "",
             "Each edit appends a comment line to a different main-scope file; the time runs from just before the "
             "write to the first fresh `find_references` answer (over MCP stdio, `pybridge serve` watching with a "
             "warm worker) from a newer generation for the file's primary type. The edits start once `status` "
             "says the worker is warm (serve starts and warms it in the background, about 2 s after it starts "
             "here) and its start-up check is over (`lastCheck`; with PYBRIDGE_LIVE_REHEARSE on, the default, "
             "that check rehearses one edit): the figure is the steady state of a server kept open, not its "
             "start-up.", "",
             "| workspace | files | full sync | edits (fresh) | first edit | p50 | p99 | max | target p99 <= 1 s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        def s(x):
            return "n/a" if x is None else f"{x:.3f} s"
        met = "n/a" if r["p99_s"] is None else ("met" if r["p99_s"] <= 1.0 else "not met")
        lines.append(f"| {r['workspace']} | {r['files']} | {r['full_sync_s']:.1f} s | {r['edits']} ({r['ok']}) | "
                     f"{s(r['first_s'])} | {s(r['p50_s'])} | {s(r['p99_s'])} | {s(r['max_s'])} | {met} |")
    lines += ["", "On a branch without incremental sync every catch-up re-indexes the whole workspace (with a warm "
              "JVM); the figures then measure that full catch-up.", END]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspaces", nargs="*", default=["commons-lang3", "guava"], choices=sorted(ARTIFACTS))
    parser.add_argument("--gradle", action="append", default=[], type=Path,
                        help="also a Gradle workspace at this folder (repeatable; copied, as the others)")
    parser.add_argument("--folder", action="append", default=[], type=Path,
                        help="also the workspace at this folder, its build tool detected (repeatable; copied)")
    parser.add_argument("--edits", type=int, default=50, help="edits per workspace (different files)")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--fresh-wait", type=float, default=300.0, help="serve's --fresh-wait (seconds)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = parser.parse_args()
    command = "python bench/live.py " + " ".join(sys.argv[1:])
    mach, vers = machine(), versions()
    results = []
    for name in args.workspaces:
        print(f"{name}:", flush=True)
        results.append(run_workspace(name, args.edits, args.seed, args.fresh_wait,
                                     say=lambda m: print(m, flush=True)))
    for folder in args.gradle:
        name = f"{folder.resolve().name} (Gradle)"
        print(f"{name}:", flush=True)
        results.append(run_workspace(name, args.edits, args.seed, args.fresh_wait,
                                     say=lambda m: print(m, flush=True), source=folder.resolve()))
    for folder in args.folder:
        name = folder.resolve().name
        print(f"{name}:", flush=True)
        results.append(run_workspace(name, args.edits, args.seed, args.fresh_wait,
                                     say=lambda m: print(m, flush=True), source=folder.resolve()))
    section = report(results, command.strip(), mach, vers)
    print(section)
    if not args.no_write:
        write_section(HERE / "RESULTS.md", BEGIN, END, section)
        (HERE / "live-results.json").write_text(json.dumps({"command": command, "machine": mach, "versions": vers,
                                                            "results": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
