"""The store's schema as numbered migrations, recorded in the database.

Modelled on sqlite-utils' `migrations.py`: each migration is a function
registered in order under a numbered name; `migrate` applies the ones the
`migrations` table does not list yet, each in its own transaction together
with the row that records it, so a migration is applied whole or not at all
and never twice. A database that lists a migration this code does not know
was written by a newer pybridge and is refused.

Encodings shared by the writer and the reader live here too: kinds are small
integers (the index in the tuples of `pybridge.facts`), spans are four
integers with the end line stored as a delta from the start line (0 for the
one-line tokens that nearly every span is, and SQLite stores 0 in no bytes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime, timezone

from pybridge.errors import StoreError
from pybridge.facts import BLOCK_REASONS, DECL_KINDS, PROBLEM_KINDS, REF_KINDS, RELATION_KINDS

from .db import transaction

DECL_KIND_CODES = {kind: code for code, kind in enumerate(DECL_KINDS)}
REF_KIND_CODES = {kind: code for code, kind in enumerate(REF_KINDS)}
RELATION_KIND_CODES = {kind: code for code, kind in enumerate(RELATION_KINDS)}
PROBLEM_KIND_CODES = {kind: code for code, kind in enumerate(PROBLEM_KINDS)}
BLOCK_REASON_CODES = {reason: code for code, reason in enumerate(BLOCK_REASONS)}

# invocation, construction, method_reference: the kinds that make a call
# (DESIGN section 6). The partial index `refs_calls_by_container` is defined
# with exactly this text, and queries that want it repeat it verbatim.
CALL_KINDS = ("invocation", "construction", "method_reference")
CALL_KIND_SQL = "(3, 4, 5)"
assert tuple(REF_KIND_CODES[k] for k in CALL_KINDS) == (3, 4, 5)

# The kinds that name lookups resolve among (DESIGN section 7): CLASS …
# RECORD_COMPONENT. The partial indexes `symbols_by_*` are defined with
# `kind <= 9`, and name lookups repeat the term verbatim.
NAMED_KINDS = DECL_KINDS[:10]
NAMED_KIND_MAX = 9
assert NAMED_KINDS[-1] == "RECORD_COMPONENT"

# generations.state
STAGING = 0
PUBLISHED = 1

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(name: str) -> Callable[[Migration], Migration]:
    """Register a migration; names are numbered (`0001_initial`) and applied in order."""

    def register(fn: Migration) -> Migration:
        MIGRATIONS.append((name, fn))
        return fn

    return register


def _run(conn: sqlite3.Connection, script: str) -> None:
    # Not executescript(): it commits first, and a migration must stay inside
    # the transaction that records it.
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    for statement in "\n".join(lines).split(";"):
        if statement.strip():
            conn.execute(statement)


@migration("0001_initial")
def _initial(conn: sqlite3.Connection) -> None:
    _run(conn, """
    -- Append-only: a symbol id names one binding key forever. The descriptive
    -- columns are the first values seen (filled in when first known), kept to
    -- explain an old key; a declaration stores its own value only where it
    -- differs (declarations.*_x).
    CREATE TABLE symbols (
        id          INTEGER PRIMARY KEY,
        binding_key TEXT NOT NULL UNIQUE,
        kind        INTEGER,
        name        TEXT,
        display     TEXT,
        dotted      TEXT,
        scip        TEXT,
        external    INTEGER NOT NULL DEFAULT 0
    );
    -- Name lookups resolve among the named kinds only (kind <= 9: types,
    -- methods, constructors, fields, enum constants, record components),
    -- as the name tools do; parameters, locals and type parameters are
    -- reached by position or key, and leaving them out halves these indexes.
    CREATE INDEX symbols_by_name ON symbols(name) WHERE kind <= 9;
    CREATE INDEX symbols_by_dotted ON symbols(dotted) WHERE kind <= 9;
    CREATE INDEX symbols_by_scip ON symbols(scip) WHERE kind <= 9;

    CREATE TABLE generations (
        id           INTEGER PRIMARY KEY,
        number       INTEGER UNIQUE,
        state        INTEGER NOT NULL,
        created_at   TEXT NOT NULL,
        published_at TEXT,
        snapshot     TEXT NOT NULL,
        meta         TEXT NOT NULL
    );

    CREATE TABLE current (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        generation_id INTEGER REFERENCES generations(id),
        last_number   INTEGER NOT NULL
    );
    INSERT INTO current (id, generation_id, last_number) VALUES (1, NULL, 0);

    -- One row per content-addressed file version: digest is the sha256 of
    -- (module, scope, path, content hash, canonical facts).
    CREATE TABLE file_versions (
        id               INTEGER PRIMARY KEY,
        digest           BLOB NOT NULL UNIQUE,
        path             TEXT NOT NULL,
        module           TEXT NOT NULL,
        scope            TEXT NOT NULL,
        content_sha256   TEXT NOT NULL,
        size             INTEGER NOT NULL,
        binding_complete INTEGER NOT NULL,
        failure          TEXT,
        n_declarations   INTEGER NOT NULL,
        n_references     INTEGER NOT NULL,
        n_relations      INTEGER NOT NULL,
        n_problems       INTEGER NOT NULL
    );
    CREATE INDEX file_versions_by_path ON file_versions(path);

    CREATE TABLE manifest (
        generation_id   INTEGER NOT NULL REFERENCES generations(id) ON DELETE CASCADE,
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id),
        PRIMARY KEY (generation_id, file_version_id)
    ) WITHOUT ROWID;
    CREATE INDEX manifest_by_file_version ON manifest(file_version_id);

    -- ord: the declaration's place in the file's sorted declarations.
    -- Spans: (line, col, dline, end_col), dline = end_line - line.
    CREATE TABLE declarations (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        ord             INTEGER NOT NULL,
        symbol_id       INTEGER NOT NULL REFERENCES symbols(id),
        kind            INTEGER NOT NULL,
        container_id    INTEGER REFERENCES symbols(id),
        line            INTEGER NOT NULL,
        col             INTEGER NOT NULL,
        dline           INTEGER NOT NULL,
        end_col         INTEGER NOT NULL,
        full_line       INTEGER NOT NULL,
        full_col        INTEGER NOT NULL,
        full_dline      INTEGER NOT NULL,
        full_end_col    INTEGER NOT NULL,
        modifiers       INTEGER NOT NULL,
        name_x          TEXT,
        display_x       TEXT,
        dotted_x        TEXT,
        scip_x          TEXT,
        PRIMARY KEY (file_version_id, ord)
    ) WITHOUT ROWID;
    CREATE INDEX declarations_by_symbol ON declarations(symbol_id);
    CREATE INDEX declarations_by_name_x ON declarations(name_x) WHERE name_x IS NOT NULL;
    CREATE INDEX declarations_by_dotted_x ON declarations(dotted_x) WHERE dotted_x IS NOT NULL;
    CREATE INDEX declarations_by_scip_x ON declarations(scip_x) WHERE scip_x IS NOT NULL;

    -- ord: the reference's place in the file's references sorted by
    -- (line, col, kind, ...), so (path, ord) orders a generation's references
    -- like (path, line, col, kind).
    CREATE TABLE refs (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        ord             INTEGER NOT NULL,
        target_id       INTEGER NOT NULL REFERENCES symbols(id),
        container_id    INTEGER REFERENCES symbols(id),
        line            INTEGER NOT NULL,
        col             INTEGER NOT NULL,
        dline           INTEGER NOT NULL,
        end_col         INTEGER NOT NULL,
        kind            INTEGER NOT NULL,
        flags           INTEGER NOT NULL,
        PRIMARY KEY (file_version_id, ord)
    ) WITHOUT ROWID;
    CREATE INDEX refs_by_target ON refs(target_id, kind, file_version_id);
    CREATE INDEX refs_calls_by_container ON refs(container_id, file_version_id)
        WHERE kind IN (3, 4, 5);

    CREATE TABLE relations (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        kind            INTEGER NOT NULL,
        from_id         INTEGER NOT NULL REFERENCES symbols(id),
        to_id           INTEGER NOT NULL REFERENCES symbols(id),
        PRIMARY KEY (file_version_id, kind, from_id, to_id)
    ) WITHOUT ROWID;
    CREATE INDEX relations_by_from ON relations(from_id);
    CREATE INDEX relations_by_to ON relations(to_id);

    CREATE TABLE problems (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        ord             INTEGER NOT NULL,
        kind            INTEGER NOT NULL,
        name            TEXT NOT NULL,
        message         TEXT NOT NULL,
        line            INTEGER NOT NULL,
        col             INTEGER NOT NULL,
        dline           INTEGER NOT NULL,
        end_col         INTEGER NOT NULL,
        is_error        INTEGER NOT NULL,
        PRIMARY KEY (file_version_id, ord)
    ) WITHOUT ROWID;
    CREATE INDEX problems_by_name ON problems(name) WHERE name <> ''
    """)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


_INDEXES: dict[str, str] = {}


def index_definitions() -> dict[str, str]:
    """name -> `CREATE INDEX` statement of every index the migrations define (not the ones a
    PRIMARY KEY or UNIQUE constraint implies), read from an empty database they are applied to."""
    if not _INDEXES:
        conn = sqlite3.connect(":memory:", isolation_level=None)
        try:
            migrate(conn)
            _INDEXES.update(conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"))
        finally:
            conn.close()
    return dict(_INDEXES)


# Indexes a first sync's staging keeps: their rows arrive in key order (file version ids only
# grow), so each insert lands on the last page, which costs less than building them at publish.
KEPT_WHILE_STAGING = frozenset({"manifest_by_file_version", "file_versions_by_path"})


def drop_indexes(conn: sqlite3.Connection) -> None:
    """Drop the indexes `index_definitions` lists but `KEPT_WHILE_STAGING`, in one transaction (a
    first sync's staging writes without them; `restore_indexes` builds them again). Only under the
    writer lock."""
    with transaction(conn):
        for name in index_definitions():
            if name not in KEPT_WHILE_STAGING:
                conn.execute(f'DROP INDEX IF EXISTS "{name}"')


def missing_indexes(conn: sqlite3.Connection) -> list[str]:
    present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    return [name for name in index_definitions() if name not in present]


def restore_indexes(conn: sqlite3.Connection) -> list[str]:
    """Create the indexes a first sync's staging dropped (or a crash during it left dropped), in
    one transaction; returns their names. Building an index sorts its rows once (guava's, about
    400,000 rows in all: 0.4-0.7 s; SQLite's sorter threads made no measurable difference).
    Only under the writer lock: a staging may have dropped them."""
    missing = missing_indexes(conn)
    if not missing:
        return []
    definitions = index_definitions()
    with transaction(conn):
        for name in missing:
            conn.execute(definitions[name])
    return missing


def _ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations ("
        " id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, applied_at TEXT NOT NULL)"
    )


def applied(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in the database, in the order applied."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if not exists:
        return []
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY id")]


def pending(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations this code has and the database lacks.

    Raises StoreError when the database records a migration this code lacks.
    """
    done = applied(conn)
    known = [name for name, _ in MIGRATIONS]
    unknown = [name for name in done if name not in known]
    if unknown:
        raise StoreError(
            f"The store was written by a newer pybridge (it has schema migration "
            f"{unknown[-1]}); upgrade pybridge, or delete the state folder and sync again.",
            migrations=unknown,
        )
    return [name for name in known if name not in done]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the pending migrations, each in one transaction with its record.

    `conn` must be in autocommit mode (isolation_level=None). Returns the
    names applied now. Safe to run again: a recorded migration is skipped.
    """
    done: list[str] = []
    for name, fn in MIGRATIONS:
        rebuild = name in REBUILDS
        if rebuild:   # outside a transaction, where SQLite allows it; restored below
            foreign_keys = conn.execute("PRAGMA foreign_keys").fetchone()[0]
            conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with transaction(conn):
                _ensure_table(conn)
                already = conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone()
                if not already:
                    fn(conn)
                    if rebuild and conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
                        raise StoreError(f"Schema migration {name} would break the store's references; "
                                         f"delete the state folder and sync again.", migration=name)
                    conn.execute(
                        "INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, _now())
                    )
                    done.append(name)
        finally:
            if rebuild and foreign_keys:
                conn.execute("PRAGMA foreign_keys = ON")
    return done


@migration("0002_incremental")
def _incremental(conn: sqlite3.Connection) -> None:
    _run(conn, """
    -- The per-file name index of incremental sync (DESIGN section 5): every
    -- identifier token of the file's text (comments and strings included, a
    -- superset of what the file can mention), per file version.
    CREATE TABLE file_names (
        name            TEXT NOT NULL,
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        PRIMARY KEY (name, file_version_id)
    ) WITHOUT ROWID;
    CREATE INDEX file_names_by_version ON file_names(file_version_id);

    -- What other files can depend on, per file version: a JSON object
    -- binding key -> fingerprint of each declaration visible outside its
    -- file's bodies (kind, names, modifiers, SCIP, the text of its signature,
    -- a type's supertypes). A row here also says that the version's names
    -- are indexed.
    CREATE TABLE file_summaries (
        file_version_id INTEGER PRIMARY KEY REFERENCES file_versions(id) ON DELETE CASCADE,
        signatures      TEXT NOT NULL
    )
    """)


@migration("0003_blocked_names")
def _blocked_names(conn: sqlite3.Connection) -> None:
    _run(conn, """
    -- The names a file version leaves unaccounted for (DESIGN section 8): one
    -- row per simple name, with the reason and place of its first occurrence
    -- and the number of occurrences. Coverage of a symbol named N looks up
    -- the rows named N of the generation's files (blocked_names_by_name).
    CREATE TABLE blocked_names (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        name            TEXT NOT NULL,
        reason          INTEGER NOT NULL,
        line            INTEGER NOT NULL,
        col             INTEGER NOT NULL,
        dline           INTEGER NOT NULL,
        end_col         INTEGER NOT NULL,
        count           INTEGER NOT NULL,
        PRIMARY KEY (file_version_id, name)
    ) WITHOUT ROWID;
    CREATE INDEX blocked_names_by_name ON blocked_names(name, file_version_id);
    -- 1 when the version's blocked names were recorded; versions written before
    -- this migration have 0 and, unless binding-complete, block every name.
    ALTER TABLE file_versions ADD COLUMN names_recorded INTEGER NOT NULL DEFAULT 0
    """)


@migration("0004_checkouts")
def _checkouts(conn: sqlite3.Connection) -> None:
    """Checkouts of one repository share one store (DESIGN section 5): file versions, facts and
    symbols once, while each checkout has its own generations, numbered 1, 2, 3… per checkout,
    and its own current pointer. The store's own workspace is checkout 1, named ''. Rebuilds
    `generations` (its number was unique store-wide); `migrate` turns foreign keys off around it."""
    _run(conn, """
    -- One row per checkout served from this store: name '' for the store's own workspace (a store
    -- in the workspace's state folder), else the checkout's root; state_dir: its state folder
    -- (where its key secret lives); generation_id and last_number: its current pointer.
    CREATE TABLE checkouts (
        id            INTEGER PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE,
        state_dir     TEXT,
        generation_id INTEGER REFERENCES generations(id),
        last_number   INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO checkouts (id, name, generation_id, last_number)
        SELECT 1, '', generation_id, last_number FROM current;
    CREATE TABLE generations_new (
        id           INTEGER PRIMARY KEY,
        checkout_id  INTEGER NOT NULL REFERENCES checkouts(id),
        number       INTEGER,
        state        INTEGER NOT NULL,
        created_at   TEXT NOT NULL,
        published_at TEXT,
        snapshot     TEXT NOT NULL,
        meta         TEXT NOT NULL,
        UNIQUE (checkout_id, number)
    );
    INSERT INTO generations_new (id, checkout_id, number, state, created_at, published_at, snapshot, meta)
        SELECT id, 1, number, state, created_at, published_at, snapshot, meta FROM generations;
    DROP TABLE generations;
    ALTER TABLE generations_new RENAME TO generations;
    DROP TABLE current
    """)


@migration("0005_blocked_occurrences")
def _blocked_occurrences(conn: sqlite3.Connection) -> None:
    _run(conn, """
    -- One row per blocked token (DESIGN section 8): its name, reason and place, what it can
    -- name there (can_name: a mask of pybridge.facts.CAN_NAME_*) and the number of arguments
    -- of the call it names (arity, -1 for none or unknown). Rows of versions stored before
    -- stand for `count` tokens from their first one, and can name anything.
    CREATE TABLE blocked_names_new (
        file_version_id INTEGER NOT NULL REFERENCES file_versions(id) ON DELETE CASCADE,
        name            TEXT NOT NULL,
        reason          INTEGER NOT NULL,
        line            INTEGER NOT NULL,
        col             INTEGER NOT NULL,
        dline           INTEGER NOT NULL,
        end_col         INTEGER NOT NULL,
        count           INTEGER NOT NULL,
        can_name        INTEGER NOT NULL,
        arity           INTEGER NOT NULL,
        PRIMARY KEY (file_version_id, name, line, col)
    ) WITHOUT ROWID;
    INSERT INTO blocked_names_new
        SELECT file_version_id, name, reason, line, col, dline, end_col, count, 31, -1 FROM blocked_names;
    DROP TABLE blocked_names;
    ALTER TABLE blocked_names_new RENAME TO blocked_names;
    CREATE INDEX blocked_names_by_name ON blocked_names(name, file_version_id)
    """)


@migration("0006_name_lists")
def _name_lists(conn: sqlite3.Connection) -> None:
    _run(conn, """
    -- A version's names (pybridge.store.namelist): one value in its summary row instead of a row
    -- per name in file_names (a first sync of 6,000 files wrote 682,489 of them).
    ALTER TABLE file_summaries ADD COLUMN names BLOB NOT NULL DEFAULT x'0a0a';
    UPDATE file_summaries SET names = CAST(char(10) || coalesce((
        SELECT group_concat(name, char(10)) FROM (
            SELECT name FROM file_names n
            WHERE n.file_version_id = file_summaries.file_version_id ORDER BY name)), '')
        || char(10) AS BLOB)
        WHERE file_version_id IN (SELECT file_version_id FROM file_names);
    DROP TABLE file_names
    """)


# Migrations that rebuild a table another one references: applied with foreign keys off, as
# SQLite's procedure for other schema changes asks (a DROP TABLE with them on would cascade).
REBUILDS = frozenset({"0004_checkouts"})
