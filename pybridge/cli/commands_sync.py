"""`pybridge sync`: index a workspace and publish a generation, with a progress bar.

It runs the `sync` tool through the query facade, like the MCP server does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pybridge.cli import early, main
from pybridge.cli.options import build_tool_option, state_dir_option


@main.command("sync", help=(
    "Index the Maven or Gradle workspace at PATH (default: the current directory) and publish a new generation. "
    "Shows a progress bar, then a summary; --json prints the sync tool's JSON result."))
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@state_dir_option
@click.option("--offline", is_flag=True,
              help="Never let Maven or Gradle go online (default: offline first, online on failure).")
@click.option("--no-wait", is_flag=True, help="Fail at once when another sync of this workspace is running.")
@click.option("--heap", default=None, help="Worker JVM heap, e.g. 2g (default: PYBRIDGE_HEAP or 1600m).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@build_tool_option
def sync_command(path: Path, state_dir: Path | None, offline: bool, no_wait: bool, heap: str | None,
                 as_json: bool, build_tool: str) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from pybridge.query import Facade

    err = Console(stderr=True)
    show_bar = err.is_terminal and not as_json
    root = str(path.resolve())
    worker = early.take()     # started while the CLI was imported (None: the sync starts its own)
    facade = Facade([root], {root: state_dir} if state_dir else None, allow_online=not offline, heap=heap,
                    wait=not no_wait, worker=worker, build_tool=build_tool)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not show_bar) as bar:
        task = bar.add_task("starting", total=None)
        last = [""]

        def on_progress(done: float, total: float | None, message: str) -> None:
            bar.update(task, description=message, completed=done, total=total)
            if not show_bar and not as_json and total is None and message != last[0]:
                err.print(f"[dim]{message}[/dim]")
            last[0] = message

        try:
            result, is_error = facade.call("sync", {}, on_progress)
        finally:
            facade.close()
            early.release(worker)
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        sys.exit(1 if is_error else 0)
    if is_error:
        raise click.ClickException(result["error"])
    out = Console()
    if result.get("unchanged"):
        out.print(f"no input changed: generation {result['generation']} of {root} stays current "
                  f"(nothing published; keys and cursors stay valid)", soft_wrap=True)
        return
    table = Table(title=f"generation {result['generation']} of {root}")
    for column in ("module", "scope", "files", "complete", "problems"):
        table.add_column(column, justify="left" if column in ("module", "scope") else "right",
                         no_wrap=column == "module")
    for s in result["coverage"]["scopes"]:
        table.add_row(s["module"], s["scope"], str(s["files"]), str(s["bindingComplete"]), str(s["problems"]))
    out.print(table)
    c = result["counts"]
    modules = len({s["module"] for s in result["coverage"]["scopes"]})   # as the table shows them
    out.print(f"modules {modules}  files {c.get('files')}  symbols {c.get('symbols')}  "
              f"references {c.get('references')}  problems {c.get('problems')}  limitations "
              f"{c.get('limitations')}  re-indexed files {result.get('reindexedFiles', 0)}  reused files "
              f"{result['reusedFiles']}  duration "
              f"{result['durationSeconds']:.1f}s  generation {result['generation']}")
    for lim in result["limitations"]:
        where = f"{lim['module']} ({lim['scope']})" if lim.get("module") else "all modules"
        out.print(f"[yellow]limitation[/yellow] {lim['kind']}: {where}: {lim['message']}")
