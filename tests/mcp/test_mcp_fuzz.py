"""Malformed MCP messages over stdio and streamable HTTP: every request gets an answer and the server stays up.

Raw bytes go to `pybridge serve` (stdin, or POST bodies to /mcp); no SDK client sits in between to tidy
them. Hand-written hostile cases (garbage JSON, wrong types, huge ids, unknown methods, lone surrogates,
truncated frames, oversize bodies) run always; seeded random mutations of valid requests add
`PYBRIDGE_FUZZ_MUTANTS` more (default 150, the short form CI runs; raise it for a long campaign). The
counts are printed (`pytest -s`).
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from pybridge.sync import sync
from tests.mcp.test_mcp_http import ACCEPT, INIT, http_server

ROOT = Path(__file__).resolve().parent.parent.parent
MUTANTS = int(os.environ.get("PYBRIDGE_FUZZ_MUTANTS", "150"))
SEED = int(os.environ.get("PYBRIDGE_FUZZ_SEED", "1301"))
ANSWER_WITHIN = 60.0  # seconds: a bound on waiting for one answer, never a pause


def req(rid: object, method: str, params: object = None) -> bytes:
    body: dict = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        body["params"] = params
    return json.dumps(body).encode()


def call(rid: object, name: object, arguments: object) -> bytes:
    return req(rid, "tools/call", {"name": name, "arguments": arguments})


# (raw line, what must come back): an id -> an answer with that id; None -> an answer with id null;
# "nothing" -> no answer (a notification or response under JSON-RPC).
CASES: list[tuple[bytes, object]] = [
    # garbage and truncated frames
    (b"{garbage", None), (b"not json at all", None), (b"]", None), (b"\x00\x01\x02", None),
    (b"\xff\xfe{\"jsonrpc\":", None), (b'{"jsonrpc":"2.0","id":7,"method":"tools/ca', None),
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"status","arguments":{', None),
    (b"[" * 100_000 + b"]" * 100_000, None), (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, None),
    (b"[]", None), (b"[1,2]", None), (b"null", None), (b"42", None), (b'"text"', None), (b"{}", None),
    (b'[' + req(9, "ping") + b"," + req(10, "ping") + b"]", None),  # batches are gone from MCP
    # wrong types
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', None), (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', None), (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', None),
    (b'{"jsonrpc":"1.0","id":11,"method":"ping"}', 11), (b'{"id":12,"method":"ping"}', 12),
    (b'{"jsonrpc":"2.0","id":13,"method":5}', 13), (req(14, "tools/call", [1, 2]), 14),
    (req(15, "tools/call", "status"), 15), (call(16, 5, {}), 16), (call(17, None, {}), 17),
    (call(18, "status", [1]), 18), (call(19, "status", "repo"), 19), (call(20, "find_symbol", {"query": 5}), 20),
    (call(21, "find_references", {"symbolKey": {"a": [1]}, "limit": "ten"}), 21),
    (call(22, "find_references", {"symbolKey": "x", "limit": 10**40}), 22),
    (call(23, "symbol_at", {"repo": "reactor", "path": "../../../etc/passwd", "line": -1, "character": 1e308}), 23),
    (call(24, "get_callers", {"symbol": "", "max_results": -5}), 24), (req(25, "tools/list", {"cursor": 7}), 25),
    # huge ids
    (req(10**30, "ping"), 10**30), (req(-(10**30), "ping"), -(10**30)), (req("x" * 100_000, "ping"), "x" * 100_000),
    (b'{"jsonrpc":"2.0","id":1e308,"method":"ping"}', None), (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', None),
    # unknown methods
    (req(30, "nope"), 30), (req(31, ""), 31), (req(32, "tools/nope"), 32), (req(33, "rpc.discover"), 33),
    (req(34, "resources/read", {"uri": "file:///etc/passwd"}), 34), (call(35, "no_such_tool", {}), 35),
    # lone surrogates: in a value, a key, the tool name, the method, a string id
    (b'{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"status","arguments":{"repo":"\\ud800"}}}', 40),
    (b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"status","arguments":{"\\udfff":1}}}', 41),
    (b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"st\\udc00atus","arguments":{}}}', 42),
    (b'{"jsonrpc":"2.0","id":43,"method":"pi\\ud800ng"}', 43),
    (b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', None),
    (b'{"jsonrpc":"2.0","id":44,"method":"tools/call","params":{"name":"find_symbol",'
     b'"arguments":{"query":"\\ud83d\\ude00"}}}', 44),  # a valid pair is text: answered normally
    # notifications and responses, malformed or not: no answer
    (b'{"jsonrpc":"2.0","method":"notifications/whatever"}', "nothing"),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\\ud800"}}', "nothing"),
    (b'{"jsonrpc":"2.0","id":99999,"result":{}}', "nothing"), (b"", "nothing"), (b"   ", "nothing"),
]
OVERSIZE = b'{"jsonrpc":"2.0","id":50,"method":"ping","params":{"pad":"' + b"x" * (5 * 1024 * 1024) + b'"}}'
VALID = [call(0, "status", {}), call(0, "find_symbol", {"query": "Greeter"}),
         call(0, "findReferences", {"repo": "reactor", "symbol": "Greeter.greet"}), req(0, "tools/list"),
         call(0, "goToDefinition", {"repo": "reactor", "symbol": "Greeter"})]


def mutants(count: int, seed: int) -> Iterator[tuple[bytes, int]]:
    """Seeded byte-level mutations of valid requests, each carrying the id `100000 + i` while it parses."""
    rng = random.Random(seed)
    for i in range(count):
        rid = 100_000 + i
        line = bytearray(rng.choice(VALID).replace(b'"id": 0', f'"id": {rid}'.encode()))
        for _ in range(rng.randint(1, 4)):
            if not line:
                break
            op, at = rng.randrange(4), rng.randrange(len(line))
            if op == 0:
                line[at] = rng.randrange(256)
            elif op == 1:
                del line[at:at + rng.randint(1, 8)]
            elif op == 2:
                line[at:at] = rng.choice([b"\\ud800", b"\\u0000", b'"', b"{", b"]", b",", b"\xc3", b"1e999", b"null"])
            else:
                line = line[:at]
        yield bytes(line).replace(b"\n", b" "), rid


def expected_id(line: bytes) -> object:
    """The id an answer must carry when `line` is a request the server can attribute, else "any"."""
    if not line.strip():
        return "any"
    try:
        raw = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    if isinstance(raw, dict) and "method" in raw and "id" in raw:
        rid = raw["id"]
        ok = (isinstance(rid, int) and not isinstance(rid, bool)) or (isinstance(rid, str) and rid.isprintable())
        return rid if ok else "any"
    return "any"


@pytest.fixture(scope="module")
def reactor(tmp_path_factory, samples, worker) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("fuzz")
    root, state = base / "reactor", base / "state"
    shutil.copytree(samples / "reactor", root)
    sync(root, state_dir=state, worker=worker)
    return root, state


class Stdio:
    """`pybridge serve` on raw pipes."""

    def __init__(self, root: Path, state: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve", "--repo", str(root),
                                      "--state-dir", str(state)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=ROOT)
        self.buffer = b""
        self.answers: list[dict] = []

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def _read_some(self, until: float) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            raise AssertionError(f"no answer within {ANSWER_WITHIN} s (server alive: {self.proc.poll() is None})")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise AssertionError(f"the server closed stdout (exit {self.proc.wait()})")
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, self.buffer = self.buffer.split(b"\n", 1)
            self.answers.append(json.loads(line))  # every line the server writes is strict JSON

    def wait_for(self, rid: object) -> dict:
        until = time.monotonic() + ANSWER_WITHIN
        while True:
            for index, answer in enumerate(self.answers):
                if "id" in answer and answer["id"] == rid and (rid is not None or "error" in answer):
                    return self.answers.pop(index)
            self._read_some(until)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()


def test_every_malformed_stdio_message_is_answered_and_the_server_stays_up(reactor, capsys):
    server = Stdio(*reactor)
    try:
        server.send(json.dumps(INIT).encode())
        assert server.wait_for(1)["result"]["serverInfo"]["name"] == "pybridge"
        server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        answered = silent = 0
        for n, (line, expect) in enumerate(CASES):
            server.send(line)
            if expect == "nothing":
                server.send(req(f"sentinel-{n}", "ping"))
                assert server.wait_for(f"sentinel-{n}") == {"jsonrpc": "2.0", "id": f"sentinel-{n}", "result": {}}
                assert not server.answers, (line[:100], server.answers)
                silent += 1
                continue
            answer = server.wait_for(expect)
            assert ("error" in answer) != ("result" in answer), answer
            if expect is None:
                assert answer["error"]["code"] in (-32700, -32600), answer
            answered += 1
        server.send(OVERSIZE)
        assert server.wait_for(None)["error"]["code"] == -32600
        answered += 1
        lost = []
        for line, rid in mutants(MUTANTS, SEED):
            server.send(line)
            expect = expected_id(line)
            if expect == "any":
                server.send(req(f"after-{rid}", "ping"))
                server.wait_for(f"after-{rid}")
                server.answers.clear()
            else:
                try:
                    answer = server.wait_for(expect)
                except AssertionError as err:
                    raise AssertionError(f"{err}: {line[:300]!r}") from None
                if "error" not in answer and "result" not in answer:
                    lost.append(line)
        assert not lost
        server.send(call(77, "find_symbol", {"query": "Greeter"}))
        assert server.wait_for(77)["result"]["structuredContent"]["symbols"]
        assert server.proc.poll() is None
    finally:
        server.close()
    with capsys.disabled():
        print(f"\nstdio fuzz: {answered} hostile requests answered, {silent} notifications/responses left "
              f"unanswered as JSON-RPC requires, {MUTANTS} mutants (seed {SEED}), server up")


def test_a_reply_holding_a_lone_surrogate_is_written_as_valid_utf8():
    from mcp_types import JSONRPCResponse

    from pybridge.mcp.transport import encode_reply

    line = encode_reply(JSONRPCResponse(jsonrpc="2.0", id=1, result={"path": "src/bad-\udcff.java"}))
    assert json.loads(line.decode("utf-8")) == {"jsonrpc": "2.0", "id": 1, "result": {"path": "src/bad-\ufffd.java"}}


def test_every_malformed_http_body_is_answered_and_the_server_stays_up(reactor, capsys):
    with http_server(*reactor) as served, httpx2.Client(timeout=ANSWER_WITHIN) as client:
        opened = client.post(served.url, json=INIT, headers={"accept": ACCEPT})
        headers = {"accept": ACCEPT, "content-type": "application/json",
                   "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        client.post(served.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        statuses: dict[int, int] = {}

        def post(body: bytes, expect: object = "any", extra: dict | None = None) -> httpx2.Response:
            response = client.post(served.url, content=body, headers={**headers, **(extra or {})})
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            assert response.status_code < 500, (body[:100], response.status_code, response.text[:300])
            if expect not in ("any", "nothing") and response.status_code == 200:
                assert response.json()["id"] == expect, (body[:100], response.text[:300])
            return response

        for line, expect in CASES:
            if line.strip():
                post(line, expect)
        assert post(OVERSIZE).status_code == 413
        assert post(req(60, "ping"), extra={"content-type": "text/plain"}).status_code in (400, 415)
        assert post(req(61, "ping"), extra={"accept": "text/html"}).status_code == 406
        assert post(req(62, "ping"), extra={"mcp-session-id": "no-such-session"}).status_code == 404
        for method in ("PUT", "PATCH"):
            assert client.request(method, served.url, headers=headers).status_code < 500
        for line, _rid in mutants(MUTANTS, SEED):
            post(line)
        answer = post(call(77, "find_symbol", {"query": "Greeter"}))
        assert answer.json()["result"]["structuredContent"]["symbols"]
        assert served.proc.poll() is None
    with capsys.disabled():
        print(f"\nHTTP fuzz: {sum(statuses.values())} hostile bodies answered, by status "
              f"{dict(sorted(statuses.items()))}, server up")
