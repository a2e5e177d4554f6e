"""Staging one generation: file versions in batches, then one publish transaction.

A `Staging` holds the writer lock from `Store.stage` until it publishes or
is discarded. `add_file` either finds the file's version by digest (an
unchanged file: only a manifest row is written) or writes the version and
its rows. Rows go out in batches of about `batch_rows`, one transaction each,
always ending at a file boundary (an incremental sync's unchanged files are listed by
`reuse_versions`, which copies its parent generation's manifest rows in SQLite);
nothing staged is visible to readers, who only ever open published generations. `publish` commits what is left, then
marks the generation published and moves `current` in one short transaction
(with `synchronous=FULL`), then runs GC. Leaving the `with` block without
publishing discards the generation; a crash leaves it for the next open or
stage to collect.

A first sync's staging (nothing stored yet, `bulk`) writes without most
secondary indexes and without foreign-key checks, and builds the indexes when
told (`build_indexes`) or at publish: see `Staging.__init__`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pybridge.errors import StoreError
from pybridge.facts import FileFacts, Span

from . import faults, gc, namelist, schema
from .codec import CanonicalFacts, canonicalize
from .db import error, transaction
from .schema import (
    BLOCK_REASON_CODES,
    DECL_KIND_CODES,
    PROBLEM_KIND_CODES,
    PUBLISHED,
    REF_KIND_CODES,
    RELATION_KIND_CODES,
    STAGING,
)

if TYPE_CHECKING:
    from .lock import WriterLock

_CHUNK = 500  # host parameters per IN (...) lookup
STAGING_CACHE_KIB = 64 * 1024  # SQLite page cache while staging (KiB)

# Symbol cache entry: [id, kind, name, display, dotted, scip, external]
_ID, _KIND, _NAME, _DISPLAY, _DOTTED, _SCIP, _EXTERNAL = range(7)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StoreError(
            f"The {what} of a generation must be JSON (strings, numbers, lists, objects): {exc}.",
        ) from exc


def _span(span: Span) -> tuple[int, int, int, int]:
    line, col, end_line, end_col = span
    return line, col, end_line - line, end_col


def _check_relpath(relpath: str) -> None:
    p = PurePosixPath(relpath)
    if not relpath or "\\" in relpath or p.is_absolute() or ".." in p.parts or str(p) != relpath:
        raise StoreError(
            f"File path {relpath!r} must be relative to the workspace root, with '/' separators "
            f"and no '..'; pass the path relative to the root.",
            path=relpath,
        )


@dataclass(frozen=True, slots=True)
class FileSummary:
    """What incremental sync keeps per file version: the identifier tokens of its text, and
    binding key -> fingerprint of each declaration other files can depend on."""

    names: frozenset[str]
    signatures: dict[str, list[Any]]


class _Seed:
    """What one file says about a symbol: declared > library > referenced."""

    __slots__ = ("kind", "name", "display", "dotted", "scip", "external", "declared")

    def __init__(self) -> None:
        self.kind: int | None = None
        self.name: str | None = None
        self.display: str | None = None
        self.dotted: str | None = None
        self.scip: str | None = None
        self.external = False
        self.declared = False


class Staging:
    """An unpublished generation being written. Use as a context manager."""

    def __init__(self, *, conn: sqlite3.Connection, path: Path, lock: WriterLock, keep: int,
                 generation_id: int, meta: dict[str, Any], batch_rows: int, bulk: bool = False,
                 checkout_id: int = 1, collect: bool = True) -> None:
        self._conn = conn
        self.checkout_id = checkout_id
        self._path = path
        self._lock = lock
        self._keep = keep
        self._meta = meta
        self._batch_rows = batch_rows
        self._collect = collect     # collect after publishing (else the next writer does)
        self.generation_id = generation_id
        self.files_added = 0
        self.files_reused = 0
        self._paths: set[str] = set()
        self._pending_rows = 0
        self._symbols: dict[str, list[Any]] = {}
        self._next_id: int | None = None
        # True when `_symbols` holds every stored symbol (a bulk staging over an empty symbols
        # table): then no key needs looking up in the store.
        self._symbols_complete = False
        self._state = "open"   # open -> published | discarded | failed
        self.bulk = bulk
        # A staging writes hundreds of thousands of rows into three B-trees per table (the key and
        # two indexes on refs): with SQLite's default 2 MB page cache the index pages are evicted
        # and read back again and again (measured: 15% of staging's CPU on commons-lang3). Back
        # to the connection's own size when the staging ends.
        self._cache_size = conn.execute("PRAGMA cache_size").fetchone()[0]
        conn.execute(f"PRAGMA cache_size = {-STAGING_CACHE_KIB}")
        if bulk:
            # A first sync (no file version stored yet, so no reader can be served from one):
            # rows go into tables without their secondary indexes, which publish builds at once
            # (a sort each) instead of inserting each row into each index B-tree at a random
            # place; and without foreign-key checks, since every id written comes from this
            # staging's own symbols and versions. On guava's facts replayed without the JVM
            # (bench/staging.py) staging took 6.8 s instead of 8.6 s, publish 0.45 s more. Both
            # come back when the staging ends (`_end_bulk`); a crash in between leaves indexes
            # that the next writer's GC builds before it collects the debris (`gc.collect`).
            conn.execute("PRAGMA foreign_keys = OFF")
            try:
                schema.drop_indexes(conn)
                # Symbols outlive the versions that used them (no GC collects them): only an empty
                # table lets this staging's own symbols stand for all of them.
                self._symbols_complete = bool(conn.execute(
                    "SELECT NOT EXISTS (SELECT 1 FROM symbols)").fetchone()[0])
            except BaseException:
                conn.execute("PRAGMA foreign_keys = ON")
                raise

    # context manager -------------------------------------------------------

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._state in ("open", "failed"):
            if exc_type is None:
                self.discard()
            else:
                try:
                    self.discard()
                except (StoreError, sqlite3.Error):
                    pass  # the next open or stage collects it; keep the first error

    # writing ---------------------------------------------------------------

    def add_file(self, module: str, scope: str, relpath: str, content_sha256: str, size: int,
                 facts: FileFacts, summary: FileSummary | None = None) -> tuple[int, bool]:
        """Add one source file's facts; returns (file_version_id, reused).

        `reused` is True when an identical version (same module, scope, path,
        content and facts) is already stored: then only the manifest grows.
        `summary` (the file's names and declaration signatures, for incremental
        sync) is stored with the version when it has none yet.
        """
        self._check_open()
        if not module or not scope:
            raise StoreError("A file needs its module id and scope (main or test).", path=relpath)
        _check_relpath(relpath)
        if relpath in self._paths:
            raise StoreError(
                f"File {relpath} was added twice to the same generation; add each source "
                f"file once.", path=relpath,
            )
        canon = canonicalize(module, scope, relpath, content_sha256, facts)
        conn = self._conn
        with self._writing():
            if not conn.in_transaction:
                conn.execute("BEGIN IMMEDIATE")
            # In bulk, no version was stored before this staging, and its own differ by path.
            row = None if self.bulk else conn.execute(
                "SELECT id FROM file_versions WHERE digest = ?", (canon.digest,)
            ).fetchone()
            if row:
                fv, reused = row[0], True
            else:
                fv, reused = self._write_version(module, scope, relpath, content_sha256, size,
                                                 facts, canon), False
            if summary is not None:
                self._write_summary(fv, summary, fresh=not reused)
            conn.execute(
                "INSERT INTO manifest (generation_id, file_version_id) VALUES (?, ?)",
                (self.generation_id, fv),
            )
            self._paths.add(relpath)
            self._pending_rows += 1 + (0 if reused else len(canon.references)
                                       + len(canon.declarations) + len(canon.problems)
                                       + len(canon.blocked))
            if self._pending_rows >= self._batch_rows:
                self._commit_batch()
        if reused:
            self.files_reused += 1
        else:
            self.files_added += 1
        return fv, reused

    def reuse_versions(self, versions: list[tuple[str, int]], parent: int | None = None) -> None:
        """List stored file versions, given as (relpath, file_version_id), in this generation
        unchanged (incremental sync: the files no edit can affect).

        `parent`: the id of a published generation whose manifest lists every one of `versions`
        (the one the sync planned from). Then the rows are copied from its manifest in SQLite,
        all but the parent's versions left out (`INSERT ... SELECT`), instead of one row per
        version bound from Python: a one-file edit in a 6,000-file module hands SQLite a list of
        one. Without `parent` every row is bound from Python."""
        self._check_open()
        for relpath, _fv in versions:
            if relpath in self._paths:
                raise StoreError(f"File {relpath} was added twice to the same generation.", path=relpath)
        conn = self._conn
        with self._writing():
            if not conn.in_transaction:
                conn.execute("BEGIN IMMEDIATE")
            copied = parent is not None and self._copy_manifest(parent, versions)
            if not copied:
                conn.executemany("INSERT INTO manifest (generation_id, file_version_id) VALUES (?, ?)",
                                 [(self.generation_id, fv) for _rel, fv in versions])
            self._paths.update(rel for rel, _fv in versions)
            self.files_reused += len(versions)
            self._pending_rows += len(versions)
            if self._pending_rows >= self._batch_rows:
                self._commit_batch()

    def _copy_manifest(self, parent: int, versions: list[tuple[str, int]]) -> bool:
        """`versions` listed by copying the manifest of generation `parent` without the versions
        not among them; False (nothing written) when that leaves out more rows than it copies."""
        conn = self._conn
        wanted = {fv for _rel, fv in versions}
        listed = [fv for (fv,) in conn.execute(
            "SELECT file_version_id FROM manifest WHERE generation_id = ?", (parent,))]
        if not wanted.issubset(listed):
            raise StoreError(f"Generation id {parent} does not list every version to reuse; sync again.")
        left_out = [fv for fv in listed if fv not in wanted]
        if len(left_out) > len(wanted):
            return False
        written = conn.execute(
            "INSERT INTO manifest (generation_id, file_version_id)"
            " SELECT ?, file_version_id FROM manifest WHERE generation_id = ?"
            " AND file_version_id NOT IN (SELECT value FROM json_each(?))",
            (self.generation_id, parent, json.dumps(left_out))).rowcount
        if written != len(wanted):
            raise StoreError(f"Copying the manifest of generation id {parent} wrote {written} rows for "
                             f"{len(wanted)} versions; sync again.")
        return True

    def reuse_generation(self, number: int) -> int:
        """List every file version of published generation `number` in this one.

        The no-change resync: when the inputs' fingerprint equals that
        generation's, nothing is re-indexed and only the manifest is written.
        Returns the number of files reused.
        """
        self._check_open()
        conn = self._conn
        try:
            if not conn.in_transaction:
                conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT id FROM generations WHERE checkout_id = ? AND number = ? AND state = ?",
                               (self.checkout_id, number, PUBLISHED)).fetchone()
            if row is None:
                raise StoreError(f"Generation {number} is not kept any more; sync with a full index.")
            paths = [p for (p,) in conn.execute(
                "SELECT f.path FROM manifest m JOIN file_versions f ON f.id = m.file_version_id"
                " WHERE m.generation_id = ?", (row[0],))]
            clash = self._paths.intersection(paths)
            if clash:
                raise StoreError(f"File {sorted(clash)[0]} was added twice to the same generation.")
            conn.execute(
                "INSERT INTO manifest (generation_id, file_version_id)"
                " SELECT ?, file_version_id FROM manifest WHERE generation_id = ?", (self.generation_id, row[0]))
            self._paths.update(paths)
            self.files_reused += len(paths)
        except sqlite3.Error as exc:
            self._fail()
            raise error(self._path, "written", exc) from exc
        return len(paths)

    def publish(self, meta_updates: dict[str, Any] | None = None) -> int:
        """Make the staged generation current; returns its number.

        `meta_updates` are merged into the metadata given to `stage`. The
        metadata's `counts` gets the stored totals (files, declarations,
        references, relations, problems, binding_complete_files).
        """
        self._check_open()
        conn = self._conn
        meta = {**self._meta, **(meta_updates or {})}
        try:
            if conn.in_transaction:
                self._commit_batch()
            if self.bulk:
                faults.hit("publish.before_indexes")
                self._end_bulk()
            conn.execute("PRAGMA synchronous = FULL")
            try:
                with transaction(conn):
                    counts = conn.execute(
                        """
                        SELECT count(*), total(n_declarations), total(n_references),
                               total(n_relations), total(n_problems), total(binding_complete)
                        FROM manifest m JOIN file_versions f ON f.id = m.file_version_id
                        WHERE m.generation_id = ?
                        """,
                        (self.generation_id,),
                    ).fetchone()
                    names = ("files", "declarations", "references", "relations", "problems",
                             "binding_complete_files")
                    meta["counts"] = {**(meta.get("counts") or {}),
                                      **{n: int(v) for n, v in zip(names, counts, strict=True)}}
                    number: int = conn.execute("SELECT last_number FROM checkouts WHERE id = ?",
                                               (self.checkout_id,)).fetchone()[0] + 1
                    changed = conn.execute(
                        "UPDATE generations SET state = ?, number = ?, published_at = ?, meta = ?"
                        " WHERE id = ? AND state = ?",
                        (PUBLISHED, number, _now(), dumps(meta, "metadata"), self.generation_id,
                         STAGING),
                    ).rowcount
                    if changed != 1:
                        raise StoreError(
                            "The staged generation vanished before publishing (another process "
                            "collected it); sync again.",
                        )
                    conn.execute(
                        "UPDATE checkouts SET generation_id = ?, last_number = ? WHERE id = ?",
                        (self.generation_id, number, self.checkout_id),
                    )
                    faults.hit("publish.before_commit")
            finally:
                try:
                    conn.execute("PRAGMA synchronous = NORMAL")
                except sqlite3.Error:
                    pass
        except sqlite3.Error as exc:
            self._abandon()
            raise error(self._path, "published", exc) from exc
        except BaseException:
            self._abandon()
            raise
        self._state = "published"
        faults.hit("publish.after_commit")
        try:
            if self._collect:
                gc.collect(conn, self._keep)
        except sqlite3.Error:
            pass  # published all the same; the next open or stage collects
        finally:
            self._release()
        return number

    def discard(self) -> None:
        """Drop the staged generation (and the versions only it used)."""
        if self._state in ("published", "discarded"):
            return
        conn = self._conn
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if self._lock.held:   # never collect without the lock: it may be another's staging
                if self.bulk:
                    self._end_bulk()    # the cascades that delete committed batches need both
                gc.collect(conn, self._keep)
        except sqlite3.Error as exc:
            raise error(self._path, "cleaned up", exc) from exc
        finally:
            self._state = "discarded"
            self._release()

    # internals -------------------------------------------------------------

    def _check_open(self) -> None:
        if self._state != "open":
            raise StoreError(
                f"This staging is {self._state}; start a new one with Store.stage().",
            )

    def _fail(self) -> None:
        self._state = "failed"
        if self._conn.in_transaction:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _abandon(self) -> None:
        """After a failed publish: discard, best effort (the next open collects)."""
        self._fail()
        try:
            self.discard()
        except (StoreError, sqlite3.Error):
            pass

    def build_indexes(self) -> None:
        """Build a bulk staging's indexes now (at a file boundary: the pending batch is committed
        first); the files staged after this go into them as they are written. The pipeline calls it
        while the JVM still indexes a first sync's last files, so that the sort of each index runs
        beside the JVM instead of after it (`EARLY_INDEXES_AT`). Nothing to do when not in bulk or
        when built already; foreign-key checks stay off until `publish`."""
        self._check_open()
        if not self.bulk:
            return
        with self._writing():
            if self._conn.in_transaction:
                self._commit_batch()
            schema.restore_indexes(self._conn)
            faults.hit("staging.indexes_built")

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A write of this staging: any failure marks it failed, an SQLite error (or text SQLite
        cannot take) raised as the StoreError that names the store."""
        try:
            yield
        except (sqlite3.Error, UnicodeEncodeError) as exc:
            self._fail()
            raise error(self._path, "written", exc) from exc
        except BaseException:
            self._fail()
            raise

    def _end_bulk(self) -> None:
        """A bulk staging's indexes built and foreign keys on again (see `__init__`)."""
        schema.restore_indexes(self._conn)
        self._conn.execute("PRAGMA foreign_keys = ON")

    def _release(self) -> None:
        try:
            self._conn.execute(f"PRAGMA cache_size = {int(self._cache_size)}")
            if self.bulk:
                self._conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error:
            pass      # only memory: the connection keeps the larger cache
        self._lock.release()

    def _commit_batch(self) -> None:
        self._conn.execute("COMMIT")
        self._pending_rows = 0
        faults.hit("staging.batch_committed")

    def _write_version(self, module: str, scope: str, relpath: str, content_sha256: str,
                       size: int, facts: FileFacts, canon: CanonicalFacts) -> int:
        conn = self._conn
        sym = self._intern_file(facts, canon)
        fv: int = conn.execute(
            """
            INSERT INTO file_versions (digest, path, module, scope, content_sha256, size,
                binding_complete, failure, n_declarations, n_references, n_relations, n_problems,
                names_recorded)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1) RETURNING id
            """,
            (canon.digest, relpath, module, scope, content_sha256, int(size),
             int(bool(facts.binding_complete)), facts.failure, len(canon.declarations),
             len(canon.references), len(canon.relations), len(canon.problems)),
        ).fetchone()[0]

        def other(value: str, known: str | None) -> str | None:
            return None if value == known else value

        decl_rows = []
        for ord_, d in enumerate(canon.declarations):
            s = self._symbols[d.key]
            decl_rows.append((
                fv, ord_, s[_ID], DECL_KIND_CODES[d.kind], sym(d.declaring_key),
                *_span(d.name_span), *_span(d.span), d.modifiers,
                other(d.name, s[_NAME]), other(d.display, s[_DISPLAY]),
                other(d.dotted, s[_DOTTED]), other(d.scip, s[_SCIP]),
            ))
        conn.executemany(
            "INSERT INTO declarations VALUES (?,?,?,?,?, ?,?,?,?, ?,?,?,?, ?, ?,?,?,?)",
            decl_rows,
        )
        cache, kinds = self._symbols, REF_KIND_CODES
        conn.executemany(     # the hot loop of a first sync: sym() and _span() inlined
            "INSERT INTO refs VALUES (?,?,?,?, ?,?,?,?, ?,?)",
            [(fv, ord_, cache[target][_ID], cache[container][_ID] if container else None,
              line, col, end_line - line, end_col, kinds[kind], flags)
             for ord_, (target, _scip, (line, col, end_line, end_col), kind, container, flags)
             in enumerate(canon.references)],
        )
        conn.executemany(
            "INSERT INTO relations VALUES (?,?,?,?)",
            [(fv, RELATION_KIND_CODES[rel.kind], sym(rel.from_key), sym(rel.to_key))
             for rel in canon.relations],
        )
        conn.executemany(
            "INSERT INTO problems VALUES (?,?,?,?,?, ?,?,?,?, ?)",
            [(fv, ord_, PROBLEM_KIND_CODES[p.kind], p.name, p.message, *_span(p.span),
              int(bool(p.is_error)))
             for ord_, p in enumerate(canon.problems)],
        )
        conn.executemany(
            "INSERT INTO blocked_names VALUES (?,?,?, ?,?,?,?, ?,?,?)",
            [(fv, b.name, BLOCK_REASON_CODES[b.reason], *_span(b.span), 1, b.can_name, b.arity)
             for b in canon.blocked],
        )
        return fv

    def _write_summary(self, fv: int, summary: FileSummary, fresh: bool) -> None:
        conn = self._conn
        if not fresh and conn.execute("SELECT 1 FROM file_summaries WHERE file_version_id = ?",
                                      (fv,)).fetchone():
            return
        conn.execute("INSERT INTO file_summaries (file_version_id, signatures, names) VALUES (?, ?, ?)",
                     (fv, dumps(summary.signatures, "declaration signatures"), namelist.pack(summary.names)))

    def _intern_file(self, facts: FileFacts, canon: CanonicalFacts) -> Callable[[str], int | None]:
        """Make sure every key the file mentions has a symbol row; returns key -> id."""
        seeds: dict[str, _Seed] = {}

        def seed(key: str) -> _Seed:
            s = seeds.get(key)
            if s is None:
                s = seeds[key] = _Seed()
            return s

        cache = self._symbols
        for target, target_scip, _, _, container, _ in canon.references:   # seed() inlined
            s = seeds.get(target)
            if s is None:
                known = cache.get(target)
                # a reference adds nothing to a symbol stored with its SCIP symbol (or given none here)
                if known is None or (known[_SCIP] is None and target_scip):
                    s = seeds[target] = _Seed()
            if s is not None and s.scip is None and target_scip:
                s.scip = target_scip
            if container and container not in seeds and container not in cache:
                seeds[container] = _Seed()
        for key, (kind, dotted, scip) in canon.external:
            s = seed(key)
            s.external = True
            s.kind = DECL_KIND_CODES.get(kind)
            s.dotted = dotted or None
            s.name = dotted.rsplit(".", 1)[-1] if dotted else None
            s.scip = scip or s.scip
        for d in canon.declarations:
            s = seed(d.key)
            s.kind, s.name, s.display, s.dotted = DECL_KIND_CODES[d.kind], d.name, d.display, d.dotted
            s.scip = d.scip
            s.declared, s.external = True, False
            if d.declaring_key:
                seed(d.declaring_key)
        for rel in canon.relations:
            seed(rel.from_key)
            seed(rel.to_key)
        self._intern(seeds)

        def sym(key: str) -> int | None:
            return cache[key][_ID] if key else None

        return sym

    def _intern(self, seeds: dict[str, _Seed]) -> None:
        conn, cache = self._conn, self._symbols
        missing = [] if self._symbols_complete else [k for k in seeds if k not in cache]
        for i in range(0, len(missing), _CHUNK):
            chunk = missing[i:i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            for row in conn.execute(
                "SELECT binding_key, id, kind, name, display, dotted, scip, external"
                f" FROM symbols WHERE binding_key IN ({marks})",
                chunk,
            ):
                cache[row[0]] = list(row[1:])
        if self._next_id is None:
            # We hold the writer lock: nobody else adds symbols, so ids can be assigned here
            # and written with one executemany instead of one INSERT ... RETURNING per symbol.
            self._next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM symbols").fetchone()[0]
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        for key, s in seeds.items():
            known = cache.get(key)
            if known is None:
                new_id = self._next_id
                self._next_id += 1
                cache[key] = [new_id, s.kind, s.name, s.display, s.dotted, s.scip, int(s.external)]
                inserts.append((new_id, key, s.kind, s.name, s.display, s.dotted, s.scip, int(s.external)))
                continue
            changed = False
            kind_learned = known[_KIND] is None and s.kind is not None
            for index, value in ((_KIND, s.kind), (_NAME, s.name), (_DISPLAY, s.display),
                                 (_DOTTED, s.dotted), (_SCIP, s.scip)):
                if known[index] is None and value is not None:
                    known[index] = value
                    changed = True
            if s.declared and known[_EXTERNAL]:
                known[_EXTERNAL] = 0
                changed = True
            elif s.external and not known[_EXTERNAL] and kind_learned:
                known[_EXTERNAL] = 1
            if changed:
                updates.append((known[_KIND], known[_NAME], known[_DISPLAY], known[_DOTTED], known[_SCIP],
                                known[_EXTERNAL], known[_ID]))
        if inserts:
            conn.executemany(
                "INSERT INTO symbols (id, binding_key, kind, name, display, dotted, scip, external)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", inserts)
        if updates:
            conn.executemany(
                "UPDATE symbols SET kind = ?, name = ?, display = ?, dotted = ?, scip = ?, external = ?"
                " WHERE id = ?", updates)

