"""The `pybridge` command line.

A thin shell: it parses arguments, calls the library, and prints. It never
imports jpype (the worker child does).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from pybridge import __version__
from pybridge.errors import PybridgeError


@click.group(help="Compiler-exact Java code intelligence: JDT facts for coding agents.")
@click.version_option(__version__, prog_name="pybridge")
def main() -> None:
    pass


@main.command("index", help=(
    "Index Java source roots with the JDT indexer and print what it found "
    "(a debugging view of the facts, before any store). ROOTS are source folders, "
    "e.g. samples/kitchen-sink/src/main/java."))
@click.argument("roots", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--classpath", "-cp", default="", help="Jars and class folders, separated by ':'.")
@click.option("--release", default="17", show_default=True, help="Java release of the sources.")
@click.option("--encoding", default="UTF-8", show_default=True, help="Source encoding.")
@click.option("--heap", default=None, help="Worker JVM heap, e.g. 2g (default: PYBRIDGE_HEAP or 3g).")
@click.option("--show", "show", multiple=True,
              help="Print this file with every fact marked under its line (a path ending; repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def index_command(roots: tuple[Path, ...], classpath: str, release: str, encoding: str, heap: str | None,
                  show: tuple[str, ...], as_json: bool) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from pybridge.golden import build_names, render_file
    from pybridge.worker import IndexRequest, Worker

    files = sorted(str(p) for root in roots for p in root.rglob("*.java"))
    if not files:
        raise click.ClickException(f"No .java files under {', '.join(map(str, roots))}: pass source folders.")
    request = IndexRequest(files=files, sourcepath=[str(r) for r in roots],
                           classpath=[c for c in classpath.split(":") if c], release=release, encoding=encoding)
    t0 = time.perf_counter()
    try:
        with Worker(**({"heap": heap} if heap else {})) as worker, Progress(
                TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                transient=True, disable=as_json or not sys.stderr.isatty(), console=None) as bar:
            task = bar.add_task("index", total=len(files))
            result = worker.index(request, progress=lambda done, total: bar.update(task, completed=done, total=total))
    except PybridgeError as err:
        raise click.ClickException(str(err)) from None
    wall = time.perf_counter() - t0
    summary = {
        "files": len(result.files),
        "declarations": sum(len(f.declarations) for f in result.files),
        "references": sum(len(f.references) for f in result.files),
        "problems": sum(len(f.problems) for f in result.files),
        "files_not_binding_complete": sorted(f.path for f in result.files if not f.binding_complete),
        "jvm_ms": result.elapsed_ms,
        "wall_s": round(wall, 3),
        "jpype_calls": result.jpype_calls,
    }
    if show:
        names = build_names(result.files)
        for ff in result.files:
            if any(ff.path.endswith(s) for s in show):
                click.echo(f"=== {ff.path}")
                click.echo(render_file(Path(ff.path).read_text(encoding=encoding), ff, names))
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            click.echo(f"{key:28} {value}")


def _state_dir_option(f):
    return click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Where pybridge keeps this workspace's state (default: a folder under the user "
                             "cache directory; PYBRIDGE_STATE_DIR also sets it).")(f)


@main.command("sync", help=(
    "Index the Maven workspace at PATH (default: the current directory) and publish a new generation. "
    "Shows a progress bar, then a summary; --json prints the summary as JSON."))
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@_state_dir_option
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


if __name__ == "__main__":
    main()
