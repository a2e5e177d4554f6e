"""Where a one-file edit's sync spends its time, per phase (issue 27 part 2: profile first).

    .venv/bin/python bench/edit_phases.py            # guava (627 files), four edits
    .venv/bin/python bench/edit_phases.py --workspace hibernate-core   # 6,238 files, issue 27's four files

Copies the workspace (guava by default) (bench/workspaces.py, built from Maven Central when missing) to a
scratch folder, syncs it once with a warm worker (as `serve` keeps one), then adds a method to
each of a few much-used files, one at a time, and syncs after each: prints the sync's wall time,
the files it re-indexed and its phase timings (`SyncResult.timings`: fingerprint = the snapshot,
which hashes every file; plan; index = the JVM resolving the files; stage; publish = the
manifest), then times a snapshot (`take`: hashing every file; and with the previous snapshot,
reusing the digest of each file whose stat did not change) and the freshness sweep (`changes`)
alone. PYBRIDGE_SNAPSHOT_REUSE=0 makes the syncs hash every file (before/after: run it twice).
`--compare VAR` (repeatable) measures switches off and on in the same run (each edit twice in a row).
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

import workspaces

from pybridge.sync import sync
from pybridge.sync.snapshot import any_change, changes, reuse_enabled, take
from pybridge.worker import Worker
from pybridge.workspace import load_workspace

FILES = {
    "guava": ["src/main/java/com/google/common/base/Preconditions.java",
              "src/main/java/com/google/common/collect/ImmutableList.java",
              "src/main/java/com/google/common/base/Strings.java",
              "src/main/java/com/google/common/collect/Lists.java"],
    # the files of issue 27's edits on its held-out 5,200-file module
    "hibernate-core": ["src/main/java/org/hibernate/internal/util/StringHelper.java",
                       "src/main/java/org/hibernate/internal/SessionImpl.java",
                       "src/main/java/org/hibernate/Session.java",
                       "src/main/java/org/hibernate/query/spi/AbstractQuery.java"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", default="guava", choices=sorted(FILES))
    ap.add_argument("--compare", action="append", default=[], metavar="VAR",
                    help="a switch (PYBRIDGE_...) to measure off and on: each edit is then made twice in a row, "
                         "synced first with every VAR=0, then with every VAR=1 (after one warm-up edit; the first "
                         "sync runs with the environment as given)")
    args = ap.parse_args()
    name, compare = args.workspace, args.compare
    source = workspaces.ensure(workspaces.ARTIFACTS[name], lambda m: print(m, file=sys.stderr))
    with tempfile.TemporaryDirectory(prefix="pybridge-edit-phases-") as tmp:
        root, state = Path(tmp) / name, Path(tmp) / "state"
        shutil.copytree(source, root)
        rows = []
        with Worker() as w:
            t = time.perf_counter()
            r = sync(root, state_dir=state, worker=w)
            rows.append({"edit": "(first sync)", "seconds": round(time.perf_counter() - t, 3),
                         "reindexed": r.reindexed_files, "phases": {k: round(v, 3) for k, v in r.timings.items()}})
            if compare:     # a warm-up edit (a comment): what a serve that already caught up once holds
                warm = root / FILES[name][0]
                warm.write_text(warm.read_text(encoding="utf-8") + "\n// warm-up\n", encoding="utf-8")
                sync(root, state_dir=state, worker=w)
            for i, rel in enumerate(FILES[name]):
                for switch in (("off", "on") if compare else ("",)):
                    for var in compare:
                        # "1" rather than unset: a switch still being proven is off when unset (PYBRIDGE_CLASS_CACHE)
                        os.environ[var] = "0" if switch == "off" else "1"
                    path = root / rel
                    text = path.read_text(encoding="utf-8")
                    cut = text.rstrip().rfind("}")
                    probe = f"editPhasesProbe{i}{switch.capitalize()}"
                    path.write_text(text[:cut] + f"  public static void {probe}() {{}}\n}}\n", encoding="utf-8")
                    t = time.perf_counter()
                    r = sync(root, state_dir=state, worker=w)
                    rows.append({"edit": rel.rsplit("/", 1)[1], "switches": switch,
                                 "seconds": round(time.perf_counter() - t, 3), "reindexed": r.reindexed_files,
                                 "phases": {k: round(v, 3) for k, v in r.timings.items()}})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            for var in compare:
                os.environ.pop(var, None)
        workspace = load_workspace(root)
        t = time.perf_counter()
        snap = take(workspace)
        took = time.perf_counter() - t
        snap.taken_ns += 60 * 10**9    # as if taken a minute later: no record racy
        t = time.perf_counter()
        take(workspace, previous=snap)
        reused = time.perf_counter() - t
        t = time.perf_counter()
        changes(snap)
        swept = time.perf_counter() - t
        # the live index's check before a catch-up, after an edit (the first file listed): the whole
        # sweep (PYBRIDGE_SWEEP_EARLY_EXIT=0) against stopping at the first change
        edited = root / FILES[name][0]
        edited.write_text(edited.read_text(encoding="utf-8") + "\n// the check's edit\n", encoding="utf-8")
        check = {}
        for switch in ("0", "1"):
            os.environ["PYBRIDGE_SWEEP_EARLY_EXIT"] = switch
            t = time.perf_counter()
            assert any_change(snap)
            check[switch] = round(time.perf_counter() - t, 4)
        os.environ.pop("PYBRIDGE_SWEEP_EARLY_EXIT", None)
    print(json.dumps({"workspace": name, "compare": compare, "snapshot_reuse": reuse_enabled(), "edits": rows,
                      "take_seconds": round(took, 3),
                      "take_with_previous_seconds": round(reused, 3), "sweep_seconds": round(swept, 4),
                      "catch_up_check_seconds": {"whole sweep": check["0"], "early exit": check["1"]}}, indent=1))


if __name__ == "__main__":
    main()
