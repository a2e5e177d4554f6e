"""The MCP server: every query tool over stdio or streamable HTTP.

Built on the MCP SDK's low-level `Server` so that pybridge owns argument
validation: whatever a client sends, the answer is either a result or an
error result whose structured content carries `error` and `code` (the SDK's
own validation would answer malformed arguments with a bare text). Tools run
in a worker thread (`facade.call` is synchronous); `sync` reports MCP
progress notifications when the client asked for them. The server never
touches SQL or JPype: it calls `pybridge.query.Facade` only.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server

from pybridge import __version__
from pybridge.mcp.descriptions import describe
from pybridge.mcp.schemas import input_schema, output_schema

READ_ONLY = {"status", "find_symbol", "symbol_at", "find_references", "get_callers", "findReferences",
             "goToDefinition", "callHierarchy", "type_hierarchy", "find_implementations", "call_graph",
             "outline", "diagnostics", "describe"}

INSTRUCTIONS = (
    "pybridge answers questions about Java code with the compiler's exact facts. Start with status; if it "
    "says the workspace is not synced or stale, call sync. Then discover a symbol (find_symbol or symbol_at) "
    "and pass its symbolKey to find_references, or ask the name tools (findReferences, goToDefinition, "
    "callHierarchy, get_callers) directly. referenceCoverage=true proves that no reference is missing."
)


def tool_list(names) -> list[types.Tool]:
    tools = []
    for name in names:
        read_only = name in READ_ONLY
        tools.append(types.Tool(
            name=name,
            description=describe(name),
            input_schema=input_schema(name),
            output_schema=output_schema(name),
            annotations=types.ToolAnnotations(
                title=name, read_only_hint=read_only, destructive_hint=False, idempotent_hint=read_only,
                open_world_hint=False),
        ))
    return tools


def as_result(result: dict, is_error: bool) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
        structured_content=result,
        is_error=is_error,
    )


def build_server(facade, names) -> Server:
    tools = tool_list(names)
    known = {t.name for t in tools}

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        arguments: Any = params.arguments if params.arguments is not None else {}
        if name not in known:
            return as_result({"error": f"There is no tool named {name!r}; the tools are: "
                                       f"{', '.join(sorted(known))}.", "code": "invalid_argument"}, True)
        progress = None
        if name == "sync":
            def progress(done: float, total: float | None, message: str) -> None:
                try:
                    anyio.from_thread.run(ctx.session.report_progress, float(done),
                                          None if total is None else float(total), message)
                except Exception:  # noqa: BLE001 - progress is best effort; the sync goes on
                    pass
        try:
            result, is_error = await anyio.to_thread.run_sync(facade.call, name, arguments, progress)
        except Exception as exc:  # noqa: BLE001 - the facade never raises; this is the last guard
            result, is_error = {"error": f"Internal error in {name}: {exc}. Please report it.",
                                "code": "invalid_argument"}, True
        return as_result(result, is_error)

    return Server("pybridge", version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


async def run_stdio(facade, names) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(facade, names)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_http(facade, names, host: str, port: int) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp (loopback unless told otherwise)."""
    import contextlib

    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Mount

    server = build_server(facade, names)
    manager = StreamableHTTPSessionManager(app=server)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        async with manager.run():
            yield

    app = Starlette(routes=[Mount("/mcp", app=manager.handle_request)], lifespan=lifespan)
    # "info" makes uvicorn say "Uvicorn running on http://HOST:PORT" once it listens (tests wait for it).
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)
