"""The first run: `pybridge serve` (no --repo) started in a workspace that was never synced, timed over MCP stdio.

    python bench/first_run.py [guava|reactor] [--runs N]
    python bench/first_run.py reactor --initialize N


For each run, with a new empty state folder: the time from starting `pybridge serve` to its answer to
`initialize`, and to the first exact answer (`findReferences` of a method, asked again a tenth of a second
after each `indexing` answer; each call waits up to the fresh-wait bound first). The server is driven with
plain JSON-RPC lines, so no client library's start is counted. Prints one JSON object.

`--initialize N`: only the time from starting `pybridge serve --no-auto-sync` to its answer to
`initialize`, N times with the early answer (pybridge.mcp.handshake) and N times without it
(`PYBRIDGE_EARLY_INITIALIZE=0`: the MCP SDK's server answers once imported), alternating; the
medians, each time, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.workspaces import ARTIFACTS, ensure

SYMBOLS = {"guava": "com.google.common.base.Preconditions.checkNotNull(T)", "reactor": "Names.normalize"}


def _workspace(name: str) -> Path:
    if name == "reactor":
        return Path(__file__).resolve().parent.parent / "samples" / "reactor"
    return ensure(ARTIFACTS[name])


def run_once(root: Path, symbol: str) -> dict:
    state = Path(tempfile.mkdtemp(prefix="pybridge-first-run-"))
    env = {**os.environ, "PYBRIDGE_STATE_DIR": str(state)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve"], cwd=root, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def answer(rid: int) -> dict:
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == rid:
                return message

    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        answer(0)
        initialized = time.perf_counter() - t0
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        calls, indexing, rid = 0, 0, 1
        while True:
            rid += 1
            send({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                  "params": {"name": "findReferences", "arguments": {"symbol": symbol}}})
            result = answer(rid)["result"]
            calls += 1
            content = result.get("structuredContent") or {}
            if result.get("isError") and content.get("code") == "indexing":
                indexing += 1
                time.sleep(0.1)
                continue
            if result.get("isError"):
                raise SystemExit(f"findReferences failed: {content}")
            return {"initializeSeconds": round(initialized, 3),
                    "firstExactAnswerSeconds": round(time.perf_counter() - t0, 3),
                    "calls": calls, "indexingAnswers": indexing, "references": len(content["references"])}
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
        shutil.rmtree(state, ignore_errors=True)


def initialize_once(root: Path, early: bool) -> float:
    state = Path(tempfile.mkdtemp(prefix="pybridge-initialize-"))
    env = {**os.environ, "PYBRIDGE_STATE_DIR": str(state), "PYBRIDGE_EARLY_INITIALIZE": "1" if early else "0"}
    line = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve", "--no-auto-sync"], cwd=root, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((line + "\n").encode())
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline())
        seconds = time.perf_counter() - t0
        assert answer["result"]["serverInfo"]["name"] == "pybridge", answer
        return seconds
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
        proc.stdout.close()
        shutil.rmtree(state, ignore_errors=True)


def initialize_runs(root: Path, runs: int) -> dict:
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {"early": [], "sdk": []}
    for _ in range(runs):
        for mode in ("early", "sdk"):
            times[mode].append(round(initialize_once(root, mode == "early"), 3))
    return {"medianSeconds": {mode: statistics.median(t) for mode, t in times.items()}, "seconds": times,
            "loadAverageBefore": [round(x, 2) for x in load_before],
            "loadAverageAfter": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", nargs="?", default="guava", choices=sorted(SYMBOLS))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--initialize", type=int, default=0, metavar="N",
                        help="Only time serve to initialize, N times with and N without the early answer.")
    a = parser.parse_args()
    root = _workspace(a.workspace)
    if a.initialize:
        print(json.dumps({"workspace": a.workspace, **initialize_runs(root, a.initialize)}, indent=2))
        return
    runs = [run_once(root, SYMBOLS[a.workspace]) for _ in range(a.runs)]
    print(json.dumps({"workspace": a.workspace, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
