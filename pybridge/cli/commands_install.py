"""`pybridge doctor` and `pybridge init`: shells over `pybridge.install`."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import click

from pybridge.cli import main
from pybridge.cli.options import state_dir_option

# The client names, for --client's choices, without importing pybridge.install (and the workspace
# model, the store and the worker with it) for every other command; a test checks they agree.
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex")

CLIENT_NOTES = {
    "claude-code": "Claude Code asks once to approve the servers of a project's .mcp.json.",
    "codex": "Codex reads .codex/config.toml in trusted projects only.",
    "claude-desktop": "Restart Claude Desktop to start the server.",
}
MAX_DETAILS = 20


@main.command("doctor", help=(
    "Check what serving the workspace at PATH (default: the current directory) needs: the JDK (version, "
    "path and how it was found), the indexer's jars, Maven and Gradle, the workspace's build system and "
    "modules, the state folder and its size, the inotify watch limit against the workspace's folders, and "
    "the client configurations that `pybridge init` writes. Exits 0 when all is well, else 1, with a fix "
    "for each problem."))
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@state_dir_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (checks with status, summary, "
                                                      "fix and details).")
def doctor_command(path: Path, state_dir: Path | None, as_json: bool) -> None:
    from pybridge.install import PROBLEM, doctor

    report = doctor(path, state_dir=state_dir)
    if as_json:
        click.echo(json.dumps({"root": str(report.root), "ok": report.ok,
                               "checks": [dataclasses.asdict(c) for c in report.checks]}, indent=2))
        sys.exit(0 if report.ok else 1)
    click.echo(f"pybridge doctor: {report.root}")
    for check in report.checks:
        click.echo(f"{check.status:8} {check.name}: {check.summary}")
        if check.status == PROBLEM or check.name == "workspace":
            for line in check.details[:MAX_DETAILS]:
                click.echo(f"{'':10}{line}")
            if len(check.details) > MAX_DETAILS:
                click.echo(f"{'':10}… and {len(check.details) - MAX_DETAILS} more")
        if check.fix:
            click.echo(f"{'':9}fix: {check.fix}")
    problems = report.problems
    if problems:
        click.echo(f"{len(problems)} problem{'s' if len(problems) > 1 else ''}: "
                   f"{', '.join(c.name for c in problems)}.")
        sys.exit(1)
    click.echo("All is well.")


@main.command("init", help=(
    "Write an agent host's MCP configuration for the workspace at PATH (default: the current directory): "
    "the absolute command of this pybridge (`serve --repo PATH`) and the JAVA_HOME of the JDK it finds, "
    "merged into the host's own file without losing its other entries: .mcp.json (claude-code), Claude "
    "Desktop's claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json and .codex/config.toml "
    "(with longer start and tool timeouts)."))
@click.argument("path", required=False, default=".", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--client", "clients", multiple=True, required=True, type=click.Choice([*CLIENTS, "all"]),
              help="The host to configure (repeatable; `all` for every one).")
@click.option("--print", "print_only", is_flag=True,
              help="Only print the resulting file on stdout (each file's path on stderr); write nothing.")
@click.option("--name", default=None, help="The server's name in the file (default: pybridge; in Claude Desktop's "
                                           "file, which serves every workspace, pybridge-<folder name>).")
def init_command(path: Path, clients: tuple[str, ...], print_only: bool, name: str | None) -> None:
    from pybridge.install import InitError, JdkNotFoundError, config_path, find_jdk, render, spec_for, write

    root = path.resolve()
    chosen = list(CLIENTS) if "all" in clients else list(dict.fromkeys(clients))
    try:
        java_home: Path | None = find_jdk().home
    except JdkNotFoundError as exc:
        java_home = None
        click.echo(f"warning: the configuration sets no JAVA_HOME: {exc}", err=True)
    failed = False
    for client in chosen:
        target = config_path(client, root, os.environ)
        spec = spec_for(client, root, java_home=java_home, env=os.environ, name=name)
        try:
            config = render(client, target, spec)
        except InitError as exc:
            click.echo(f"error: {client}: {exc}", err=True)
            failed = True
            continue
        if print_only:
            if len(chosen) > 1:
                click.echo(f"==> {config.path} <==", err=True)
            click.echo(config.text, nl=False)
            continue
        write(config)
        verb = {"created": "created", "added": f"added {spec.name!r} to", "replaced": f"replaced {spec.name!r} in",
                "unchanged": f"{spec.name!r} already up to date in"}[config.action]
        click.echo(f"{client}: {verb} {config.path}")
        if client in CLIENT_NOTES:
            click.echo(f"  {CLIENT_NOTES[client]}")
    if failed:
        sys.exit(1)
