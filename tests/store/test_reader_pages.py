"""The reader's work for a page of references (issue 27, "A flat p99"): what a page reads, and what
it keeps across readers of the same published generation."""

from __future__ import annotations

import pytest

from pybridge.store import Reader, Store
from tests.support.store_factories import decl, facts, ref, sha

MODULE = "com.acme:core"
STRING = "Ljava/lang/String;"
STRING_SCIP = "semanticdb maven jdk 17 java/lang/String#"
FILES = 60
REFS_PER_FILE = 8
OTHER_REFS = 100    # per file, to the file's own field


def user(i: int):
    """File i: one class whose method uses String REFS_PER_FILE times (of two kinds), and its own
    field OTHER_REFS times."""
    cls = f"Lcom/acme/User{i:03};"
    method = f"{cls}.run()V"
    field = f"{cls}.count)I"
    return f"core/src/main/java/com/acme/User{i:03}.java", facts(
        f"/ws/core/src/main/java/com/acme/User{i:03}.java",
        decls=[decl(cls, "CLASS", f"User{i:03}", at=(1, 13), dotted=f"com.acme.User{i:03}", body_lines=20),
               decl(method, "METHOD", "run", at=(2, 16), dotted=f"com.acme.User{i:03}.run", declaring=cls,
                    body_lines=15),
               decl(field, "FIELD", "count", at=(2, 4), dotted=f"com.acme.User{i:03}.count", declaring=cls)],
        refs=[*(ref(STRING, "type_use" if k % 2 else "construction", at=(3 + k, 8), length=6, container=method,
                    scip=STRING_SCIP) for k in range(REFS_PER_FILE)),
              *(ref(field, "read", at=(20 + k, 8), length=5, container=method) for k in range(OTHER_REFS))],
        external={STRING: ("CLASS", "java.lang.String", STRING_SCIP)},
    )


def publish(store: Store, files: int = FILES) -> int:
    with store.stage({"files": files}, {"commit": None}) as staging:
        for i in range(files):
            path, ff = user(i)
            staging.add_file(MODULE, "main", path, sha(repr(ff)), 100, ff)
        return staging.publish({"duration": 0.0})


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "store.sqlite") as s:
        publish(s)
        yield s


def steps(reader: Reader, run) -> tuple[object, int]:
    """What `run()` returns, and how many SQLite virtual machine steps (in tens) it took on the
    reader's connection: the rows and index entries a query walks, not a clock."""
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    reader._conn.set_progress_handler(tick, 10)
    try:
        return run(), count[0]
    finally:
        reader._conn.set_progress_handler(None, 0)


def test_a_first_page_without_kinds_seeks_its_files_instead_of_walking_every_reference(store, monkeypatch):
    """PYBRIDGE_PAGE_KIND_SEEK: a page of a symbol referenced in 60 files reads the rows of its three
    files through the index; without the kinds named it walked either the symbol's 480 index entries
    or the three files' 324 references to keep 17. Same rows either way."""
    with store.reader() as r:
        sid = r.symbol(STRING).id
        r.reference_files([sid], None, None, None)          # the file list is not what is measured
        monkeypatch.setenv("PYBRIDGE_PAGE_KIND_SEEK", "0")
        walked, walked_steps = steps(r, lambda: r.references(sid, limit=2 * REFS_PER_FILE + 1))
        monkeypatch.setenv("PYBRIDGE_PAGE_KIND_SEEK", "1")
        sought, sought_steps = steps(r, lambda: r.references(sid, limit=2 * REFS_PER_FILE + 1))
        assert sought == walked and len(sought) == 2 * REFS_PER_FILE + 1
        assert {x.path for x in sought} == {user(i)[0] for i in range(3)}
        assert sought_steps * 3 < walked_steps, (sought_steps, walked_steps)
        full = r.references(sid)
        pages, after = [], None
        while page := r.references(sid, after=after, limit=7):   # pages that cut files join to the list
            pages += page
            after = page[-1].sort_key
        assert pages == full and len(full) == FILES * REFS_PER_FILE


def queries_of(reader: Reader, run) -> list[str]:
    seen: list[str] = []
    reader._conn.set_trace_callback(seen.append)
    try:
        run()
    finally:
        reader._conn.set_trace_callback(None)
    return seen


def test_a_symbols_reference_files_are_counted_once_per_generation_not_once_per_reader(store, monkeypatch):
    """PYBRIDGE_GENERATION_CACHE: the second reader (the next call) of the same generation takes the
    files holding a symbol's references, and its total, from the store's generation cache: no query
    counts them again. A new generation counts its own (never the old list)."""
    def grouping(q: str) -> bool:
        return "GROUP BY r.file_version_id" in q

    with store.reader() as r:
        sid = r.symbol(STRING).id
        assert [q for q in queries_of(r, lambda: r.count_references(sid)) if grouping(q)]
    with store.reader() as r:
        assert not [q for q in queries_of(r, lambda: r.count_references(sid)) if grouping(q)]
        assert r.count_references(sid) == FILES * REFS_PER_FILE
    monkeypatch.setenv("PYBRIDGE_GENERATION_CACHE", "0")
    with store.reader() as r:
        assert [q for q in queries_of(r, lambda: r.count_references(sid)) if grouping(q)]
    monkeypatch.delenv("PYBRIDGE_GENERATION_CACHE")
    publish(store, FILES // 2)
    with store.reader() as r:
        assert [q for q in queries_of(r, lambda: r.count_references(sid)) if grouping(q)]
        assert r.count_references(sid) == FILES // 2 * REFS_PER_FILE


def test_a_generations_row_is_read_again_only_after_a_commit(tmp_path, monkeypatch):
    """PYBRIDGE_SNAPSHOT_ONCE: the next reader of an unchanged database takes the generation (its
    snapshot, 640 KB of text on reactor4) from its connection's last read instead of reading the row;
    a no-op sync's refresh of the snapshot in place, from another connection (a sync's writer in
    another process), is seen by the next reader at once, as is a new generation."""
    path = tmp_path / "store.sqlite"

    def row_reads(store: Store) -> int:
        seen: list[str] = []
        conn = store._checkout()
        conn.set_trace_callback(seen.append)
        store._checkin(conn)
        try:
            with store.reader() as r:
                number = r.generation.number
        finally:
            conn.set_trace_callback(None)
        assert number == r.generation.number
        return len([q for q in seen if "g.snapshot" in q])

    with Store.open(path) as writer:
        publish(writer, 2)
        with Store.open(path, readonly=True) as store:
            assert row_reads(store) == 1
            assert row_reads(store) == 0
            writer.refresh_generation(1, {"files": "touched"}, {})
            assert row_reads(store) == 1
            with store.reader() as r:
                assert r.generation.snapshot == {"files": "touched"}
            publish(writer, 3)
            with store.reader() as r:
                assert r.generation.number == 2
            monkeypatch.setenv("PYBRIDGE_SNAPSHOT_ONCE", "0")
            assert row_reads(store) == 1
            assert row_reads(store) == 1
