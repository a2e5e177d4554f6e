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
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import workspaces  # noqa: E402 - after the sys.path set-up; bench/ is not a package

from pybridge.sync.summary import SourceText, body_start  # noqa: E402 - after the sys.path set-up


def cli_sync(root: Path, state: Path) -> tuple[float, dict]:
    t = time.perf_counter()
    out = subprocess.run([str(ROOT / ".venv/bin/pybridge"), "sync", str(root), "--state-dir", str(state), "--json"],
                         capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"sync failed: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    return wall, json.loads(out.stdout)


def methods(state: Path) -> list[tuple[str, tuple[int, int, int, int], tuple[int, int]]]:
    """(path, full span, name span end) of every method of the current generation."""
    conn = sqlite3.connect(f"file:{state / 'store.sqlite'}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, d.full_line, d.full_col, d.full_line + d.full_dline, d.full_end_col,"
            " d.line + d.dline, d.end_col FROM checkouts c JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " WHERE c.name = '' AND d.kind = 5").fetchall()
    finally:
        conn.close()
    return [(r[0], tuple(r[1:5]), (r[5], r[6])) for r in rows]


def edit_one(root: Path, rng: random.Random, candidates, used: set[str]) -> str | None:
    for _ in range(200):
        path, span, name_end = rng.choice(candidates)
        if path in used:
            continue
        file = root / path
        text = file.read_text(encoding="utf-8")
        t = SourceText(text)
        end = t.offset(*span[2:])
        brace = body_start(text, t.offset(*name_end), end)
        if brace >= end or text[brace] != "{":
            continue
        file.write_text(text[:brace + 1] + " int zzBench = 1;" + text[brace + 1:], encoding="utf-8")
        used.add(path)
        return path
    return None


def run(name: str, edits: int, seed: int) -> dict:
    source = workspaces.ensure(workspaces.ARTIFACTS[name], say=print)
    with tempfile.TemporaryDirectory(prefix=f"pybridge-incr-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(source, root)
        state = Path(tmp) / "state"
        full, result = cli_sync(root, state)
        print(f"{name}: full sync {full:.1f} s, {result['counts']['files']} files")
        candidates = methods(state)
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
