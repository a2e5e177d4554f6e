"""`pybridge serve` answers MCP's `initialize` before Python has imported the server.

Importing the server costs about 2 s of CPU (`python -X importtime`: the MCP SDK about 0.9 s, the
query layer with its pydantic models about 1.2 s), and hosts give a server a few seconds to
answer `initialize` (issue 25 asks for 1 s). So `pybridge serve` over stdio does this first, from
`pybridge.cli` before that imports anything else (`start_if_serving`):

- it claims the wire for good: the JSON-RPC streams move to private descriptors, fd 0 reads the
  null device and fd 1 writes to stderr (as `pybridge.mcp.transport` does while serving);
- a thread reads the first line and, when it is a well-formed `initialize` request, answers it at
  once with what the SDK's server answers (`initialize_result`: the same protocol-version
  negotiation, capabilities, serverInfo and instructions) while the main thread goes on importing;
- the transport takes the wire and that line (`take`, then `EarlyWire.first_line`) and hands the
  line to the SDK's server as if it had just read it. The SDK so enters its initialized state
  through its own handshake (nothing of its state is touched), and the transport drops the SDK's
  own answer (`EarlyWire.settle`) after comparing it with the one sent: a difference is logged as a
  warning. tests/mcp/test_handshake.py compares the two, field by field, for every protocol version.

A first line that is anything else (not JSON, not `initialize`, params the SDK would refuse) is
left to the SDK's server, which answers it as before. Only the standard library is imported here
(a test checks that importing this module loads neither pydantic nor the MCP SDK); the protocol
versions are the SDK's (`mcp_types.version`), copied, and a test fails when the pinned SDK's differ.
`PYBRIDGE_EARLY_INITIALIZE=0` turns the early answer off (the SDK then answers once imported).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from pybridge import __version__
from pybridge.conventions import CONVENTIONS

log = logging.getLogger("pybridge.mcp")

INSTRUCTIONS = (
    "pybridge answers questions about Java code with the compiler's exact facts. Start with status; "
    "if it says the workspace is not synced or stale, call sync. Then discover a symbol (find_symbol "
    "or symbol_at) and pass its symbolKey to find_references, or ask the name tools (findReferences, "
    "goToDefinition, callHierarchy, get_callers) directly. referenceCoverage=true proves that no "
    "reference is missing. For the shape of the code, pass a symbolKey to type_hierarchy, "
    "find_implementations, call_graph or describe, and a file to outline or diagnostics.\n"
    + CONVENTIONS
)
"""The server's instructions: the workflow, then what every tool shares (said once here, not in
each tool's description)."""

SERVER_NAME = "pybridge"
HANDSHAKE_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the pinned SDK (mcp 2.3.0) negotiates in `initialize`
(`mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS`); any other is answered with the latest."""
LATEST_HANDSHAKE_VERSION = "2025-11-25"
CAPABILITIES: dict[str, Any] = {"tools": {"listChanged": False}}
"""What the SDK's `Server.get_capabilities()` says for a server with a tools handler only."""

MAX_LINE = 4 * 1024 * 1024  # bytes; the HTTP transport's body limit is the same
_REQUEST_KEYS = {"jsonrpc", "id", "method", "params"}


def read_line(stream: BinaryIO) -> bytes:
    """One line (b"" at end of input). A line longer than MAX_LINE is returned cut to MAX_LINE + 1 bytes
    (so the caller can tell) and the rest of it is skipped."""
    line = stream.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE and not line.endswith(b"\n"):
        while True:
            rest = stream.readline(65536)
            if not rest or rest.endswith(b"\n"):
                break
    return line


def write_all(stream: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = stream.write(view)
        view = view[written or 0:]
    stream.flush()


def initialize_result(protocol_version: str) -> dict[str, Any]:
    """The `initialize` result the SDK's server gives a client that asks for `protocol_version`."""
    negotiated = protocol_version if protocol_version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    return {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS, "protocolVersion": negotiated,
            "serverInfo": {"name": SERVER_NAME, "version": __version__}}


def early_reply(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC reply to `line` when it is an `initialize` request the SDK would accept, else None
    (the SDK then answers it). Accepted: one JSON object of exactly jsonrpc "2.0", an integer or
    string id, method "initialize" and params with a string protocolVersion, an object
    capabilities whose values are objects, and a clientInfo object of strings with a name and a
    version (icons, which the SDK checks further, leave it to the SDK); all of it valid Unicode (no
    lone surrogate)."""
    if len(line) > MAX_LINE:
        return None
    try:
        raw = json.loads(line.decode("utf-8"))
        json.dumps(raw, ensure_ascii=False).encode("utf-8")     # a lone surrogate anywhere fails here
    except (ValueError, RecursionError):
        return None
    if not (isinstance(raw, dict) and set(raw) == _REQUEST_KEYS and raw["jsonrpc"] == "2.0"
            and raw["method"] == "initialize"):
        return None
    rid, params = raw["id"], raw["params"]
    if isinstance(rid, bool) or not isinstance(rid, int | str) or not isinstance(params, dict):
        return None
    version, capabilities, client = params.get("protocolVersion"), params.get("capabilities"), params.get("clientInfo")
    if not (isinstance(version, str) and isinstance(capabilities, dict)
            and all(isinstance(v, dict) for v in capabilities.values())
            and isinstance(client, dict) and {"name", "version"} <= set(client)
            and all(isinstance(v, str) for v in client.values())):
        return None
    return {"jsonrpc": "2.0", "id": rid, "result": initialize_result(version)}


def encode(reply: dict[str, Any]) -> bytes:
    return (json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


class EarlyWire:
    """The claimed stdio wire, its first line and the early answer to it (see the module doc)."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.stdin, self.stdout = stdin, stdout
        self.answered: dict[str, Any] | None = None     # the reply sent, until the SDK's is dropped
        self._line = b""
        self._read = threading.Event()
        self._thread = threading.Thread(target=self._answer_first_line, name="pybridge-early-initialize",
                                        daemon=True)

    def start(self) -> EarlyWire:
        self._thread.start()
        return self

    def _answer_first_line(self) -> None:
        try:
            self._line = read_line(self.stdin)
            reply = early_reply(self._line)
            if reply is not None:
                write_all(self.stdout, encode(reply))
                self.answered = reply
        except Exception:       # the SDK's server answers the line instead
            log.warning("the early initialize answer failed; the server answers once started", exc_info=True)
        finally:
            self._read.set()

    def first_line(self) -> bytes:
        """The first line read from the wire (b"" at end of input), once read and answered."""
        self._read.wait()
        return self._line

    def settle(self, reply: dict[str, Any]) -> bool:
        """True when `reply` (a message the SDK's server writes, as JSON) is its answer to the
        initialize already answered: the transport drops it. A reply that differs from the one sent
        is logged."""
        sent = self.answered
        if sent is None or reply.get("id") != sent["id"] or ("result" not in reply and "error" not in reply):
            return False
        self.answered = None
        if reply != sent:
            log.warning("the early initialize answer differs from the MCP SDK's: sent %s, the SDK's %s "
                        "(PYBRIDGE_EARLY_INITIALIZE=0 turns the early answer off)",
                        json.dumps(sent), json.dumps(reply))
        return True


_early: EarlyWire | None = None


def claim_wire(restore: bool = False) -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """The stdio wire on private descriptors; fd 0 then reads the null device and fd 1 writes to stderr,
    so nothing a library or a child process prints reaches it. Returns the wire's input and output and
    a function that puts fds 0 and 1 back as they were: with `restore` (the transport's claim, for one
    serve), else it does nothing (the early claim, for the life of the process)."""
    sys.stdout.flush()
    saved = (os.dup(0), os.dup(1)) if restore else None
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
        os.dup2(2, 1)
    finally:
        os.close(devnull)

    def put_back() -> None:
        if saved is not None:
            os.dup2(saved[0], 0)
            os.dup2(saved[1], 1)
            os.close(saved[0])
            os.close(saved[1])

    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb", buffering=0), put_back


def serving_stdio(argv: Sequence[str]) -> bool:
    """Whether the command line is `pybridge [--java DIR] serve ...` over stdio (no --http, no help)."""
    args = list(argv[1:])
    if args[:1] == ["--java"]:
        args = args[2:]
    elif args and args[0].startswith("--java="):
        args = args[1:]
    return (args[:1] == ["serve"] and os.environ.get("PYBRIDGE_EARLY_INITIALIZE", "1") != "0"
            and not any(a in ("--http", "--help", "-h") for a in args[1:]))


def start_if_serving(argv: Sequence[str]) -> None:
    """For `pybridge serve` over stdio: claim the wire and answer `initialize` on a thread."""
    global _early
    if _early is None and serving_stdio(argv):
        try:
            wire_in, wire_out, _ = claim_wire()
        except OSError:         # no usable stdin or stdout: the transport claims them later and says why
            return
        _early = EarlyWire(wire_in, wire_out).start()


def take() -> EarlyWire | None:
    """The wire claimed by `start_if_serving` (once), or None."""
    global _early
    early, _early = _early, None
    return early
