"""The pybridge benchmark: one command, one machine, every figure beside its baseline.

    .venv/bin/python bench/run.py [--quick] [--only NAME ...] [--runs N] [--samples N]

See bench/README.md. Writes bench/RESULTS.md, bench/results.json, bench/results.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import measure  # noqa: E402 - after the sys.path set-up
import queries  # noqa: E402 - after the sys.path set-up
import report  # noqa: E402 - after the sys.path set-up
import workspaces  # noqa: E402 - after the sys.path set-up

from pybridge.worker import jars_dir  # noqa: E402 - after the sys.path set-up

MEASUREMENTS = ("sync", "baselines", "facade", "mcp", "serve")
FULL = ("commons-lang3", "guava")
QUICK = ("commons-lang3-main",)
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


def _out(cmd: list[str]) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unavailable ({exc})"
    text = (p.stdout + p.stderr).strip()
    return text.splitlines()[0] if text else "?"


def machine() -> dict:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    mem_kb = next(int(ln.split()[1]) for ln in Path("/proc/meminfo").read_text().splitlines()
                  if ln.startswith("MemTotal"))
    os_name = next((ln.split("=", 1)[1].strip('"') for ln in Path("/etc/os-release").read_text().splitlines()
                    if ln.startswith("PRETTY_NAME=")), platform.system())
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": mem_kb / 1024 ** 2,
            "os": f"{os_name}, Linux {platform.release()}",
            "load_at_start": ", ".join(f"{x:.2f}" for x in os.getloadavg())}


def versions() -> dict:
    repo = HERE.parent
    commit = _out(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"])
    dirty = _out(["git", "-C", str(repo), "status", "--porcelain", "--", "pybridge", "jvm"])
    return {"python": platform.python_version(), "java": _out(["java", "-version"]),
            "javac": _out(["javac", "-version"]),
            "maven": _out(["mvn", "-v"]).replace("\x1b[1m", "").replace("\x1b[m", ""),
            "jdt_jars": sorted(p.name for p in jars_dir().glob("*.jar")
                               if p.name.startswith(("ecj-", "org.eclipse.jdt.core-", "pybridge-indexer"))),
            "commit": commit + (" (with uncommitted changes under pybridge/ or jvm/)"
                                if dirty not in ("", "?") else "")}


def round_seconds(rnd: dict) -> dict:
    """A round's figures in seconds, with the sync's indexing phase and its time without Maven."""
    out = {k: v["seconds"] for k, v in rnd.items()}
    if "full_sync" in rnd:
        timings = rnd["full_sync"]["result"]["timings"]
        out["index"] = timings.get("index")
        out["full_sync_nomaven"] = out["full_sync"] - timings.get("maven", 0.0)
    return out


def run_rounds(name: str, root: Path, state: Path, wanted: set[str], runs: int, w: dict) -> None:
    """`runs` rounds of full sync, resync, ecj and javac back to back, so that each round's
    ratios compare figures taken under the same load; the report uses medians of those."""
    rounds, jobs = [], None
    for i in range(runs):
        rnd = {}
        tag = f"{name} round {i + 1}/{runs}"
        if "sync" in wanted:
            say(f"{tag}: full sync (fresh state folder {state})")
            fs = rnd["full_sync"] = measure.full_sync(root, state, say=say)
            say(f"{tag}: full sync {fs['seconds']:.2f} s, timings "
                f"{ {k: round(v, 2) for k, v in fs['result']['timings'].items()} }, "
                f"worker peak RSS {(fs['worker_peak_rss_bytes'] or 0) / 2**20:.0f} MiB")
            rnd["resync"] = measure.resync(root, state, say=lambda _m: None)
            say(f"{tag}: no-change resync {rnd['resync']['seconds']:.3f} s")
        if "baselines" in wanted:
            if jobs is None:
                jobs = measure.compile_jobs(root, state)
                w["commands"] = {f"{k} {j['scope']}": measure.command_line(k, j) for k in ("ecj", "javac")
                                 for j in jobs}
            for kind in ("ecj", "javac"):
                rnd[kind] = measure.compile_once(kind, jobs)
                say(f"{tag}: {kind} over {', '.join(j['scope'] for j in jobs)}: {rnd[kind]['seconds']:.2f} s")
        rounds.append(rnd)
    w["rounds"] = [round_seconds(r) for r in rounds]
    for key in ("full_sync", "resync", "ecj", "javac"):
        if key in rounds[0]:
            w[key] = measure.median_run([r[key] for r in rounds])
    if "full_sync" in w:
        w["full_sync"]["worker_peak_rss_bytes"] = max(r["full_sync"]["worker_peak_rss_bytes"] or 0 for r in rounds)
        w["store"] = measure.store_size(state, w["full_sync"]["result"]["counts"]["references"])
        say(f"{name}: store {w['store']['bytes'] / 1e6:.1f} MB, "
            f"{w['store']['bytes_per_reference'] or 0:.0f} bytes per reference")


def bench_workspace(name: str, wanted: set[str], args, res: dict) -> dict:
    a = workspaces.ARTIFACTS[name]
    root = workspaces.ensure(a, say=say)
    state = workspaces.WORK / "state" / name
    w = res["workspaces"].setdefault(name, {})
    w |= {"artifact": a.gav, "note": a.note, "root": str(root), "state": str(state),
         "scopes": ["main", "test"] if a.test_sources else ["main"]}
    if wanted & {"sync", "baselines"}:
        run_rounds(name, root, state, wanted, args.runs, w)
    if wanted & {"facade", "mcp", "serve"}:
        if not (state / "store.sqlite").exists():
            say(f"{name}: no synced state at {state}: query measurements skipped (run with sync)")
            return w
        symbols = queries.sample_symbols(state, args.samples, seed=args.seed)
        say(f"{name}: {len(symbols)} symbols sampled (seed {args.seed})")
        log = workspaces.WORK / f"serve-{name}.log"
        if "facade" in wanted:
            say(f"{name}: query latency through the facade")
            w["facade"] = queries.facade_latency(root, state, symbols, say=say)
        if "serve" in wanted:
            say(f"{name}: pybridge serve start to first answer ({args.serve_runs} run(s))")
            w["serve_first_answer"] = queries.serve_first_answer(root, state, symbols, args.serve_runs, log, say=say)
        if "mcp" in wanted:
            say(f"{name}: query latency through an MCP stdio session")
            w["mcp"] = queries.mcp_latency(root, state, symbols, log, say=say)
        for key in ("facade", "serve_first_answer", "mcp"):
            if key in w and ("skipped" in w[key] or "failed" in w[key]):
                say(f"{name}: {key}: {w[key].get('skipped') or w[key].get('failed')}")
    return w


def merge_previous(res: dict, args) -> None:
    """An `--only` run adds its figures to the last results.json of the same mode instead of dropping the rest."""
    res["history"] = [{"command": res["command"], "started_at": res["started_at"]}]
    path = HERE / "results.json"
    if not args.only or not path.exists():
        return
    prev = json.loads(path.read_text())
    if prev.get("mode") == res["mode"]:
        res["workspaces"] = prev.get("workspaces", {})
        res["history"] = prev.get("history", []) + res["history"]
        say(f"--only: merging into {path} ({len(res['history']) - 1} earlier run(s))")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="commons-lang3 main scope only, 1 compile run, 100 query samples, 1 serve start")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help=f"a workspace ({', '.join(workspaces.ARTIFACTS)}) or a measurement "
                         f"({', '.join(MEASUREMENTS)}); repeatable")
    ap.add_argument("--runs", type=int,
                    help="rounds of sync + resync + ecj + javac, medians taken (default 3, quick 1)")
    ap.add_argument("--samples", type=int, help="symbols sampled for query latency (default 1000, quick 100)")
    ap.add_argument("--serve-runs", type=int, help="serve starts timed (default 3, quick 1)")
    ap.add_argument("--seed", type=int, default=20240601)
    args = ap.parse_args()
    args.runs = args.runs or (1 if args.quick else 3)
    args.samples = args.samples or (100 if args.quick else 1000)
    args.serve_runs = args.serve_runs or (1 if args.quick else 3)
    unknown = [n for n in args.only if n not in workspaces.ARTIFACTS and n not in MEASUREMENTS]
    if unknown:
        ap.error(f"--only {unknown[0]}: not a workspace ({', '.join(workspaces.ARTIFACTS)}) "
                 f"nor a measurement ({', '.join(MEASUREMENTS)})")
    names = [n for n in args.only if n in workspaces.ARTIFACTS] or list(QUICK if args.quick else FULL)
    wanted = {n for n in args.only if n in MEASUREMENTS} or set(MEASUREMENTS)

    res = {"command": " ".join([".venv/bin/python bench/run.py", *map(shlex.quote, sys.argv[1:])]),
           "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
           "mode": "quick" if args.quick else "full", "compile_runs": args.runs, "samples": args.samples,
           "seed": args.seed, "machine": machine(), "versions": versions(), "workspaces": {}}
    say(f"machine: {res['machine']['cpu']}, {res['machine']['cores']} cores, load {res['machine']['load_at_start']}")
    say(f"workspaces: {', '.join(names)}; measurements: {', '.join(m for m in MEASUREMENTS if m in wanted)}")
    merge_previous(res, args)
    for name in names:
        bench_workspace(name, wanted, args, res)
        report.write(res)   # after each workspace, so a long run leaves its results so far
    res["finished_after_s"] = time.monotonic() - T0
    res["machine"]["load_at_end"] = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    report.write(res)
    say(f"done: {HERE / 'RESULTS.md'}, {HERE / 'results.json'}, {HERE / 'results.png'}")


if __name__ == "__main__":
    main()
