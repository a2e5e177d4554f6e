"""Incremental sync from the CLI: one-file edits on commons-lang3 and guava.

For each workspace (built from Maven Central by `workspaces.py`, copied to a
scratch folder so the cached one stays pristine): a full `pybridge sync`
(a cold JVM, as a user runs it), then N edits, each to a different file
chosen at random (seeded): a statement added at the start of a method body.
After each edit `pybridge sync --json` runs again (a cold JVM, incremental);
its wall time and `reindexedFiles` are recorded. Printed and written to
bench/incremental.json: the full sync's time, the incremental syncs' p50 and
max, the p50 as a share of the full sync, and files re-indexed per edit
(median, max).

    .venv/bin/python bench/incremental.py [--edits 50] [--seed 1] [--only guava]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import workspaces  # noqa: E402 - after the sys.path set-up; bench/ is not a package

from bench.method_edits import Method, add_statement, cli_sync, methods  # noqa: E402 - after the sys.path set-up


def edit_one(root: Path, rng: random.Random, candidates: list[Method], used: set[str]) -> str | None:
    for _ in range(200):
        method = rng.choice(candidates)
        if method.path in used:
            continue
        if not add_statement(root, method, "int zzBench = 1;"):
            continue
        used.add(method.path)
        return method.path
    return None


def run(name: str, edits: int, seed: int) -> dict:
    source = workspaces.ensure(workspaces.ARTIFACTS[name], say=print)
    with tempfile.TemporaryDirectory(prefix=f"pybridge-incr-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(source, root)
        state = Path(tmp) / "state"
        full, result = cli_sync(root, state)
        print(f"{name}: full sync {full:.1f} s, {result['counts']['files']} files")
        candidates = methods(state / "store.sqlite")
        rng = random.Random(seed)
        used: set[str] = set()
        walls, reindexed = [], []
        for i in range(edits):
            path = edit_one(root, rng, candidates, used)
            if path is None:
                break
            wall, r = cli_sync(root, state)
            walls.append(wall)
            reindexed.append(r["reindexedFiles"])
            print(f"  edit {i + 1}: {path}: {wall:.2f} s, re-indexed {r['reindexedFiles']}", flush=True)
    walls.sort()
    return {"workspace": name, "files": result["counts"]["files"], "full_s": round(full, 2), "edits": len(walls),
            "incremental_p50_s": round(statistics.median(walls), 2), "incremental_max_s": round(max(walls), 2),
            "share_p50": round(statistics.median(walls) / full, 3),
            "reindexed_median": statistics.median(reindexed), "reindexed_max": max(reindexed)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=["commons-lang3", "guava"])
    a = ap.parse_args()
    out = {"machine": f"{platform.machine()}, {platform.system()} {platform.release()}, "
                      f"Python {platform.python_version()}", "results": []}
    for name in ([a.only] if a.only else ["commons-lang3", "guava"]):
        out["results"].append(run(name, a.edits, a.seed))
        print(json.dumps(out["results"][-1]))
    (HERE / "incremental.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
