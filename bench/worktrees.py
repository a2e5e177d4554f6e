"""Worktrees: checkouts of one repository share one index (issue 27 part 1).

A workspace (default bench/work/guava, as `workspaces.py` builds it) is copied
to a scratch folder and committed to a new git repository; `git worktree add`
makes N worktrees (default 5), the i-th differing from main by `--files`
edited files (default 1, 5, 10, 15, 20): a statement added at the start of a
method body of a file chosen at random (seeded; each file with a method equally
likely), the statement bench/incremental.py adds.

Then, with one warm indexer worker (as `pybridge serve` keeps one), in one
process, state folders the default ones under a scratch PYBRIDGE_STATE_DIR:

1. a fresh sync of main (its store is then the repository's shared store);
2. each worktree's first sync (planned from the nearest sibling's generation):
   wall time, files re-indexed, and the shared store's growth (pages in use);
3. a fresh sync of each worktree into a state folder of its own
   (`--state-dir`, no sharing): the reference time, and the fact digests the
   worktree's generation must equal (`tests/incremental_edits.differences`).

`--cli` runs every sync as `pybridge sync --json` in its own process (a cold
JVM each time, as a user runs it) instead.

    .venv/bin/python bench/worktrees.py [--workspace bench/work/guava] [--files 1,5,10,15,20] [--seed 1] [--cli]

Prints a table and writes bench/worktrees.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from bench.method_edits import Method, add_statement, cli_sync, methods  # noqa: E402 - after the sys.path set-up
from pybridge.live.worker import WarmWorker  # noqa: E402
from pybridge.store import Store  # noqa: E402
from pybridge.sync import sync  # noqa: E402
from pybridge.sync.state import default_state_dir, store_location  # noqa: E402
from tests.support.incremental_edits import differences  # noqa: E402

GIT = ["git", "-c", "user.email=bench@example.com", "-c", "user.name=bench", "-c", "init.defaultBranch=main"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=300)


def edit_files(root: Path, candidates: list[Method], n: int, rng: random.Random) -> list[str]:
    """Add a statement at the start of a method body in `n` different files, each chosen uniformly
    among the files that declare a method (then one of its methods): choosing methods instead would
    favour the largest files."""
    by_file: dict[str, list[Method]] = {}
    for candidate in candidates:
        by_file.setdefault(candidate.path, []).append(candidate)
    files = sorted(by_file)
    done: list[str] = []
    for _ in range(200 * n):
        if len(done) == n:
            break
        method = rng.choice(by_file[rng.choice(files)])
        if method.path in done:
            continue
        if not add_statement(root, method, "int zzWorktree = 1;"):
            continue
        done.append(method.path)
    return done


def store_bytes(path: Path) -> int:
    with Store.open(path, readonly=True) as store:
        return store.stats()["bytes"]


class Syncer:
    """Syncs in this process with one warm worker, or as CLI processes (`--cli`)."""

    def __init__(self, cli: bool) -> None:
        self.cli = cli
        # serve's own kind of worker: a plain `Worker` is tuned for one sync and exit (Worker.gc_args)
        self.worker = None if cli else WarmWorker()

    def __call__(self, root: Path, state: Path | None = None) -> tuple[float, int, dict[str, float]]:
        """(wall seconds, files re-indexed, the sync's timings by phase)."""
        if self.cli:
            wall, data = cli_sync(root, state, offline=True)
            return wall, int(data["reindexedFiles"]), data.get("timings") or {}
        t = time.perf_counter()
        result = sync(root, state_dir=state, worker=self.worker, allow_online=False)
        return time.perf_counter() - t, result.reindexed_files, {k: round(v, 3) for k, v in result.timings.items()}

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, default=HERE / "work" / "guava")
    ap.add_argument("--files", default="1,5,10,15,20", help="edited files per worktree, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cli", action="store_true", help="run every sync as a `pybridge sync` process")
    ap.add_argument("--out", type=Path, default=HERE / "worktrees.json")
    args = ap.parse_args()
    counts = [int(x) for x in args.files.split(",")]
    rng = random.Random(args.seed)
    load_start = os.getloadavg()
    scratch = Path(tempfile.mkdtemp(prefix="pybridge-worktrees-"))
    os.environ["PYBRIDGE_STATE_DIR"] = str(scratch / "state")
    os.environ.pop("PYBRIDGE_STATE_HOME", None)
    os.environ.pop("PYBRIDGE_SHARE_CHECKOUTS", None)
    syncer = Syncer(args.cli)
    try:
        main_root = scratch / args.workspace.name
        shutil.copytree(args.workspace, main_root, ignore=shutil.ignore_patterns("target"))
        git(main_root, "init", "-q")
        git(main_root, "add", "-A")
        git(main_root, "commit", "-q", "-m", "bench")
        fresh_main, _, _ = syncer(main_root)
        shared = store_location(default_state_dir(main_root))
        assert shared.shared, shared
        size0 = store_bytes(shared.path)
        candidates = methods(shared.path, shared.checkout)
        print(f"{main_root.name}: fresh sync of main {fresh_main:.2f} s, shared store {size0 / 2**20:.1f} MiB")
        rows = []
        before = size0
        for i, n in enumerate(counts, 1):
            wt = scratch / f"wt{i}"
            git(main_root, "worktree", "add", "-q", "--detach", str(wt))
            edited = edit_files(wt, candidates, n, rng)
            first, reindexed, phases = syncer(wt)
            after = store_bytes(shared.path)
            fresh_state = scratch / f"fresh{i}"
            fresh, _, fresh_phases = syncer(wt, fresh_state)
            wt_at = store_location(default_state_dir(wt))
            diff = differences(wt_at.path, fresh_state / "store.sqlite", wt_at.checkout, "")
            row = {"worktree": wt.name, "edited_files": len(edited), "first_sync_s": round(first, 3),
                   "reindexed_files": reindexed, "fresh_sync_s": round(fresh, 3),
                   "share_of_fresh": round(first / fresh, 4), "store_growth_bytes": after - before,
                   "store_growth_share": round((after - before) / size0, 4), "differences": len(diff),
                   "difference_examples": diff[:5], "first_sync_timings": phases, "fresh_sync_timings": fresh_phases}
            rows.append(row)
            before = after
            print(f"  {wt.name}: {len(edited)} files edited, first sync {first:.2f} s ({reindexed} re-indexed), "
                  f"fresh {fresh:.2f} s, {first / fresh:.1%} of fresh; store +{(row['store_growth_share']):.2%}; "
                  f"differences {len(diff)}")
        out = {"command": " ".join(["bench/worktrees.py", *sys.argv[1:]]),
               "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                          f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
               "mode": "cli (a process per sync)" if args.cli else "in process, one warm worker",
               "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in os.getloadavg()],
               "workspace": str(args.workspace), "fresh_main_s": round(fresh_main, 3), "store_bytes_main": size0,
               "store_bytes_end": before, "worktrees": rows,
               "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: out[k] for k in ("mode", "load_start", "load_end")}))
    finally:
        syncer.close()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
