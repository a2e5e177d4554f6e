"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click


def state_dir_option(f):
    return click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        help="Where pybridge keeps this workspace's state (default: a folder under the user "
                             "cache directory; PYBRIDGE_STATE_DIR also sets it).")(f)
