"""`pybridge sync`: index a workspace and publish a generation, with a progress bar."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from pybridge.errors import PybridgeError

from pybridge.cli import main
from pybridge.cli.options import state_dir_option


@main.command("sync", help=(
    "Index the Maven workspace at PATH (default: the current directory) and publish a new generation. "
    "Shows a progress bar, then a summary; --json prints the summary as JSON."))
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@state_dir_option
@click.option("--offline", is_flag=True, help="Never let Maven go online (default: offline first, online on failure).")
@click.option("--no-wait", is_flag=True, help="Fail at once when another sync of this workspace is running.")
@click.option("--heap", default=None, help="Worker JVM heap, e.g. 2g (default: PYBRIDGE_HEAP or 3g).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def sync_command(path: Path, state_dir: Path | None, offline: bool, no_wait: bool, heap: str | None,
                 as_json: bool) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from pybridge.sync import sync

    err = Console(stderr=True)
    show_bar = err.is_terminal and not as_json
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not show_bar) as bar:
        task = bar.add_task("starting", total=None)

        def on_progress(event: dict) -> None:
            if event["phase"] == "index":
                bar.update(task, description=f"indexing {event['module']} ({event['scope']})",
                           completed=event["done"], total=event["total"])
            else:
                bar.update(task, description=event.get("message", event["phase"]))
                if not show_bar and not as_json:
                    err.print(f"[dim]{event.get('message', event['phase'])}[/dim]")

        try:
            result = sync(path, state_dir=state_dir, allow_online=not offline, wait=not no_wait,
                          progress=on_progress, heap=heap)
        except PybridgeError as error:
            if as_json:
                click.echo(json.dumps({"error": str(error), "code": error.code, **_jsonable(error.details)},
                                      indent=2))
                sys.exit(1)
            raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
        return
    out = Console()
    table = Table(title=f"generation {result.generation} of {result.root}", show_lines=False)
    for column in ("module", "scope", "files", "complete", "references", "problems", "limitations"):
        table.add_column(column, justify="right" if column not in ("module", "scope", "limitations") else "left",
                         no_wrap=column == "module")
    for m in result.modules:
        table.add_row(m["module"], m["scope"], str(m["files"]), str(m["bindingComplete"]), str(m["references"]),
                      str(m["problems"]), ", ".join(m["limitations"]) or "-")
    out.print(table)
    c = result.counts
    out.print(f"modules {c['modules']}  files {c['files']}  symbols {c['symbols']}  references {c['references']}  "
              f"problems {c['problems']}  limitations {c['limitations']}  reused files {result.reused_files}  "
              f"duration {result.duration_s:.1f}s  generation {result.generation}")
    for lim in result.limitations:
        where = f"{lim['module']} ({lim['scope']})" if lim.get("module") else "all modules"
        out.print(f"[yellow]limitation[/yellow] {lim['kind']}: {where}: {lim['message']}")


def _jsonable(details: dict) -> dict:
    return {k: v if isinstance(v, (str, int, float, bool, list, dict, type(None))) else str(v)
            for k, v in details.items()}
