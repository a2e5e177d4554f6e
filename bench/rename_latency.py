"""rename's latency by reference count (issue 24's figures): plan + check of methods with about 1, 10,
50, 100, 300 and 500 references (those nearest each count), on a warm worker (what the `rename` tool
runs for a preview).

    .venv/bin/python bench/rename_latency.py ROOT STATE [--per 3] [--plan narrow|broad]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from pybridge.edits import EditSession
from pybridge.edits import rename as planner
from pybridge.edits.rename_check import check
from pybridge.store import Store
from pybridge.sync import store_path
from pybridge.sync.meta import GenerationMeta
from pybridge.worker import Worker

TARGETS = (1, 10, 50, 100, 300, 500)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--per", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plan", choices=("narrow", "broad"), default=None, help="check plan (default: narrow)")
    a = ap.parse_args()
    a.root = a.root.resolve()
    rng = random.Random(a.seed)
    out = {}
    with Worker(heap="2g") as worker, Store.open(store_path(a.state), readonly=True) as store, \
            store.reader() as reader:
        meta = GenerationMeta.of(reader.generation)
        methods = [d for f in reader.files() for d in reader.file_declarations(f.path) if d.kind == "METHOD"]
        counts = {d.symbol_id: reader.count_references([d.symbol_id]) for d in methods}
        session = EditSession(a.root, reader, worker, lambda sid, key: key, lambda d, m: d, plan=a.plan)
        taken: set[int] = set()
        for target in TARGETS:
            # The methods whose reference count is nearest the target (ties at random).
            pool = [d for d in methods if d.symbol_id not in taken]
            rng.shuffle(pool)
            chosen = sorted(pool, key=lambda d: abs(counts[d.symbol_id] - target))[:a.per]
            times, outcomes, refs, compiled = [], [], [], []
            for d in chosen:
                taken.add(d.symbol_id)
                t0 = time.monotonic()
                try:
                    answer = check(planner.plan(reader, a.root, d, d.name + "Renamed", meta.encoding), session)
                    outcomes.append("clean")
                    compiled.append(answer.checked.compiled)
                except planner.RenameRefused as exc:
                    outcomes.append(exc.reason)
                times.append(time.monotonic() - t0)
                refs.append(counts[d.symbol_id])
                print(f"~{target} refs: {d.dotted} ({counts[d.symbol_id]}) {times[-1]:.2f} s {outcomes[-1]}",
                      flush=True)
            if times:
                out[f"~{target}"] = {"n": len(times), "refs": refs, "p50": round(statistics.median(times), 2),
                                     "max": round(max(times), 2), "outcomes": outcomes, "compiled": compiled}
        out["load"] = list(os.getloadavg())
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
