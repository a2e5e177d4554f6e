"""Named points in the write path where a crash test may stop the process.

`hit` does nothing. The store calls it as `faults.hit(point)` (looked up at
call time), so a test's child process can replace it with a function that
SIGKILLs itself at one point and then check that the store survives:

- `staging.batch_committed`: a staging batch was just committed
- `staging.indexes_built`: a first sync's staging built its indexes before its last file
  (`Staging.build_indexes`), and goes on staging
- `publish.before_indexes`: a first sync's publish, before it builds the indexes left
- `publish.before_commit`: the publish transaction is written, not committed
- `publish.after_commit`: published, retention GC not yet run
- `gc.before_commit`: GC deleted rows, not committed
- `forget.before_commit`: a removed checkout's generations deleted from a shared store, not committed

`connected(conn)` is called with every writing connection the store opens;
the fault suite replaces it to inject a full disk (`PRAGMA max_page_count`,
which makes SQLite fail the next write that needs a page with SQLITE_FULL,
exactly as a full volume does).
"""

from __future__ import annotations

import sqlite3


def hit(point: str) -> None:
    """No-op in production."""


def connected(conn: sqlite3.Connection) -> None:
    """No-op in production."""
