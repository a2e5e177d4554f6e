"""A live edit on a large module, in process: from the write to the fresh answer, switches off and on.

    .venv/bin/python bench/live_phases.py --workspace hibernate-core --edits 10 \
        --compare PYBRIDGE_LIVE_AFTER_ANSWER --scratch /tmp/livecow-hc

What `bench/live.py` measures over MCP stdio, without the MCP transport and in one process, so that
a switch can be turned off and on between two edits of the same server (each file is edited twice
in a row: first with every `--compare` switch set to 0, then with them unset). A live index
(`pybridge.live.LiveIndex`, watching, warm worker) serves the query facade, as under `serve`; for
each of N main-scope files (`bench/live.py`'s `pick_files`): the key of its primary type
(`find_symbol`, outside the timing), then a write (a comment line appended, or with `--method` a
method added before the last brace), and the time from just before the write to the first
`find_references` answer that is fresh and from a newer generation. Besides the wall time it
records this process's CPU time (every thread: watcher, catch-up, query; not the JVM) until that
answer (`answer_cpu`), and until the live index is idle again (`total_cpu`: what work left for
after the answer still costs), and the catch-up sync's own seconds.

`--scratch DIR`: keep the copy and its state folder in DIR (DIR/ws, DIR/state) and reuse them on
the next run (a full sync of hibernate-core takes a minute or more on a loaded machine).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.live import pick_files  # noqa: E402 - after the sys.path set-up
from bench.workspaces import ARTIFACTS, ensure  # noqa: E402 - after the sys.path set-up
from pybridge.live import LiveConfig, LiveIndex  # noqa: E402 - after the sys.path set-up
from pybridge.query import Facade  # noqa: E402 - after the sys.path set-up
from pybridge.sync import sync  # noqa: E402 - after the sys.path set-up


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def _edit(path: Path, i: int, mode: str, method: bool) -> None:
    text = path.read_text(encoding="utf-8")
    if method:
        cut = text.rstrip().rfind("}")
        text = text[:cut] + f"  public static void livePhasesProbe{i}{mode.capitalize()}() {{}}\n}}\n"
    else:
        text += f"\n// pybridge live_phases edit {i} {mode}\n"
    path.write_text(text, encoding="utf-8")


def _idle(live: LiveIndex, root: Path) -> None:
    """Wait until the live index has nothing pending, running, or left for after an answer."""
    t = live.targets[root]
    with live.cond:
        live.cond.wait_for(lambda: not (t.pending or t.syncing or t.noting), timeout=300)


def run(root: Path, state: Path, edits: int, seed: int, compare: list[str], method: bool) -> list[dict]:
    rows: list[dict] = []
    files = pick_files(root, edits, seed)
    config = LiveConfig.from_env(fresh_wait_s=300.0)
    with Facade([root], {root: state}) as facade:
        live = LiveIndex([(facade.spaces.served[0].slug, root, state)], config)
        facade.attach_live(live, worker=live.worker)
        with live:
            assert live.watcher is not None and live.watcher.ready.wait(60)
            for _ in range(600):
                if live.worker.describe().get("warm"):
                    break
                time.sleep(0.1)
            _idle(live, root)
            for i, (rel, dotted) in enumerate(files):
                for mode in (("off", "on") if compare else ("",)):
                    for var in compare:
                        if mode == "off":
                            os.environ[var] = "0"
                        else:
                            os.environ.pop(var, None)
                    found, is_error = facade.call("find_symbol", {"query": dotted})
                    symbols = [] if is_error else [s for s in found["symbols"] if s["dottedPath"] == dotted]
                    if not symbols:
                        print(f"skip {rel}: {dotted} not found", file=sys.stderr)
                        continue
                    key = symbols[0]["symbolKey"]
                    before, is_error = facade.call("find_references", {"symbolKey": key, "limit": 1})
                    assert not is_error, before
                    generation = before["meta"]["generation"]
                    c0, t0 = time.process_time(), time.perf_counter()
                    _edit(root / rel, i, mode, method)
                    answer: dict = {}
                    for _ in range(50):
                        answer, is_error = facade.call("find_references", {"symbolKey": key, "limit": 100})
                        if is_error and answer.get("code") == "stale_key" and answer.get("replacement"):
                            key = answer["replacement"]
                            continue
                        if is_error or (answer["freshness"] == "fresh" and answer["meta"]["generation"] > generation):
                            break
                    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                    _idle(live, root)
                    total = time.process_time() - c0
                    last = live.targets[root].last_sync or {}
                    ok = not is_error and answer["meta"]["generation"] > generation
                    # the answer without what names the generation and the time: equal off and on
                    kept = {k: v for k, v in answer.items() if k not in ("meta", "generated_at", "checked_at")}
                    digest = hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:16]
                    rows.append({"file": rel, "switches": mode, "ok": ok, "seconds": round(wall, 4), "answer": digest,
                                 "answer_cpu": round(cpu, 4), "total_cpu": round(total, 4),
                                 "sync_seconds": last.get("syncSeconds"), "load": os.getloadavg()[0]})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            for var in compare:
                os.environ.pop(var, None)
    return rows


def summary(rows: list[dict]) -> dict:
    out: dict = {}
    pairs = [(a, b) for a, b in zip(rows[::2], rows[1::2], strict=False)
             if a["file"] == b["file"] and a["switches"] == "off"]
    if pairs:
        out["answers_equal_off_on"] = f"{sum(a['answer'] == b['answer'] for a, b in pairs)} of {len(pairs)}"
    for mode in sorted({r["switches"] for r in rows}):
        got = [r for r in rows if r["switches"] == mode and r["ok"]]
        if not got:
            continue
        out[mode or "default"] = {
            "edits": len(got),
            **{f"{k}_{q}": round(nearest_rank([r[k] for r in got], p), 4)
               for k in ("seconds", "answer_cpu", "total_cpu", "sync_seconds") for q, p in (("p50", 0.5), ("p99", 0.99))
               if all(r[k] is not None for r in got)},
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", default="hibernate-core", choices=sorted(ARTIFACTS))
    ap.add_argument("--edits", type=int, default=10, help="files edited (each twice with --compare)")
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--compare", action="append", default=[], metavar="VAR",
                    help="a switch (PYBRIDGE_...) measured off and on, edit after edit (repeatable)")
    ap.add_argument("--method", action="store_true", help="add a method instead of appending a comment")
    ap.add_argument("--scratch", type=Path, help="keep (and reuse) the copy and its state folder here")
    args = ap.parse_args()
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="pybridge-live-phases-"))
    root, state = scratch / "ws", scratch / "state"
    try:
        if not root.is_dir():
            source = ensure(ARTIFACTS[args.workspace], lambda m: print(m, file=sys.stderr))
            shutil.copytree(source, root)
        t = time.perf_counter()
        sync(root, state_dir=state)
        print(f"sync before the edits: {time.perf_counter() - t:.1f} s", file=sys.stderr)
        load = os.getloadavg()
        rows = run(root, state, args.edits, args.seed, args.compare, args.method)
        print(json.dumps({"workspace": args.workspace, "compare": args.compare, "method": args.method,
                          "load_at_start": [round(x, 2) for x in load],
                          "load_at_end": [round(x, 2) for x in os.getloadavg()],
                          "summary": summary(rows), "edits": rows}, indent=1))
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
