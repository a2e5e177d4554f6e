"""`pybridge index`: a debugging view of what the indexer finds, before any store."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from pybridge.cli import main
from pybridge.errors import PybridgeError


@main.command("index", help=(
    "Index Java source roots with the JDT indexer and print what it found "
    "(a debugging view of the facts, before any store). ROOTS are source folders, "
    "e.g. samples/kitchen-sink/src/main/java."))
@click.argument("roots", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--classpath", "-cp", default="", help="Jars and class folders, separated by ':'.")
@click.option("--release", default="17", show_default=True, help="Java release of the sources.")
@click.option("--encoding", default="UTF-8", show_default=True, help="Source encoding.")
@click.option("--heap", default=None, help="Worker JVM heap, e.g. 2g (default: PYBRIDGE_HEAP or 1600m).")
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
    worker_args: dict[str, Any] = {"heap": heap} if heap else {}
    try:
        with Worker(**worker_args) as worker, Progress(
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


