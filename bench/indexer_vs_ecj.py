"""The indexer beside JDT's batch compiler on the same sources, in one run.

    .venv/bin/python bench/indexer_vs_ecj.py ROOT [ROOT...] [--classpath CP] [--runs N]

Times `ecj -d none -proc:none` (the `ecj` jar the indexer ships, so the same
JDT version) and the indexer through the worker (a cold worker: JVM start
included; then a warm request in the same worker), and prints facts per
second, JPype calls per file, and each time as a ratio to ecj's.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from measure import _run_compiler  # bench/ is on sys.path when this runs as a script

from pybridge.worker import IndexRequest, Worker


def ecj(files: list[str], roots: list[str], classpath: str, release: str) -> float:
    """`ecj -d none -proc:none` as bench/run.py runs it (measure.ecj_cmd)."""
    job = {"files": files, "sourcepath": roots, "classpath": [c for c in classpath.split(os.pathsep) if c],
           "release": release, "encoding": "UTF-8", "release_flag": "release"}
    return _run_compiler("ecj", job)[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--classpath", default="")
    ap.add_argument("--release", default="17")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    files = sorted(str(p) for r in args.roots for p in Path(r).rglob("*.java") if p.name != "module-info.java")
    request = IndexRequest(files=files, sourcepath=args.roots,
                           classpath=[c for c in args.classpath.split(os.pathsep) if c], release=args.release)
    ecj_times, cold, warm = [], [], []
    facts = calls = 0
    for _ in range(args.runs):
        ecj_times.append(ecj(files, args.roots, args.classpath, args.release))
        with Worker() as w:
            t0 = time.perf_counter()
            r = w.index(request)
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            r = w.index(request)
            warm.append(time.perf_counter() - t0)
        facts = sum(len(f.references) + len(f.declarations) for f in r.files)
        calls = r.jpype_calls
    e, c, wm = statistics.median(ecj_times), statistics.median(cold), statistics.median(warm)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"sources: {len(files)} files under {', '.join(args.roots)}; medians of {args.runs} runs")
    print("| what | seconds | ratio to ecj |\n| --- | --- | --- |")
    print(f"| ecj -d none -proc:none (cold JVM) | {e:.2f} | 1.00 |")
    print(f"| indexer, cold worker (JVM start, index, decode) | {c:.2f} | {c / e:.2f} |")
    print(f"| indexer, warm request in the same worker | {wm:.2f} | {wm / e:.2f} |")
    print(f"facts (declarations + references): {facts}; facts/s cold: {facts / c:,.0f}; warm: {facts / wm:,.0f}")
    print(f"JPype calls per request: {calls}; per file: {calls / max(len(files), 1):.3f}")


if __name__ == "__main__":
    main()
