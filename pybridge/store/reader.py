"""`Reader`: the read queries of one published generation.

A reader owns a connection inside a read transaction, so everything it
returns comes from one snapshot of the database, and the generation it is
pinned to stays readable until it is closed, even if a newer generation is
published and the old one collected meanwhile.

Every query joins the generation's manifest, and each is one or two index
lookups; `CROSS JOIN` fixes the join order (SQLite keeps the left table
outermost) so that the plan starts from the selective index, never from a
scan of the generation.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from pybridge.errors import StoreError
from pybridge.facts import BLOCK_REASONS, DECL_KINDS, PROBLEM_KINDS, REF_IN_IMPORT, REF_KINDS, RELATION_KINDS, Span

from . import namelist
from .rows import (
    BlockedRow,
    CallSite,
    DeclRow,
    FileInfo,
    FileRows,
    GenerationInfo,
    ModuleScope,
    ProblemRow,
    RefRow,
    RelationRow,
    Row,
    SymbolInfo,
)
from .schema import (
    CALL_KIND_SQL,
    DECL_KIND_CODES,
    NAMED_KIND_MAX,
    PROBLEM_KIND_CODES,
    PUBLISHED,
    REF_KIND_CODES,
    RELATION_KIND_CODES,
)

SymbolArg = int | Iterable[int]

FAST_PAGES = os.environ.get("PYBRIDGE_FAST_PAGES", "1") != "0"
"""A page of references reads only the files that hold it (`Reader.references`); 0: every
reference of the symbol is read and sorted for each page (the way before issue 27)."""

PAGE_SEEK_ENV = "PYBRIDGE_PAGE_KIND_SEEK"
GENERATION_CACHE_ENV = "PYBRIDGE_GENERATION_CACHE"
_ALL_REF_CODES = sorted(REF_KIND_CODES.values())


def page_seek_enabled() -> bool:
    """A page of references without a kind filter names every kind (`Reader.references`); on unless
    set to 0 (read at each call, as the tests switch it; the store imports no `pybridge.switches`)."""
    return os.environ.get(PAGE_SEEK_ENV, "1") != "0"


def generation_cache_enabled() -> bool:
    """A generation's reference file lists are kept across readers (`GenerationCache`); on unless 0."""
    return os.environ.get(GENERATION_CACHE_ENV, "1") != "0"


FILES_PATCH_ENV = "PYBRIDGE_FILES_PATCH"


def files_patch_enabled() -> bool:
    """A generation's files by path are patched from those of another generation of the same store read
    before in this process (`Reader.files_by_path`); on unless set to 0."""
    return os.environ.get(FILES_PATCH_ENV, "1") != "0"


_BY_PATH_KEPT = 6
# (store file, generation id, number, published_at, the snapshot's start in ns) -> its files by path, the
# most recently used last. A published generation's manifest and file versions never change, so an entry is
# never stale; the number, publication time and snapshot time tell a row id that came back after a
# collection (or a store made again at the same path) from the generation it was.
_BY_PATH: OrderedDict[tuple[str, int, int, str | None, Any], Mapping[str, FileInfo]] = OrderedDict()
_BY_PATH_LOCK = threading.Lock()


class GenerationCache:
    """What a reader computes from its published generation alone, kept across readers (calls).

    A published generation never changes (DESIGN section 5: its manifest and the facts of its file
    versions are immutable once published), so an entry keyed by the generation can never be stale.
    The key holds the generation's row id, number and publication time: a row id that comes back
    after a collection belongs to a generation of another number. Held: the lists of files holding a
    symbol's references (`Reader.reference_files`), at most `files_kept` files over all lists, the
    least recently used dropped first."""

    def __init__(self, files_kept: int = 200_000) -> None:
        self.files_kept = files_kept
        self._lock = threading.Lock()
        self._files: OrderedDict[tuple[Any, ...], list[tuple[str, int, int]]] = OrderedDict()
        self._held = 0

    def files(self, key: tuple[Any, ...]) -> list[tuple[str, int, int]] | None:
        with self._lock:
            hit = self._files.get(key)
            if hit is not None:
                self._files.move_to_end(key)
            return hit

    def keep_files(self, key: tuple[Any, ...], files: list[tuple[str, int, int]]) -> None:
        if len(files) > self.files_kept:
            return
        with self._lock:
            old = self._files.pop(key, None)
            self._held += len(files) - (len(old) if old is not None else 0)
            self._files[key] = files
            while self._held > self.files_kept:
                _key, dropped = self._files.popitem(last=False)
                self._held -= len(dropped)


_IN_GENERATION = (
    " CROSS JOIN manifest m ON m.generation_id = :g AND m.file_version_id = {t}.file_version_id"
    " CROSS JOIN file_versions f ON f.id = {t}.file_version_id"
)

_DECL_SELECT = """
SELECT d.symbol_id, s.binding_key, d.kind, coalesce(d.name_x, s.name),
       coalesce(d.display_x, s.display), coalesce(d.dotted_x, s.dotted),
       coalesce(d.scip_x, s.scip), f.path AS path, f.module, f.scope,
       d.line AS line, d.col AS col, d.dline, d.end_col,
       d.full_line, d.full_col, d.full_dline, d.full_end_col,
       d.modifiers, d.container_id, c.binding_key
FROM {source}""" + _IN_GENERATION.format(t="d") + """
LEFT JOIN symbols c ON c.id = d.container_id
WHERE {where}"""
_DECLS_FIRST = "declarations d CROSS JOIN symbols s ON s.id = d.symbol_id"
# verbatim the partial index term of symbols_by_name/dotted/scip
_NAMED_S = f"s.kind <= {NAMED_KIND_MAX}"
_NAMED_D = f"d.kind <= {NAMED_KIND_MAX}"
_SYMBOLS_FIRST = "symbols s CROSS JOIN declarations d ON d.symbol_id = s.id"

_REF_SELECT = """
SELECT f.path, f.module, f.scope, r.line, r.col, r.dline, r.end_col, r.kind, r.flags,
       r.target_id, t.binding_key, r.container_id, c.binding_key, r.ord
FROM refs r""" + _IN_GENERATION.format(t="r") + """
JOIN symbols t ON t.id = r.target_id
LEFT JOIN symbols c ON c.id = r.container_id
WHERE {where}"""
_REF_ORDER = " ORDER BY f.path, r.line, r.col, r.kind, r.ord"

_FILE_COLUMNS = (
    "f.path, f.module, f.scope, f.content_sha256, f.size, f.binding_complete, f.failure,"
    " f.n_declarations, f.n_references, f.n_problems, f.id"
)

_PROBLEM_COLUMNS = (
    "f.path AS path, f.module, f.scope, p.kind, p.name, p.message, p.line AS line,"
    " p.col AS col, p.dline, p.end_col, p.is_error"
)


def generation_info(row: Row) -> GenerationInfo:
    return GenerationInfo(id=row[0], number=row[1], published_at=row[2],
                          snapshot=json.loads(row[3]), meta=json.loads(row[4]),
                          current=bool(row[5]))


def _span(line: int, col: int, dline: int, end_col: int) -> Span:
    return Span(line, col, line + dline, end_col)


def _ids(symbol: SymbolArg) -> list[int]:
    ids = [symbol] if isinstance(symbol, int) else list(symbol)
    if not ids or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise StoreError(f"Symbols are named by their integer ids (got {symbol!r}).")
    return ids


MAIN, TEST = "main", "test"


def scope_matches(wanted: str | None, scope: str) -> bool:
    """Whether a fact of `scope` passes the tools' scope filter `wanted`: None passes all; `test` is every
    scope but main (a Gradle build's integrationTest, testFixtures, ... source sets are test code too);
    any other name matches itself."""
    return wanted is None or (scope != MAIN if wanted == TEST else scope == wanted)


class _Query:
    """Named parameters and the AND-ed conditions of one query."""

    def __init__(self, generation_id: int) -> None:
        self.params: dict[str, Any] = {"g": generation_id}
        self.where: list[str] = []

    def param(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f":{name}"

    def in_(self, column: str, values: Iterable[Any]) -> str:
        return f"{column} IN ({', '.join(self.param(v) for v in values)})"

    def within(self, column: str, values: Iterable[Any]) -> None:
        self.where.append(self.in_(column, values))

    def equal(self, column: str, value: Any) -> None:
        if value is not None:
            self.where.append(f"{column} = {self.param(value)}")

    def scoped(self, column: str, scope: str | None) -> None:
        """The scope filter of the tools (`scope_matches`): `test` is every scope but main."""
        if scope is not None:
            self.where.append(self.scope_sql(column, scope))

    def scope_sql(self, column: str, scope: str) -> str:
        if scope == TEST:
            return f"{column} != {self.param(MAIN)}"
        return f"{column} = {self.param(scope)}"

    def sql(self, extra: Iterable[str] = ()) -> str:
        return " AND ".join([*self.where, *extra]) or "1"


def _codes(kinds: Iterable[str] | None, codes: dict[str, int], what: str) -> list[int] | None:
    if kinds is None:
        return None
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    unknown = [k for k in kinds if k not in codes]
    if unknown:
        raise StoreError(f"Unknown {what} kind {unknown[0]!r}; use one of {', '.join(codes)}.")
    return [codes[k] for k in kinds]


def _check_after(after: Sequence[object]) -> str:
    """The path of a row's sort key given as `after`; a StoreError when it is not one."""
    if (not isinstance(after, (tuple, list)) or len(after) != 5 or not isinstance(after[0], str)
            or not all(isinstance(v, int) for v in after[1:])):
        raise StoreError(f"after must be a row's sort_key (path, line, char, kind, ord); got {after!r}.")
    return after[0]


def _limit(limit: int | None) -> int:
    if limit is None:
        return -1
    if not isinstance(limit, int) or limit < 0:
        raise StoreError(f"limit must be a non-negative integer (got {limit!r}).")
    return limit


class Reader:
    """Read queries pinned to one published generation. Close it (or use `with`)."""

    def __init__(self, conn: sqlite3.Connection, generation: GenerationInfo,
                 release: Callable[[sqlite3.Connection], None], shared: GenerationCache | None = None,
                 store: str | None = None) -> None:
        self._conn: sqlite3.Connection | None = conn
        self._store = store     # the store file (None: nothing is kept across readers)
        self._release = release
        self.generation = generation
        self._shared = shared
        self._files: dict[tuple[Any, ...], list[tuple[str, int, int]]] = {}
        self._by_path: Mapping[str, FileInfo] | None = None
        self._name_lists: namelist.Lists | None = None    # read by the first `paths_mentioning`

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            self._release(conn)

    def _rows(self, sql: str, params: dict[str, Any] | tuple[Any, ...] = ()) -> list[Row]:
        if self._conn is None:
            raise StoreError("This reader is closed; open a new one with Store.reader().")
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(
                f"The store could not be read ({exc}); sync again, and if it persists delete "
                f"the state folder.", sqlite_error=str(exc),
            ) from exc

    def _query(self) -> _Query:
        return _Query(self.generation.id)

    # files -----------------------------------------------------------------

    def files(self, *, module: str | None = None, scope: str | None = None) -> list[FileInfo]:
        """The generation's source files, by path."""
        q = self._query()
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        rows = self._rows(
            f"SELECT {_FILE_COLUMNS} FROM manifest m"
            " CROSS JOIN file_versions f ON f.id = m.file_version_id"
            f" WHERE m.generation_id = :g AND {q.sql()} ORDER BY f.path",
            q.params,
        )
        return [self._file(row) for row in rows]

    def files_by_path(self) -> Mapping[str, FileInfo]:
        """Every source file of the generation by path, read once per reader (a generation never
        changes): an incremental sync's planner, its propagation and its manifest all use it, and
        on a 6,000-file module each read cost about 0.1 s (0.5 s under load)."""
        if self._by_path is None:
            if self._store is not None and files_patch_enabled():
                self._by_path = self._patched_by_path(self._store)
            else:
                self._by_path = MappingProxyType({f.path: f for f in self.files()})
        return self._by_path

    def _patched_by_path(self, store: str) -> Mapping[str, FileInfo]:
        """`files_by_path` from the files of the generation of this store read last in this process:
        SQLite lists the versions that differ between the two manifests (`NOT IN`, by index), and
        only those rows become `FileInfo`s here. On a 6,000-file module reading every row took 0.03 s
        of each catch-up's plan (more under load); an edit's generation differs in a few. The other
        generation is used only while this reader's snapshot of the database still has it published
        (a collected one's manifest is gone); the order is `files`' (by path)."""
        g = self.generation
        key = (store, g.id, g.number, g.published_at,
               g.snapshot.get("taken_ns") if isinstance(g.snapshot, dict) else None)
        with _BY_PATH_LOCK:
            hit = _BY_PATH.get(key)
            if hit is not None:
                _BY_PATH.move_to_end(key)
                return hit
            bases = [(k, v) for k, v in reversed(_BY_PATH.items()) if k[0] == store]
        out: Mapping[str, FileInfo] | None = None
        for (_store, base_id, number, published_at, _taken), base in bases[:1]:
            alive = self._rows("SELECT 1 FROM generations WHERE id = ? AND number = ? AND published_at IS ?"
                               " AND state = ?", (base_id, number, published_at, PUBLISHED))
            if not alive:
                break
            gone = [r[0] for r in self._rows(
                "SELECT f.path FROM manifest m CROSS JOIN file_versions f ON f.id = m.file_version_id"
                " WHERE m.generation_id = :b AND m.file_version_id NOT IN"
                " (SELECT file_version_id FROM manifest WHERE generation_id = :g)", {"b": base_id, "g": g.id})]
            came = [self._file(r) for r in self._rows(
                f"SELECT {_FILE_COLUMNS} FROM manifest m CROSS JOIN file_versions f ON f.id = m.file_version_id"
                " WHERE m.generation_id = :g AND m.file_version_id NOT IN"
                " (SELECT file_version_id FROM manifest WHERE generation_id = :b)", {"b": base_id, "g": g.id})]
            files = dict(base)
            new = {f.path: f for f in came}
            for path in gone:
                if path not in new:
                    del files[path]
            added = False
            for path, f in new.items():
                added = added or path not in files
                files[path] = f         # an edited path keeps its place
            out = MappingProxyType(dict(sorted(files.items())) if added else files)
        if out is None:
            out = MappingProxyType({f.path: f for f in self.files()})
        with _BY_PATH_LOCK:
            _BY_PATH[key] = out
            while len(_BY_PATH) > _BY_PATH_KEPT:
                _BY_PATH.popitem(last=False)
        return out

    def file_digests(self) -> dict[str, bytes]:
        """Each source file's version digest (`pybridge.store.codec.canonicalize`: equal digests,
        equal facts), by path."""
        return {r[0]: bytes(r[1]) for r in self._rows(
            "SELECT f.path, f.digest FROM manifest m CROSS JOIN file_versions f ON f.id = m.file_version_id"
            " WHERE m.generation_id = :g", {"g": self.generation.id})}

    def file(self, path: str) -> FileInfo | None:
        """One source file of the generation by its workspace-relative path."""
        fv = self._file_row(path)
        return self._file(fv) if fv else None

    def module_scopes(self) -> list[ModuleScope]:
        """Per module and scope: files, fully bound files, failed files, references."""
        rows = self._rows(
            "SELECT f.module, f.scope, count(*), total(f.binding_complete), count(f.failure),"
            " total(f.n_references) FROM manifest m"
            " CROSS JOIN file_versions f ON f.id = m.file_version_id"
            " WHERE m.generation_id = :g GROUP BY f.module, f.scope ORDER BY f.module, f.scope",
            {"g": self.generation.id},
        )
        return [ModuleScope(r[0], r[1], r[2], int(r[3]), r[4], int(r[5])) for r in rows]

    def _file_row(self, path: str) -> Row | None:
        rows = self._rows(
            f"SELECT {_FILE_COLUMNS} FROM file_versions f"
            " CROSS JOIN manifest m ON m.generation_id = :g AND m.file_version_id = f.id"
            " WHERE f.path = :path",
            {"g": self.generation.id, "path": path},
        )
        return rows[0] if rows else None

    @staticmethod
    def _file(r: Row) -> FileInfo:
        return FileInfo(r[0], r[1], r[2], r[3], r[4], bool(r[5]), r[6], r[7], r[8], r[9], r[10])

    # symbols ---------------------------------------------------------------

    def symbol(self, symbol: int | str) -> SymbolInfo | None:
        """A symbol by id or by binding key (in any generation: symbols are never deleted)."""
        column = "binding_key" if isinstance(symbol, str) else "id"
        rows = self._rows(
            "SELECT id, binding_key, kind, name, display, dotted, scip, external"
            f" FROM symbols WHERE {column} = ?",
            (symbol,),
        )
        return self._symbol(rows[0]) if rows else None

    def symbols(self, ids: Iterable[int]) -> dict[int, SymbolInfo]:
        """Symbols by id, for many ids at once (e.g. the containers of a page)."""
        ids = sorted(set(ids))
        out: dict[int, SymbolInfo] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for row in self._rows(
                "SELECT id, binding_key, kind, name, display, dotted, scip, external"
                f" FROM symbols WHERE id IN ({', '.join('?' * len(chunk))})",
                tuple(chunk),
            ):
                out[row[0]] = self._symbol(row)
        return out

    @staticmethod
    def _symbol(r: Row) -> SymbolInfo:
        kind = DECL_KINDS[r[2]] if r[2] is not None else None
        return SymbolInfo(r[0], r[1], kind, r[3], r[4], r[5], r[6], bool(r[7]))

    # declarations ----------------------------------------------------------

    def declarations(self, *, symbol: SymbolArg | None = None, key: str | None = None,
                     name: str | None = None, dotted: str | None = None,
                     scip: str | None = None, kinds: Iterable[str] | None = None,
                     module: str | None = None, scope: str | None = None,
                     limit: int | None = None) -> list[DeclRow]:
        """Declarations of the generation found by exactly one of:

        - `symbol`: symbol id(s); `key`: a binding key (any kind);
        - `name`: the simple name (`greet`);
        - `dotted`: a dotted path (`com.acme.Greeter.greet`) or a suffix of one
          at a segment boundary (`Greeter.greet`);
        - `scip`: the SCIP symbol string.

        `name`, `dotted` and `scip` resolve among the named kinds (types,
        methods, constructors, fields, enum constants, record components),
        as the name tools do; parameters, locals and type parameters are
        found by `at` or by key. Filtered by kind, module and scope; ordered
        by path and position.
        """
        given = [a for a in (symbol, key, name, dotted, scip) if a is not None]
        if len(given) != 1:
            raise StoreError("Look declarations up by exactly one of symbol, key, name, dotted "
                             "or scip.")
        codes = _codes(kinds, DECL_KIND_CODES, "declaration")
        q = self._query()
        filters = []
        if codes is not None:
            filters.append(q.in_("d.kind", codes))
        if module is not None:
            filters.append(f"f.module = {q.param(module)}")
        if scope is not None:
            filters.append(q.scope_sql("f.scope", scope))

        def branch(source: str, *conditions: str) -> str:
            return _DECL_SELECT.format(source=source, where=" AND ".join([*conditions, *filters]))

        if key is not None:
            found = self.symbol(key)
            if found is None:
                return []
            symbol = found.id
        if symbol is not None:
            sql = branch(_DECLS_FIRST, q.in_("d.symbol_id", _ids(symbol)))
        elif name is not None or scip is not None:
            column, value = ("name", name) if name is not None else ("scip", scip)
            v = q.param(value)
            sql = " UNION ALL ".join([
                branch(_SYMBOLS_FIRST, f"s.{column} = {v}", _NAMED_S, f"d.{column}_x IS NULL"),
                branch(_DECLS_FIRST, f"d.{column}_x = {v}", _NAMED_D),
            ])
        else:
            assert dotted is not None
            v, last = q.param(dotted), q.param(dotted.rsplit(".", 1)[-1])
            n, suffix = q.param(len(dotted) + 1), q.param("." + dotted)
            ends = f"substr(coalesce(d.dotted_x, s.dotted), -{n}) = {suffix}"
            sql = " UNION ".join([
                branch(_SYMBOLS_FIRST, f"s.dotted = {v}", _NAMED_S, "d.dotted_x IS NULL"),
                branch(_DECLS_FIRST, f"d.dotted_x = {v}", _NAMED_D),
                branch(_SYMBOLS_FIRST, f"s.name = {last}", _NAMED_S, "d.name_x IS NULL", ends),
                branch(_DECLS_FIRST, f"d.name_x = {last}", _NAMED_D, ends),
            ])
        sql += f" ORDER BY path, line, col LIMIT {q.param(_limit(limit))}"
        return [self._decl(r) for r in self._rows(sql, q.params)]

    @staticmethod
    def _decl(r: Row) -> DeclRow:
        return DeclRow(
            symbol_id=r[0], key=r[1], kind=DECL_KINDS[r[2]], name=r[3], display=r[4],
            dotted=r[5], scip=r[6], path=r[7], module=r[8], scope=r[9],
            name_span=_span(r[10], r[11], r[12], r[13]), span=_span(r[14], r[15], r[16], r[17]),
            modifiers=r[18], container_id=r[19], container_key=r[20],
        )

    def file_declarations(self, path: str) -> list[DeclRow]:
        """Every declaration of one file of the generation, by position."""
        fv = self._file_row(path)
        if fv is None:
            return []
        return [self._decl(r) for r in self._rows(
            _DECL_SELECT.format(source=_DECLS_FIRST, where="d.file_version_id = :fv")
            + " ORDER BY line, col, d.ord", {"g": self.generation.id, "fv": fv[10]})]

    def at(self, path: str, line: int, char: int) -> list[DeclRow | RefRow]:
        """What is at a position: the declarations and references whose name
        span contains (line, char), best first.

        Best: spans that contain the position strictly (start <= char < end)
        before spans that merely end there (the cursor right after a name);
        declarations before references; then by reference kind. Empty when
        the file is not in the generation or nothing is named there.
        """
        fv = self._file_row(path)
        if fv is None:
            return []
        params = {"g": self.generation.id, "fv": fv[10], "l": line, "c": char}
        decls = [self._decl(r) for r in self._rows(
            _DECL_SELECT.format(
                source=_DECLS_FIRST,
                where="d.file_version_id = :fv AND (d.line, d.col) <= (:l, :c)"
                      " AND (:l, :c) <= (d.line + d.dline, d.end_col)"),
            params)]
        refs = [self._ref(r) for r in self._rows(
            _REF_SELECT.format(
                where="r.file_version_id = :fv AND (r.line, r.col) <= (:l, :c)"
                      " AND (:l, :c) <= (r.line + r.dline, r.end_col)") + _REF_ORDER,
            params)]

        def rank(hit: DeclRow | RefRow) -> tuple[bool, int]:
            span = hit.name_span if isinstance(hit, DeclRow) else hit.span
            at_end = (span.end_line, span.end_char) == (line, char)
            kind = REF_KIND_CODES[hit.kind] if isinstance(hit, RefRow) else -1
            return (at_end, kind)

        return sorted([*decls, *refs], key=rank)

    # references ------------------------------------------------------------

    def references(self, symbol: SymbolArg, *, kinds: Iterable[str] | None = None,
                   module: str | None = None, scope: str | None = None,
                   after: Sequence[object] | None = None, limit: int | None = None) -> list[RefRow]:
        """References to the symbol(s), ordered by (path, line, char, kind).

        Keyset pagination: pass the last row's `sort_key` as `after` for the
        rows that follow it; pages joined are the full, duplicate-free list.

        A page (`limit` given) reads only the files it needs: `reference_files` lists the files
        holding references in path order with their counts, and the rows are read from the first
        files that hold `limit` of them past `after` (see `FAST_PAGES`).
        """
        ids = _ids(symbol)
        codes = _codes(kinds, REF_KIND_CODES, "reference")
        q = self._query()
        q.within("r.target_id", ids)
        if codes is not None:
            q.within("r.kind", codes)
        if limit is not None and FAST_PAGES:
            start = _check_after(after) if after is not None else None
            files = self._page_files(self.reference_files(ids, codes, module, scope), start, _limit(limit))
            if not files:
                return []
            q.within("r.file_version_id", files)
            if codes is None and page_seek_enabled():
                # Every kind, named: the index (target_id, kind, file_version_id) is then sought per
                # kind and file of the page, instead of walking all the symbol's references in it (a
                # JDK type's 10,000) to keep the page's few files. The same rows.
                q.within("r.kind", _ALL_REF_CODES)
        return self._ref_page(q, module, scope, after, limit)

    def referenced(self, ids: list[int]) -> bool:
        """Whether the generation holds a reference to one of the symbols: from the file list a page
        of their references reads next (`reference_files`, kept for the reader's life), not a row."""
        if FAST_PAGES:
            return bool(self.reference_files(ids, None, None, None))
        return bool(self.references(ids, limit=1))

    def count_references(self, symbol: SymbolArg, *, kinds: Iterable[str] | None = None,
                         module: str | None = None, scope: str | None = None) -> int:
        """How many references `references` would return without a limit."""
        ids = _ids(symbol)
        codes = _codes(kinds, REF_KIND_CODES, "reference")
        if FAST_PAGES:
            return sum(n for _path, _fv, n in self.reference_files(ids, codes, module, scope))
        q = self._query()
        q.within("r.target_id", ids)
        if codes is not None:
            q.within("r.kind", codes)
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        join = "" if module is None and scope is None else \
            " CROSS JOIN file_versions f ON f.id = r.file_version_id"
        return int(self._rows(
            "SELECT count(*) FROM refs r CROSS JOIN manifest m"
            " ON m.generation_id = :g AND m.file_version_id = r.file_version_id"
            f"{join} WHERE {q.sql()}",
            q.params,
        )[0][0])

    def reference_files(self, ids: list[int], codes: list[int] | None, module: str | None,
                        scope: str | None) -> list[tuple[str, int, int]]:
        """(path, file version id, references) of each file of the generation holding references
        to the symbols (of the kind codes, in the module and scope), in path order. Counted from
        the `refs_by_target` index alone, then one manifest lookup per file (not per reference);
        kept for the reader's life (its generation never changes), so a page and its total share it,
        and in the store's `GenerationCache` for the next readers of the generation."""
        key = (tuple(ids), tuple(codes) if codes is not None else None, module, scope)
        cached = self._files.get(key)
        if cached is not None:
            return cached
        g = self.generation
        shared_key = (g.id, g.number, g.published_at, *key)
        shared = self._shared if self._shared is not None and generation_cache_enabled() else None
        if shared is not None:
            cached = shared.files(shared_key)
            if cached is not None:
                self._files[key] = cached
                return cached
        q = self._query()
        inner = q.in_("r.target_id", ids) + ("" if codes is None else " AND " + q.in_("r.kind", codes))
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        files = [(path, fv, n) for path, fv, n in self._rows(
            "SELECT f.path, x.fv, x.n FROM (SELECT r.file_version_id AS fv, count(*) AS n FROM refs r"
            f" WHERE {inner} GROUP BY r.file_version_id) x"
            " CROSS JOIN manifest m ON m.generation_id = :g AND m.file_version_id = x.fv"
            f" CROSS JOIN file_versions f ON f.id = x.fv WHERE {q.sql()} ORDER BY f.path, x.fv",
            q.params)]
        self._files[key] = files
        if shared is not None:
            shared.keep_files(shared_key, files)
        return files

    @staticmethod
    def _page_files(files: list[tuple[str, int, int]], start: str | None, limit: int) -> list[int]:
        """The file versions that hold the first `limit` references past a sort key whose path is
        `start`, in path order: the file at `start` (its rows before the key are not counted), then
        whole files until `limit` rows are covered, and every other file of the last path."""
        chosen: list[int] = []
        covered = 0
        last: str | None = None
        for path, fv, n in files:
            if start is not None and path < start:
                continue
            if covered >= limit and path != last:
                break
            chosen.append(fv)
            if path != start:
                covered += n
            last = path
        return chosen

    def calls_from(self, symbol: SymbolArg, *, module: str | None = None,
                   scope: str | None = None, after: Sequence[object] | None = None,
                   limit: int | None = None) -> list[RefRow]:
        """Outgoing calls: references of kind invocation, construction or
        method_reference whose container is the symbol(s); ordered and paged
        like `references`."""
        q = self._query()
        q.within("r.container_id", _ids(symbol))
        q.where.append(f"r.kind IN {CALL_KIND_SQL}")  # verbatim: the partial index's term
        return self._ref_page(q, module, scope, after, limit)

    def call_sites(self, symbol: SymbolArg, *, by: str, scope: str | None = None,
                   limit: int | None = None) -> list[CallSite]:
        """The call sites (invocation, construction, method_reference) to the symbol(s) (`by`
        "target") or in them (`by` "container"), in the order and with the limit of `references`
        / `calls_from`, without the binding keys and ends a call graph does not read."""
        q = self._query()
        q.within("r.target_id" if by == "target" else "r.container_id", _ids(symbol))
        q.where.append(f"r.kind IN {CALL_KIND_SQL}")  # verbatim: the partial index's term
        q.scoped("f.scope", scope)
        sql = ("SELECT f.path, r.line, r.col, r.kind, r.flags, r.target_id, r.container_id FROM refs r"
               + _IN_GENERATION.format(t="r") + f" WHERE {q.sql()}" + _REF_ORDER
               + f" LIMIT {q.param(_limit(limit))}")
        kinds = REF_KINDS
        return [CallSite(p, line, col, kinds[k], flags, target, container)
                for p, line, col, k, flags, target, container in self._rows(sql, q.params)]

    def _ref_page(self, q: _Query, module: str | None, scope: str | None,
                  after: Sequence[object] | None, limit: int | None) -> list[RefRow]:
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        if after is not None:
            _check_after(after)
            marks = ", ".join(q.param(v) for v in after)
            q.where.append(f"(f.path, r.line, r.col, r.kind, r.ord) > ({marks})")
        sql = _REF_SELECT.format(where=q.sql()) + _REF_ORDER + f" LIMIT {q.param(_limit(limit))}"
        return [self._ref(r) for r in self._rows(sql, q.params)]

    @staticmethod
    def _ref(r: Row) -> RefRow:
        return RefRow(
            path=r[0], module=r[1], scope=r[2], span=_span(r[3], r[4], r[5], r[6]),
            kind=REF_KINDS[r[7]], flags=r[8], target_id=r[9], target_key=r[10],
            container_id=r[11], container_key=r[12], sort_key=(r[0], r[3], r[4], r[7], r[13]),
        )

    # relations -------------------------------------------------------------

    def relations(self, symbol: SymbolArg, *, direction: str = "both",
                  kinds: Iterable[str] | None = None) -> list[RelationRow]:
        """Compiler relations (extends, implements, overrides) from and/or to the
        symbol(s); `direction` is `from` (the symbol's supertypes and the
        methods it overrides), `to` (subtypes, overriders) or `both`."""
        if direction not in ("from", "to", "both"):
            raise StoreError(f"direction must be from, to or both (got {direction!r}).")
        ids = _ids(symbol)
        codes = _codes(kinds, RELATION_KIND_CODES, "relation")
        branches = []
        q = self._query()
        for side in ("from", "to"):
            if direction not in (side, "both"):
                continue
            conditions = [f"x.{side}_id IN ({', '.join(q.param(i) for i in ids)})"]
            if codes is not None:
                conditions.append(f"x.kind IN ({', '.join(q.param(c) for c in codes)})")
            branches.append(
                "SELECT x.kind AS kind, x.from_id AS from_id, a.binding_key, x.to_id AS to_id,"
                " b.binding_key, f.path AS path FROM relations x"
                + _IN_GENERATION.format(t="x")
                + " JOIN symbols a ON a.id = x.from_id JOIN symbols b ON b.id = x.to_id"
                + f" WHERE {' AND '.join(conditions)}"
            )
        sql = " UNION ".join(branches) + " ORDER BY path, kind, from_id, to_id"
        return [RelationRow(RELATION_KINDS[r[0]], r[1], r[2], r[3], r[4], r[5])
                for r in self._rows(sql, q.params)]

    # blocked names (coverage) ---------------------------------------------

    def blocked(self, names: Iterable[str], *, module: str | None = None,
                scope: str | None = None, path: str | None = None,
                limit: int | None = None) -> list[BlockedRow]:
        """The generation's files that leave one of `names` unaccounted for, one
        row per file and name, by path and position (index `blocked_names_by_name`)."""
        q = self._blocked_query(names, module, scope, path)
        rows = self._rows(
            "SELECT f.path AS path, f.module, f.scope, b.name, b.reason, b.line AS line,"
            " b.col AS col, b.dline, b.end_col, b.count, b.can_name, b.arity FROM blocked_names b"
            + _IN_GENERATION.format(t="b")
            + f" WHERE {q.sql()} ORDER BY path, line, col LIMIT {q.param(_limit(limit))}",
            q.params,
        )
        return [BlockedRow(r[0], r[1], r[2], r[3], BLOCK_REASONS[r[4]], _span(r[5], r[6], r[7], r[8]),
                           r[9], r[10], r[11]) for r in rows]

    def count_blocked(self, names: Iterable[str], *, module: str | None = None,
                      scope: str | None = None, path: str | None = None) -> int:
        """How many occurrences `blocked` stands for (the sum of its rows' counts)."""
        q = self._blocked_query(names, module, scope, path)
        return int(self._rows(
            "SELECT total(b.count) FROM blocked_names b" + _IN_GENERATION.format(t="b")
            + f" WHERE {q.sql()}", q.params)[0][0])

    def _blocked_query(self, names: Iterable[str], module: str | None, scope: str | None,
                       path: str | None) -> _Query:
        q = self._query()
        q.within("b.name", [names] if isinstance(names, str) else list(names))
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        q.equal("f.path", path)
        return q

    def unaccounted_files(self, *, module: str | None = None, scope: str | None = None,
                          path: str | None = None) -> list[FileInfo]:
        """Files that block every name: the indexer failed on them (their facts
        were dropped), or they were stored before blocked names were recorded
        and are not binding-complete."""
        q = self._query()
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        q.equal("f.path", path)
        rows = self._rows(
            f"SELECT {_FILE_COLUMNS} FROM manifest m"
            " CROSS JOIN file_versions f ON f.id = m.file_version_id"
            f" WHERE m.generation_id = :g AND {q.sql()} AND (f.failure IS NOT NULL"
            " OR (f.names_recorded = 0 AND f.binding_complete = 0)) ORDER BY f.path",
            q.params,
        )
        return [self._file(row) for row in rows]

    # problems --------------------------------------------------------------

    def problems(self, *, path: str | None = None, module: str | None = None,
                 scope: str | None = None, names: Iterable[str] | None = None,
                 kinds: Iterable[str] | None = None, errors_only: bool = False,
                 limit: int | None = None) -> list[ProblemRow]:
        """Compiler problems of the generation's files, by path and position.
        Filters are AND-ed: `names` (the unresolved simple names), `kinds`."""
        source, q = self._problem_query(path, module, scope, names, kinds, errors_only)
        rows = self._rows(
            f"SELECT {_PROBLEM_COLUMNS} FROM {source} WHERE {q.sql()}"
            f" ORDER BY path, line, col, p.ord LIMIT {q.param(_limit(limit))}",
            q.params,
        )
        return [ProblemRow(r[0], r[1], r[2], PROBLEM_KINDS[r[3]], r[4], r[5],
                           _span(r[6], r[7], r[8], r[9]), bool(r[10])) for r in rows]

    def count_problems(self, *, path: str | None = None, module: str | None = None,
                       scope: str | None = None, names: Iterable[str] | None = None,
                       kinds: Iterable[str] | None = None, errors_only: bool = False) -> int:
        """How many problems `problems` would return without a limit."""
        source, q = self._problem_query(path, module, scope, names, kinds, errors_only)
        return int(self._rows(f"SELECT count(*) FROM {source} WHERE {q.sql()}", q.params)[0][0])

    def _problem_query(self, path: str | None, module: str | None, scope: str | None,
                       names: Iterable[str] | None, kinds: Iterable[str] | None,
                       errors_only: bool) -> tuple[str, _Query]:
        q = self._query()
        codes = _codes(kinds, PROBLEM_KIND_CODES, "problem")
        if names is not None:
            names = [names] if isinstance(names, str) else list(names)
            source = "problems p" + _IN_GENERATION.format(t="p")
            q.within("p.name", names)
            q.where.append("p.name <> ''")  # verbatim: the partial index's term
        elif path is not None:
            source = ("file_versions f CROSS JOIN manifest m"
                      " ON m.generation_id = :g AND m.file_version_id = f.id"
                      " CROSS JOIN problems p ON p.file_version_id = f.id")
        else:
            source = ("manifest m CROSS JOIN file_versions f ON f.id = m.file_version_id"
                      " CROSS JOIN problems p ON p.file_version_id = m.file_version_id")
            q.where.append("m.generation_id = :g")
        q.equal("f.path", path)
        q.equal("f.module", module)
        q.scoped("f.scope", scope)
        if codes is not None:
            q.within("p.kind", codes)
        if errors_only:
            q.where.append("p.is_error = 1")
        return source, q

    # incremental sync ------------------------------------------------------

    def unsummarized_files(self) -> int:
        """How many files of the generation have no stored summary (names and signatures),
        e.g. versions written before migration 0002: incremental sync cannot plan around them."""
        return int(self._rows(
            "SELECT count(*) FROM manifest m LEFT JOIN file_summaries s"
            " ON s.file_version_id = m.file_version_id"
            " WHERE m.generation_id = :g AND s.file_version_id IS NULL",
            {"g": self.generation.id},
        )[0][0])

    def signatures(self, file_version_ids: Iterable[int]) -> dict[int, dict[str, list[Any]]]:
        """The stored declaration signatures (binding key -> fingerprint) of file versions."""
        ids = sorted(set(file_version_ids))
        out: dict[int, dict[str, list[Any]]] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for fv, text in self._rows(
                "SELECT file_version_id, signatures FROM file_summaries"
                f" WHERE file_version_id IN ({', '.join('?' * len(chunk))})", tuple(chunk)):
                out[fv] = json.loads(text)
        return out

    def _paths(self, select: str, column: str, values: Iterable[str]) -> set[str]:
        """The paths `select` (a SELECT DISTINCT f.path ... up to its WHERE) finds for any of
        `values` in `column`, 500 values per query."""
        ordered = sorted(set(values))
        out: set[str] = set()
        for i in range(0, len(ordered), 500):
            q = self._query()
            q.within(column, ordered[i:i + 500])
            out.update(r[0] for r in self._rows(f"{select} WHERE {q.sql()}", q.params))
        return out

    def paths_mentioning(self, names: Iterable[str]) -> set[str]:
        """Paths of the generation's files whose text holds one of the identifiers `names`: a
        search of every file's name list (`namelist`), read once per reader (a generation never
        changes; hibernate-core's 6,238 lists are 7.5 MB)."""
        wanted = set(names)
        if not wanted:
            return set()
        if self._name_lists is None:
            self._name_lists = namelist.Lists(self._rows(
                "SELECT f.path, s.names FROM manifest m"
                " CROSS JOIN file_summaries s ON s.file_version_id = m.file_version_id"
                " CROSS JOIN file_versions f ON f.id = m.file_version_id"
                " WHERE m.generation_id = :g", {"g": self.generation.id}))
        return self._name_lists.holding(wanted)

    def paths_referencing(self, binding_keys: Iterable[str]) -> set[str]:
        """Paths of the generation's files holding a reference to one of the binding keys."""
        return self._paths("SELECT DISTINCT f.path FROM symbols s CROSS JOIN refs r ON r.target_id = s.id"
                           + _IN_GENERATION.format(t="r"), "s.binding_key", binding_keys)

    def references_named(self, names: Iterable[str]) -> set[tuple[str, str, str, str, int]]:
        """(path, target name, target binding key, reference kind, flags) of the generation's
        references to a declaration of the named kinds called one of `names` (index
        `symbols_by_name`), one row for each distinct tuple."""
        ordered = sorted(set(names))
        out: set[tuple[str, str, str, str, int]] = set()
        for i in range(0, len(ordered), 500):
            q = self._query()
            q.within("s.name", ordered[i:i + 500])
            out.update((r[0], r[1], r[2], REF_KINDS[r[3]], r[4]) for r in self._rows(
                "SELECT DISTINCT f.path, s.name, s.binding_key, r.kind, r.flags FROM symbols s"
                " CROSS JOIN refs r ON r.target_id = s.id" + _IN_GENERATION.format(t="r")
                + f" WHERE {q.sql()} AND s.kind <= {NAMED_KIND_MAX}", q.params))
        return out

    def import_references(self, binding_keys: Iterable[str]) -> set[str]:
        """Paths of the generation's files whose imports (static ones included) name one of the
        binding keys."""
        return self._paths("SELECT DISTINCT f.path FROM symbols s CROSS JOIN refs r ON r.target_id = s.id"
                           + _IN_GENERATION.format(t="r") + f" AND r.flags & {REF_IN_IMPORT}",
                           "s.binding_key", binding_keys)

    def blocked_paths(self, names: Iterable[str]) -> set[str]:
        """Paths of the generation's files that leave one of `names` unaccounted for."""
        return self._paths("SELECT DISTINCT f.path FROM blocked_names b" + _IN_GENERATION.format(t="b"),
                           "b.name", names)

    def supertype_edges(self) -> list[tuple[str, str, str]]:
        """Every extends/implements relation of the generation: (path, subtype key, supertype key)."""
        codes = (RELATION_KIND_CODES["extends"], RELATION_KIND_CODES["implements"])
        return [(r[0], r[1], r[2]) for r in self._rows(
            "SELECT f.path, a.binding_key, b.binding_key FROM manifest m"
            " CROSS JOIN relations x ON x.file_version_id = m.file_version_id"
            " CROSS JOIN file_versions f ON f.id = m.file_version_id"
            " JOIN symbols a ON a.id = x.from_id JOIN symbols b ON b.id = x.to_id"
            " WHERE m.generation_id = :g AND x.kind IN (:k1, :k2)",
            {"g": self.generation.id, "k1": codes[0], "k2": codes[1]})]

    def subtype_edges(self, supertype_keys: Iterable[str]) -> list[tuple[str, str, str]]:
        """The generation's extends/implements relations to one of `supertype_keys` (index
        `relations_by_to`): (path, subtype key, supertype key), as `supertype_edges` lists them."""
        codes = (RELATION_KIND_CODES["extends"], RELATION_KIND_CODES["implements"])
        ordered = sorted(set(supertype_keys))
        out: list[tuple[str, str, str]] = []
        for i in range(0, len(ordered), 500):
            q = self._query()
            q.within("b.binding_key", ordered[i:i + 500])
            out.extend((r[0], r[1], r[2]) for r in self._rows(
                "SELECT f.path, a.binding_key, b.binding_key FROM symbols b"
                " CROSS JOIN relations x ON x.to_id = b.id" + _IN_GENERATION.format(t="x")
                + " JOIN symbols a ON a.id = x.from_id"
                + f" WHERE {q.sql()} AND x.kind IN ({codes[0]}, {codes[1]})", q.params))
        return out

    def declared_beside(self, symbol_id: int) -> set[int]:
        """Symbols declared in any stored file version (of any generation still kept) that also
        declares `symbol_id`: the members that lived beside it, so not its successors."""
        return {int(r[0]) for r in self._rows(
            "SELECT DISTINCT d2.symbol_id FROM declarations d1"
            " JOIN declarations d2 ON d2.file_version_id = d1.file_version_id"
            " WHERE d1.symbol_id = :s", {"s": symbol_id})}

    def declarations_in(self, path: str) -> list[DeclRow]:
        """Every declaration of one file of the generation, by position (empty when absent)."""
        fv = self._file_row(path)
        if fv is None:
            return []
        return [self._decl(r) for r in self._rows(
            _DECL_SELECT.format(source=_DECLS_FIRST, where="d.file_version_id = :fv")
            + " ORDER BY line, col", {"g": self.generation.id, "fv": fv[10]})]

    def file_references(self, path: str) -> list[RefRow]:
        """Every reference of one file of the generation, by position (empty when absent)."""
        fv = self._file_row(path)
        if fv is None:
            return []
        return [self._ref(r) for r in self._rows(
            _REF_SELECT.format(where="r.file_version_id = :fv") + _REF_ORDER,
            {"g": self.generation.id, "fv": fv[10]})]

    def file_relations(self, path: str) -> list[RelationRow]:
        """Every relation (extends, implements, overrides, generated_from) one file of the generation
        declares (empty when absent)."""
        fv = self._file_row(path)
        if fv is None:
            return []
        return [RelationRow(RELATION_KINDS[r[0]], r[1], r[2], r[3], r[4], path) for r in self._rows(
            "SELECT x.kind, x.from_id, a.binding_key, x.to_id, b.binding_key FROM relations x"
            " JOIN symbols a ON a.id = x.from_id JOIN symbols b ON b.id = x.to_id"
            " WHERE x.file_version_id = :fv ORDER BY x.kind, x.from_id, x.to_id", {"fv": fv[10]})]

    def files_rows(self, paths: Iterable[str], *, errors_only: bool = False) -> dict[str, FileRows]:
        """The stored references, declarations, relations and problems (`errors_only`: the errors) of
        many files of the generation, by path, each table in the order of its one-file query: one query
        per table for each 500 files, instead of four or more per file (a check compares the facts of
        the files it compiled with these). A path the generation does not hold is left out."""
        by_path = self.files_by_path()
        ids = {by_path[p].file_version_id: p for p in set(paths) if p in by_path}
        out = {path: FileRows() for path in sorted(ids.values())}
        order = sorted(ids)
        for i in range(0, len(order), 500):
            chunk = order[i:i + 500]
            params = {"g": self.generation.id, **{f"v{n}": fv for n, fv in enumerate(chunk)}}
            within = "({})".format(", ".join(f":v{n}" for n in range(len(chunk))))
            for r in self._rows(_REF_SELECT.format(where=f"r.file_version_id IN {within}") + _REF_ORDER, params):
                out[r[0]].references.append(self._ref(r))
            for r in self._rows(_DECL_SELECT.format(source=_DECLS_FIRST, where=f"d.file_version_id IN {within}")
                                + " ORDER BY path, line, col, d.ord", params):
                out[r[7]].declarations.append(self._decl(r))
            for r in self._rows(
                    "SELECT x.file_version_id, x.kind, x.from_id, a.binding_key, x.to_id, b.binding_key"
                    " FROM relations x JOIN symbols a ON a.id = x.from_id JOIN symbols b ON b.id = x.to_id"
                    f" WHERE x.file_version_id IN {within}"
                    " ORDER BY x.file_version_id, x.kind, x.from_id, x.to_id", params):
                path = ids[r[0]]
                out[path].relations.append(RelationRow(RELATION_KINDS[r[1]], r[2], r[3], r[4], r[5], path))
            errors = " AND p.is_error = 1" if errors_only else ""
            for r in self._rows(
                    f"SELECT {_PROBLEM_COLUMNS} FROM problems p" + _IN_GENERATION.format(t="p")
                    + f" WHERE p.file_version_id IN {within}{errors} ORDER BY path, line, col, p.ord", params):
                out[r[0]].problems.append(ProblemRow(r[0], r[1], r[2], PROBLEM_KINDS[r[3]], r[4], r[5],
                                                     _span(r[6], r[7], r[8], r[9]), bool(r[10])))
        return out

    def paths_relating_to(self, binding_keys: Iterable[str]) -> set[str]:
        """Paths of the generation's files holding a relation (extends, implements, overrides)
        to one of the binding keys."""
        return self._paths("SELECT DISTINCT f.path FROM symbols s CROSS JOIN relations x ON x.to_id = s.id"
                           + _IN_GENERATION.format(t="x"), "s.binding_key", binding_keys)

    def paths_with_problems_named(self, names: Iterable[str]) -> set[str]:
        """Paths of the generation's files with a compiler problem naming one of `names`."""
        return {p.path for p in self.problems(names=sorted(set(names)))}
