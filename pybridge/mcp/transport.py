"""The MCP transports: stdio and streamable HTTP, around the server of `pybridge.mcp.server`.

stdio. The SDK's own stdio reader parses each line with pydantic's strict JSON
parser, which rejects a lone UTF-16 surrogate escape (`"\\ud800"`); the error
is handed to the dispatcher, which has no request id to answer and drops it,
so the client waited forever. Its writer also fails outright on a reply that
holds a lone surrogate (a file name that is not UTF-8 decodes to one), which
ends the server. pybridge reads and writes the wire itself:
- every line is parsed with Python's `json` (which reads lone surrogates);
  text that is not JSON is answered with a JSON-RPC parse error (-32700,
  `id: null`), a message that is not JSON-RPC with an invalid-request error
  (-32600, with the request's id when it has one), a request whose strings
  hold a lone surrogate with an invalid-params error (-32602) naming the
  field, so every request gets an answer;
- every reply is encoded as UTF-8; a lone surrogate in it becomes U+FFFD.
While serving, fd 0 reads the null device and fd 1 writes to stderr, so
nothing that a child process or a library prints can corrupt the wire.

HTTP. `http://HOST:PORT/mcp` (also `/mcp/`, never a redirect), on the SDK's
StreamableHTTPSessionManager, behind one guard (see `Guard`):
- DNS-rebinding protection (MCP streamable HTTP transport spec): the `Host`
  header must name a loopback address (or a host allowed with
  `--allow-host`), so must an absolute request target
  (`POST http://HOST/mcp`, whose host RFC 9112 §3.2.2 makes the one that
  counts), and an `Origin` header, when present, must be a loopback origin
  (or one allowed with `--allow-origin`); otherwise 403. A request without
  `Origin` (a CLI or SDK client, not a browser) passes. All three are parsed
  strictly (`parse_authority`, `parse_origin`): one that is not exactly
  `host[:port]` or `scheme://host[:port]`, a Host, Origin or Authorization
  header sent twice, or no Host gets 400 (RFC 9112 §3.2).
- an optional bearer token (`--token` or `PYBRIDGE_TOKEN`): a request without
  `Authorization: Bearer TOKEN`, or with another token, gets 401; the
  comparison takes constant time.
- every request gets an answer: a POST body is parsed once, before the fast
  path and the SDK, with the SDK's own parser (`pydantic_core.from_json`,
  which refuses nesting deeper than 200: the SDK then answers -32700 on
  both paths); a request whose id is not an integer or a string gets 400
  with stdio's -32600 (the SDK took it for a notification: 202, no answer),
  and so does a batch (the SDK said -32602).
- sessions are bounded: a session with no request in flight for
  `session_idle_timeout` seconds is closed (its id then answers 404 and the
  client initializes again), and at most `max_sessions` are open (another
  one gets 503).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import ipaddress
import json
import logging
import os
import re
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import unquote, urlsplit

import anyio
import anyio.to_thread
import mcp_types as types
import pydantic_core
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from pybridge import switches
from pybridge.mcp import sdkstate
from pybridge.mcp.gcpace import PACER, freeze_startup
from pybridge.mcp.handshake import MAX_LINE, EarlyWire, claim_wire, read_line, write_all
from pybridge.mcp.httpwire import TargetKeepingProtocol, request_target
from pybridge.mcp.server import answer_now, as_result, build_server, plain_answer_now, result_text

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Receive, Scope, Send

    from pybridge.query import Facade

log = logging.getLogger("pybridge.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
DEFAULT_SESSION_IDLE_TIMEOUT = 1800.0
DEFAULT_MAX_SESSIONS = 1000
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_SURROGATE = re.compile("[\ud800-\udfff]")
BAD_ID = "Invalid Request: \"id\" must be an integer or a string of Unicode text."
BATCH = ("Invalid Request: a JSON array (a JSON-RPC batch) is not served; send one JSON-RPC message per "
         "request.")


# ---------------------------------------------------------------------------------------------------- stdio

def _lone_surrogate(value: Any, where: str = "") -> str | None:
    """The JSON path of the first string (or key) in `value` that holds a lone surrogate, else None.

    Python's json joins a valid surrogate pair into one character, so any
    surrogate code point left in a decoded string is a lone one."""
    if isinstance(value, str):
        return where or "$" if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _SURROGATE.search(key):
                return f"{where}.{_SURROGATE.sub('?', key)}" if where else _SURROGATE.sub("?", key)
            found = _lone_surrogate(item, f"{where}.{key}" if where else key)
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate(item, f"{where}[{index}]")
            if found:
                return found
    return None


def _request_id(message: Any) -> int | str | None:
    """The id to answer a malformed message with: its own when it is a usable JSON-RPC id, else null."""
    if isinstance(message, dict):
        rid = message.get("id")
        if isinstance(rid, str) and not _SURROGATE.search(rid):
            return rid
        if isinstance(rid, int) and not isinstance(rid, bool):
            return rid
    return None


def _error(rid: int | str | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def classify_line(line: bytes) -> tuple[types.JSONRPCMessage | None, dict[str, Any] | None]:
    """One line read from stdio: (the message to serve, None), or (None, the error reply to send), or
    (None, None) for a line to ignore (blank, or a malformed notification or response, which get no
    answer under JSON-RPC)."""
    text = line.decode("utf-8", errors="replace").strip()
    if not text:
        return None, None
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as err:
        return None, _error(None, PARSE_ERROR, f"Parse error: the line is not JSON ({err}). Send one JSON-RPC "
                                               "message per line, encoded as UTF-8.")
    is_request = isinstance(raw, dict) and "method" in raw and "id" in raw
    rid = _request_id(raw)
    if is_request and rid is None:
        return None, _error(None, INVALID_REQUEST, BAD_ID)
    where = _lone_surrogate(raw)
    if where is not None:
        if not is_request:
            log.warning("dropped a notification or response holding a lone surrogate at %s", where)
            return None, None
        return None, _error(rid, INVALID_PARAMS, f"Invalid params: the string at {where} holds a lone UTF-16 "
                                                 "surrogate escape (\\ud800-\\udfff), which is not Unicode text. "
                                                 "Send valid Unicode (a surrogate pair or the UTF-8 character).")
    try:
        message = types.jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except (ValueError, RecursionError) as err:
        if isinstance(raw, dict) and "method" in raw and "id" not in raw:
            log.warning("dropped a malformed notification: %s", str(err).splitlines()[0])
            return None, None
        if isinstance(raw, dict) and "method" not in raw and ("result" in raw or "error" in raw):
            log.warning("dropped a malformed response: %s", str(err).splitlines()[0])
            return None, None
        return None, _error(rid, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message (expected an "
                                                  "object with \"jsonrpc\": \"2.0\", a string \"method\", an "
                                                  "integer or string \"id\" and object \"params\"). "
                                                  f"{str(err).splitlines()[0]}")
    return message, None


def encode_reply(message: types.JSONRPCMessage | dict[str, Any]) -> bytes:
    """One wire line; a lone surrogate anywhere in the reply becomes U+FFFD instead of failing the writer."""
    if isinstance(message, dict):
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    else:
        try:
            return (message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode("utf-8")
        except ValueError:  # pydantic's "surrogates not allowed"
            text = json.dumps(message.model_dump(mode="json", by_alias=True, exclude_unset=True),
                              ensure_ascii=False, separators=(",", ":"))
    return (_SURROGATE.sub("\ufffd", text) + "\n").encode("utf-8")


@contextlib.contextmanager
def _claim_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """The wire on private descriptors (`handshake.claim_wire`); fds 0 and 1 are put back afterwards."""
    wire_in, wire_out, put_back = claim_wire(restore=True)
    try:
        with wire_in as rin, wire_out as rout:
            yield rin, rout
    finally:
        put_back()


async def run_stdio(facade: Facade, names: Sequence[str], *, stdin: BinaryIO | None = None,
                    stdout: BinaryIO | None = None, early: EarlyWire | None = None) -> None:
    """Serve MCP over stdin/stdout (newline-delimited JSON-RPC) until stdin closes; on the wire that
    `pybridge.mcp.handshake` claimed when `early` is given (its first line comes from there)."""
    server = build_server(facade, names)
    fast = StdioFastCalls(facade, set(names))
    if early is not None:
        stdin, stdout = early.stdin, early.stdout
    PACER.start()
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(PACER.run)
            with contextlib.ExitStack() as stack:
                if stdin is None or stdout is None:
                    stdin, stdout = stack.enter_context(_claim_stdio())
                await _serve_stdio(server, stdin, stdout, early, fast)
            tg.cancel_scope.cancel()
    finally:
        PACER.stop()


async def _serve_stdio(server: Server[Any], stdin: BinaryIO, stdout: BinaryIO, early: EarlyWire | None,
                       fast: StdioFastCalls) -> None:
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    write_lock = anyio.Lock()

    async def put(line: bytes) -> None:
        async with write_lock:
            await anyio.to_thread.run_sync(write_all, stdout, line)

    async def read_loop() -> None:
        first = early      # its first line, answered already when it was an initialize: see handshake
        async with read_send:
            while True:
                if first is not None:
                    line = await anyio.to_thread.run_sync(first.first_line, abandon_on_cancel=True)
                    first = None
                else:
                    line = await anyio.to_thread.run_sync(read_line, stdin, abandon_on_cancel=True)
                if not line:
                    return
                too_long = len(line) > MAX_LINE
                if too_long:
                    await put(encode_reply(_error(None, INVALID_REQUEST, f"Invalid Request: a message is longer "
                                                                          f"than {MAX_LINE} bytes; it was "
                                                                          "skipped.")))
                    continue
                message, reply = classify_line(line)
                if reply is not None:
                    await put(encode_reply(reply))
                if message is not None:
                    answered = await fast.answer(message)
                    if answered is not None:
                        await put(answered)
                        continue
                    fast.forwarded(message)
                    await read_send.send(SessionMessage(message))

    async def write_loop() -> None:
        async with write_recv:
            async for session_message in write_recv:
                line = encode_reply(session_message.message)
                if not (early is not None and early.answered is not None and early.settle(json.loads(line))):
                    await put(line)    # (else the SDK's answer to the initialize answered early: dropped)
                fast.replied(session_message.message)

    async with anyio.create_task_group() as tg:
        tg.start_soon(read_loop)
        tg.start_soon(write_loop)
        await server.run(read_recv, write_send, server.create_initialization_options())
        tg.cancel_scope.cancel()


class StdioFastCalls:
    """`tools/call` over stdio answered without the SDK's per-request machinery.

    The SDK serves a call through a dispatcher task, a middleware chain, validation of the params
    against the protocol's surface, and the result dumped, validated and dumped again for the
    protocol version, then once more as the JSON-RPC response: for a 30 KB find_references page
    that was about as much CPU as reading the page from the store (bench/RESULTS.md, "A flat
    p99"). Here a request that is exactly a `tools/call` (params `name` and `arguments`, no
    `_meta`: no progress token), on a session whose `initialize` the SDK accepted (its answer,
    written through this transport, names the protocol version), while no request handed to the SDK
    awaits its answer (answers keep the order of the requests), and that can answer without
    blocking (`plain_answer_now`), is answered by the transport with the bytes the SDK would
    write: the text content as the SDK's `as_result` makes it, and the structured content
    serialized once, by the SDK's own serializer (`pydantic_core.to_json`). Anything else (another
    method, a sync, a wait for the live index, an answer holding a lone surrogate) goes to the SDK
    as before. Only with the pinned SDK (`sdkstate.PINNED_SDK`), and for a protocol version whose
    shape `sdkstate.shaped_result` confirms on two probes when the version is accepted;
    tests/mcp/test_mcp.py compares the wire bytes of both paths. `PYBRIDGE_STDIO_FAST=0` turns it off.
    """

    INIT_WAIT = 10.0
    """Seconds a call sent before the SDK answered `initialize` waits for that answer (then: the SDK)."""

    def __init__(self, facade: Facade, known: set[str]) -> None:
        self.facade = facade
        self.known = known
        self.on = os.environ.get("PYBRIDGE_STDIO_FAST", "1") != "0" and sdkstate.installed_sdk() == sdkstate.PINNED_SDK
        self.version: str | None = None          # the protocol version of the SDK's answer to initialize
        self._init_id: int | str | None = None
        self._init_answered: anyio.Event | None = None
        self._in_sdk: set[int | str] = set()    # requests handed to the SDK and not answered yet
        self.served = 0

    def forwarded(self, message: types.JSONRPCMessage) -> None:
        """A message handed to the SDK: an `initialize` holds the fast path until the SDK answers it;
        a request keeps it off until answered (or cancelled), so answers keep the requests' order."""
        if isinstance(message, types.JSONRPCRequest):
            self._in_sdk.add(message.id)
            if message.method == "initialize":
                self.version = None
                self._init_id = message.id
                self._init_answered = anyio.Event()
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled" \
                and isinstance(message.params, dict):
            self._in_sdk.discard(message.params.get("requestId"))   # the SDK answers a cancelled request not

    def replied(self, message: types.JSONRPCMessage) -> None:
        """A message the SDK wrote: its answer to `initialize` opens the fast path for that version."""
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
            self._in_sdk.discard(message.id)
        if self._init_answered is None or not isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) \
                or message.id != self._init_id:
            return
        if isinstance(message, types.JSONRPCResponse):
            version = message.result.get("protocolVersion")
            if isinstance(version, str) and version in HANDSHAKE_PROTOCOL_VERSIONS and shapes_like_sdk(version):
                self.version = version
        self._init_answered.set()
        self._init_answered, self._init_id = None, None

    async def answer(self, message: types.JSONRPCMessage) -> bytes | None:
        """The wire line answering `message`, or None to hand it to the SDK."""
        if not self.on or not isinstance(message, types.JSONRPCRequest) or message.method != "tools/call":
            return None
        pending = self._init_answered
        if pending is not None:
            with anyio.move_on_after(self.INIT_WAIT):
                await pending.wait()
        params, version = message.params, self.version
        if version is None or self._in_sdk or not isinstance(params, dict) or not set(params) <= {"name", "arguments"}:
            return None
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (arguments is None or isinstance(arguments, dict)):
            return None
        with PACER.call():
            answer = plain_answer_now(self.facade, self.known, name, arguments if arguments is not None else {})
        if answer is None:
            return None
        self.served += 1
        line = call_result_line(message.id, *answer, tool=name)
        if line is None:      # a lone surrogate in the answer (a file name that is not UTF-8): the SDK's way
            shaped = sdkstate.shaped_result(version, as_result(*answer).model_dump(by_alias=True, mode="json",
                                                                                   exclude_none=True))
            line = encode_reply(types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result=shaped))
        return line


FLOATLESS_TOOLS = frozenset({"find_references"})
"""Tools whose answers hold strings, integers, booleans and nulls only (no float: their result models
name none, tests/mcp/test_mcp.py checks the schemas). For such an answer the structured content's
bytes (`pydantic_core.to_json`) are the text content's compact JSON (`result_text`, `json.dumps`):
the same escapes, key order and integers; only floats are written otherwise (`1e-07` against `1e-7`)."""


def text_from_structured() -> bool:
    return switches.enabled("PYBRIDGE_TEXT_FROM_STRUCTURED", "serialize every answer's text content with "
                                                              "json.dumps, apart from its structured content")


def call_result_line(rid: int | str, result: dict[str, Any], is_error: bool, tool: str | None = None) -> bytes | None:
    """The JSON-RPC response line of a tools/call result as the pinned SDK writes it for every handshake
    protocol version (`shapes_like_sdk`), or None when the result cannot be serialized so (a lone
    surrogate). An answer of a `FLOATLESS_TOOLS` tool is serialized once: its text content is its
    structured content's JSON (PYBRIDGE_TEXT_FROM_STRUCTURED; json.dumps took three times the CPU of
    pydantic_core.to_json on a 30 KB find_references page)."""
    try:
        structured = pydantic_core.to_json(result)
        if not is_error and tool in FLOATLESS_TOOLS and text_from_structured():
            text = pydantic_core.to_json(structured.decode())
        else:
            text = pydantic_core.to_json(result_text(result, is_error))
        ident = pydantic_core.to_json(rid)
    except ValueError:
        return None
    return b"".join((b'{"jsonrpc":"2.0","id":', ident, b',"result":{"content":[{"text":', text,
                     b',"type":"text"}],"isError":', b"true" if is_error else b"false", b',"structuredContent":',
                     structured, b"}}\n"))


_PROBES: tuple[tuple[int | str, dict[str, Any], bool], ...] = (
    (7, {"a": 1, "b": None, "c": [1.5, -2, "\u00e9\u2028\x1f\"\\"], "d": {"x": True, "y": []}}, False),
    ("s", {"error": "No such symbol.", "code": "not_found", "candidates": [], "replacement": None}, True),
)


@functools.lru_cache(maxsize=8)
def shapes_like_sdk(version: str) -> bool:
    """Whether `call_result_line` writes, for this protocol version, what the SDK's own shaping
    (`sdkstate.shaped_result`, then the JSON-RPC response as `encode_reply` writes it) writes."""
    try:
        for rid, result, is_error in _PROBES:
            dumped = as_result(result, is_error).model_dump(by_alias=True, mode="json", exclude_none=True)
            sdk = encode_reply(types.JSONRPCResponse(jsonrpc="2.0", id=rid,
                                                     result=sdkstate.shaped_result(version, dumped)))
            if call_result_line(rid, result, is_error) != sdk:
                log.warning("the stdio fast path is off for protocol %s: the SDK shapes a result otherwise", version)
                return False
    except Exception:
        log.warning("the stdio fast path is off for protocol %s: the SDK refused the probe", version,
                    exc_info=True)
        return False
    return True


# ----------------------------------------------------------------------------------------------------- HTTP

def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Authority:
    """The `host[:port]` of a Host header, an Origin or an absolute request target."""

    host: str  # lower case; an IPv6 address compressed, in brackets
    port: int | None

    def __str__(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"


_AUTHORITY = re.compile(r"(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+))(?::([0-9]{1,5}))?")
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")
_ORIGIN = re.compile(r"([a-z][a-z0-9+.-]*)://([^/?#]*)")
_ABSOLUTE = re.compile(r"([a-z][a-z0-9+.-]*)://([^/?#]*)([/?#].*)?", re.IGNORECASE | re.DOTALL)
_OWS = " \t"


@functools.lru_cache(maxsize=256)
def parse_authority(value: str) -> Authority | None:
    """`value` as `host[:port]`, or None when it is anything else.

    Strict (RFC 3986 §3.2.2-3 without userinfo, as RFC 9110 §7.2 has it for Host): the host is a DNS
    name (dot-separated labels of letters, digits, `-` and `_`, a final dot allowed; IPv4 addresses
    are such names) or an IPv6 address in brackets (no zone); the port is 1 to 5 digits, at most
    65535. `127.0.0.1:80@evil.example`, `localhost:8765.evil.example`, `[::1]evil.example`,
    `localhost:abc`, `localhost:` and any space or non-ASCII character all give None."""
    if not value.isascii():
        return None
    match = _AUTHORITY.fullmatch(value.lower())
    if match is None:
        return None
    v6, name, port = match.groups()
    if port is not None and int(port) > 65535:
        return None
    if v6 is not None:
        try:
            host = f"[{ipaddress.IPv6Address(v6).compressed}]"
        except ValueError:
            return None
    else:
        labels = (name[:-1] if name.endswith(".") else name).split(".")
        if len(name) > 254 or not all(_LABEL.fullmatch(label) for label in labels):
            return None
        host = name
    return Authority(host, None if port is None else int(port))


def parse_origin(value: str) -> str | None:
    """An Origin header's value spelled one way (`scheme://host[:port]` in lower case, or `null`), or None
    when it is not a serialized origin (RFC 6454 §7: no path, no trailing slash, no userinfo)."""
    if value == "null":
        return value
    match = _ORIGIN.fullmatch(value.lower()) if value.isascii() else None
    authority = parse_authority(match[2]) if match else None
    return None if match is None or authority is None else f"{match[1]}://{authority}"


def _allowed_host(name: str) -> str:
    """A bind address or `--allow-host NAME` as the guard compares it with a Host header's host."""
    name = name.strip().lower()
    with contextlib.suppress(ValueError):
        name = f"[{ipaddress.IPv6Address(name).compressed}]"  # a bare IPv6 address
    authority = parse_authority(name)
    return authority.host if authority is not None and authority.port is None else name


@dataclass(frozen=True)
class RequestHeaders:
    """A request's headers, collected once: each name's first value (names in lower case; the first is the
    value starlette's `Headers.get`, and so the SDK, reads) and the names that came more than once."""

    first: dict[str, str]
    repeated: frozenset[str]

    @classmethod
    def of(cls, raw: Iterable[tuple[bytes, bytes]]) -> RequestHeaders:
        first: dict[str, str] = {}
        repeated: set[str] = set()
        for key, value in raw:
            name = key.decode("latin-1").lower()
            if name in first:
                repeated.add(name)
            else:
                first[name] = value.decode("latin-1")
        return cls(first, frozenset(repeated))

    def get(self, name: str) -> str | None:
        return self.first.get(name)


@dataclass(frozen=True)
class Refusal:
    """How the guard refuses a request: the HTTP status and the message of the JSON-RPC error body."""

    status: int
    message: str
    headers: tuple[tuple[bytes, bytes], ...] = ()


GUARDED_HEADERS = ("host", "origin", "authorization")  # the guard reads one value of each; two are refused
_USE = "Use http://127.0.0.1:PORT/mcp"


@dataclass
class Guard:
    """What the HTTP transport lets through: Host, Origin, the request target's authority and the bearer
    token (see the module docstring)."""

    allowed_hosts: set[str] = field(default_factory=set)  # hosts as `parse_authority` spells them, no port
    allowed_origins: set[str] = field(default_factory=set)  # origins as `parse_origin` spells them, exact
    token: str | None = None

    @classmethod
    def for_bind(cls, host: str, allow_hosts: Iterable[str] = (), allow_origins: Iterable[str] = (),
                 token: str | None = None) -> Guard:
        hosts = set(LOOPBACK_NAMES) | {_allowed_host(h) for h in allow_hosts}
        bind = host.lower()
        if bind not in ("0.0.0.0", "::", "[::]", ""):
            hosts.add(_allowed_host(bind))
        origins = {o.strip().rstrip("/") for o in allow_origins}
        return cls(hosts, {parse_origin(o) or o.lower() for o in origins}, token or None)

    def admit(self, headers: RequestHeaders, target: str) -> Refusal | None:
        """None when the request may go on, else its refusal: 400 for what no well-formed request holds
        (a repeated Host, Origin or Authorization header, no Host, a Host, Origin or absolute request
        target that does not parse), 403 for a host or origin not allowed (DNS-rebinding protection),
        401 for a missing or wrong token."""
        for name in GUARDED_HEADERS:
            if name in headers.repeated:
                return Refusal(400, f"Bad Request: the request has more than one {name.title()} header (RFC 9112 "
                                    "§3.2 answers 400 to a repeated Host; this server reads one value of each "
                                    "header it checks). Send it once.")
        host = headers.get("host")
        if host is None:
            return Refusal(400, f"Bad Request: the request has no Host header, which this server checks "
                                f"(DNS-rebinding protection). {_USE}.")
        authority = parse_authority(host.strip(_OWS))
        if authority is None:
            return Refusal(400, f"Bad Request: Host {host!r} is not host[:port] (a DNS name, an IPv4 address or "
                                f"an IPv6 address in brackets, then at most ':' and a port of digits). {_USE}.")
        if authority.host not in self.allowed_hosts:
            return Refusal(403, f"Forbidden: Host {host!r} is not a loopback address this server answers to "
                                f"(DNS-rebinding protection). {_USE}, or start the server with --allow-host NAME.")
        if not target.startswith("/") and target != "*":
            # absolute-form (RFC 9112 §3.2.2): its authority, not Host, names the host, so it is checked too
            match = _ABSOLUTE.fullmatch(target)
            named = parse_authority(match[2]) if match and match[1].lower() in ("http", "https") else None
            if named is None:
                return Refusal(400, f"Bad Request: the request target {target[:200]!r} is neither a path nor an "
                                    f"http URI naming host[:port]. {_USE}.")
            if named.host not in self.allowed_hosts:
                return Refusal(403, f"Forbidden: the request target names {str(named)!r}, not a loopback address "
                                    f"this server answers to (DNS-rebinding protection). {_USE}.")
        origin = headers.get("origin")
        if origin is not None:
            spelled = parse_origin(origin.strip(_OWS))
            if spelled is None:
                return Refusal(400, f"Bad Request: Origin {origin!r} is not a serialized origin (scheme://host"
                                    "[:port] or null, RFC 6454; no path, no user name).")
            if not self._origin_allowed(spelled):
                return Refusal(403, f"Forbidden: Origin {origin!r} is not allowed (DNS-rebinding protection). "
                                    "Start the server with --allow-origin ORIGIN to allow it.")
        if not self.token_ok(headers.get("authorization")):
            return Refusal(401, "Unauthorized: this server needs the header 'Authorization: Bearer TOKEN' with "
                                "the token it was started with (--token or PYBRIDGE_TOKEN).",
                           ((b"www-authenticate", b'Bearer realm="pybridge"'),))
        return None

    def host_ok(self, value: str | None) -> bool:
        authority = parse_authority(value.strip(_OWS)) if value else None
        return authority is not None and authority.host in self.allowed_hosts

    def origin_ok(self, value: str | None) -> bool:
        if value is None:
            return True  # not a browser: DNS rebinding needs one
        spelled = parse_origin(value.strip(_OWS))
        return spelled is not None and self._origin_allowed(spelled)

    def _origin_allowed(self, spelled: str) -> bool:
        if spelled in self.allowed_origins:
            return True
        scheme, _, rest = spelled.partition("://")
        authority = parse_authority(rest) if scheme in ("http", "https") else None
        return authority is not None and authority.host in LOOPBACK_NAMES

    def token_ok(self, authorization: str | None) -> bool:
        if self.token is None:
            return True
        scheme, _, given = (authorization or "").partition(" ")
        # compare_digest takes time independent of where the strings differ; on bytes, so any text is fine.
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), self.token.encode())

    def describe(self) -> str:
        hosts = ", ".join(sorted(self.allowed_hosts))
        origins = ", ".join(["http(s)://localhost|127.0.0.1|[::1] on any port", *sorted(self.allowed_origins)])
        auth = "a bearer token is required" if self.token else "no token (any local process may call the tools)"
        return f"allowed Host: {hosts}; allowed Origin: {origins} (or none); {auth}"


def invalid_request(raw: Any) -> str | None:
    """Why a parsed POST body must be answered -32600 Invalid Request before the SDK sees it, else None.

    The SDK's handshake-era transport validates a body against its message union, in which a request
    whose id is not an integer or a string (1.5, null, true, an object) passes as a notification: it
    answers 202 and the client waits for that id forever. Such a request (it has a method and an id)
    gets stdio's answer. A batch (a JSON array, which the SDK answers -32602) gets -32600 too."""
    if isinstance(raw, list):
        return BATCH
    if isinstance(raw, dict) and "method" in raw and "id" in raw and _request_id(raw) is None:
        return BAD_ID
    return None


def _sdk_parses(scope: Scope, headers: RequestHeaders, json_response: bool) -> bool:
    """Whether the SDK's handshake-era transport would parse this request's body: a POST with a protocol
    version header it serves (or none), an Accept it takes and a JSON Content-Type (its own checks, in its
    order: a request it refuses before parsing keeps that answer). Another version goes to the SDK's
    modern entry, which answers a batch or a malformed id -32600 itself."""
    if scope["method"] != "POST":
        return False
    version = headers.get("mcp-protocol-version")
    if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return False
    # the SDK's check_accept_headers and _check_content_type, on the headers already collected
    accepted = {part.split(";")[0].strip().lower() for part in (headers.get("accept") or "").split(",")}
    has_json = bool(accepted & {"*/*", "application/json", "application/*"})
    has_sse = bool(accepted & {"*/*", "text/event-stream", "text/*"})
    if not has_json or not (json_response or has_sse):
        return False
    media = (headers.get("content-type") or "").split(";")[0]
    return any(part.strip() == "application/json" for part in media.split(","))


def _plain(status: int, message: str,
           extra: Sequence[tuple[bytes, bytes]] = ()) -> Callable[[Send], Awaitable[None]]:
    body = json.dumps(_error(None, INVALID_REQUEST, message)).encode()

    async def respond(send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    return respond


def build_http_app(facade: Facade, names: Sequence[str], guard: Guard, *,
                   session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
                   max_sessions: int | None = DEFAULT_MAX_SESSIONS, stateless: bool = False,
                   json_response: bool = False) -> ASGIApp:
    """The ASGI app: the guard, then `/mcp` (and `/mcp/`) on the SDK's session manager; 404 elsewhere.

    A POST body the SDK would parse is read and parsed here first, with the SDK's own parser
    (`pydantic_core.from_json`, so what it refuses, deep nesting included, the SDK answers alike):
    a batch or a request with an id that is not an integer or a string is answered 400 -32600 here
    (`invalid_request`); a plain tools/call may take the fast path (`FastCalls`); anything else goes
    to the SDK with the body replayed."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    server = build_server(facade, names)
    manager = StreamableHTTPSessionManager(
        app=server, stateless=stateless, json_response=json_response, max_request_body_size=MAX_LINE,
        session_idle_timeout=None if stateless else session_idle_timeout,
        max_sessions=None if stateless else max_sessions)

    fast = FastCalls(manager, facade, set(names)) if json_response and not stateless and FastCalls.usable(manager) \
        else None

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(manager, receive, send)
            return
        if scope["type"] != "http":
            return
        headers = RequestHeaders.of(scope["headers"])
        target = request_target(scope)
        refusal = guard.admit(headers, target)
        if refusal is not None:
            await _plain(refusal.status, refusal.message, refusal.headers)(send)
            return
        absolute = _ABSOLUTE.fullmatch(target)
        path = unquote(urlsplit(target).path) if absolute else scope["path"]
        if path not in ("/mcp", "/mcp/"):
            await _plain(404, f"Not found: the MCP endpoint is /mcp, not {path}.")(send)
            return
        if _sdk_parses(scope, headers, json_response) and not _too_long(headers):
            body, receive = await _read_body(receive)
            if body is not None:
                try:
                    raw = pydantic_core.from_json(body)
                except ValueError:          # the SDK answers it (-32700, its message)
                    pass
                else:
                    invalid = invalid_request(raw)
                    if invalid is not None:
                        await _plain(400, invalid)(send)
                        return
                    if fast is not None and await fast.serve(scope, send, headers, raw):
                        return
        await manager.handle_request(scope, receive, send)

    app.manager = manager  # type: ignore[attr-defined]  # for tests and the bench: the live session count
    app.fast = fast  # type: ignore[attr-defined]  # for tests: how many calls took the fast path
    return app


def _too_long(headers: RequestHeaders) -> bool:
    """A Content-Length above the body limit: the SDK answers 413 without this app reading the body."""
    length = headers.get("content-length")
    return length is not None and length.strip().isdigit() and int(length) > MAX_LINE


async def _read_body(receive: Receive) -> tuple[bytes | None, Receive]:
    """The whole body (None when it is longer than MAX_LINE or the client went away), and a `receive`
    that replays what was read for the SDK."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None, _replay(b"".join(chunks), message, receive)
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        more = message.get("more_body", False)
        if size > MAX_LINE:
            return None, _replay(b"".join(chunks), None, receive, more)
    body = b"".join(chunks)
    return body, _replay(body, None, receive)


class FastCalls:
    """`tools/call` on an open session, answered without the SDK's per-request machinery.

    In JSON-answer mode a call the SDK serves goes through a Request object, pydantic validation
    of the message, two memory streams, a task in the session's dispatcher and a router back;
    under 50 clients that was about as much CPU as the query itself. A POST that is exactly one
    well-formed `tools/call` request on an open, initialized session of this server, without
    `_meta` (no progress token), with an `MCP-Protocol-Version` header the session manager serves
    itself (the answer is shaped for that version by the SDK's own `serialize_server_result`), and
    that can answer without blocking (`answer_now`), is answered here with the same JSON-RPC
    response (`model_dump_json(by_alias=True, exclude_unset=True)` of the same CallToolResult)
    and the same headers. The app parsed the body with the SDK's own parser, so what the SDK
    cannot parse (nesting deeper than it allows, a lone surrogate escape) never gets here. The
    session's idle countdown restarts as the SDK's would. The SDK's private state it needs is read
    in `pybridge.mcp.sdkstate` alone, and only from the pinned SDK version. Anything else (another
    method, a sync, a wait for the live index, a stale session) goes to the SDK with the body
    replayed, so its answers and errors are unchanged. `PYBRIDGE_HTTP_FAST=0` turns this off.
    """

    def __init__(self, manager: StreamableHTTPSessionManager, facade: Facade, known: set[str]) -> None:
        self.manager = manager
        self.facade = facade
        self.known = known
        self.served = 0

    @staticmethod
    def usable(manager: StreamableHTTPSessionManager) -> bool:
        """Whether the fast path is on and this SDK is the one whose state it reads (`sdkstate`)."""
        return os.environ.get("PYBRIDGE_HTTP_FAST", "1") != "0" and sdkstate.supported(manager)

    async def serve(self, scope: Scope, send: Send, headers: RequestHeaders, raw: Any) -> bool:
        """Answer the request whose body parsed to `raw` (True), or leave it to the SDK (False)."""
        if scope["method"] != "POST" or scope.get("user") is not None:
            return False
        version = headers.get("mcp-protocol-version")
        if version is None or version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return False          # the version the answer is shaped for must be the session's
        sid = headers.get("mcp-session-id") or ""
        session = sdkstate.open_session(self.manager, sid)
        if session is None:
            return False
        media = (headers.get("content-type") or "").split(";")[0].strip().lower()
        if media != "application/json" or "application/json" not in (headers.get("accept") or "").lower():
            return False
        answer = self._answer(raw, version)
        if answer is None:
            return False
        payload = answer.encode("utf-8")
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
            (b"mcp-session-id", sid.encode("latin-1"))]})
        await send({"type": "http.response.body", "body": payload})
        session.restart_idle_countdown()
        self.served += 1
        return True

    def _answer(self, raw: Any, version: str) -> str | None:
        if not (isinstance(raw, dict) and raw.get("jsonrpc") == "2.0" and raw.get("method") == "tools/call"
                and set(raw) <= {"jsonrpc", "id", "method", "params"}):
            return None
        rid, params = raw.get("id"), raw.get("params")
        if not (isinstance(rid, (int, str)) and not isinstance(rid, bool)) or not isinstance(params, dict):
            return None
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not set(params) <= {"name", "arguments"} \
                or not (arguments is None or isinstance(arguments, dict)):
            return None
        result = answer_now(self.facade, self.known, name, arguments if arguments is not None else {})
        if result is None:
            return None
        # shaped for the session's protocol version exactly as the SDK's runner shapes it
        shaped = sdkstate.shaped_result(version, result.model_dump(by_alias=True, mode="json", exclude_none=True))
        response = types.JSONRPCResponse(jsonrpc="2.0", id=rid, result=shaped)
        try:
            return response.model_dump_json(by_alias=True, exclude_unset=True)
        except ValueError:      # a lone surrogate in the answer (a file name that is not UTF-8): the SDK's way
            return None


def _replay(body: bytes, pending: Any, receive: Receive, more: bool = False) -> Receive:
    """A `receive` that first gives back what was read (the body, then a non-request message)."""
    queue: list[Any] = [{"type": "http.request", "body": body, "more_body": more}]
    if pending is not None:
        queue.append(pending)

    async def replay() -> Any:
        if queue:
            return queue.pop(0)
        return await receive()
    return replay


async def _lifespan(manager: StreamableHTTPSessionManager, receive: Receive, send: Send) -> None:
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with manager.run():
        await send({"type": "lifespan.startup.complete"})
        message = await receive()
    await send({"type": "lifespan.shutdown.complete"})


def mcp_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/mcp"


def run_http(facade: Facade, names: Sequence[str], host: str, port: int, guard: Guard | None = None, *,
             session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
             max_sessions: int | None = DEFAULT_MAX_SESSIONS, stateless: bool = False,
             json_response: bool = False) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp until interrupted; prints the URL once it listens."""
    import uvicorn

    guard = guard or Guard.for_bind(host)
    app = build_http_app(facade, names, guard, session_idle_timeout=session_idle_timeout,
                         max_sessions=max_sessions, stateless=stateless, json_response=json_response)
    freeze_startup()      # no pacing under HTTP: see pybridge.mcp.gcpace
    # httptools (a dependency), keeping the request target for the guard (see pybridge.mcp.httpwire)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=2, http=TargetKeepingProtocol)
    server = uvicorn.Server(config)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                if server.should_exit:
                    return
                await anyio.sleep(0.01)
            bound = port
            for srv in getattr(server, "servers", []):
                for sock in srv.sockets:
                    bound = sock.getsockname()[1]
            print(f"pybridge MCP server running on {mcp_url(host, bound)} ({guard.describe()})",
                  file=sys.stderr, flush=True)

    anyio.run(main, backend_options={"use_uvloop": _has_uvloop()})


def _has_uvloop() -> bool:
    """uvloop's event loop serves HTTP with less CPU per request; a dependency where it builds
    (not on Windows), plain asyncio otherwise. HTTP is parsed by httptools (a dependency
    everywhere) through `TargetKeepingProtocol`."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return os.environ.get("PYBRIDGE_UVLOOP", "1") != "0"
