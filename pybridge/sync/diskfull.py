"""A sync that hits a full disk says so: "disk full: free space on <volume>".

The store names a full disk in its own errors (`pybridge.store.diskfull`);
`names_full_disk` does the same for everything else a sync writes (the
state folder's files, Maven's scratch reactor, the worker's temporary
files), which would otherwise surface as an `OSError` traceback.
"""

from __future__ import annotations

import functools
import inspect
import sqlite3
from pathlib import Path
from typing import Any, Callable, TypeVar

from pybridge.errors import PybridgeError
from pybridge.store import diskfull

from .state import state_dir_for

F = TypeVar("F", bound=Callable[..., Any])


class DiskFullError(PybridgeError):
    """The disk that holds the state folder (or a file the sync writes) is full."""

    code = "sync_failed"


def full_disk_error(exc: BaseException, path: Path | str) -> DiskFullError:
    where = getattr(exc, "filename", None) or path
    return DiskFullError(
        f"The sync stopped: {diskfull.describe(where)} ({exc}), then sync again; the last "
        f"published generation is still served.", reason="disk_full", volume=str(diskfull.volume(where)))


def names_full_disk(fn: F) -> F:
    """Turn a full disk met anywhere in `fn` (a sync taking `root` and `state_dir`) into DiskFullError."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (OSError, sqlite3.Error) as exc:
            bound = signature.bind(*args, **kwargs)
            state = state_dir_for(Path(bound.arguments["root"]).resolve(), bound.arguments.get("state_dir"))
            if diskfull.is_disk_full(exc, getattr(exc, "filename", None) or state):
                raise full_disk_error(exc, state) from exc
            raise

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps fn's signature
