"""Connections, transactions and SQLite errors turned into `StoreError`.

Connection settings (every connection):
- autocommit mode (`isolation_level=None`): transactions are explicit
  `BEGIN`/`COMMIT`, one per unit of work;
- `journal_mode=WAL` (a property of the file): readers in other processes
  read the last committed state while the writer writes;
- `synchronous=NORMAL`: in WAL mode a commit survives a process crash, and
  after power loss the database is consistent but may lose the last commits.
  The publish commit alone runs with `synchronous=FULL`, so a published
  generation survives power loss too (FULL syncs the WAL, including the
  staging batches committed before it);
- `foreign_keys=ON`: cascades delete a file version's rows;
- `busy_timeout`: wait for a concurrent writer (a migration, GC) instead of
  failing at once.
- New files get `auto_vacuum=INCREMENTAL` so GC can hand pages back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pybridge.errors import StoreError

BUSY_TIMEOUT_MS = 10_000


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    except sqlite3.Error as exc:
        raise error(path, "opened", exc) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not readonly and conn.execute("PRAGMA page_count").fetchone()[0] == 0:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(
                f"The store at {path} cannot use write-ahead logging (journal mode {mode}); "
                f"put the state folder on a local file system (--state-dir).",
                path=str(path),
            )
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if readonly:
            conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as exc:
        conn.close()
        raise error(path, "opened", exc) from exc
    except StoreError:
        conn.close()
        raise
    return conn


def error(path: Path, action: str, exc: BaseException) -> StoreError:
    """A StoreError for a failed SQLite call, saying what to do next."""
    text = str(exc)
    lowered = text.lower()
    if "full" in lowered:
        advice = "free disk space and sync again; the last published generation is still served"
    elif isinstance(exc, sqlite3.DatabaseError) and (
        "malformed" in lowered or "not a database" in lowered
    ):
        advice = "delete the state folder (or pass another --state-dir) and sync again"
    elif "locked" in lowered or "busy" in lowered:
        advice = "another pybridge process is writing it; wait for it to finish and retry"
    else:
        advice = "check that the state folder is writable and sync again"
    return StoreError(
        f"The store at {path} could not be {action} ({text}); {advice}.",
        path=str(path), sqlite_error=text,
    )


@contextmanager
def transaction(conn: sqlite3.Connection, mode: str = "IMMEDIATE") -> Iterator[None]:
    """One transaction; rolled back when the body raises."""
    conn.execute(f"BEGIN {mode}")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
