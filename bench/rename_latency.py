"""rename's latency by reference count (issue 24's figures): plan + check of methods with about 1, 10,
100 and 500 references, on a warm worker (what the `rename` tool runs for a preview).

    .venv/bin/python bench/rename_latency.py ROOT STATE [--per 3]
"""

from __future__ import annotations

import argparse
import json
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

BUCKETS = ((1, 1), (5, 15), (50, 150), (300, 700))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--per", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    a.root = a.root.resolve()
    rng = random.Random(a.seed)
    out = {}
    with Worker(heap="2g") as worker, Store.open(store_path(a.state), readonly=True) as store, \
            store.reader() as reader:
        meta = GenerationMeta.of(reader.generation)
        methods = [d for f in reader.files() for d in reader.file_declarations(f.path) if d.kind == "METHOD"]
        counts = {d.symbol_id: reader.count_references([d.symbol_id]) for d in methods}
        session = EditSession(a.root, reader, worker, lambda sid, key: key, lambda d, m: d)
        for low, high in BUCKETS:
            chosen = [d for d in methods if low <= counts[d.symbol_id] <= high]
            rng.shuffle(chosen)
            times, outcomes = [], []
            for d in chosen[:a.per]:
                t0 = time.monotonic()
                try:
                    check(planner.plan(reader, a.root, d, d.name + "Renamed", meta.encoding), session)
                    outcomes.append("clean")
                except planner.RenameRefused as exc:
                    outcomes.append(exc.reason)
                times.append(time.monotonic() - t0)
                print(f"{low}-{high} refs: {d.dotted} ({counts[d.symbol_id]}) {times[-1]:.2f} s {outcomes[-1]}",
                      flush=True)
            if times:
                out[f"{low}-{high}"] = {"n": len(times), "p50": round(statistics.median(times), 2),
                                        "max": round(max(times), 2), "outcomes": outcomes}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
