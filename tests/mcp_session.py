"""A real MCP client session (the SDK's client over stdio) against `pybridge serve`,
usable from synchronous tests through an anyio blocking portal."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


@contextlib.asynccontextmanager
async def _session(params: StdioServerParameters):
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


class Client:
    """Synchronous calls into one live MCP session."""

    def __init__(self, portal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def list_tools(self):
        return self.portal.call(self.session.list_tools).tools

    def call(self, name: str, arguments, progress=None):
        async def on_progress(done, total, message):
            progress(done, total, message)

        async def run():
            return await self.session.call_tool(name, arguments,
                                                progress_callback=on_progress if progress else None)
        return self.portal.call(run)


@contextlib.contextmanager
def serve(repos: list[Path], state_home: Path, extra_env: dict | None = None):
    args = ["-m", "pybridge.cli", "serve"]
    for repo in repos:
        args += ["--repo", str(repo)]
    env = {**os.environ, "PYBRIDGE_STATE_HOME": str(state_home), **(extra_env or {})}
    env.pop("PYBRIDGE_STATE_DIR", None)
    params = StdioServerParameters(command=sys.executable, args=args, env=env,
                                   cwd=str(Path(__file__).resolve().parent.parent))
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_session(params)) as session:
            yield Client(portal, session)


def checked_call(client, name: str, args, schemas: dict | None = None) -> tuple[dict, bool, str]:
    """Call a tool and check what every answer must be: structured content that the text repeats
    (an error's text: a readable summary, then the same object as JSON on the last line), valid
    against the tool's output schema when `schemas` is given (error objects too, as TypeScript SDK
    hosts check). Returns (payload, is_error, text)."""
    result = client.call(name, args)
    payload = result.structured_content
    assert isinstance(payload, dict)
    text = result.content[0].text
    if result.is_error:
        assert text.startswith(f"Error ({payload['code']}): {payload['error']}")
        assert json.loads(text.splitlines()[-1]) == payload
    else:
        assert json.loads(text) == payload
    if schemas is not None:
        import jsonschema

        jsonschema.validate(payload, schemas[name])
    return payload, result.is_error, text
