"""The `pybridge` command line.

A thin shell over the library: each command parses its arguments, calls
`pybridge.sync` or the query facade (`pybridge.query.Facade`), and prints.
It never touches SQL and never imports jpype (the worker child does).
"""

from __future__ import annotations

import click

from pybridge import __version__


@click.group(help="Compiler-exact Java code intelligence: JDT facts for coding agents.")
@click.version_option(__version__, prog_name="pybridge")
def main() -> None:
    pass


import sys  # noqa: E402 - the early start below belongs beside the imports it overlaps

from pybridge.cli import early  # noqa: E402 - see the comment below

early.start_if_syncing(sys.argv)    # `pybridge sync`: the JVM starts while the commands are imported

from pybridge.cli import (  # noqa: E402, F401 - importing them registers their commands on main
    commands_index,
    commands_structure,
    commands_sync,
    commands_tools,
)

__all__ = ["main"]
