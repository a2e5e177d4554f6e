"""First sync against ecj (issue 12): before and after, cold and with a warm classpath cache.

For each workspace (commons-lang3 main+test, guava main, commons-collections4 4.4 main, which
declares no dependency), in one round, so that all see the same machine load:

- *before*: a full sync by another checkout (`--before-tree DIR`, a clone at the commit to
  compare with, set up with its own scripts/setup), into a fresh state folder;
- *cold*: a full sync by this checkout into a fresh state folder with an empty classpath cache
  (PYBRIDGE_CACHE_DIR pointing at an empty folder): Maven resolves, as on a first sync of a
  workspace on a machine. Set-up artifacts are in place, as after scripts/setup and one earlier
  Maven run on the machine: the local Maven repository, the worker's and Maven's class-data
  archives (pybridge/worker/cds.py, pybridge/workspace/maven/mavencds.py);
- *warm*: the same into another fresh state folder, with the classpath cache that *cold* left:
  no Maven run (a second checkout or state folder of a workspace already resolved here);
- ecj over the same sources and classpath.

JVM start and classpath resolution are included in every sync. The phases come from the sync's
own timings.

    .venv/bin/python bench/firstsync.py [--runs N] [--only NAME] [--before-tree DIR] [--gradle DIR ...]

`--gradle DIR` adds a Gradle workspace (named by its folder; `--only` then limits the Maven ones, none
with `--only none`): *cold* has Gradle read the build (its user home filled, as after one earlier
build on the machine: the dependencies are not downloaded again), *warm* finds the cached model (no
Gradle run).

Writes bench/firstsync.json and the "First sync" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import measure, workspaces
from bench.report import median, say, write_section
from pybridge.workspace.gradle import GRADLE

NAMES = ("commons-lang3", "guava", "commons-collections4")
OUT = Path(__file__).resolve().parent / "firstsync.json"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
BEGIN, END = "<!-- firstsync:begin -->", "<!-- firstsync:end -->"


BEFORE_SCRIPT = """
import json, shutil, sys, time
from pathlib import Path
from pybridge.sync import sync
from pybridge.worker import Worker
root, state = Path(sys.argv[1]), Path(sys.argv[2])
shutil.rmtree(state, ignore_errors=True)
state.mkdir(parents=True)
worker = Worker()
t0 = time.perf_counter()
result = sync(root, state_dir=state, worker=worker)
seconds = time.perf_counter() - t0
worker.close()
print(json.dumps({"seconds": seconds, "timings": result.to_json()["timings"]}))
"""


def before_sync(tree: Path, root: Path, state: Path) -> dict:
    """A full sync by the checkout at `tree`, with its own venv and jars, in a child process. Cold as
    *cold* is: an empty classpath cache (a checkout that has one would otherwise find the
    classpaths the user cache holds), Maven's class-data archive where *cold* has it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYBRIDGE_")}
    cache = state.with_name(state.name + "-classpath-cache")
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    env["PYBRIDGE_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = str(tree)      # that checkout's pybridge, in the sync and in its worker child
    if "PYBRIDGE_MAVEN_CDS_DIR" in os.environ:
        env["PYBRIDGE_MAVEN_CDS_DIR"] = os.environ["PYBRIDGE_MAVEN_CDS_DIR"]
    out = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-c", BEFORE_SCRIPT, str(root), str(state)],
                         cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def one_round(name: str, root: Path, before_tree: Path | None, base: Path) -> dict:
    out: dict = {}
    if before_tree is not None:
        out["before"] = before_sync(before_tree, root, base / f"{name}-before")
        say(f"{name}: sync before: {out['before']['seconds']:.2f} s {out['before']['timings']}")
    cache = base / f"{name}-classpath-cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    os.environ["PYBRIDGE_CACHE_DIR"] = str(cache)
    try:
        GRADLE.forget()     # a cold sync of a Gradle workspace runs Gradle, as in a new process
        for label in ("cold", "warm"):
            fs = measure.full_sync(root, base / f"{name}-{label}", say=lambda _m: None)
            out[label] = {"seconds": fs["seconds"], "timings": fs["result"]["timings"],
                          "worker_peak_rss_bytes": fs["worker_peak_rss_bytes"],
                          "store_bytes": measure.store_size(base / f"{name}-{label}",
                                                            fs["result"]["counts"].get("references", 0))["bytes"]}
            say(f"{name}: sync {label}: {fs['seconds']:.2f} s {out[label]['timings']}")
    finally:
        os.environ.pop("PYBRIDGE_CACHE_DIR", None)
    jobs = measure.compile_jobs(root, base / f"{name}-cold")
    ecj = measure.compile_once("ecj", jobs)
    out["ecj"] = {"seconds": ecj["seconds"], "jobs": ecj["jobs"]}
    say(f"{name}: ecj {ecj['seconds']:.2f} s {[j['last_line'] for j in ecj['jobs'].values()]}")
    return out


def report(res: dict) -> str:
    lines = [BEGIN, "## First sync against ecj (issue 12)", "",
             f"`{res['command']}` on {res['machine']}, {res['cores']} cores (load average at start "
             f"{res['load']:.2f}); {res['runs']} round(s), medians"
             + (f" (other rows from `{res['previous']['command']}`, load {res['previous']['load']:.2f})"
                if res.get("previous") else "")
             + ". Each sync starts from a fresh state folder: JVM start, classpath resolution and indexing "
             "included. *before*: " + (f"the checkout at {res['before']}" if res.get("before") else "not run")
             + "; *cold*: this checkout with an empty classpath cache (Maven resolves); *warm*: this checkout in "
             "another fresh state folder with the classpath cache the cold sync left (no Maven run); ecj in the "
             "same round. See bench/firstsync.py for what is in place before a cold sync.", "",
             "`x ecj` is the median sync over the median ecj; *per round* is the median of each round's "
             "sync over that round's ecj (each pair under the same load).", "",
             "| workspace | ecj s | before s | x ecj | cold s | x ecj | cold, per round | warm s | x ecj | "
             "warm, per round |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, w in res["workspaces"].items():
        ecj = w["ecj_s"]
        before = (f"{w['before_s']:.2f} | {w['before_s'] / ecj:.2f}" if w.get("before_s") is not None else "- | -")
        per = {label: median([r[label]["seconds"] / r["ecj"]["seconds"] for r in w["rounds"]])
               for label in ("cold", "warm")}
        lines.append(f"| {name} | {ecj:.2f} | {before} | {w['cold_s']:.2f} | {w['cold_s'] / ecj:.2f} | "
                     f"{per['cold']:.2f} | {w['warm_s']:.2f} | {w['warm_s'] / ecj:.2f} | {per['warm']:.2f} |")
    for label in ("cold", "warm"):
        met = [n for n, w in res["workspaces"].items() if w[f"{label}_s"] <= 1.2 * w["ecj_s"]]
        missed = [n for n in res["workspaces"] if n not in met]
        lines += ["", f"Target (at most 1.2x ecj, median over median), *{label}*: met on {', '.join(met) or 'none'}"
                  + (f"; not on {', '.join(missed)}." if missed else ".")]
    lines += ["", "Phases (s) of the median round. `maven`: until both the classpaths and the worker JVM are "
              "ready (`classpaths`: resolution alone, `jvm_wait`: what the JVM's start and warm-up added after "
              "it; `jvm_start` and `warmup` overlap `classpaths`); `index`: the sync's thread waiting for facts; "
              "`stage`: storing them; `jvm`: the JVM's own indexing time, which index and stage overlap.", "",
              "| workspace | run | phases (s) |", "| --- | --- | --- |"]
    for name, w in res["workspaces"].items():
        for label in ("before", "cold", "warm"):
            timings = w.get(f"{label}_timings")
            if timings:
                lines.append(f"| {name} | {label} | " + ", ".join(f"{k} {v:.2f}" for k, v in timings.items()) + " |")
    lines += ["", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=1, help="rounds per workspace (medians reported)")
    ap.add_argument("--only", action="append", default=[], choices=[*workspaces.ARTIFACTS, "none"],
                    help="one workspace (repeatable)")
    ap.add_argument("--gradle", action="append", default=[], type=Path, help="a Gradle workspace root (repeatable)")
    ap.add_argument("--before-tree", type=Path, help="a checkout (set up) whose sync is the 'before' column")
    ap.add_argument("--state", type=Path, default=workspaces.WORK / "state-firstsync",
                    help="where the syncs' state folders go (default bench/work/state-firstsync)")
    ap.add_argument("--report-only", action="store_true", help="rewrite the RESULTS.md section from firstsync.json")
    args = ap.parse_args()
    if args.report_only:
        write_section(RESULTS, BEGIN, END, report(json.loads(OUT.read_text(encoding="utf-8"))))
        return
    before = None
    if args.before_tree:
        before = subprocess.run(["git", "-C", str(args.before_tree), "log", "-1", "--format=%h (%s)"],
                                capture_output=True, text=True).stdout.strip()[:80]
    res = {"command": " ".join(["bench/firstsync.py", *sys.argv[1:]]), "machine": platform.platform(),
           "cores": os.cpu_count(), "load": os.getloadavg()[0], "runs": args.runs, "before": before,
           "workspaces": {}}
    gradle = {f"{p.resolve().name} (Gradle)": p.resolve() for p in args.gradle}
    if (args.only or gradle) and OUT.exists():      # keep the other workspaces' figures of the last run
        previous = json.loads(OUT.read_text(encoding="utf-8"))
        res["workspaces"] = {k: v for k, v in previous.get("workspaces", {}).items()
                             if k not in args.only and k not in gradle}
        res["previous"] = {"command": previous.get("command"), "load": previous.get("load")}
    maven = [n for n in (args.only or ([] if gradle else NAMES)) if n != "none"]
    roots = {**{name: None for name in maven}, **gradle}
    for name, given in roots.items():
        root = given or workspaces.ensure(workspaces.ARTIFACTS[name], say=say)
        rounds = [one_round(name, root, args.before_tree, args.state) for _ in range(args.runs)]
        mid = sorted(rounds, key=lambda r: r["cold"]["seconds"])[(len(rounds) - 1) // 2]
        entry = {"ecj_s": median([r["ecj"]["seconds"] for r in rounds]),
                 "cold_s": median([r["cold"]["seconds"] for r in rounds]),
                 "warm_s": median([r["warm"]["seconds"] for r in rounds]),
                 "cold_timings": mid["cold"]["timings"], "warm_timings": mid["warm"]["timings"], "rounds": rounds}
        if args.before_tree:
            entry["before_s"] = median([r["before"]["seconds"] for r in rounds])
            entry["before_timings"] = mid["before"]["timings"]
        res["workspaces"][name] = entry
    OUT.write_text(json.dumps(res, indent=1), encoding="utf-8")
    write_section(RESULTS, BEGIN, END, report(res))
    say(f"wrote {OUT} and the first-sync section of {RESULTS}")


if __name__ == "__main__":
    main()
