"""The streamable HTTP transport of `pybridge serve --http`: the URL, DNS-rebinding protection, the bearer
token, bounded sessions, and a real client session (the SDK's streamable HTTP client)."""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import re
import shutil
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pydantic_core
import pytest

from pybridge.mcp import sdkstate
from pybridge.mcp.transport import BAD_ID, BATCH, Guard, build_http_app, classify_line, mcp_url
from pybridge.query import TOOL_NAMES, Facade
from pybridge.sync import sync

ROOT = Path(__file__).resolve().parent.parent.parent
TOKEN = "test-token_1.~"
ACCEPT = "application/json, text/event-stream"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "pytest", "version": "1"}}}


@dataclass
class Served:
    url: str
    proc: subprocess.Popen[str]
    banner: str
    root: Path
    state: Path


@pytest.fixture(scope="module")
def reactor(tmp_path_factory, samples, worker) -> tuple[Path, Path]:
    """samples/reactor copied and synced into its own state folder."""
    base = tmp_path_factory.mktemp("http")
    root, state = base / "reactor", base / "state"
    shutil.copytree(samples / "reactor", root)
    sync(root, state_dir=state, worker=worker)
    return root, state


@contextlib.contextmanager
def http_server(root: Path, state: Path, *extra: str, token: str | None = None, fast: bool = True) -> Iterator[Served]:
    """`pybridge serve --http --port 0` on 127.0.0.1 for one workspace; yields once its startup line has named
    the URL. `fast=False` serves every call through the SDK (`PYBRIDGE_HTTP_FAST=0`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYBRIDGE_TOKEN", "PYBRIDGE_HTTP_FAST")}
    if token is not None:
        env["PYBRIDGE_TOKEN"] = token
    if not fast:
        env["PYBRIDGE_HTTP_FAST"] = "0"
    with http_serve(["--repo", str(root), "--state-dir", str(state), *extra], env) as (url, proc, banner):
        yield Served(url, proc, banner, root, state)


@contextlib.contextmanager
def http_serve(args: list[str], env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str], str]]:
    """`pybridge serve --http --port 0 ARGS` with the environment `env`: (url, process, startup line)."""
    proc = subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve", "--http", "--port", "0", *args],
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "running on http://" in line:
                url = line.split("running on ", 1)[1].split()[0]
                break
        else:
            raise AssertionError(f"the HTTP server never said where it listens (exit {proc.wait()})")
        yield url, proc, line
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()


@pytest.fixture(scope="module")
def served(reactor) -> Iterator[Served]:
    with http_server(*reactor, token=TOKEN) as server:
        yield server


@pytest.fixture(scope="module")
def served_sdk(reactor) -> Iterator[Served]:
    """Like `served`, with the fast path off: every request goes through the SDK."""
    with http_server(*reactor, token=TOKEN, fast=False) as server:
        yield server


@pytest.fixture(params=["fast path", "SDK path"])
def either_path(request: pytest.FixtureRequest) -> Served:
    """`served` and `served_sdk` in turn: a test run on both must get the same answers."""
    return request.getfixturevalue("served" if request.param == "fast path" else "served_sdk")


def post(served: Served, body: object, *, token: str | None = TOKEN, path: str = "/mcp",
         headers: dict[str, str] | None = None) -> httpx2.Response:
    """POST `body` (JSON-encoded, or bytes sent as they are) to the server."""
    base = served.url.rsplit("/mcp", 1)[0]
    sent = {"accept": ACCEPT, "content-type": "application/json", **(headers or {})}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    with httpx2.Client(timeout=60, follow_redirects=False) as client:
        return client.post(base + path, content=content, headers=sent)


def open_session(served: Served) -> dict[str, str]:
    """Initialize a session on a real server: the headers a call on it sends (the fast path takes such a call)."""
    opened = post(served, INIT)
    assert opened.status_code == 200, opened.text
    headers = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    assert post(served, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers).status_code == 202
    return headers


@dataclass
class RawAnswer:
    status: int
    body: bytes

    def error(self) -> tuple[int, str]:
        """The JSON-RPC error's code and message."""
        error = json.loads(self.body)["error"]
        return error["code"], error["message"]


def raw_request(served: Served, lines: list[str], body: bytes = b"", *, target: str = "/mcp") -> RawAnswer:
    """One POST written by hand on a socket to the server (header `lines` exactly as given, so repeated or
    malformed ones too, and any request target), `Content-Length` and `Connection: close` added."""
    port = int(served.url.rsplit(":", 1)[1].split("/", 1)[0])
    head = [f"POST {target} HTTP/1.1", *lines, f"Content-Length: {len(body)}", "Connection: close"]
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    status_line, _, rest = received.partition(b"\r\n")
    return RawAnswer(int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2])


def test_the_startup_line_prints_the_mcp_url_and_what_is_allowed(served):
    assert served.url.startswith("http://127.0.0.1:") and served.url.endswith("/mcp")
    assert "allowed Host" in served.banner and "bearer token is required" in served.banner


@pytest.mark.parametrize("path", ["/mcp", "/mcp/"])
def test_the_mcp_endpoint_answers_without_a_redirect(served, path):
    response = post(served, INIT, path=path)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["serverInfo"]["name"] == "pybridge"


def test_another_path_is_404_with_a_hint(served):
    response = post(served, INIT, path="/")
    assert response.status_code == 404 and "/mcp" in response.json()["error"]["message"]


@pytest.mark.parametrize("headers", [{"origin": "http://evil.example"}, {"origin": "http://127.0.0.1.evil.example"},
                                     {"origin": "null"}, {"host": "evil.example"},
                                     {"host": "evil.example:8765"}, {"host": "127.0.0.1.nip.io"}])
def test_a_foreign_origin_or_host_is_refused_with_403(served, headers):
    response = post(served, INIT, headers=headers)
    assert response.status_code == 403
    assert "DNS-rebinding" in response.json()["error"]["message"]


# FAULTS-3 D6: at 7452e7b all of these but `local host` and no Host (403) got 200: the Host parse split on one
# colon and ignored the rest, and headers were folded into a dict, so the last of two won.
@pytest.mark.parametrize("lines", [
    ["Host: 127.0.0.1:80@evil.example"], ["Host: localhost:{port}.evil.example"], ["Host: [::1]evil.example"],
    ["Host: localhost:abc"], ["Host: localhost:"], ["Host: localhost:99999"], ["Host: local host:{port}"],
    ["Host: evil.example", "Host: 127.0.0.1:{port}"], ["Host: 127.0.0.1:{port}", "Host: 127.0.0.1:{port}"],
    ["Host: 127.0.0.1:{port}", "Origin: http://evil.example", "Origin: http://localhost"],
    ["Host: 127.0.0.1:{port}", "Origin: http://localhost:1@evil.example"],
    ["Host: 127.0.0.1:{port}", "Origin: http://[::1]evil.example"],
    ["Host: 127.0.0.1:{port}", "Origin: http://localhost:{port}/"],
    ["Host: 127.0.0.1:{port}", f"Authorization: Bearer {TOKEN}x"],
    [],
], ids=lambda lines: " | ".join(lines) or "no Host")
def test_a_malformed_repeated_or_missing_host_or_origin_is_refused_with_400(served, lines):
    port = served.url.split(":")[2].split("/")[0]
    answer = raw_request(served, [line.format(port=port) for line in lines] + [
        "Content-Type: application/json", f"Accept: {ACCEPT}", f"Authorization: Bearer {TOKEN}"],
        json.dumps(INIT).encode())
    assert answer.status == 400, answer
    code, message = answer.error()
    assert code == -32600 and message.startswith("Bad Request:"), message


@pytest.mark.parametrize(("target", "status"), [
    ("http://evil.example/mcp", 403), ("http://evil.example:{port}/mcp", 403),
    ("http://127.0.0.1:80@evil.example/mcp", 400), ("ftp://127.0.0.1/mcp", 400),
    ("http://[::1]evil.example/mcp", 400)])   # this one httptools refuses itself, as "Invalid HTTP request"
def test_an_absolute_request_target_must_name_a_loopback_host_too(served, target, status):
    """RFC 9112 §3.2.2: a server must accept an absolute-form target, and its host, not Host's, is the one
    the request names; so the guard checks it like Host (FAULTS-3 D6: `POST http://evil.com/mcp` got 200)."""
    port = served.url.split(":")[2].split("/")[0]
    answer = raw_request(served, [f"Host: 127.0.0.1:{port}", "Content-Type: application/json", f"Accept: {ACCEPT}",
                                  f"Authorization: Bearer {TOKEN}"], json.dumps(INIT).encode(),
                         target=target.format(port=port))
    assert answer.status == status, answer


@pytest.mark.parametrize(("lines", "target"), [
    (["Host: 127.0.0.1:{port}"], "/mcp"), (["Host: localhost:{port}"], "/mcp"), (["Host: [::1]:{port}"], "/mcp"),
    (["Host: [0:0::1]:{port}"], "/mcp"), (["Host: LocalHost"], "/mcp/"),
    (["Host: 127.0.0.1:{port}", "Origin: http://127.0.0.1:{port}"], "/mcp"),
    (["Host: localhost:{port}", "Origin: http://localhost:{port}"], "/mcp"),
    (["Host: 127.0.0.1:{port}"], "http://127.0.0.1:{port}/mcp"), (["Host: 127.0.0.1:{port}"], "http://localhost/mcp/"),
    # optional whitespace around a field value is not part of it (RFC 9112 §5): the value is `localhost`
    (["Host:  localhost\t"], "/mcp"),
])
def test_loopback_hosts_origins_and_targets_written_by_hand_are_served(served, lines, target):
    port = served.url.split(":")[2].split("/")[0]
    answer = raw_request(served, [line.format(port=port) for line in lines] + [
        "Content-Type: application/json", f"Accept: {ACCEPT}", f"Authorization: Bearer {TOKEN}"],
        json.dumps(INIT).encode(), target=target.format(port=port))
    assert answer.status == 200, answer
    assert json.loads(answer.body)["result"]["serverInfo"]["name"] == "pybridge"


@pytest.mark.parametrize("origin", [None, "http://localhost:6274", "http://127.0.0.1", "https://[::1]:3000"])
def test_a_loopback_origin_or_none_is_served(served, origin):
    response = post(served, INIT, headers={"origin": origin} if origin else None)
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("token", [None, "wrong", TOKEN + "x", TOKEN[:-1], TOKEN.upper()])
def test_a_missing_or_wrong_token_is_refused_with_401(served, token):
    response = post(served, INIT, token=token)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "PYBRIDGE_TOKEN" in response.json()["error"]["message"]


def test_a_foreign_origin_is_refused_even_with_the_right_token(served):
    assert post(served, INIT, headers={"origin": "http://evil.example"}).status_code == 403


def test_the_sdk_client_calls_tools_with_the_token(served):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def ask():
        async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=60) as http:
            async with streamable_http_client(served.url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return await session.call_tool("find_symbol", {"query": "Greeter"})

    result = anyio.run(ask)
    assert not result.is_error, result.structured_content
    assert result.structured_content["symbols"][0]["symbolKey"]


def test_an_allowed_origin_and_host_are_served(reactor):
    with http_server(*reactor, "--allow-origin", "https://tools.example:8443", "--allow-host", "box.lan") as srv:
        assert post(srv, INIT, token=None, headers={"origin": "https://tools.example:8443"}).status_code == 200
        assert post(srv, INIT, token=None, headers={"host": "box.lan:1234"}).status_code == 200
        assert post(srv, INIT, token=None, headers={"origin": "https://tools.example"}).status_code == 403


def test_without_a_token_no_authorization_is_needed(reactor):
    with http_server(*reactor) as srv:
        assert "no token" in srv.banner
        assert post(srv, INIT, token=None).status_code == 200


@pytest.mark.parametrize(("extra", "token", "says"), [
    (["--host", "0.0.0.0"], None, "--token"),
    ([], "s\u00e9cret", "printable ASCII"),
    ([], "two words", "printable ASCII"),
])
def test_a_non_loopback_host_without_a_token_or_a_bad_token_is_refused_at_startup(reactor, extra, token, says):
    root, state = reactor
    env = {k: v for k, v in os.environ.items() if k != "PYBRIDGE_TOKEN"}
    if token is not None:
        env["PYBRIDGE_TOKEN"] = token
    done = subprocess.run([sys.executable, "-m", "pybridge.cli", "serve", "--http", "--port", "0", *extra,
                           "--repo", str(root), "--state-dir", str(state)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2 and says in done.stderr


def test_the_guard_compares_hosts_and_origins_exactly():
    guard = Guard.for_bind("127.0.0.1", token="t")
    assert guard.host_ok("127.0.0.1:8765") and guard.host_ok("localhost") and guard.host_ok("[::1]:80")
    assert not guard.host_ok(None) and not guard.host_ok("") and not guard.host_ok("127.0.0.2:80")
    for host in ("127.0.0.1:80@evil.example", "localhost:8765.evil.example", "[::1]evil.example", "localhost:abc",
                 "localhost:", "localhost:65536", "local\u0127host", "[::1%25lo]:80", "[::1]:80:80", "localhost:+80",
                 "local host", "localhost.evil.example", "127.0.0.1.", "127.1", "0x7f.0.0.1", "2130706433"):
        assert not guard.host_ok(host), host
    assert not guard.origin_ok("http://localhost.evil.example") and not guard.origin_ok("file://")
    assert not guard.origin_ok("http://localhost:80/path") and not guard.origin_ok("http://localhost:1@evil.example")
    assert not guard.origin_ok("http://[::1]evil.example") and not guard.origin_ok("null")
    assert guard.origin_ok("http://LOCALHOST:6274") and guard.origin_ok("https://[::1]") and guard.origin_ok(None)
    allowing = Guard.for_bind("::1", allow_hosts=["Box.LAN"], allow_origins=["https://Tools.example:8443/"])
    assert allowing.host_ok("[::1]:9") and allowing.host_ok("box.lan:1") and not allowing.host_ok("box.lan.:1")
    assert allowing.origin_ok("https://tools.example:8443") and not allowing.origin_ok("https://tools.example")
    assert guard.token_ok("Bearer t") and guard.token_ok("bearer t") and not guard.token_ok("Basic t")
    assert not guard.token_ok("Bearer \u00e9")
    assert mcp_url("0.0.0.0", 9) == "http://127.0.0.1:9/mcp" and mcp_url("::1", 9) == "http://[::1]:9/mcp"


# ---- odd ids, batches and deep nesting: the fast path and the SDK path answer alike (FAULTS-3 D7, D8)

ODD_IDS = ["1.5", "3.0", "2e0", "null", "true", '{"a": 1}', "[1]", "NaN", "1e400"]
CALL_STATUS = '"method":"tools/call","params":{"name":"status","arguments":{}}'


def test_a_request_whose_id_is_not_an_integer_or_a_string_gets_400_invalid_request(either_path):
    """FAULTS-3 D7: these got 202 and no body on both paths (the SDK took each for a notification), so the
    client waited forever. Now stdio's answer: -32600 with the same message."""
    headers = open_session(either_path)
    for rid in ODD_IDS:
        for method in (CALL_STATUS, '"method":"ping"'):
            answer = post(either_path, f'{{"jsonrpc":"2.0","id":{rid},{method}}}'.encode(), headers=headers)
            assert (answer.status_code, answer.json()) == (400, {"jsonrpc": "2.0", "id": None, "error": {
                "code": -32600, "message": BAD_ID}}), (rid, method)
    opening = post(either_path, {**INIT, "id": None})
    assert opening.status_code == 400 and opening.json()["error"]["message"] == BAD_ID
    assert classify_line(b'{"jsonrpc":"2.0","id":1.5,' + CALL_STATUS.encode() + b"}")[1] == {
        "jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": BAD_ID}}       # what stdio says
    answer = post(either_path, f'{{"jsonrpc":"2.0","id":5,{CALL_STATUS}}}'.encode(), headers=headers)
    assert answer.status_code == 200 and answer.json()["id"] == 5    # the session goes on


def test_a_batch_gets_400_invalid_request(either_path):
    """FAULTS-3 D7: a JSON array got the SDK's -32602 "Validation error"; JSON-RPC's code for it is -32600."""
    headers = open_session(either_path)
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status", "arguments": {}}}
    for batch in ([call], [call, {**call, "id": 4}], []):
        answer = post(either_path, batch, headers=headers)
        assert (answer.status_code, answer.json()["error"]) == (400, {"code": -32600, "message": BATCH}), batch


# The SDK parses a POST body with pydantic-core's from_json, whose parser lets a value sit inside at most
# this many arrays and objects (pydantic-core 2.50.5 under mcp 2.3.0). The fast path parses with the same
# call, so the two agree at any depth; the canary below fails when the SDK's parser or its limit changes
# (then update this figure and the README).
SDK_JSON_DEPTH = 200


def nested_call(depth: int) -> bytes:
    """A find_symbol call whose deepest value sits inside `depth` arrays and objects: the message, its params,
    the arguments, then the arrays of an argument `junk`."""
    junk = depth - 3
    return ('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"find_symbol","arguments":'
            '{"query":"x","junk":' + "[" * junk + "0" + "]" * junk + "}}}").encode()


def test_canary_the_sdk_parses_http_bodies_with_pydantic_core_and_its_depth_limit_is_200():
    from mcp.server.streamable_http import StreamableHTTPServerTransport

    assert "pydantic_core.from_json(body)" in inspect.getsource(StreamableHTTPServerTransport._handle_post_request)
    assert pydantic_core.from_json(nested_call(SDK_JSON_DEPTH))["id"] == 9
    with pytest.raises(ValueError, match="recursion limit exceeded"):
        pydantic_core.from_json(nested_call(SDK_JSON_DEPTH + 1))


def test_canary_the_pinned_sdk_is_the_one_whose_private_state_the_fast_path_reads():
    """The fast path reads the SDK's private state (`pybridge/mcp/sdkstate.py`). This fails when
    pyproject.toml pins another `mcp`: check sdkstate's reads against the new SDK's session manager
    and transport, then move `sdkstate.PINNED_SDK` to the new pin."""
    pins = [d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
            if d.replace(" ", "").startswith("mcp==")]
    assert pins == [f"mcp=={sdkstate.PINNED_SDK}"]
    assert sdkstate.installed_sdk() == sdkstate.PINNED_SDK


def test_only_sdkstate_reads_the_sdks_private_state():
    private = re.compile(r"\._(server_instances|session_owners|requests_in_flight|idle_timeout)\b")
    readers = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pybridge").rglob("*.py")
                     if private.search(p.read_text(encoding="utf-8")))
    assert readers == ["pybridge/mcp/sdkstate.py"]


def test_a_deeply_nested_body_gets_the_same_answer_on_both_paths(either_path):
    """FAULTS-3 D8: a 900-level body got the tool's error from the fast path (Python's json reads it) and
    -32700 from the SDK path (its parser stops at 200)."""
    headers = open_session(either_path)
    within = post(either_path, nested_call(SDK_JSON_DEPTH), headers=headers)
    assert within.status_code == 200 and within.json()["result"]["isError"], within.text
    assert "find_symbol has no argument `junk`" in within.json()["result"]["content"][0]["text"]
    for depth in (SDK_JSON_DEPTH + 1, 900):
        beyond = post(either_path, nested_call(depth), headers=headers)
        assert beyond.status_code == 400 and beyond.json()["error"]["code"] == -32700, (depth, beyond.text)
        assert "recursion limit exceeded" in beyond.json()["error"]["message"]


# ---- sessions: in process, on the real facade and the SDK's session manager

class _IdleWatch(logging.Handler):
    """Sets an event when the SDK's session manager logs that a session timed out."""

    def __init__(self, event: anyio.Event) -> None:
        super().__init__()
        self.event = event

    def emit(self, record: logging.LogRecord) -> None:
        if "idle timeout" in record.getMessage():
            self.event.set()


async def _initialize(client: httpx2.AsyncClient) -> httpx2.Response:
    return await client.post("http://127.0.0.1/mcp", json=INIT, headers={"accept": ACCEPT})


def _in_process(reactor, **options):
    root, state = reactor
    facade = Facade([root], state_dirs={root: state})
    return facade, build_http_app(facade, TOOL_NAMES, Guard.for_bind("127.0.0.1"), **options)


def test_an_idle_session_expires_and_its_id_then_answers_404(reactor):
    facade, app = _in_process(reactor, session_idle_timeout=0.05)
    sdk_log = logging.getLogger("mcp.server.streamable_http_manager")

    async def scenario() -> tuple[int, int]:
        expired = anyio.Event()
        watch = _IdleWatch(expired)
        sdk_log.addHandler(watch)
        old_level = sdk_log.level
        sdk_log.setLevel(logging.INFO)
        try:
            async with app.manager.run():
                transport = httpx2.ASGITransport(app=app)
                async with httpx2.AsyncClient(transport=transport) as client:
                    opened = await _initialize(client)
                    session = opened.headers["mcp-session-id"]
                    with anyio.fail_after(30):
                        await expired.wait()
                    again = await client.post("http://127.0.0.1/mcp", headers={
                        "accept": ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
                        json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
                    return opened.status_code, again.status_code
        finally:
            sdk_log.removeHandler(watch)
            sdk_log.setLevel(old_level)

    try:
        assert anyio.run(scenario) == (200, 404)
        assert not app.manager._server_instances
    finally:
        facade.close()


def test_sessions_beyond_the_limit_are_refused_with_503(reactor):
    facade, app = _in_process(reactor, max_sessions=2)

    async def scenario() -> list[int]:
        async with app.manager.run():
            async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as client:
                return [(await _initialize(client)).status_code for _ in range(3)]

    try:
        assert anyio.run(scenario) == [200, 200, 503]
    finally:
        facade.close()


def _without_time(body: dict) -> dict:
    """A tools/call response with the freshness check's time taken out (two calls differ only there)."""
    result = body["result"]
    structured = dict(result["structuredContent"])
    structured.pop("checked_at", None)
    lines = result["content"][0]["text"].splitlines()     # an error's summary lines, then its JSON
    text = json.loads(lines[-1])
    text.pop("checked_at", None)
    return {**body, "result": {**result, "structuredContent": structured, "content": [*lines[:-1], text]}}


def test_a_tool_call_on_an_open_session_takes_the_fast_path_with_the_sdk_answer(reactor):
    """`FastCalls` answers a plain tools/call itself; the same call with `_meta` (which it leaves to
    the SDK) gets the same response, headers included; the session's idle countdown still runs."""
    facade, app = _in_process(reactor, json_response=True, session_idle_timeout=30)
    calls = [("find_symbol", {"query": "Greeter"}), ("findReferences", {"repo": "reactor", "symbol": "Greeter"}),
             ("status", {}), ("no_such_tool", {}), ("find_references", {"symbolKey": "AAAA"}),
             ("outline", {"path": "core/src/main/java/com/acme/core/Greeter.java"})]

    async def scenario() -> list[tuple[httpx2.Response, httpx2.Response]]:
        async with app.manager.run():
            async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as client:
                opened = await _initialize(client)
                headers = {"accept": ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"],
                           "mcp-protocol-version": "2025-06-18"}
                await client.post("http://127.0.0.1/mcp", headers=headers,
                                  json={"jsonrpc": "2.0", "method": "notifications/initialized"})
                pairs = []
                for i, (name, args) in enumerate(calls):
                    fast = await client.post("http://127.0.0.1/mcp", headers=headers, json={
                        "jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                        "params": {"name": name, "arguments": args}})
                    sdk = await client.post("http://127.0.0.1/mcp", headers=headers, json={
                        "jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                        "params": {"name": name, "arguments": args, "_meta": {}}})
                    pairs.append((fast, sdk))
                transport = app.manager._server_instances[opened.headers["mcp-session-id"]]
                assert transport.idle_scope.deadline < float("inf")    # counting down again
                return pairs

    try:
        pairs = anyio.run(scenario)
        assert app.fast.served == len(calls)
        for (name, _args), (fast, sdk) in zip(calls, pairs, strict=True):
            assert (fast.status_code, fast.headers["content-type"], fast.headers["mcp-session-id"]) == (
                sdk.status_code, sdk.headers["content-type"], sdk.headers["mcp-session-id"]), name
            assert _without_time(fast.json()) == _without_time(sdk.json()), name
    finally:
        facade.close()


def test_what_the_fast_path_does_not_take_goes_to_the_sdk_unchanged(reactor):
    """A batch, a lone surrogate, a stale session id, a missing Accept: the SDK's own answers."""
    facade, app = _in_process(reactor, json_response=True)

    async def scenario() -> list[int]:
        async with app.manager.run():
            async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as client:
                opened = await _initialize(client)
                headers = {"accept": ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"],
                           "mcp-protocol-version": "2025-06-18", "content-type": "application/json"}
                call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "status"}}
                codes = []
                for body, extra in (
                        (json.dumps([call]), {}),
                        ('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status",'
                         '"arguments":{"repo":"\\ud800"}}}', {}),
                        (json.dumps(call), {"mcp-session-id": "not-a-session"}),
                        (json.dumps(call), {"accept": "text/plain"})):
                    r = await client.post("http://127.0.0.1/mcp", headers={**headers, **extra}, content=body)
                    codes.append(r.status_code)
                return codes

    try:
        codes = anyio.run(scenario)
        assert app.fast.served == 0
        assert codes[2:] == [404, 406] and all(c in (200, 400) for c in codes[:2]), codes
    finally:
        facade.close()
