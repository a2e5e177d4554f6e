"""`Store`: opening the database, staging generations, handing out readers."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pybridge.errors import StoreError

from . import faults, schema
from . import gc as _gc
from .db import connect, error, transaction
from .lock import WriterLock
from .reader import GenerationCache, Reader, generation_info
from .rows import GenerationInfo
from .schema import PUBLISHED, STAGING
from .staging import Staging, dumps

DEFAULT_KEEP = 3
OWN = ""     # the checkout name of a store's own workspace (every store of one workspace)
KEEP_ENV = "PYBRIDGE_KEEP_GENERATIONS"
DEFAULT_BATCH_ROWS = 50_000
_IDLE_READERS = 4
_MIGRATION_WAIT = 10.0


@dataclass(frozen=True, slots=True)
class Sibling:
    """Another checkout served from the same store, and its current generation."""

    checkout: str                 # its name in the store (its root)
    generation: GenerationInfo    # its current generation (`current` is False: not this checkout's)
    state_dir: str | None         # its state folder, as its last writer registered it


class Store:
    """The SQLite store of one workspace, or of the checkouts of one repository (each a
    `checkout`: its own generations and current pointer over shared file versions and facts).
    One writer (staging) at a time; any number of readers, in this process or others."""

    def __init__(self, path: Path, conn: sqlite3.Connection, lock: WriterLock, keep: int,
                 batch_rows: int, readonly: bool = False, checkout: str = OWN) -> None:
        self.path = path
        self.checkout = checkout
        self.keep = keep
        self.readonly = readonly
        self.batch_rows = batch_rows
        self._conn = conn
        self._lock = lock
        self._mutex = threading.RLock()
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        self._generation_cache = GenerationCache()   # what readers compute from a published generation
        # per pooled reader connection: (it, its data_version, (generation, checkout) asked, the answer)
        self._selected: dict[int, tuple[sqlite3.Connection, int, tuple[int | None, str], GenerationInfo]] = {}

    @classmethod
    def open(cls, path: Path | str, *, keep: int | None = None,
             batch_rows: int = DEFAULT_BATCH_ROWS, readonly: bool = False,
             checkout: str = OWN, state_dir: Path | None = None) -> Store:
        """Open the store at `path` as checkout `checkout` (default `OWN`, '': the store's own
        workspace; a shared store names each checkout by its root). A writer registers the
        checkout (with its state folder `state_dir`) when the store has no row for it yet.

        A writer (the default; a sync) creates the file if needed, applies
        pending schema migrations and, when no other sync is staging,
        collects the debris of crashed syncs and the generations beyond
        `keep` (default: `configured_keep()`, i.e. PYBRIDGE_KEEP_GENERATIONS
        or 3), under the writer lock.

        A reader (`readonly=True`; every query) never collects and never
        writes: it opens the file read-only, so it answers on a full disk,
        and cannot stage. The one exception is a schema upgrade left
        pending by an older pybridge, which a reader applies (under the
        writer lock) before it opens read-only. A missing file is a
        StoreError with reason `not_synced`.
        """
        path = Path(path)
        lock = WriterLock(path.with_name(path.name + ".lock"))
        if readonly:
            return cls._open_reader(path, lock, keep or DEFAULT_KEEP, batch_rows, checkout)
        if keep is None:
            keep = configured_keep()
        if keep < 1:
            raise StoreError(f"keep must be at least 1 (got {keep}); the current generation "
                             f"is always kept.")
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"The state folder {path.parent} cannot be created ({exc}); pass a writable "
                f"--state-dir.", path=str(path),
            ) from exc
        conn = connect(path)
        try:
            if schema.pending(conn):
                _migrate(conn, lock, path, keep)
            _register(conn, checkout, state_dir)
            if lock.try_acquire():   # nobody is staging: collect a crashed sync's debris
                try:
                    if _gc.needed(conn, keep):
                        _gc.collect(conn, keep)
                finally:
                    lock.release()
        except sqlite3.Error as exc:
            conn.close()
            raise error(path, "opened", exc) from exc
        except BaseException:
            conn.close()
            raise
        return cls(path, conn, lock, keep, batch_rows, checkout=checkout)

    @classmethod
    def _open_reader(cls, path: Path, lock: WriterLock, keep: int, batch_rows: int, checkout: str) -> Store:
        conn = connect(path, readonly=True)
        try:
            if schema.pending(conn):
                conn.close()
                writer = connect(path)
                try:
                    _migrate(writer, lock, path, keep, collect=False)
                except sqlite3.Error as exc:
                    raise error(path, "upgraded", exc) from exc
                finally:
                    writer.close()
                conn = connect(path, readonly=True)
        except sqlite3.Error as exc:
            conn.close()
            raise error(path, "opened", exc) from exc
        except BaseException:
            conn.close()
            raise
        return cls(path, conn, lock, keep, batch_rows, readonly=True, checkout=checkout)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            self._lock.release()
            for conn in self._idle:
                conn.close()
            self._idle.clear()
            self._selected.clear()
            self._conn.close()

    # writing ---------------------------------------------------------------

    def stage(self, snapshot: dict[str, Any], meta: dict[str, Any], collect: bool = True) -> Staging:
        """Start a new, unpublished generation; raises StoreError when another
        sync holds the writer lock.

        `snapshot` is the input fingerprint (files, poms, classpath, release,
        indexer version); `meta` the sync's metadata (commit, generated_at,
        limitations, modules…). Both are stored as JSON. `collect=False`: the publish does not
        collect (the next writer's open or stage does, or `gc`).
        """
        self._check_open()
        self._check_writer()
        snapshot_json, meta_json = dumps(snapshot, "snapshot"), dumps(meta, "metadata")
        with self._mutex:
            if not self._lock.try_acquire():
                raise StoreError(
                    f"Another sync is writing the store at {self.path}; wait for it to finish, "
                    f"then sync again.", path=str(self.path),
                )
            try:
                if _gc.needed(self._conn, self.keep):
                    _gc.collect(self._conn, self.keep)
                with transaction(self._conn):
                    checkout_id = _checkout_id(self._conn, self.checkout)
                    generation_id = self._conn.execute(
                        "INSERT INTO generations (checkout_id, state, created_at, snapshot, meta)"
                        " VALUES (?, ?, ?, ?, ?) RETURNING id",
                        (checkout_id, STAGING, datetime.now(timezone.utc).isoformat(timespec="seconds"),
                         snapshot_json, meta_json),
                    ).fetchone()[0]
                    # Nothing stored yet (a first sync): the staging writes in bulk (see Staging).
                    # PYBRIDGE_BULK_STAGING=0 never does (bench/staging.py compares the two).
                    bulk = os.environ.get("PYBRIDGE_BULK_STAGING", "1") != "0" and self._conn.execute(
                        "SELECT NOT EXISTS (SELECT 1 FROM file_versions)").fetchone()[0]
            except sqlite3.Error as exc:
                self._lock.release()
                raise error(self.path, "written", exc) from exc
            except BaseException:
                self._lock.release()
                raise
        try:
            return Staging(conn=self._conn, path=self.path, lock=self._lock, keep=self.keep,
                           checkout_id=checkout_id, generation_id=generation_id, meta=json.loads(meta_json),
                           batch_rows=self.batch_rows, bulk=bool(bulk), collect=collect)
        except sqlite3.Error as exc:
            self._lock.release()
            raise error(self.path, "written", exc) from exc

    def refresh_generation(self, number: int, snapshot: dict[str, Any], meta_updates: dict[str, Any]) -> None:
        """Bring a published generation's snapshot (file stats) and metadata up to date when
        a sync found no input changed (files touched, a commit made): its facts, number, keys
        and cursors stay as they are. Raises StoreError when another sync holds the writer lock."""
        self._check_open()
        with self._mutex:
            if not self._lock.try_acquire():
                raise StoreError(f"Another sync is writing the store at {self.path}; sync again when it "
                                 f"has finished.", path=str(self.path))
            try:
                with transaction(self._conn):
                    row = self._conn.execute(
                        "SELECT g.id, g.meta FROM generations g JOIN checkouts c ON c.id = g.checkout_id"
                        " WHERE c.name = ? AND g.number = ? AND g.state = ?",
                        (self.checkout, number, PUBLISHED)).fetchone()
                    if row is None:
                        return
                    meta = {**json.loads(row[1]), **meta_updates}
                    self._conn.execute("UPDATE generations SET snapshot = ?, meta = ? WHERE id = ?",
                                       (dumps(snapshot, "snapshot"), dumps(meta, "metadata"), row[0]))
            except sqlite3.Error as exc:
                raise error(self.path, "written", exc) from exc
            finally:
                self._lock.release()

    def gc(self) -> _gc.Collected:
        """Collect now (normally automatic after publish and on open); a writer's job."""
        self._check_open()
        self._check_writer()
        with self._mutex:
            if not self._lock.try_acquire():
                return _gc.Collected(0, 0)
            try:
                return _gc.collect(self._conn, self.keep)
            except sqlite3.Error as exc:
                raise error(self.path, "cleaned up", exc) from exc
            finally:
                self._lock.release()

    def forget(self, checkouts: list[str]) -> int:
        """Remove other checkouts from a shared store (a removed worktree): their generations, their
        rows, and the file versions no remaining generation lists. Returns how many were removed; 0
        when another sync holds the writer lock (the next one tries again)."""
        self._check_open()
        self._check_writer()
        names = [name for name in checkouts if name not in (self.checkout, OWN)]
        if not names:
            return 0
        with self._mutex:
            if not self._lock.try_acquire():
                return 0
            try:
                with transaction(self._conn):
                    ids = [row[0] for name in names for row in self._conn.execute(
                        "SELECT id FROM checkouts WHERE name = ?", (name,))]
                    for checkout_id in ids:
                        self._conn.execute("UPDATE checkouts SET generation_id = NULL WHERE id = ?", (checkout_id,))
                        self._conn.execute("DELETE FROM generations WHERE checkout_id = ?", (checkout_id,))
                        self._conn.execute("DELETE FROM checkouts WHERE id = ?", (checkout_id,))
                    if ids:
                        self._conn.execute("DELETE FROM file_versions"
                                           " WHERE id NOT IN (SELECT file_version_id FROM manifest)")
                    faults.hit("forget.before_commit")
                return len(ids)
            except sqlite3.Error as exc:
                raise error(self.path, "cleaned up", exc) from exc
            finally:
                self._lock.release()

    # reading ---------------------------------------------------------------

    def current_generation(self) -> GenerationInfo | None:
        """The current published generation, or None before the first publish."""
        return self._one_generation(None)

    def generations(self) -> list[GenerationInfo]:
        """The kept published generations, newest first."""
        self._check_open()
        conn = self._checkout()
        try:
            rows = conn.execute(
                "SELECT g.id, g.number, g.published_at, g.snapshot, g.meta,"
                " g.id IS c.generation_id FROM generations g JOIN checkouts c ON c.id = g.checkout_id"
                " WHERE c.name = ? AND g.state = ? ORDER BY g.number DESC",
                (self.checkout, PUBLISHED),
            ).fetchall()
        except sqlite3.Error as exc:
            raise error(self.path, "read", exc) from exc
        finally:
            self._checkin(conn)
        return [generation_info(row) for row in rows]

    def siblings(self) -> list[Sibling]:
        """The other checkouts of this store that have a current generation (a shared store's
        other checkouts of the repository; none in a store of one workspace)."""
        self._check_open()
        conn = self._checkout()
        try:
            rows = conn.execute(
                "SELECT name, state_dir FROM checkouts WHERE name <> ? AND generation_id IS NOT NULL ORDER BY id",
                (self.checkout,)).fetchall()
            found = [(name, folder, _select_generation(conn, None, str(self.path), name)) for name, folder in rows]
        except sqlite3.Error as exc:
            raise error(self.path, "read", exc) from exc
        finally:
            self._checkin(conn)
        return [Sibling(name, replace(info, current=False), folder) for name, folder, info in found
                if info is not None]

    def reader(self, generation: int | None = None, checkout: str | None = None) -> Reader:
        """A reader pinned to generation number `generation` (default: current) of this
        checkout, or of the sibling `checkout` (a sync planned from a sibling's generation).

        The reader holds a read transaction until closed (use it in a `with`
        block), so a publish or GC meanwhile is not seen. Raises StoreError
        when there is no such published generation (`details['reason']` is
        `not_synced` or `not_kept`).
        """
        self._check_open()
        conn = self._checkout()
        try:
            conn.execute("BEGIN")
            info = self._select(conn, generation, self.checkout if checkout is None else checkout)
        except sqlite3.Error as exc:
            self._checkin(conn)
            raise error(self.path, "read", exc) from exc
        if info is None:
            self._checkin(conn)
            if generation is None:
                raise StoreError(
                    f"The store at {self.path} has no published generation yet; run sync first.",
                    reason="not_synced",
                )
            raise StoreError(
                f"Generation {generation} is not kept in the store at {self.path} any more; "
                f"repeat the query on the current generation.",
                reason="not_kept", generation=generation,
            )
        return Reader(conn, info, self._checkin, self._generation_cache, store=str(self.path))

    def _select(self, conn: sqlite3.Connection, generation: int | None, checkout: str) -> GenerationInfo | None:
        """The generation's row, read again only when the database changed since this connection last
        read it (PYBRIDGE_SNAPSHOT_ONCE): `PRAGMA data_version`, the first statement of the read
        transaction (it fixes the snapshot the reader sees), differs from the connection's last value
        exactly when another connection committed meanwhile (a reader connection never writes). A
        generation's row holds its snapshot (640 KB of text on a 1,700-file reactor), which a no-op
        sync may refresh in place: that is a commit, and the row is read again."""
        if not snapshot_once_enabled():
            return _select_generation(conn, generation, str(self.path), checkout)
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        asked = (generation, checkout)
        with self._mutex:
            seen = self._selected.get(id(conn))
        if seen is not None and seen[0] is conn and seen[1] == version and seen[2] == asked:
            return seen[3]
        info = _select_generation(conn, generation, str(self.path), checkout)
        if info is not None:
            with self._mutex:
                self._selected[id(conn)] = (conn, version, asked, info)
        return info

    def applied_migrations(self) -> list[str]:
        with self._mutex:
            return schema.applied(self._conn)

    def stats(self) -> dict[str, int]:
        """Row counts per table and `bytes`: the pages in use times the page size."""
        self._check_open()
        with self._mutex:
            conn = self._conn
            out = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("symbols", "generations", "manifest", "file_versions",
                              "declarations", "refs", "relations", "problems")
            }
            page_size = conn.execute("PRAGMA page_size").fetchone()[0]
            used = (conn.execute("PRAGMA page_count").fetchone()[0]
                    - conn.execute("PRAGMA freelist_count").fetchone()[0])
            out["bytes"] = used * page_size
            return out

    # internals -------------------------------------------------------------

    def _check_writer(self) -> None:
        if self.readonly:
            raise StoreError(f"The store at {self.path} was opened read-only (for queries); "
                             f"open it as a writer to stage or collect.")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"The store at {self.path} is closed; open it again.")

    def _one_generation(self, number: int | None) -> GenerationInfo | None:
        self._check_open()
        conn = self._checkout()
        try:
            return _select_generation(conn, number, str(self.path), self.checkout)
        except sqlite3.Error as exc:
            raise error(self.path, "read", exc) from exc
        finally:
            self._checkin(conn)

    def _checkout(self) -> sqlite3.Connection:
        with self._mutex:
            if self._idle:
                return self._idle.pop()
        return connect(self.path, readonly=True)

    def _checkin(self, conn: sqlite3.Connection) -> None:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            self._forget(conn)
            conn.close()
            return
        with self._mutex:
            if not self._closed and len(self._idle) < _IDLE_READERS:
                self._idle.append(conn)
                return
        self._forget(conn)
        conn.close()

    def _forget(self, conn: sqlite3.Connection) -> None:
        with self._mutex:
            seen = self._selected.get(id(conn))
            if seen is not None and seen[0] is conn:
                del self._selected[id(conn)]


def _register(conn: sqlite3.Connection, checkout: str, state_dir: Path | None) -> None:
    """A writer's checkout has its row (created on first open; its state folder kept current)."""
    folder = None if state_dir is None else str(state_dir)
    row = conn.execute("SELECT state_dir FROM checkouts WHERE name = ?", (checkout,)).fetchone()
    if row is not None and (folder is None or row[0] == folder):
        return
    with transaction(conn):
        conn.execute("INSERT INTO checkouts (name, state_dir) VALUES (?, ?)"
                     " ON CONFLICT (name) DO UPDATE SET state_dir = coalesce(excluded.state_dir, state_dir)",
                     (checkout, folder))


def _checkout_id(conn: sqlite3.Connection, checkout: str) -> int:
    row = conn.execute("SELECT id FROM checkouts WHERE name = ?", (checkout,)).fetchone()
    if row is None:
        raise StoreError(f"The store has no checkout {checkout!r}; open it as a writer to register it.")
    return int(row[0])


def configured_keep() -> int:
    """How many published generations a writer keeps: PYBRIDGE_KEEP_GENERATIONS, default 3."""
    raw = os.environ.get(KEEP_ENV, "").strip()
    if not raw:
        return DEFAULT_KEEP
    try:
        value = int(raw)
    except ValueError:
        raise StoreError(f"{KEEP_ENV}={raw!r} is not a number; set it to how many generations "
                         f"to keep (1 or more), or unset it for {DEFAULT_KEEP}.") from None
    if value < 1:
        raise StoreError(f"{KEEP_ENV}={raw!r}: at least 1 generation (the current one) is kept; "
                         f"set 1 or more, or unset it for {DEFAULT_KEEP}.")
    return value


def _migrate(conn: sqlite3.Connection, lock: WriterLock, path: Path, keep: int,
             collect: bool = True) -> None:
    """Apply pending migrations under the writer lock (and collect, for a writer)."""
    # Another opener may be migrating right now: wait for it briefly.
    if not lock.acquire(timeout=_MIGRATION_WAIT):
        raise StoreError(
            f"The store at {path} needs a schema upgrade while another sync is "
            f"writing it; retry when that sync has finished.", path=str(path),
        )
    try:
        schema.migrate(conn)
        if collect and _gc.needed(conn, keep):
            _gc.collect(conn, keep)
    finally:
        lock.release()


_PARSED: dict[tuple[str, int], tuple[str, str, dict[str, Any], dict[str, Any]]] = {}
_PARSED_LOCK = threading.Lock()
_PARSED_KEPT = 16


SNAPSHOT_ONCE_ENV = "PYBRIDGE_SNAPSHOT_ONCE"


def snapshot_once_enabled() -> bool:
    """On unless set to 0 (the store reads its switches as PYBRIDGE_FAST_PAGES: it imports nothing of
    pybridge but facts and errors)."""
    return os.environ.get(SNAPSHOT_ONCE_ENV, "1") != "0"


def _select_generation(conn: sqlite3.Connection, number: int | None, store: str,
                       checkout: str) -> GenerationInfo | None:
    """The generation's row, its snapshot and meta parsed only when their text changed: on guava
    parsing them took a third of a millisecond-scale query. The text is read every time and
    compared (a no-op sync refreshes a published generation's snapshot in place), and the cache
    is keyed by the store file (`store`) and the row id. Callers must not mutate the dicts."""
    if number is None:
        row = conn.execute(
            "SELECT g.id, g.number, g.published_at, 1, g.snapshot, g.meta"
            " FROM checkouts c JOIN generations g ON g.id = c.generation_id WHERE c.name = ?", (checkout,)
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT g.id, g.number, g.published_at, g.id IS c.generation_id, g.snapshot, g.meta"
            " FROM generations g JOIN checkouts c ON c.id = g.checkout_id"
            " WHERE c.name = ? AND g.number = ? AND g.state = ?",
            (checkout, number, PUBLISHED),
        ).fetchone()
    if not row:
        return None
    key = (store, row[0])
    with _PARSED_LOCK:
        hit = _PARSED.get(key)
    if hit is not None and hit[0] == row[4] and hit[1] == row[5]:
        parsed = (hit[2], hit[3])
    else:
        parsed = (json.loads(row[4]), json.loads(row[5]))
        with _PARSED_LOCK:
            if len(_PARSED) >= _PARSED_KEPT:
                _PARSED.pop(next(iter(_PARSED)))
            _PARSED[key] = (row[4], row[5], *parsed)
    return GenerationInfo(id=row[0], number=row[1], published_at=row[2], snapshot=parsed[0], meta=parsed[1],
                          current=bool(row[3]))
