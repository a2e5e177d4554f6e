"""PYBRIDGE_CLASS_CACHE off against on, fact by fact (bench/RESULTS.md, "Class files of unchanged sources").

    .venv/bin/python bench/class_cache_diff.py --workspace guava [--edits 6]

Copies the workspace (bench/workspaces.py) twice, syncs one copy with a warm worker and the switch off
and the other with a warm worker of its own and the switch on (each worker keeps its JVM across the
syncs, as `serve` does), then makes the same series of one-file edits to both (a comment, a method
body, an added method, in turn, on much-used files) and syncs both after each edit. After the first
sync and after every edit it compares the two generations file by file (`generation_digests`: every
fact of every file) and prints the files that differ; it exits with 1 if any did. Each worker's JVM
CPU seconds per sync and peak RSS so far are printed too (the on side's first sync also fills the cache).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import edit_phases
import workspaces

from pybridge.sync import sync
from pybridge.sync.state import store_path
from pybridge.worker import Worker
from tests.support.incremental_edits import generation_digests

FILES = {**edit_phases.FILES,     # issue 27's much-used files, and some of commons-lang3's
         "commons-lang3": ["src/main/java/org/apache/commons/lang3/StringUtils.java",
                           "src/main/java/org/apache/commons/lang3/ObjectUtils.java",
                           "src/main/java/org/apache/commons/lang3/Validate.java"]}


def edit(path: Path, n: int) -> str:
    """The n-th edit of the series: a comment, a method body, an added method."""
    text = path.read_text(encoding="utf-8")
    cut = text.rstrip().rfind("}")
    kind = ("comment", "body", "method")[n % 3]
    if kind == "comment":
        new = text[:cut] + f"  // class cache probe {n}\n}}\n"
    elif kind == "body":
        new = text[:cut] + f"  private static int classCacheBody{n}() {{ int x = {n}; return x + 1; }}\n}}\n"
    else:
        new = text[:cut] + f"  public static String classCacheProbe{n}(String s) {{ return s; }}\n}}\n"
    path.write_text(new, encoding="utf-8")
    return kind


def jvm_seconds(w: Worker) -> float:
    with open(f"/proc/{w.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(w: Worker) -> float:
    """The worker's peak resident set so far (VmHWM), in MB."""
    with open(f"/proc/{w.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", default="guava", choices=sorted(FILES))
    ap.add_argument("--edits", type=int, default=6)
    args = ap.parse_args()
    source = workspaces.ensure(workspaces.ARTIFACTS[args.workspace], lambda m: print(m, file=sys.stderr))
    differing = 0
    with tempfile.TemporaryDirectory(prefix="classcache-diff-") as tmp:
        sides = {}
        for side in ("off", "on"):
            root = Path(tmp) / side / args.workspace
            shutil.copytree(source, root)
            sides[side] = (root, Path(tmp) / side / "state")
        time.sleep(2.1)      # the copies' files must be older than the cache's racy window
        with Worker() as w_off, Worker() as w_on:
            workers = {"off": w_off, "on": w_on}

            def sync_both(label: str) -> None:
                nonlocal differing
                row: dict = {"step": label, "load": os.getloadavg()[0]}
                for side, (root, state) in sides.items():
                    os.environ["PYBRIDGE_CLASS_CACHE"] = "0" if side == "off" else "1"
                    before = jvm_seconds(workers[side]) if workers[side].pid else 0.0
                    t = time.perf_counter()
                    r = sync(root, state_dir=state, worker=workers[side])
                    row[side] = {"seconds": round(time.perf_counter() - t, 3), "reindexed": r.reindexed_files,
                                 "jvm_cpu": round(jvm_seconds(workers[side]) - before, 3),
                                 "peak_rss_mb": peak_rss_mb(workers[side])}
                os.environ.pop("PYBRIDGE_CLASS_CACHE", None)
                a = generation_digests(store_path(sides["off"][1]))
                b = generation_digests(store_path(sides["on"][1]))
                diff = sorted(p for p in a.keys() | b.keys() if a.get(p) != b.get(p))
                row["files"], row["differ"] = len(a), diff[:20]
                differing += len(diff)
                print(json.dumps(row), flush=True)

            sync_both("first sync")
            files = FILES[args.workspace]
            for n in range(args.edits):
                rel = files[n % len(files)]
                kinds = {edit(sides[side][0] / rel, n) for side in sides}
                time.sleep(0.01)
                sync_both(f"{rel.rsplit('/', 1)[1]} {kinds.pop()}")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
