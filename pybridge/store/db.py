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
- New files get `auto_vacuum=INCREMENTAL` so GC can hand pages back, and are
  created 0600 before SQLite opens them (SQLite gives the `-wal` and `-shm`
  files the database's mode).

Read-only connections (`readonly=True`, the query path) open the file with
`mode=ro` and `query_only`, never set a pragma that writes, and so answer
on a full disk. When the disk is so full that SQLite cannot even create
the shared-memory index of a WAL database (a fresh reader after the last
connection closed), and no `-wal` file holds commits the database lacks,
the reader falls back to `immutable=1`: safe then, because nothing can be
written to a full disk, and the fallback lasts only that connection.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from pybridge.errors import StoreError

from . import diskfull, faults

BUSY_TIMEOUT_MS = 10_000


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        return _connect_readonly(path)
    try:
        if not path.exists():     # 0600 from the start: -wal and -shm inherit the mode
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
        )
    except (sqlite3.Error, OSError) as exc:
        raise error(path, "opened", exc) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        _check_wal(path, mode)
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        faults.connected(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise error(path, "opened", exc) from exc
    except StoreError:
        conn.close()
        raise
    return conn


def _connect_readonly(path: Path) -> sqlite3.Connection:
    try:
        return _open_readonly(path, immutable=False)
    except (sqlite3.Error, StoreError) as exc:
        cause = exc.__cause__ if isinstance(exc, StoreError) else exc
        wal = path.with_name(path.name + "-wal")
        no_commits_aside = not wal.exists() or wal.stat().st_size == 0
        if isinstance(cause, sqlite3.Error) and no_commits_aside and diskfull.is_disk_full(cause, path):
            try:
                return _open_readonly(path, immutable=True)
            except (sqlite3.Error, StoreError):
                pass
        if isinstance(exc, StoreError):
            raise
        raise error(path, "opened", exc) from exc


def _open_readonly(path: Path, *, immutable: bool) -> sqlite3.Connection:
    if not path.exists():
        raise StoreError(f"The store at {path} does not exist; run sync first.", path=str(path),
                         reason="not_synced")
    uri = f"file:{quote(str(path))}?mode=ro" + ("&immutable=1" if immutable else "")
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if not immutable:
            mode = _settled_mode(conn, mode)
            _check_wal(path, mode)
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()   # reads now, fails now
    except sqlite3.Error as exc:
        conn.close()
        raise error(path, "opened", exc) from exc
    except StoreError:
        conn.close()
        raise
    return conn


def _settled_mode(conn: sqlite3.Connection, mode: str) -> str:
    """The journal mode once a store being created has switched to WAL: a sync that creates the store
    makes the file before its first statement sets WAL, and a reader opening it in between (a query while
    serve's first sync starts) would see `delete`. An empty file is waited for (up to 2 s); a store with
    tables whose mode is not WAL is on a file system that refused WAL, and says so at once."""
    deadline = time.monotonic() + 2.0
    while mode.lower() != "wal":
        # the mode is read after the read that sees the tables: a mode read before it may be the
        # empty file's, though the writer set WAL and made its tables in between
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if tables or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    return str(mode)


def _check_wal(path: Path, mode: str) -> None:
    if mode.lower() != "wal":
        raise StoreError(
            f"The store at {path} cannot use write-ahead logging (journal mode {mode}); "
            f"put the state folder on a local file system (--state-dir).",
            path=str(path),
        )


def error(path: Path, action: str, exc: BaseException) -> StoreError:
    """A StoreError for a failed SQLite call, saying what to do next."""
    text = str(exc)
    lowered = text.lower()
    if diskfull.is_disk_full(exc, path):
        full = diskfull.describe(path)
        return StoreError(
            f"The store at {path} could not be {action}: {full} ({text}), then sync again; "
            f"the last published generation is still served.",
            path=str(path), sqlite_error=text, reason="disk_full", volume=str(diskfull.volume(path)),
        )
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
