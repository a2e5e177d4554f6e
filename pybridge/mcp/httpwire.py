"""The request target as it came on the wire, for the HTTP guard of `pybridge.mcp.transport`.

httptools parses an absolute-form target (`POST http://evil.example/mcp HTTP/1.1`, RFC 9112
§3.2.2) into the ASGI scope's `path` and `raw_path` as just `/mcp`: the authority it named is
gone, so an app cannot check it. `TargetKeepingProtocol` (uvicorn's httptools protocol,
otherwise unchanged) also puts the target, exactly as received, in the scope's extensions;
`request_target` reads it back. uvicorn's h11 protocol keeps an absolute-form target whole in
`raw_path`, which `request_target` reads when the extension is absent (and an in-process ASGI
client sends origin-form paths only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

if TYPE_CHECKING:
    from starlette.types import Scope

REQUEST_TARGET = "pybridge.request_target"


class TargetKeepingProtocol(HttpToolsProtocol):
    """HttpToolsProtocol whose scopes carry the request target as received (see the module docstring)."""

    def on_headers_complete(self) -> None:
        # `self.url` is the whole target (on_url appends its pieces); the scope is this request's own (made
        # in on_message_begin), and the app task that reads it is started by the call below.
        self.scope["extensions"] = {**self.scope.get("extensions", {}), REQUEST_TARGET: {"target": bytes(self.url)}}
        super().on_headers_complete()


def request_target(scope: Scope) -> str:
    """The request target of an HTTP scope as the client sent it (latin-1 text): `/path?query`, or an
    absolute URI, or `*`."""
    kept = (scope.get("extensions") or {}).get(REQUEST_TARGET)
    if kept is not None:
        return bytes(kept["target"]).decode("latin-1")
    raw = scope.get("raw_path") or scope["path"].encode("utf-8")
    query = scope.get("query_string") or b""
    return (bytes(raw) + (b"?" + query if query else b"")).decode("latin-1")
