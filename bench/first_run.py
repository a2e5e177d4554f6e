"""The first run: `pybridge serve` (no --repo) started in a workspace that was never synced, timed over MCP stdio.

    python bench/first_run.py [guava|reactor] [--runs N]

For each run, with a new empty state folder: the time from starting `pybridge serve` to its answer to
`initialize`, and to the first exact answer (`findReferences` of a method, asked again a tenth of a second
after each `indexing` answer; each call waits up to the fresh-wait bound first). The server is driven with
plain JSON-RPC lines, so no client library's start is counted. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", nargs="?", default="guava", choices=sorted(SYMBOLS))
    parser.add_argument("--runs", type=int, default=1)
    a = parser.parse_args()
    root = _workspace(a.workspace)
    runs = [run_once(root, SYMBOLS[a.workspace]) for _ in range(a.runs)]
    print(json.dumps({"workspace": a.workspace, "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
