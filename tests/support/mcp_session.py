"""Real MCP client sessions against `pybridge serve`: the Python SDK's client over stdio or
streamable HTTP (usable from synchronous tests through an anyio blocking portal), and the
TypeScript SDK's (tests/ts/client.mjs).

`replay(channel, repos, home, steps)` runs one list of tool calls through one channel (client and
transport, `CHANNELS`) and returns each call's result: the same script runs through all four, so a
test asserts once what every client sees. An argument `{"$ref": [label, key, ...]}` is the value at
that path in an earlier call's structured content (a key or cursor the server returned)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
from anyio.from_thread import start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent.parent
TS = ROOT / "tests" / "ts"
NODE = shutil.which("node")
TOKEN = "replay-token"
CHANNELS = ("python-stdio", "python-http", "typescript-stdio", "typescript-http")


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


@contextlib.asynccontextmanager
async def _http_session(url: str, token: str):
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=300) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                yield session


@contextlib.contextmanager
def serve(repos: list[Path], state_home: Path, extra_env: dict | None = None, options: list[str] | None = None,
          cwd: Path | None = None, launcher: list[str] | None = None):
    """A Python SDK client session over stdio with `pybridge serve --repo R... OPTIONS`, started in `cwd`
    (default: the checkout); `launcher` replaces `-m pybridge.cli` (a `-c` program that runs the CLI)."""
    args = [*(launcher or ["-m", "pybridge.cli"]), *serve_args(repos)[2:], *(options or [])]
    env = {**os.environ, "PYBRIDGE_STATE_HOME": str(state_home), **(extra_env or {})}
    env.pop("PYBRIDGE_STATE_DIR", None)
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd or ROOT))
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


@contextlib.contextmanager
def connect_http(url: str, token: str) -> Iterator[Client]:
    """A Python SDK client session over streamable HTTP (`pybridge serve --http` at `url`)."""
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_http_session(url, token)) as session:
            yield Client(portal, session)


def run_ts_client(config: dict) -> dict:
    """tests/ts/client.mjs with `config` (its header says what it takes and prints)."""
    done = subprocess.run([NODE or "node", str(TS / "client.mjs")], input=json.dumps(config), capture_output=True,
                          text=True, cwd=TS, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def serve_args(repos: list[Path]) -> list[str]:
    args = ["-m", "pybridge.cli", "serve"]
    for repo in repos:
        args += ["--repo", str(repo)]
    return args


def server_env(state_home: Path, extra_env: dict | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYBRIDGE_STATE_DIR", "PYBRIDGE_TOKEN")}
    return {**env, "PYBRIDGE_STATE_HOME": str(state_home), **(extra_env or {})}


def resolve_refs(value: Any, answers: dict[str, dict]) -> Any:
    """`value` with each `{"$ref": [label, key, ...]}` replaced by what it points at."""
    if isinstance(value, dict):
        if set(value) == {"$ref"}:
            label, *path = value["$ref"]
            found = answers[label]["structuredContent"]
            for key in path:
                found = found[key]
            return found
        return {k: resolve_refs(v, answers) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_refs(v, answers) for v in value]
    return value


def _python_calls(client: Client, steps: list[dict]) -> dict[str, dict]:
    schemas = {t.name: t.output_schema for t in client.list_tools()}
    answers: dict[str, dict] = {}
    for step in steps:
        payload, is_error, _text = checked_call(client, step["tool"], resolve_refs(step["args"], answers), schemas)
        answers[step["label"]] = {"isError": bool(is_error), "structuredContent": payload}
    return answers


def replay(channel: str, repos: list[Path], state_home: Path, steps: list[dict],
           extra_env: dict | None = None) -> dict[str, dict]:
    """Run `steps` ({"label", "tool", "args"}) in order through one channel of `CHANNELS` against a
    server for `repos`; returns {label: {"isError", "structuredContent"}}. Every result is checked
    against the tool's output schema (by jsonschema in Python, by the TypeScript client itself)."""
    client, transport = channel.split("-")
    env = server_env(state_home, extra_env)
    if client == "python" and transport == "stdio":
        with serve(repos, state_home, extra_env) as session:
            return _python_calls(session, steps)
    from tests.mcp.test_mcp_http import http_serve  # one HTTP server launcher for every test

    if client == "python":
        with http_serve(serve_args(repos)[3:], {**env, "PYBRIDGE_TOKEN": TOKEN}) as (url, _proc, _line):
            with connect_http(url, TOKEN) as session:
                return _python_calls(session, steps)
    if transport == "stdio":
        out = run_ts_client({"transport": "stdio", "command": sys.executable, "args": serve_args(repos),
                             "env": env, "cwd": str(ROOT), "calls": steps})
    else:
        with http_serve(serve_args(repos)[3:], {**env, "PYBRIDGE_TOKEN": TOKEN}) as (url, _proc, _line):
            out = run_ts_client({"transport": "http", "url": url, "token": TOKEN, "calls": steps})
    answers = {}
    for row in out["calls"]:
        assert row["thrown"] is None, f"the TypeScript client refused {row['label']}: {row['thrown']}; " \
                                      f"sent: {row.get('raw')}"
        assert row["text"] == row["structuredContent"] or row["isError"], row    # the text repeats it
        answers[row["label"]] = {"isError": row["isError"], "structuredContent": row["structuredContent"]}
    return answers
