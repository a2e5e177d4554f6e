"""The one place that reads the MCP SDK's private state (for the HTTP fast path).

`transport.FastCalls` answers a plain `tools/call` on an open session without the SDK's
per-request machinery (bench/RESULTS.md: 2.3x the calls per second at 50 clients, issue 27). To
do that it must know what only the SDK's session manager knows: whether a session id names an
open, initialized session that no request is currently entering, and how to restart that
session's idle countdown as the SDK would. Those are private attributes of
`StreamableHTTPSessionManager` (`_server_instances`, `_session_owners`) and of its transports
(`_requests_in_flight`, `_idle_timeout`, `idle_scope`), read here and nowhere else.

They are only read from the SDK version they were written against (`PINNED_SDK`, the pin in
pyproject.toml); with any other installed version `supported` is False and every request goes
through the SDK. `tests/mcp/test_mcp_http.py` fails when the pin changes, so whoever moves it checks
these reads against the new SDK and then moves `PINNED_SDK` along.
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING, Any

import anyio
from mcp_types import methods

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

PINNED_SDK = "2.3.0"
"""The `mcp` version whose private state this module reads (pyproject.toml pins it)."""


def installed_sdk() -> str | None:
    try:
        return importlib.metadata.version("mcp")
    except importlib.metadata.PackageNotFoundError:
        return None


def supported(manager: StreamableHTTPSessionManager) -> bool:
    """Whether this SDK is the pinned one and its manager has the state read here."""
    return installed_sdk() == PINNED_SDK and isinstance(getattr(manager, "_server_instances", None), dict) \
        and isinstance(getattr(manager, "_session_owners", None), dict)


class OpenSession:
    """An open, initialized session of the manager that no request is entering."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    def restart_idle_countdown(self) -> None:
        """After an answer, as the SDK does when its last request in flight ends."""
        t = self._transport
        if not t._requests_in_flight and t._idle_timeout is not None:
            t.idle_scope.deadline = anyio.current_time() + t._idle_timeout


def open_session(manager: StreamableHTTPSessionManager, sid: str) -> OpenSession | None:
    """The session `sid` names when the SDK would serve a request on it at once; None otherwise
    (unknown, being created or closed, terminated, idle-expired, or a transport of another shape)."""
    transport = manager._server_instances.get(sid) if sid else None
    if (transport is None or manager._session_owners.get(sid) is not None
            or transport.is_terminated or transport.idle_scope is None
            or transport.idle_scope.cancel_called or transport.mcp_session_id != sid
            or not isinstance(getattr(transport, "_requests_in_flight", None), int)):
        return None
    return OpenSession(transport)


def shaped_result(version: str, result: dict[str, Any]) -> Any:
    """A `tools/call` result shaped for a protocol version exactly as the SDK's runner shapes it."""
    return methods.serialize_server_result("tools/call", version, result)
