"""The javac differential (bench/javac_diff.py) on every sample under samples/ (issue 26).

    .venv/bin/python bench/javac_diff_samples.py [--sample NAME ...] [--work DIR] [--out FILE.json] [--online]

Each sample is copied into WORK/NAME (a fresh copy each run: the samples stay untouched), synced
into WORK/NAME-state with a worker of this process (Lombok's agent when the sample needs it: sync
settles the agent set), and compared with javac by `javac_diff.run`: javac's references from the
Tree API extractor (bench/javac_refs), with Lombok as javac's annotation processor where the module
has Lombok on its processor path or classpath, against the published generation's store. Printed:
per sample, per job and kind, javac's and pybridge's counts, recall, precision and kind agreement;
the normalizations and exclusions applied (each a named rule, counted); every difference, grouped.

`dual-build` is run twice, as Maven reads it and as Gradle reads it (`dual-build (gradle)`).
`broken` is not a sample for this (it does not compile on purpose). The Gradle samples need
`gradle` on PATH (Debian's 4.4.1 here) and its dependencies in the Gradle user home (or `--online`).
The classpath cache is WORK/cache (PYBRIDGE_CACHE_DIR), not the user's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import javac_diff  # noqa: E402 - bench/ is not a package

from pybridge.sync import sync  # noqa: E402
from pybridge.worker.client import Worker  # noqa: E402

SAMPLES_DIR = HERE.parent / "samples"
# (name shown, folder under samples/, build tool)
SAMPLES = (
    ("kitchen-sink", "kitchen-sink", "auto"),
    ("reactor", "reactor", "auto"),
    ("edits", "edits", "auto"),
    ("renames", "renames", "auto"),
    ("dual-build", "dual-build", "maven"),
    ("dual-build (gradle)", "dual-build", "gradle"),
    ("lombok", "lombok", "auto"),
    ("gradle-reactor", "gradle-reactor", "auto"),
)


def run_sample(name: str, folder: str, build_tool: str, work: Path, worker: Worker, online: bool,
               say=print) -> dict:
    """Copy, sync and compare one sample; its `javac_diff.run` result per job, with the sync's time."""
    slug = name.replace(" ", "").replace("(", "-").replace(")", "")
    root, state = work / slug, work / f"{slug}-state"
    for d in (root, state):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SAMPLES_DIR / folder, root, ignore=shutil.ignore_patterns("target", "build", ".gradle"))
    t0 = time.perf_counter()
    sync(root, state_dir=state, worker=worker, allow_online=online, build_tool=build_tool)
    synced = time.perf_counter() - t0
    say(f"{name}: synced in {synced:.1f} s")
    results = javac_diff.run(root, state, work=work / f"{slug}-javac", say=say)
    return {"sync_seconds": synced, "jobs": results}


def agrees(r: dict) -> bool:
    """Every kind of one job at 100% recall, precision and kind agreement, and javac without errors."""
    return r["javac_errors"] == 0 and all(
        t["missed"] == 0 and t["extra"] == 0 and t["kind_agreement"] in (None, 1.0) for t in r["kinds"].values())


def summary(all_results: dict) -> str:
    """Markdown: one row per sample."""
    lines = ["| sample | jobs | javac errors | javac | pybridge | excluded (rule: javac / pybridge) | "
             "every kind at 100% recall, precision, kind agreement |",
             "| --- | ---: | ---: | ---: | ---: | --- | --- |"]
    for name, s in all_results.items():
        jobs = s["jobs"]
        javac = sum(t["javac"] for r in jobs.values() for t in r["kinds"].values())
        ours = sum(t["pybridge"] for r in jobs.values() for t in r["kinds"].values())
        errors = sum(r["javac_errors"] for r in jobs.values())
        excluded: dict[str, list[int]] = {}
        for r in jobs.values():
            for rule, (a, b) in r["excluded"].items():
                excluded.setdefault(rule, [0, 0])
                excluded[rule][0] += a
                excluded[rule][1] += b
        ex = "; ".join(f"{rule}: {a} / {b}" for rule, (a, b) in excluded.items()) or "none"
        bad = [job for job, r in jobs.items() if not agrees(r)]
        lines.append(f"| {name} | {len(jobs)} | {errors} | {javac:,} | {ours:,} | {ex} | "
                     f"{'yes' if not bad else 'no: ' + ', '.join(bad)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sample", action="append", help="a sample's name as listed (repeatable; default all)")
    ap.add_argument("--work", type=Path, default=HERE / "work" / "javac-diff-samples",
                    help="folder for the copies, states, javac's output and the classpath cache")
    ap.add_argument("--out", type=Path, help="write every result (with examples) as JSON")
    ap.add_argument("--online", action="store_true", help="let Maven and Gradle download what they miss")
    a = ap.parse_args(argv)
    names = {n for n, _, _ in SAMPLES}
    unknown = set(a.sample or ()) - names
    if unknown:
        ap.error(f"unknown sample(s) {sorted(unknown)}; the samples are: {', '.join(n for n, _, _ in SAMPLES)}")
    work = a.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["PYBRIDGE_CACHE_DIR"] = str(work / "cache")
    results: dict[str, dict] = {}
    t0, c0 = time.perf_counter(), os.times()
    with Worker(heap="1g") as worker:
        for name, folder, tool in SAMPLES:
            if a.sample and name not in a.sample:
                continue
            if folder in ("gradle-reactor",) or tool == "gradle":
                if shutil.which("gradle") is None:
                    print(f"{name}: skipped: needs `gradle` on PATH (Gradle 4.4.1 here)")
                    continue
            results[name] = run_sample(name, folder, tool, work, worker, a.online)
    c1 = os.times()
    print(f"\nall samples: {time.perf_counter() - t0:.0f} s wall, "
          f"{c1.children_user + c1.children_system - c0.children_user - c0.children_system:.0f} s CPU in child "
          f"processes (javac), load average {os.getloadavg()[0]:.1f}\n")
    for name, s in results.items():
        print(f"## {name}\n")
        print(javac_diff.table(s["jobs"]))
        print()
        javac_diff.print_details(s["jobs"], limit=15)
    print("\n" + summary(results))
    if a.out:
        a.out.write_text(json.dumps(results, indent=1))
    return 0 if all(agrees(r) for s in results.values() for r in s["jobs"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
