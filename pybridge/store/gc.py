"""Garbage collection: unpublished generations and versions no kept generation uses.

Runs under the writer lock, in one transaction: it deletes every unpublished
generation (debris of a sync that crashed or was discarded: the lock is the
store's, so no checkout is staging), every published generation older than
its checkout's newest `keep` (never a checkout's current one), and then every
file version that no remaining manifest lists, whichever checkout's
generation lists it (checkouts of one repository share a store); the version's
declarations, references, relations and problems go with it (ON DELETE
CASCADE). Symbols are never deleted. Freed pages are returned to the file
system afterwards (incremental vacuum).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from . import faults
from .db import transaction
from .schema import PUBLISHED, STAGING, restore_indexes


@dataclass(frozen=True, slots=True)
class Collected:
    generations: int
    file_versions: int


def needed(conn: sqlite3.Connection, keep: int) -> bool:
    """Whether `collect` would delete anything (cheap; for opening a store)."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM generations WHERE state = ?),"
        "       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM generations"
        "        WHERE state = ? GROUP BY checkout_id))",
        (STAGING, PUBLISHED),
    ).fetchone()
    staging: int = row[0]
    published: int = row[1]
    return staging > 0 or published > keep


def collect(conn: sqlite3.Connection, keep: int) -> Collected:
    """Delete what no kept generation needs. `conn` is in autocommit mode.

    First, the indexes a first sync's staging dropped (`Staging`, bulk) are built again if a
    crash left them dropped: its unpublished generation is what this collects, and the cascades
    look rows up through them."""
    restore_indexes(conn)
    with transaction(conn):
        generations = conn.execute(
            "DELETE FROM generations WHERE state = ?", (STAGING,)
        ).rowcount
        generations += conn.execute(
            """
            DELETE FROM generations
            WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER (
                                             PARTITION BY checkout_id ORDER BY number DESC) AS newest
                                         FROM generations WHERE state = :published)
                         WHERE newest > :keep)
              AND id NOT IN (SELECT generation_id FROM checkouts WHERE generation_id IS NOT NULL)
            """,
            {"published": PUBLISHED, "keep": keep},
        ).rowcount
        versions = 0
        if generations:
            versions = conn.execute(
                "DELETE FROM file_versions"
                " WHERE id NOT IN (SELECT file_version_id FROM manifest)"
            ).rowcount
        faults.hit("gc.before_commit")
    if generations:
        conn.execute("PRAGMA incremental_vacuum")
    return Collected(generations, versions)
