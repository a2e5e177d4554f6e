"""Load on the streamable HTTP transport: N concurrent MCP clients for S seconds against `pybridge serve --http`.

    .venv/bin/python bench/http_load.py                       # 50 clients, 20 s, samples/reactor
    .venv/bin/python bench/http_load.py --clients 10 --seconds 5 --sessions 100
    .venv/bin/python bench/http_load.py --think 0.5               # each client waits 0.5 s between calls

Copies samples/reactor to a temporary folder, syncs it into a temporary state
folder, starts `pybridge serve --http --port 0` on 127.0.0.1 (never anything
else), and runs the clients in this process (asyncio, httpx2, one MCP session
each: initialize, then tools/call in a loop over read-only queries; `--client raw`
uses a minimal HTTP/1.1 client instead, whose own CPU is a fraction of httpx2's,
since the clients share the server's two cores). Reports
throughput, p50/p90/p99/max latency per call, errors, and the server's
resident memory per idle session (`--sessions` sessions opened and left open).
By default every client calls again as soon as it has its answer (a closed
loop at saturation: the latency is then about clients / throughput); with
`--think S` it waits S seconds between calls, as an agent that reads its
answers does. The load starts 5 s after the server is up (`serve` starts and
warms its indexer JVM in the background).
Prints one JSON object; `--markdown` prints the RESULTS.md lines as well.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parent.parent
ACCEPT = "application/json, text/event-stream"
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "http_load", "version": "1"}}}
QUERIES = [
    ("status", {}),
    ("find_symbol", {"query": "Greeter"}),
    ("findReferences", {"repo": "reactor", "symbol": "Greeter"}),
    ("goToDefinition", {"repo": "reactor", "symbol": "Greeter"}),
    ("get_callers", {"symbol": "Greeter.greet"}),
    ("callHierarchy", {"repo": "reactor", "symbol": "Greeter.greet"}),
]


def _body(response: httpx2.Response) -> dict:
    """The JSON-RPC answer of a POST, whether the server replied with JSON or with an SSE stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if "id" in message:
                    return message
        raise RuntimeError(f"no answer in the event stream: {response.text[:200]!r}")
    return response.json()


async def open_session(client: httpx2.AsyncClient, url: str, headers: dict) -> dict:
    response = await client.post(url, json=INIT, headers=headers)
    response.raise_for_status()
    _body(response)
    session = dict(headers)
    if "mcp-session-id" in response.headers:
        session["mcp-session-id"] = response.headers["mcp-session-id"]
    session["mcp-protocol-version"] = "2025-06-18"
    await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    return session


async def call_loop(index: int, deadline: float, latencies: list[float], errors: list[str], think: float,
                    call: Callable[[dict], Awaitable[tuple[int, dict | None]]]) -> None:
    """One client's calls until the deadline: QUERIES in rotation (from `index`), each timed;
    `call(message)` posts one JSON-RPC message and gives back (HTTP status, JSON-RPC answer)."""
    n = index
    while time.perf_counter() < deadline:
        name, args = QUERIES[n % len(QUERIES)]
        n += 1
        started = time.perf_counter()
        try:
            status, message = await call({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                          "params": {"name": name, "arguments": args}})
            if status != 200 or message is None or "error" in message or message["result"].get("isError"):
                errors.append(f"{name}: {status} {json.dumps(message)[:200]}")
        except (httpx2.HTTPError, OSError, RuntimeError, ValueError, asyncio.IncompleteReadError) as exc:
            errors.append(f"{name}: {exc!r}")
            continue
        latencies.append(time.perf_counter() - started)
        if think:
            await asyncio.sleep(think)


async def one_client(index: int, url: str, base_headers: dict, deadline: float, latencies: list[float],
                     errors: list[str], think: float = 0.0) -> None:
    async with httpx2.AsyncClient(timeout=60) as client:
        session = await open_session(client, url, base_headers)

        async def call(message: dict) -> tuple[int, dict | None]:
            response = await client.post(url, headers=session, json=message)
            return response.status_code, _body(response)

        await call_loop(index, deadline, latencies, errors, think, call)


class RawClient:
    """A minimal HTTP/1.1 keep-alive client (`--client raw`): one connection, POST with a JSON body,
    answers with a Content-Length (the JSON answer mode). It costs a fraction of httpx2's CPU, so on
    a machine whose cores the server shares, the figures show more of the server and less of the
    load generator."""

    def __init__(self, url: str) -> None:
        rest = url.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        self.host, _, port = hostport.partition(":")
        self.port = int(port or 80)
        self.path = "/" + path
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> "RawClient":
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.writer is not None:
            self.writer.close()

    async def post(self, headers: dict, message: dict) -> tuple[int, dict, dict | None]:
        assert self.reader is not None and self.writer is not None
        body = json.dumps(message).encode()
        head = [f"POST {self.path} HTTP/1.1", f"host: {self.host}:{self.port}", "content-type: application/json",
                f"content-length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        got = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
        if "content-length" not in got:
            raise RuntimeError(f"no content-length in the answer (status {status}; --client raw needs JSON answers)")
        data = await self.reader.readexactly(int(got["content-length"]))
        return status, got, json.loads(data) if data else None


async def raw_client(index: int, url: str, base_headers: dict, deadline: float, latencies: list[float],
                     errors: list[str], think: float = 0.0) -> None:
    async with RawClient(url) as client:
        headers = {**base_headers, "accept": "application/json"}
        _status, got, _ = await client.post(headers, INIT)
        session = {**headers, "mcp-session-id": got["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        await client.post(session, {"jsonrpc": "2.0", "method": "notifications/initialized"})

        async def call(message: dict) -> tuple[int, dict | None]:
            status, _got, answer = await client.post(session, message)
            return status, answer

        await call_loop(index, deadline, latencies, errors, think, call)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def idle_sessions(url: str, headers: dict, count: int, pid: int) -> dict:
    before = rss_kb(pid)
    async with httpx2.AsyncClient(timeout=60) as client:
        for _ in range(count):
            await open_session(client, url, headers)
    after = rss_kb(pid)
    return {"sessions": count, "rssBeforeKiB": before, "rssAfterKiB": after,
            "perSessionKiB": round((after - before) / count, 1) if count else None}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--sessions", type=int, default=200, help="idle sessions to open for the memory figure")
    parser.add_argument("--token", default="bench-token")
    parser.add_argument("--sse", action="store_true", help="serve with --sse (SSE answers) to compare")
    parser.add_argument("--think", type=float, default=0.0, help="seconds each client waits between calls")
    parser.add_argument("--client", choices=["httpx2", "raw"], default="httpx2",
                        help="the load generator: httpx2 (an SDK-like client) or raw (minimal HTTP/1.1, less CPU)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    if args.client == "raw" and args.sse:
        parser.error("--client raw reads JSON answers only; drop --sse")
    if not (1 <= args.clients <= 200 and 0 < args.seconds <= 120 and 0 <= args.sessions <= 2000):
        parser.error("bounded load only: 1-200 clients, at most 120 s, at most 2000 idle sessions")

    tmp = Path(tempfile.mkdtemp(prefix="pybridge-http-load-"))
    try:
        repo, state = tmp / "reactor", tmp / "state"
        shutil.copytree(ROOT / "samples" / "reactor", repo)
        exe = [sys.executable, "-m", "pybridge.cli"]
        subprocess.run([*exe, "sync", str(repo), "--state-dir", str(state)], check=True, capture_output=True)
        env = {**os.environ, "PYBRIDGE_TOKEN": args.token}
        proc = subprocess.Popen([*exe, "serve", "--http", "--port", "0", "--repo", str(repo), "--state-dir",
                                 str(state), *(["--sse"] if args.sse else [])],
                                stderr=subprocess.PIPE, text=True, env=env)
        try:
            assert proc.stderr is not None
            url = None
            for line in proc.stderr:
                if "running on http://127.0.0.1:" in line:
                    url = line.split("running on ", 1)[1].split()[0]
                    break
            if url is None:
                raise SystemExit("the server did not start")
            headers = {"accept": ACCEPT, "authorization": f"Bearer {args.token}"}
            time.sleep(5)       # let serve's background worker warm-up finish
            latencies: list[float] = []
            errors: list[str] = []

            async def load() -> float:
                deadline = time.perf_counter() + args.seconds
                started = time.perf_counter()
                client = raw_client if args.client == "raw" else one_client
                await asyncio.gather(*(client(i, url, headers, deadline, latencies, errors, args.think)
                                       for i in range(args.clients)))
                return time.perf_counter() - started

            elapsed = asyncio.run(load())
            memory = asyncio.run(idle_sessions(url, headers, args.sessions, proc.pid)) if args.sessions else None
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    report = {
        "answers": "sse" if args.sse else "json", "client": args.client,
        "clients": args.clients, "thinkSeconds": args.think, "seconds": round(elapsed, 1),
        "calls": len(latencies), "errors": len(errors),
        "callsPerSecond": round(len(latencies) / elapsed, 1),
        "p50ms": round(pct(latencies, 0.50) * 1000, 1), "p90ms": round(pct(latencies, 0.90) * 1000, 1),
        "p99ms": round(pct(latencies, 0.99) * 1000, 1), "maxms": round(max(latencies, default=0) * 1000, 1),
        "idleSessions": memory, "firstErrors": errors[:3],
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}",
    }
    print(json.dumps(report, indent=2))
    if args.markdown:
        print(f"| {report['clients']} | {report['seconds']} | {report['calls']} | {report['callsPerSecond']} | "
              f"{report['p50ms']} | {report['p99ms']} | {report['maxms']} | {report['errors']} |")


if __name__ == "__main__":
    main()
