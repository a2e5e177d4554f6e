"""`pybridge tool`, `serve` and the short query commands for people.

`pybridge tool NAME 'JSON'` runs any tool by its exact name and prints its
exact JSON result (exit status 1 when the result is an error); its help lists
the tools from the query layer's registry. The short commands (`status`,
`symbol`, `refs`, `callers`, `calls`, `def`) call the same tools and print
readable text, or the same JSON with `--json`; an error prints as text on
stderr (an ambiguous name as its list of candidates), exit status 1.
"""

from __future__ import annotations

import functools
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pybridge.cli import main
from pybridge.cli.live_options import live_options, live_serving
from pybridge.cli.options import F, build_tool_option, state_dir_option
from pybridge.cli.render import RENDERERS, error
from pybridge.errors import WorkspaceError
from pybridge.query import CONVENTIONS, TOOLS, find_root

if TYPE_CHECKING:
    from pybridge.query import Facade


def _facade(repos: tuple[str, ...], state_dir: Path | None, build_tool: str = "auto") -> Facade:
    from pybridge.query import Facade

    roots: list[str | Path] = [*repos] or ["."]
    if state_dir is not None and len(roots) != 1:
        raise click.UsageError("--state-dir applies to one workspace; give one --repo with it.")
    state_dirs: dict[str | Path, Path] | None = {roots[0]: state_dir} if state_dir is not None else None
    return Facade(roots, state_dirs=state_dirs, build_tool=build_tool)


def repo_option(f: F) -> F:
    return click.option("--repo", "repos", multiple=True, metavar="PATH",
                        help="A workspace root to serve (repeatable; default: the current directory).")(f)


def _run(repos: tuple[str, ...], state_dir: Path | None, name: str, args: dict[str, Any], as_json: bool,
         build_tool: str = "auto") -> None:
    facade = _facade(repos, state_dir, build_tool)
    try:
        result, is_error = facade.call(name, args)
    finally:
        facade.close()
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    elif is_error:
        click.echo(error(result), err=True)
    else:
        render = RENDERERS.get(name)
        click.echo(render(result) if render is not None else json.dumps(result, indent=2))
    if is_error:
        sys.exit(1)


def _tool_help() -> str:
    lines = ["Run the tool NAME with ARGS (a JSON object) and print its exact JSON result "
             "(exit status 1 on an error result).", "", "\b", "The tools:"]
    width = max(len(name) for name in TOOLS) + 1
    lines += [f"  {t.name:{width}} {t.summary}" for t in TOOLS.values()]
    for paragraph in CONVENTIONS.splitlines():
        lines += ["", "\b", *textwrap.wrap(paragraph, 100)]
    return "\n".join(lines)


@main.command("tool", help=_tool_help())
@click.argument("name")
@click.argument("args", required=False, default="{}")
@repo_option
@state_dir_option
@build_tool_option
def tool_command(name: str, args: str, repos: tuple[str, ...], state_dir: Path | None, build_tool: str) -> None:
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as err:
        click.echo(json.dumps({"error": f"ARGS is not valid JSON ({err}); pass one JSON object, e.g. "
                                        "'{\"query\": \"Greeter\"}'.", "code": "invalid_argument"}, indent=2))
        sys.exit(1)
    _run(repos, state_dir, name, parsed, as_json=True, build_tool=build_tool)


@main.command("serve", help="Serve the MCP tools for the workspaces given with --repo (default: the "
                            "workspace root found upward from the current directory): over stdio by default, "
                            "or streamable HTTP at http://HOST:PORT/mcp with --http. HTTP binds to "
                            "127.0.0.1 and refuses requests whose Host or Origin is not loopback (403, "
                            "DNS-rebinding protection) unless --allow-host/--allow-origin allow them; with "
                            "--token (or PYBRIDGE_TOKEN) every request needs 'Authorization: Bearer TOKEN' "
                            "(401 otherwise). A non-loopback --host requires a token. The server watches the "
                            "workspaces and syncs edits in the background with a warm indexer JVM (--no-watch "
                            "turns watching off). A workspace never synced gets its first sync in the "
                            "background (--no-auto-sync: not); meanwhile tools wait up to --fresh-wait, then "
                            "answer `indexing` with its progress.")
@repo_option
@state_dir_option
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP bind address. Anything but loopback exposes the tools (sync runs Maven) to the "
                   "network: it requires --token.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="HTTP port (0: any free port; the startup line on stderr prints the URL).")
@click.option("--token", envvar="PYBRIDGE_TOKEN", default=None, metavar="TOKEN",
              help="Require 'Authorization: Bearer TOKEN' on every HTTP request (401 otherwise). Prefer the "
                   "environment variable PYBRIDGE_TOKEN: a command line is visible to other users.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests whose Host header names NAME (repeatable; loopback names always "
                   "pass). Needed when clients reach a non-loopback --host by name or address.")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN",
              help="Also answer browser requests from ORIGIN, e.g. https://tools.example:8443 (repeatable; "
                   "loopback origins and requests without Origin always pass).")
@click.option("--session-timeout", default=1800.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Close an HTTP session after this many seconds without a request; its client then "
                   "initializes a new one.")
@click.option("--max-sessions", default=1000, show_default=True, type=click.IntRange(min=1),
              help="At most this many open HTTP sessions; a request that would open another gets 503.")
@click.option("--sse", is_flag=True,
              help="Answer each HTTP request with an SSE stream instead of one JSON body. Needed to receive "
                   "sync's progress notifications over HTTP; costs throughput under load.")
@build_tool_option
@live_options
def serve_command(repos: tuple[str, ...], state_dir: Path | None, http: bool, host: str, port: int,
                  token: str | None, allow_hosts: tuple[str, ...], allow_origins: tuple[str, ...],
                  session_timeout: float, max_sessions: int, sse: bool, build_tool: str, live: object) -> None:
    import anyio

    from pybridge.mcp.handshake import take
    from pybridge.mcp.transport import Guard, is_loopback, run_http, run_stdio
    from pybridge.query import TOOL_NAMES

    if http and not is_loopback(host) and not token:
        raise click.UsageError(f"--host {host} is not a loopback address: anyone who reaches it could run the "
                               "tools, sync included (which runs Maven). Give a token with --token or "
                               "PYBRIDGE_TOKEN, or serve on 127.0.0.1.")
    if token is not None and not (token.isascii() and token.isprintable() and token.strip() == token
                                  and " " not in token and token):
        raise click.UsageError("--token (or PYBRIDGE_TOKEN) must be non-empty printable ASCII without spaces "
                               "(it travels in an HTTP header), e.g. the output of "
                               "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`.")
    if not repos:
        try:
            repos = (str(find_root(Path.cwd())),)
        except WorkspaceError as exc:
            raise click.UsageError(exc.message) from None
    facade = _facade(repos, state_dir, build_tool)
    try:
        with live_serving(facade, live):
            if http:
                guard = Guard.for_bind(host, allow_hosts, allow_origins, token)
                run_http(facade, TOOL_NAMES, host, port, guard, session_idle_timeout=session_timeout,
                         max_sessions=max_sessions, json_response=not sse)
            else:
                anyio.run(functools.partial(run_stdio, facade, TOOL_NAMES, early=take()))
    finally:
        facade.close()


def _limit_option(name: str) -> Callable[[F], F]:
    default = TOOLS[name].args.model_fields[_LIMITS[name]].default
    return click.option("--limit", type=click.IntRange(1, 500), default=None, metavar="N",
                        help=f"Show at most N (1 to 500; default {default}); the output says when it cut the list.")


_LIMITS = {"findReferences": "limit", "get_callers": "max_results"}


def _short(name: str, tool: str, arg: str | None, help_text: str,
           build: Callable[[str | None], dict[str, Any]]) -> click.Command:
    def command(repos: tuple[str, ...], state_dir: Path | None, as_json: bool, target: str | None = None,
                limit: int | None = None) -> None:
        args = build(target)
        if limit is not None:
            args[_LIMITS[tool]] = limit
        _run(repos, state_dir, tool, args, as_json)

    command.__name__ = f"{name}_command"
    decorated: Callable[..., None] = command
    if tool in _LIMITS:
        decorated = _limit_option(tool)(decorated)
    decorated = click.option("--json", "as_json", is_flag=True,
                             help="Print the tool's JSON result instead of text.")(decorated)
    decorated = state_dir_option(decorated)
    decorated = repo_option(decorated)
    if arg:
        decorated = click.argument("target", required=arg is not None)(decorated)
    return main.command(name, help=help_text)(decorated)


@main.command("status", help="Show what is indexed for the workspace at PATH (default: the current directory, "
                             "or the --repo given): generation, freshness, modules, counts, limitations.")
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False))
@repo_option
@state_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON result instead of text.")
def status_command(path: str | None, repos: tuple[str, ...], state_dir: Path | None, as_json: bool) -> None:
    if path is not None and repos:
        raise click.UsageError("Give the workspace as PATH or with --repo, not both.")
    _run((path,) if path is not None else repos, state_dir, "status", {}, as_json)


_short("symbol", "find_symbol", "query", "Find declarations named TARGET (e.g. Greeter, Greeter.greet, "
       "greet(String)).", lambda t: {"query": t})
_short("refs", "findReferences", "symbol", "Every occurrence of the symbol TARGET, its definition included.",
       lambda t: {"symbol": t})
_short("callers", "get_callers", "symbol", "Who calls the method TARGET.", lambda t: {"symbol": t})
_short("calls", "callHierarchy", "symbol", "What the method TARGET calls, and who calls it (one level).",
       lambda t: {"symbol": t})
_short("def", "goToDefinition", "symbol", "Where the symbol TARGET is defined.", lambda t: {"symbol": t})
