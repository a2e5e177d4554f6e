"""`pybridge tool`, `serve` and the short query commands for people.

`pybridge tool NAME 'JSON'` runs any tool by its exact name and prints its
exact JSON result (exit status 1 when the result is an error). The short
commands (`status`, `symbol`, `refs`, `callers`, `calls`, `def`) call the same
tools and print readable text, or the same JSON with `--json`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pybridge.cli import main
from pybridge.cli.options import state_dir_option
from pybridge.cli.render import RENDERERS


def _facade(repos: tuple[str, ...], state_dir: Path | None):
    from pybridge.query import Facade

    roots = list(repos) or ["."]
    if state_dir is not None and len(roots) != 1:
        raise click.UsageError("--state-dir applies to one workspace; give one --repo with it.")
    state_dirs = {roots[0]: state_dir} if state_dir is not None else None
    return Facade(roots, state_dirs=state_dirs)


def repo_option(f):
    return click.option("--repo", "repos", multiple=True, metavar="PATH",
                        help="A workspace root to serve (repeatable; default: the current directory).")(f)


def _run(repos, state_dir, name: str, args: dict, as_json: bool) -> None:
    facade = _facade(repos, state_dir)
    try:
        result, is_error = facade.call(name, args)
    finally:
        facade.close()
    if as_json or is_error:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        click.echo(RENDERERS.get(name, lambda r: json.dumps(r, indent=2))(result))
    if is_error:
        sys.exit(1)


@main.command("tool", help="Run the tool NAME with ARGS (a JSON object) and print its exact JSON result. "
                           "The tools: sync, status, find_symbol, symbol_at, find_references, get_callers, "
                           "findReferences, goToDefinition, callHierarchy, type_hierarchy, find_implementations, "
                           "call_graph, outline, diagnostics, describe.")
@click.argument("name")
@click.argument("args", required=False, default="{}")
@repo_option
@state_dir_option
def tool_command(name: str, args: str, repos: tuple[str, ...], state_dir: Path | None) -> None:
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as err:
        click.echo(json.dumps({"error": f"ARGS is not valid JSON ({err}); pass one JSON object, e.g. "
                                        "'{\"query\": \"Greeter\"}'.", "code": "invalid_argument"}, indent=2))
        sys.exit(1)
    _run(repos, state_dir, name, parsed, as_json=True)


@main.command("serve", help="Serve the MCP tools for the workspaces given with --repo: over stdio by "
                            "default, or streamable HTTP with --http (bound to 127.0.0.1 unless --host says "
                            "otherwise).")
@repo_option
@state_dir_option
@click.option("--http", "http", is_flag=True, help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address.")
@click.option("--port", default=8765, show_default=True, type=int, help="HTTP port.")
def serve_command(repos: tuple[str, ...], state_dir: Path | None, http: bool, host: str, port: int) -> None:
    import anyio

    from pybridge.mcp.server import run_http, run_stdio
    from pybridge.query import TOOL_NAMES

    facade = _facade(repos, state_dir)
    try:
        if http:
            run_http(facade, TOOL_NAMES, host, port)
        else:
            anyio.run(run_stdio, facade, TOOL_NAMES)
    finally:
        facade.close()


def _short(name: str, tool: str, arg: str | None, help_text: str, build):
    @main.command(name, help=help_text)
    @click.argument("target", required=arg is not None) if arg else (lambda f: f)
    @repo_option
    @state_dir_option
    @click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON result instead of text.")
    def command(repos, state_dir, as_json, target=None):
        _run(repos, state_dir, tool, build(target), as_json)

    command.__name__ = f"{name}_command"
    return command


_short("status", "status", None, "Show what is indexed: generation, freshness, modules, counts, limitations.",
       lambda _t: {})
_short("symbol", "find_symbol", "query", "Find declarations named TARGET (e.g. Greeter, Greeter.greet, "
       "greet(String)).", lambda t: {"query": t})
_short("refs", "findReferences", "symbol", "Every occurrence of the symbol TARGET, its definition included.",
       lambda t: {"symbol": t})
_short("callers", "get_callers", "symbol", "Who calls the method TARGET.", lambda t: {"symbol": t})
_short("calls", "callHierarchy", "symbol", "What the method TARGET calls, and who calls it (one level).",
       lambda t: {"symbol": t})
_short("def", "goToDefinition", "symbol", "Where the symbol TARGET is defined.", lambda t: {"symbol": t})
