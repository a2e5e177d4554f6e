"""The MCP server: every query tool over stdio or streamable HTTP.

Built on the MCP SDK's low-level `Server` so that pybridge owns argument
validation: whatever a client sends, the answer is either a result or an
error result whose structured content carries `error` and `code` (the SDK's
own validation would answer malformed arguments with a bare text). The tool
list (descriptions, schemas, read-only hints, which tools report progress)
is derived from the query layer's registry (`pybridge.query.TOOLS`). Tools run
on the event loop when they can answer without blocking (`facade.try_call`),
otherwise in a worker thread (`facade.call`): a sync, or an exact tool that
waits for the live index's catch-up; `sync` reports MCP progress
notifications when the client asked for them. The server never
touches SQL or JPype: it calls `pybridge.query.Facade` only. Its name and
instructions live in the light `pybridge.mcp.handshake`, which answers
`initialize` before this module is imported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server

from pybridge import __version__
from pybridge.mcp.gcpace import PACER
from pybridge.mcp.handshake import INSTRUCTIONS, SERVER_NAME
from pybridge.mcp.schemas import input_schema, output_schema
from pybridge.query import TOOLS

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from pybridge.query import Facade

ALWAYS_LOAD = ("status", "sync", "find_symbol", "symbol_at", "find_references", "findReferences", "goToDefinition")
"""The core tools: the first steps of the workflow in INSTRUCTIONS (`pybridge.mcp.handshake`). Their tool entries carry
`_meta["anthropic/alwaysLoad"]`, which Claude Code reads to load a tool at session start
instead of deferring it behind its tool search (the other tools stay deferred there; a
server-wide `alwaysLoad` in the client's config would load all of them)."""


def tool_list(names: Iterable[str]) -> list[types.Tool]:
    """The MCP tools, derived from their declarations in the query layer's registry."""
    tools = []
    for name in names:
        t = TOOLS[name]
        tools.append(types.Tool(
            name=name,
            description=t.description,
            input_schema=input_schema(name),
            output_schema=output_schema(name),
            # destructiveHint and idempotentHint mean something only when readOnlyHint is false
            # (MCP ToolAnnotations): said for the tools that write, left out for the others.
            annotations=types.ToolAnnotations(
                read_only_hint=t.read_only, open_world_hint=False,
                destructive_hint=None if t.read_only else False,
                idempotent_hint=None if t.read_only else False),
            _meta={"anthropic/alwaysLoad": True} if name in ALWAYS_LOAD else None,
        ))
    return tools


def error_text(result: dict[str, Any]) -> str:
    """An error result's text content: the sentence and the code first, then what the code adds
    (candidates one per line), then the whole object as JSON, so an agent reading only the text
    has everything the structured content has."""
    lines = [f"Error ({result.get('code')}): {result.get('error')}"]
    for c in result.get("candidates") or []:
        where = f" at {c['path']}:{c['line']}" if c.get("path") and c.get("line") else ""
        repo = f" [{c['repo']}]" if c.get("repo") else ""
        lines.append(f"- {c.get('kind')} {c.get('display') or c.get('dottedPath')}{where}{repo}  "
                     f"symbol: {c.get('symbol')}")
    if "candidateTotal" in result and result["candidateTotal"] > len(result.get("candidates") or []):
        lines.append(f"({result['candidateTotal']} candidates in all; the first "
                     f"{len(result.get('candidates') or [])} are listed)")
    if "replacement" in result:
        lines.append(f"replacement: {result['replacement']}")
    if result.get("changed"):
        lines.append("changed: " + ", ".join(result["changed"]))
    lines.append(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines)


def result_text(result: dict[str, Any], is_error: bool) -> str:
    """A result's text content: compact JSON for an answer, `error_text` for an error."""
    return error_text(result) if is_error else json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def as_result(result: dict[str, Any], is_error: bool) -> types.CallToolResult:
    """The MCP result: the object as structured content, and as text (compact JSON for an answer;
    a readable summary plus the JSON for an error). Error objects keep their structured content:
    every output schema admits them (see `schemas`)."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result_text(result, is_error))],
        structured_content=result,
        is_error=is_error,
    )


def _unknown(name: str, known: set[str]) -> dict[str, Any]:
    return {"error": f"There is no tool named {name!r}; the tools are: {', '.join(sorted(known))}.",
            "code": "invalid_argument"}


def answer_now(facade: Facade, known: set[str], name: str, arguments: Any) -> types.CallToolResult | None:
    """The answer of a tool that can answer without blocking (see `Facade.try_call`), or None when
    it must run in a thread (a sync, or an exact tool waiting for the live index)."""
    answer = plain_answer_now(facade, known, name, arguments)
    return None if answer is None else as_result(*answer)


def plain_answer_now(facade: Facade, known: set[str], name: str, arguments: Any) -> tuple[dict[str, Any], bool] | None:
    """`answer_now` as the facade's `(object, is_error)`, before it becomes an MCP result."""
    if name not in known:
        return _unknown(name, known), True
    try:
        return facade.try_call(name, arguments)
    except Exception as exc:  # noqa: BLE001 - the facade never raises; this is the last guard
        return _internal(name, exc)


def _internal(name: str, exc: Exception) -> tuple[dict[str, Any], bool]:
    return {"error": f"Internal error in {name}: {exc}. Please report it.", "code": "invalid_argument"}, True


def build_server(facade: Facade, names: Iterable[str]) -> Server:
    tools = tool_list(names)
    known = {t.name for t in tools}

    async def on_list_tools(ctx: ServerRequestContext[Any],
                            params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: ServerRequestContext[Any],
                           params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        arguments: Any = params.arguments if params.arguments is not None else {}
        # Most answers take a millisecond or two: they run here, on the event loop, with no thread
        # hop (which cost more than the query, and under HTTP load let dozens of threads fight over
        # the GIL). A sync, or an exact tool that must wait for the live index, runs in a thread.
        with PACER.call():
            now = answer_now(facade, known, name, arguments)
        if now is not None:
            return now
        progress = None
        if TOOLS[name].progress:
            def progress(done: float, total: float | None, message: str) -> None:
                try:
                    anyio.from_thread.run(ctx.session.report_progress, float(done),
                                          None if total is None else float(total), message)
                except Exception:  # noqa: BLE001 - progress is best effort; the sync goes on
                    pass
        try:
            with PACER.call():
                answer = await anyio.to_thread.run_sync(facade.call, name, arguments, progress)
        except Exception as exc:  # noqa: BLE001 - the facade never raises; this is the last guard
            answer = _internal(name, exc)
        return as_result(*answer)

    return Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)
