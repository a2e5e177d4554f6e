"""Store files as an older pybridge left them, for the migration tests (no tests here)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pybridge.store.schema import MIGRATIONS


def store_at_migration(path: Path, count: int, *, foreign_keys: bool = False) -> sqlite3.Connection:
    """A new store file with only the first `count` schema migrations applied and recorded, open
    in autocommit mode (the caller adds rows of that schema, closes it, then opens it with `Store`)."""
    conn = sqlite3.connect(path, isolation_level=None)
    if foreign_keys:
        conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("CREATE TABLE migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
                 " applied_at TEXT NOT NULL)")
    for name, fn in MIGRATIONS[:count]:
        fn(conn)
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (?, 'x')", (name,))
    return conn
