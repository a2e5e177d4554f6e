"""Naming a full disk: "disk full: free space on <volume>".

SQLite reports a full disk as `SQLITE_FULL` ("database or disk is full")
when a write of the database or its journal fails, but as an I/O error
("disk I/O error", `SQLITE_IOERR_*`) when the shared-memory index or a
temporary file cannot grow; Python reports `ENOSPC` (or `EDQUOT`). Any of
these on a volume with (almost) no space left is a full disk, and the
message says which volume to free, never "check that the folder is
writable".
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

# Below this many free bytes an I/O error is put down to the full disk.
NEARLY_FULL = 1 << 20

_SQLITE_FULL = 13
_SQLITE_IOERR = 10
_NOSPACE = {errno.ENOSPC, errno.EDQUOT}


def volume(path: Path | str) -> Path:
    """The mount point of the volume that holds `path` (or would hold it)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p != p.parent:
        p = p.parent
    while not os.path.ismount(p) and p != p.parent:
        p = p.parent
    return p


def free_bytes(path: Path | str) -> int | None:
    """Bytes an unprivileged writer may still use on `path`'s volume (None when unknown)."""
    try:
        st = os.statvfs(volume(path))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def is_disk_full(exc: BaseException, path: Path | str) -> bool:
    """Whether `exc`, raised writing at `path`, is a full disk."""
    if isinstance(exc, OSError) and exc.errno in _NOSPACE:
        return True
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and code & 0xFF == _SQLITE_FULL:
            return True
        io_error = (code is not None and code & 0xFF == _SQLITE_IOERR) or "disk i/o error" in str(exc).lower()
        if io_error:
            free = free_bytes(path)
            return free is not None and free < NEARLY_FULL
    return False


def describe(path: Path | str) -> str:
    """`disk full: free space on /mnt/state (12 KiB free)`."""
    free = free_bytes(path)
    shown = f" ({free // 1024} KiB free)" if free is not None else ""
    return f"disk full: free space on {volume(path)}{shown}"
