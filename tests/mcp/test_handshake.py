"""`pybridge serve` answers `initialize` before it has imported the server (pybridge.mcp.handshake).

The early answer must be the MCP SDK's answer, field by field, for every protocol version a client may ask
(the SDK's own server answers the same line in-process here), and the SDK must still see that
`initialize` (its answer is then dropped: a client gets one answer per request).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp_types import version as sdk_version

from pybridge.mcp import handshake
from pybridge.mcp.transport import run_stdio
from pybridge.query import TOOL_NAMES, Facade

ROOT = Path(__file__).resolve().parent.parent.parent
ASKED = [*sdk_version.KNOWN_PROTOCOL_VERSIONS, "1999-01-01", "not a version"]


def initialize(version: str = "2025-06-18", rid: object = 1, **params: object) -> bytes:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"},
            **params}
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": body}).encode() + b"\n"


@pytest.fixture(scope="module")
def facade(tmp_path_factory, samples):
    """A facade over a never-synced copy of samples/reactor: `initialize` needs no facts."""
    base = tmp_path_factory.mktemp("handshake")
    facade = Facade([samples / "reactor"], state_dirs={samples / "reactor": base / "state"})
    yield facade
    facade.close()


def sdk_answers(facade: Facade, *lines: bytes) -> list[dict]:
    """What the SDK's server (pybridge's transport, with no early answer) writes for these lines."""
    out = io.BytesIO()
    anyio.run(lambda: run_stdio(facade, TOOL_NAMES, stdin=io.BytesIO(b"".join(lines)), stdout=out))
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_early_module_imports_neither_pydantic_nor_the_sdk_nor_the_query_layer():
    program = ("import sys, pybridge.mcp.handshake; print(sorted({m.split('.')[0] for m in sys.modules} "
               "& {'pydantic', 'pydantic_core', 'mcp', 'mcp_types', 'anyio', 'click'}), "
               "[m for m in sys.modules if m.startswith(('pybridge.query', 'pybridge.workspace'))])")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[] []"


def test_the_protocol_versions_negotiated_are_the_pinned_sdks():
    """A canary: the early answer copies the SDK's negotiation; a new SDK version must be looked at."""
    assert handshake.HANDSHAKE_PROTOCOL_VERSIONS == sdk_version.HANDSHAKE_PROTOCOL_VERSIONS
    assert handshake.LATEST_HANDSHAKE_VERSION == sdk_version.LATEST_HANDSHAKE_VERSION


@pytest.mark.parametrize("asked", ASKED)
def test_the_early_answer_is_the_sdks_field_by_field(facade, asked):
    line = initialize(asked, rid=f"init-{asked}", clientInfo={"name": "host", "version": "2", "title": "Host"},
                      capabilities={"roots": {"listChanged": True}, "sampling": {}})
    early = handshake.early_reply(line)
    [sdk] = sdk_answers(facade, line)
    assert early is not None and set(early) == set(sdk) == {"jsonrpc", "id", "result"}
    assert (early["jsonrpc"], early["id"]) == (sdk["jsonrpc"], sdk["id"])
    assert set(early["result"]) == set(sdk["result"])
    for field in sdk["result"]:
        assert early["result"][field] == sdk["result"][field], field


@pytest.mark.parametrize("line", [
    b"{garbage\n", b"[]\n", initialize()[:-3] + b"\n",
    initialize(clientInfo={"name": "x"}), initialize(clientInfo=None), initialize(capabilities=[]),
    initialize(capabilities={"roots": 5}), initialize(protocolVersion=5), initialize(rid=True),
    initialize(rid=None), initialize(rid="\ud800"), initialize(clientInfo={"name": "\ud800", "version": "1"}),
    initialize(clientInfo={"name": "x", "version": "1", "icons": [{"src": 5}]}),
    json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize"}).encode(),
    json.dumps({"jsonrpc": "2.0", "method": "initialize", "params": {}}).encode(),
])
def test_a_first_line_the_sdk_would_refuse_is_left_to_the_sdk(facade, line):
    assert handshake.early_reply(line) is None
    assert handshake.early_reply(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}') is None      # nor another request
    answers = sdk_answers(facade, line.rstrip(b"\n") + b"\n")
    assert all("result" not in a for a in answers), answers


def test_serve_answers_initialize_before_its_command_line_is_even_checked(tmp_path):
    """The early answer comes before the server's imports and the CLI's checks: `serve` in a folder that
    is no workspace answers `initialize`, then exits with the error (without it: no answer at all)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for switch, answered in (("1", True), ("0", False)):
        proc = subprocess.run([sys.executable, "-m", "pybridge.cli", "serve", "--state-dir", str(tmp_path / "s")],
                              input=initialize(), capture_output=True, cwd=tmp_path, timeout=120,
                              env={**env, "PYBRIDGE_EARLY_INITIALIZE": switch})
        assert proc.returncode == 2 and b"workspace" in proc.stderr, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        assert [a["result"]["serverInfo"]["name"] for a in lines] == (["pybridge"] if answered else [])


def test_serve_answers_once_and_the_sdk_serves_on_after_the_early_answer(facade, samples, tmp_path):
    """Over `pybridge serve`: the early answer is the SDK's; the SDK's own answer to the same initialize
    is not sent (the next message is the ping's answer), and the tools are listed and called."""
    line = initialize("2025-11-25")
    [expected] = sdk_answers(facade, line)
    with subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve", "--repo", str(samples / "reactor"),
                           "--state-dir", str(tmp_path / "state"), "--no-watch", "--no-auto-sync"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(line)
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == expected
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                         b'{"jsonrpc":"2.0","id":"p","method":"ping"}\n'
                         b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n'
                         b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"status","arguments":{}}}\n')
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": "p", "result": {}}
        assert {t["name"] for t in json.loads(proc.stdout.readline())["result"]["tools"]} == set(TOOL_NAMES)
        status = json.loads(proc.stdout.readline())
        assert status["id"] == 3 and "structuredContent" in status["result"], status
        proc.stdin.close()
        assert proc.stdout.read() == b""
        stderr = proc.stderr.read()
    assert b"differs" not in stderr


def test_a_different_sdk_answer_is_dropped_and_logged(caplog):
    wire = handshake.EarlyWire(io.BytesIO(initialize()), io.BytesIO())
    wire.start()
    assert wire.first_line() == initialize()
    sent = wire.answered
    assert sent is not None and wire.stdout.getvalue() == handshake.encode(sent)  # type: ignore[attr-defined]
    assert not wire.settle({"jsonrpc": "2.0", "id": 2, "result": {}})       # another request's answer
    assert wire.settle({**sent, "result": {**sent["result"], "protocolVersion": "2024-11-05"}})
    assert "differs from the MCP SDK's" in caplog.text
    assert not wire.settle(sent)                                             # only once


def test_only_serve_over_stdio_answers_early(monkeypatch):
    assert handshake.serving_stdio(["pybridge", "serve"])
    assert handshake.serving_stdio(["pybridge", "--java", "/jdk", "serve", "--repo", "x"])
    assert handshake.serving_stdio(["pybridge", "--java=/jdk", "serve"])
    assert not handshake.serving_stdio(["pybridge", "serve", "--http"])
    assert not handshake.serving_stdio(["pybridge", "serve", "--help"])
    assert not handshake.serving_stdio(["pybridge", "sync"])
    assert not handshake.serving_stdio(["pybridge"])
    monkeypatch.setenv("PYBRIDGE_EARLY_INITIALIZE", "0")
    assert not handshake.serving_stdio(["pybridge", "serve"])


@pytest.mark.parametrize("restore", [True, False])
def test_the_wire_claim_moves_fds_0_and_1_off_the_wire_and_back_when_asked(restore):
    """`claim_wire`: the wire on private descriptors, fd 0 reading the null device and fd 1 writing to
    stderr meanwhile; with `restore` (the transport's claim) its function puts fds 0 and 1 back, without
    it (the early claim, for the process's life) they stay off the wire."""
    saved = os.dup(0), os.dup(1)
    wire_r, wire_w = os.pipe()       # the client's side writes wire_w; serve reads fd 0 = wire_r
    back_r, back_w = os.pipe()       # serve writes fd 1 = back_w; the client's side reads back_r
    try:
        os.dup2(wire_r, 0)
        os.dup2(back_w, 1)
        wire_in, wire_out, put_back = handshake.claim_wire(restore=restore)
        assert os.path.samestat(os.fstat(0), os.stat(os.devnull))
        assert os.path.samestat(os.fstat(1), os.fstat(2))
        os.write(wire_w, b"request\n")
        assert wire_in.readline() == b"request\n"
        wire_out.write(b"answer\n")
        assert os.read(back_r, 100) == b"answer\n"
        wire_in.close()
        wire_out.close()
        put_back()
        if restore:
            assert os.path.samestat(os.fstat(0), os.fstat(wire_r))
            assert os.path.samestat(os.fstat(1), os.fstat(back_w))
        else:
            assert os.path.samestat(os.fstat(0), os.stat(os.devnull))
            assert os.path.samestat(os.fstat(1), os.fstat(2))
    finally:
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in (*saved, wire_r, wire_w, back_r, back_w):
            os.close(fd)
