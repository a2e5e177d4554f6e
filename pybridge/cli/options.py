"""Options shared by several commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pybridge.query import BUILD_TOOL_HELP, BUILD_TOOLS

F = TypeVar("F", bound=Callable[..., Any])


def build_tool_option(f: F) -> F:
    return click.option("--build-tool", "build_tool", type=click.Choice(BUILD_TOOLS), default=BUILD_TOOLS[0],
                        show_default=True, help=BUILD_TOOL_HELP)(f)


def state_dir_option(f: F) -> F:
    return click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="The folder where pybridge keeps this workspace's state (default: a folder of "
                             "its own under PYBRIDGE_STATE_DIR, else under the user cache directory). "
                             "A state folder belongs to one workspace and refuses another.")(f)
