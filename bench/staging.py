"""A first sync's staging alone: bulk (Staging, `bulk`) against row-by-row indexes, on the same facts.

The JVM indexes the workspace once; its fact chunks are kept. Then, in alternating rounds in this
process, a sync replays them (a worker that hands back the kept chunks, no JVM) into a fresh state
folder, once with PYBRIDGE_BULK_STAGING=0 (every index and foreign key in place while rows go in)
and once as a first sync runs (bulk: most secondary indexes built at publish). Reported: the CPU
time of the whole replayed sync (this process; decode, summaries, staging, publish), and its
`stage` and `publish` phases, medians over the rounds, and their ratio.

    .venv/bin/python bench/staging.py [--runs N] [--only NAME]

Writes bench/staging.json and the "First sync's staging" section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import workspaces
from bench.report import median, say, write_section
from pybridge.sync import sync
from pybridge.worker import client
from pybridge.worker.client import IndexResult, Worker

NAMES = ("guava", "commons-lang3")
OUT = Path(__file__).resolve().parent / "staging.json"
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
BEGIN, END = "<!-- staging:begin -->", "<!-- staging:end -->"


def capture(root: Path, state: Path) -> list[dict[str, Any]]:
    """A real first sync; returns the chunks the worker sent, as they came off the pipe."""
    chunks: list[dict[str, Any]] = []
    receive = client.protocol.receive

    def keep(stream: Any) -> Any:
        message = receive(stream)
        if message is not None and message[0] == "chunk":
            chunks.append(message[1])
        return message

    client.protocol.receive = keep
    try:
        worker = Worker()
        try:
            sync(root, state_dir=state, worker=worker)
        finally:
            worker.close()
    finally:
        client.protocol.receive = receive
    return chunks


class Replay(Worker):
    """Hands back the kept chunks' facts for the files each request names, 32 files a call."""

    def __init__(self, chunks: list[dict[str, Any]]) -> None:
        super().__init__()
        self.chunks = chunks

    @property
    def pid(self) -> int | None:      # "started": the sync starts no JVM
        return 1

    def start(self) -> None:
        pass

    def close(self) -> None:
        pass

    def index_all(self, tasks: Any, timeout: float | None = None, chunk_files: int = 32) -> list[IndexResult]:
        by_path = {ff.path: ff for chunk in self.chunks for ff in client.decode(chunk)}
        out = []
        for task in tasks:
            files = [by_path[f] for f in task.request.files]
            for i in range(0, len(files), chunk_files):
                task.on_files(files[i:i + chunk_files])
            out.append(IndexResult([], 0, 0, 0.0))
        return out


def replay(root: Path, state: Path, chunks: list[dict[str, Any]], bulk: bool) -> dict[str, float]:
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    os.environ["PYBRIDGE_BULK_STAGING"] = "1" if bulk else "0"
    try:
        cpu = time.process_time()
        result = sync(root, state_dir=state, worker=Replay(chunks))
        cpu = time.process_time() - cpu
    finally:
        os.environ.pop("PYBRIDGE_BULK_STAGING", None)
    return {"cpu": cpu, "stage": result.timings["stage"], "publish": result.timings["publish"]}


def report(res: dict[str, Any]) -> str:
    lines = [BEGIN, "## First sync's staging: bulk against row by row (issue 12)", "",
             f"`{res['command']}` on {res['machine']}, {res['cores']} cores (load average at start "
             f"{res['load']:.2f}); {res['runs']} alternating round(s), medians. The facts of one real first "
             "sync replayed into a fresh state folder without the JVM (bench/staging.py says how): "
             "*row by row* with PYBRIDGE_BULK_STAGING=0, *bulk* as a first sync stages. CPU: the whole "
             "replayed sync's, in seconds (decode, summaries, staging, publish).", "",
             "| workspace | row by row: CPU | stage | publish | bulk: CPU | stage | publish | CPU ratio |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, w in res["workspaces"].items():
        a, b = w["row_by_row"], w["bulk"]
        lines.append(f"| {name} | {a['cpu']:.2f} | {a['stage']:.2f} | {a['publish']:.2f} | {b['cpu']:.2f} | "
                     f"{b['stage']:.2f} | {b['publish']:.2f} | {b['cpu'] / a['cpu']:.2f} |")
    lines += ["", END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="alternating rounds per workspace")
    ap.add_argument("--only", action="append", default=[], choices=NAMES)
    args = ap.parse_args()
    res: dict[str, Any] = {"command": " ".join(["bench/staging.py", *sys.argv[1:]]), "machine": platform.platform(),
                           "cores": os.cpu_count(), "load": os.getloadavg()[0], "runs": args.runs,
                           "workspaces": {}}
    base = workspaces.WORK / "state-staging"
    for name in args.only or NAMES:
        root = workspaces.ensure(workspaces.ARTIFACTS[name], say=say)
        chunks = capture(root, base / f"{name}-capture")
        rounds: dict[str, list[dict[str, float]]] = {"row_by_row": [], "bulk": []}
        for _ in range(args.runs):
            for label in rounds:
                rounds[label].append(replay(root, base / f"{name}-{label}", chunks, label == "bulk"))
                say(f"{name}: {label}: {rounds[label][-1]}")
        res["workspaces"][name] = {label: {k: median([r[k] for r in rs]) for k in rs[0]} | {"rounds": rs}
                                   for label, rs in rounds.items()}
    OUT.write_text(json.dumps(res, indent=1), encoding="utf-8")
    write_section(RESULTS, BEGIN, END, report(res))
    say(f"wrote {OUT} and the staging section of {RESULTS}")


if __name__ == "__main__":
    main()
