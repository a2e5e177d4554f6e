"""The SQLite store: facts round trip, content-addressed versions, generations."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from pybridge.errors import StoreError
from pybridge.facts import Span
from pybridge.store import CALL_KINDS, DeclRow, RefRow, Store, db, namelist
from pybridge.store import reader as reader_module
from pybridge.store.schema import KEPT_WHILE_STAGING, MIGRATIONS, index_definitions
from pybridge.store.staging import FileSummary
from tests.support.old_stores import store_at_migration
from tests.support.store_factories import (
    SCIP_PREFIX,
    decl,
    facts,
    problem,
    ref,
    relation,
    sha,
    stage_synthetic,
)

MODULE = "com.acme:core"
GREETER = "Lcom/acme/Greeter;"
GREET = "Lcom/acme/Greeter;.greet(Ljava/lang/String;)V"
NAME_PARAM = "Lcom/acme/Greeter;.greet(Ljava/lang/String;)V#name"
MAIN = "Lcom/acme/App;.main([Ljava/lang/String;)V"
APP = "Lcom/acme/App;"
BASE = "Lcom/acme/Base;"
BASE_GREET = "Lcom/acme/Base;.greet(Ljava/lang/String;)V"
PRINTLN = "Ljava/io/PrintStream;.println(Ljava/lang/String;)V"
PRINTLN_SCIP = "semanticdb maven jdk 17 java/io/PrintStream#println(+8)."


def greeter_facts(*, greet_scip: str = f"{SCIP_PREFIX}com/acme/Greeter#greet().",
                  extra_refs=()):
    return facts(
        "/ws/core/src/main/java/com/acme/Greeter.java",
        decls=[
            decl(GREETER, "CLASS", "Greeter", at=(2, 13), dotted="com.acme.Greeter",
                 scip=f"{SCIP_PREFIX}com/acme/Greeter#", body_lines=6),
            decl(GREET, "METHOD", "greet", at=(3, 16), dotted="com.acme.Greeter.greet",
                 scip=greet_scip, display="greet(String)", declaring=GREETER, body_lines=2),
            decl(NAME_PARAM, "PARAMETER", "name", at=(3, 29), dotted="com.acme.Greeter.greet.name",
                 scip="local 0", declaring=GREET),
        ],
        refs=[
            ref(BASE, "type_use", at=(2, 29), length=4, container=GREETER),
            ref(PRINTLN, "invocation", at=(4, 19), length=7, container=GREET, scip=PRINTLN_SCIP),
            ref(NAME_PARAM, "read", at=(4, 27), length=4, container=GREET, scip="local 0"),
            *extra_refs,
        ],
        rels=[relation("extends", GREETER, BASE), relation("overrides", GREET, BASE_GREET)],
        external={PRINTLN: ("METHOD", "java.io.PrintStream.println", PRINTLN_SCIP)},
    )


def app_facts(calls: int = 2):
    return facts(
        "/ws/core/src/main/java/com/acme/App.java",
        decls=[
            decl(APP, "CLASS", "App", at=(1, 13), dotted="com.acme.App",
                 scip=f"{SCIP_PREFIX}com/acme/App#", body_lines=8),
            decl(MAIN, "METHOD", "main", at=(2, 23), dotted="com.acme.App.main",
                 scip=f"{SCIP_PREFIX}com/acme/App#main().", declaring=APP, body_lines=5),
        ],
        refs=[
            ref(GREETER, "type_use", at=(3, 8), length=7, container=MAIN),
            ref(GREETER, "construction", at=(3, 24), length=7, container=MAIN),
            *[ref(GREET, "invocation", at=(4 + i, 10), length=5, container=MAIN)
              for i in range(calls)],
        ],
        problems=[problem("unresolved_type", "Missing", at=(6, 4))],
        binding_complete=False,
    )


def greeter_test_file(test_path: str = "core/src/test/java/com/acme/GreeterTest.java"):
    test_method = "Lcom/acme/GreeterTest;.greets()V"
    return test_path, facts(
        f"/ws/{test_path}",
        decls=[decl(test_method, "METHOD", "greets", at=(5, 9), declaring="Lcom/acme/GreeterTest;")],
        refs=[ref(GREET, "invocation", at=(6, 20), length=5, container=test_method)],
    )


GREETER_PATH = "core/src/main/java/com/acme/Greeter.java"
APP_PATH = "core/src/main/java/com/acme/App.java"


def publish(store: Store, files: dict[str, object], *, scope_of=lambda p: "main",
            meta=None) -> int:
    with store.stage({"files": sorted(files)}, meta or {"commit": "abc"}) as staging:
        for path, ff in files.items():
            staging.add_file(MODULE, scope_of(path), path, sha(repr(ff)), 100, ff)
        return staging.publish({"duration": 1.5})


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "store.sqlite") as s:
        yield s


def row_counts(store: Store) -> dict[str, int]:
    stats = store.stats()
    stats.pop("bytes")
    return stats


# round trip ----------------------------------------------------------------


def test_a_published_generation_answers_the_facts_it_was_given(store):
    number = publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts()},
                     meta={"commit": "abc", "limitations": [{"kind": "reflection_not_tracked"}]})
    assert number == 1
    with store.reader() as r:
        g = r.generation
        assert (g.number, g.current) == (1, True)
        assert g.meta["commit"] == "abc" and g.meta["duration"] == 1.5
        assert g.meta["limitations"] == [{"kind": "reflection_not_tracked"}]
        assert g.meta["counts"] == {"files": 2, "declarations": 5, "references": 7,
                                    "relations": 2, "problems": 1, "binding_complete_files": 1}
        assert g.snapshot == {"files": [APP_PATH, GREETER_PATH]}

        files = r.files()
        assert [(f.path, f.module, f.scope, f.binding_complete) for f in files] == [
            (APP_PATH, MODULE, "main", False), (GREETER_PATH, MODULE, "main", True)]

        [greet] = r.declarations(key=GREET)
        assert greet == DeclRow(
            symbol_id=greet.symbol_id, key=GREET, kind="METHOD", name="greet",
            display="greet(String)", dotted="com.acme.Greeter.greet",
            scip=f"{SCIP_PREFIX}com/acme/Greeter#greet().", path=GREETER_PATH, module=MODULE,
            scope="main", name_span=Span(3, 16, 3, 21), span=Span(3, 9, 5, 23), modifiers=1,
            container_id=r.symbol(GREETER).id, container_key=GREETER)

        refs = r.references(greet.symbol_id)
        assert [(x.path, tuple(x.span), x.kind, x.container_key) for x in refs] == [
            (APP_PATH, (4, 10, 4, 15), "invocation", MAIN),
            (APP_PATH, (5, 10, 5, 15), "invocation", MAIN),
        ]
        assert r.count_references(greet.symbol_id) == 2

        println = r.symbol(PRINTLN)
        assert (println.kind, println.dotted, println.scip, println.external) == (
            "METHOD", "java.io.PrintStream.println", PRINTLN_SCIP, True)
        assert [x.path for x in r.references(println.id)] == [GREETER_PATH]

        rels = r.relations(greet.symbol_id)
        assert [(x.kind, x.from_key, x.to_key, x.path) for x in rels] == [
            ("overrides", GREET, BASE_GREET, GREETER_PATH)]
        assert [x.from_key for x in r.relations(r.symbol(BASE).id, direction="to")] == [GREETER]

        [p] = r.problems()
        assert (p.path, p.kind, p.name, tuple(p.span), p.is_error) == (
            APP_PATH, "unresolved_type", "Missing", (6, 4, 6, 11), True)


@pytest.mark.parametrize("fast", [True, False], ids=["files-of-the-page", "every-reference"])
def test_pages_of_references_of_every_size_join_to_the_full_list_under_every_filter(store, monkeypatch, fast):
    """A page reads only the files that hold it (PYBRIDGE_FAST_PAGES, issue 27): pages that start
    inside a file, end at a file's edge or span several files join to the full list either way."""
    monkeypatch.setattr(reader_module, "FAST_PAGES", fast)
    test_path, test_facts = greeter_test_file()
    publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts(calls=3), test_path: test_facts},
            scope_of=lambda p: "test" if "/test/" in p else "main")
    with store.reader() as r:
        greet = r.symbol(GREET).id
        for filters in ({}, {"scope": "main"}, {"scope": "test"}, {"kinds": ["invocation"]},
                        {"kinds": ["read"]}, {"module": MODULE}, {"module": "com.acme:other"}):
            full = r.references(greet, **filters)
            assert r.count_references(greet, **filters) == len(full)
            for limit in range(1, len(full) + 2):
                pages, after = [], None
                while True:
                    page = r.references(greet, after=after, limit=limit, **filters)
                    pages += page
                    if len(page) < limit:
                        break
                    after = page[-1].sort_key
                assert pages == full, (filters, limit)
            assert r.references(greet, limit=0, **filters) == []
        assert [x.path for x in r.references(greet)] == [APP_PATH] * 3 + [test_path]


def test_an_unchanged_restage_reuses_every_file_version_and_adds_no_rows(store):
    publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts()})
    before = row_counts(store)
    with store.stage({}, {}) as staging:
        results = [staging.add_file(MODULE, "main", GREETER_PATH, sha(repr(greeter_facts())), 100,
                                    greeter_facts()),
                   staging.add_file(MODULE, "main", APP_PATH, sha(repr(app_facts())), 100,
                                    app_facts())]
        assert [reused for _, reused in results] == [True, True]
        assert staging.publish() == 2
    after = row_counts(store)
    assert after == {**before, "generations": 2, "manifest": 4}


def test_changed_facts_make_a_new_version_while_the_old_generation_keeps_the_old_facts(store):
    publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts(calls=2)})
    # Same content hash, but the facts differ (say, a dependency changed).
    with store.stage({}, {}) as staging:
        _, reused_greeter = staging.add_file(MODULE, "main", GREETER_PATH,
                                             sha(repr(greeter_facts())), 100, greeter_facts())
        _, reused_app = staging.add_file(MODULE, "main", APP_PATH, sha(repr(app_facts(2))), 100,
                                         app_facts(calls=3))
        staging.publish()
    assert (reused_greeter, reused_app) == (True, False)
    assert row_counts(store)["file_versions"] == 3
    with store.reader() as new, store.reader(generation=1) as old:
        greet = new.symbol(GREET).id
        assert (new.count_references(greet), old.count_references(greet)) == (3, 2)
        assert (new.generation.number, old.generation.number) == (2, 1)
        assert not old.generation.current


def test_a_declaration_whose_scip_changed_keeps_its_symbol_and_each_generation_its_scip(store):
    old_scip = f"{SCIP_PREFIX}com/acme/Greeter#greet()."
    new_scip = f"{SCIP_PREFIX}com/acme/Greeter#greet(+1)."
    publish(store, {GREETER_PATH: greeter_facts(greet_scip=old_scip)})
    publish(store, {GREETER_PATH: greeter_facts(greet_scip=new_scip)})
    with store.reader() as new, store.reader(generation=1) as old:
        assert new.declarations(key=GREET)[0].scip == new_scip
        assert old.declarations(key=GREET)[0].scip == old_scip
        assert new.symbol(GREET).scip == old_scip   # the symbol keeps the first description
        assert [d.key for d in new.declarations(scip=new_scip)] == [GREET]
        assert new.declarations(scip=old_scip) == []
        assert new.symbol(GREET).id == old.symbol(GREET).id


# generations and readers -------------------------------------------------------


def test_a_reader_pinned_to_a_generation_keeps_seeing_it_while_the_next_publishes(tmp_path):
    path = tmp_path / "store.sqlite"
    with Store.open(path, keep=1) as writer, Store.open(path, keep=1) as other_process:
        publish(writer, {APP_PATH: app_facts(calls=2)})
        with other_process.reader() as pinned:
            greet = pinned.symbol(GREET).id
            assert pinned.count_references(greet) == 2
            assert publish(writer, {APP_PATH: app_facts(calls=5)}) == 2
            # Generation 1 is no longer kept (keep=1) and its version is gone,
            # yet the pinned reader still reads it whole.
            assert [g.number for g in writer.generations()] == [2]
            assert pinned.generation.number == 1
            assert pinned.count_references(greet) == 2
            assert len(pinned.references(greet)) == 2
        with other_process.reader() as fresh:
            assert (fresh.generation.number, fresh.count_references(greet)) == (2, 5)
        with pytest.raises(StoreError, match="Generation 1 is not kept") as err:
            other_process.reader(generation=1)
        assert err.value.details["reason"] == "not_kept"


def test_a_store_without_a_published_generation_says_to_sync(store):
    assert store.current_generation() is None
    with pytest.raises(StoreError, match="run sync first") as err:
        store.reader()
    assert err.value.details["reason"] == "not_synced"


def test_leaving_a_staging_without_publishing_discards_it(store):
    publish(store, {APP_PATH: app_facts()})
    before = row_counts(store)
    with store.stage({}, {}) as staging:
        staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
    after = row_counts(store)
    assert {k: v for k, v in after.items() if k != "symbols"} == \
        {k: v for k, v in before.items() if k != "symbols"}
    assert store.current_generation().number == 1
    assert publish(store, {APP_PATH: app_facts()}) == 2   # numbers have no gap


def _indexes(path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    finally:
        conn.close()


def test_a_first_staging_writes_without_indexes_and_publish_builds_them(tmp_path):
    """A first sync stages in bulk: the secondary indexes are dropped while it writes and built
    at publish, foreign keys are checked again after it; the next staging keeps its indexes."""
    path = tmp_path / "store.sqlite"
    every = set(index_definitions())
    assert {"refs_by_target", "manifest_by_file_version", "declarations_by_symbol"} <= every
    with Store.open(path) as store:
        assert _indexes(path) == every
        with store.stage({}, {}) as staging:
            assert staging.bulk
            assert _indexes(path) == KEPT_WHILE_STAGING
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts(),
                             FileSummary(frozenset({"App", "greet"}), {}))
            staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts(),
                             FileSummary(frozenset({"Greeter", "greet"}), {}))
            staging.publish({})
        assert _indexes(path) == every
        assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with store.reader() as r:
            assert r.paths_mentioning(["greet"]) == {APP_PATH, GREETER_PATH}
            assert r.count_references(r.symbol(GREET).id) == 2
            assert [d.key for d in r.declarations(key=GREET)] == [GREET]
        with store.stage({}, {}) as staging:
            assert not staging.bulk
            assert _indexes(path) == every
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging.publish({})
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_a_bulk_staging_builds_its_indexes_when_told_and_writes_the_rest_into_them(tmp_path):
    """`build_indexes` in the middle of a first staging (the pipeline's `EARLY_INDEXES_AT`): every
    index is there before publish, the files staged after it are in the indexes, and the store holds
    what a staging that builds them at publish writes."""
    def first_sync(path, early: bool) -> None:
        with Store.open(path, batch_rows=1) as store:
            with store.stage({}, {}) as staging:
                assert staging.bulk
                staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts(),
                                 FileSummary(frozenset({"App", "greet"}), {}))
                if early:
                    staging.build_indexes()
                    assert _indexes(path) == set(index_definitions())     # committed: another connection sees them
                    staging.build_indexes()                                # built already: nothing to do
                staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts(),
                                 FileSummary(frozenset({"Greeter", "greet"}), {}))
                staging.publish({})
            assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1

    early, late = tmp_path / "early.sqlite", tmp_path / "late.sqlite"
    first_sync(early, True)
    first_sync(late, False)
    assert _indexes(early) == set(index_definitions())

    def dump(path) -> list:
        conn = sqlite3.connect(path)
        try:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            return [(t, sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))))
                    for t in tables if t not in ("migrations", "generations")]
        finally:
            conn.close()

    assert dump(early) == dump(late)
    answers = []
    for path in (early, late):
        with Store.open(path) as store, store.reader() as r:
            greet = r.symbol(GREET).id
            assert r.count_references(greet) == 2
            answers.append((r.references(greet), r.paths_mentioning(["greet"]), r.relations(greet)))
    assert answers[0] == answers[1]
    conn = sqlite3.connect(early)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"   # indexes agree with their tables
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_a_discarded_first_staging_leaves_every_index(tmp_path):
    path = tmp_path / "store.sqlite"
    with Store.open(path) as store:
        with pytest.raises(RuntimeError, match="boom"):
            with store.stage({}, {}) as staging:
                assert staging.bulk
                staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
                raise RuntimeError("boom")
        assert _indexes(path) == set(index_definitions())
        assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert row_counts(store)["file_versions"] == 0


def test_a_first_staging_discarded_after_committed_batches_leaves_no_rows(tmp_path):
    """The discard's cascades run with foreign keys on again: committed batches of a bulk staging
    (a first sync that fails, stale, after some batches) leave no version or manifest row."""
    path = tmp_path / "store.sqlite"
    with Store.open(path, batch_rows=1) as store:
        with pytest.raises(RuntimeError, match="boom"):
            with store.stage({}, {}) as staging:
                assert staging.bulk
                staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
                staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
                raise RuntimeError("boom")
        assert _indexes(path) == set(index_definitions())
        counts = row_counts(store)
        assert (counts["file_versions"], counts["generations"]) == (0, 0)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM manifest").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM refs").fetchone()[0] == 0
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_a_bulk_staging_over_an_empty_store_looks_nothing_up(tmp_path):
    """Nothing is stored yet: no file version to share a digest with, no symbol to find, so a
    first staging runs neither lookup."""
    path = tmp_path / "store.sqlite"
    with Store.open(path, batch_rows=1) as store:
        seen: list[str] = []
        with store.stage({}, {}) as staging:
            assert staging.bulk
            store._conn.set_trace_callback(seen.append)
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            store._conn.set_trace_callback(None)
            staging.publish({})
        assert not [q for q in seen if "WHERE binding_key IN" in q or "WHERE digest" in q], seen
        assert [q for q in seen if q.startswith("INSERT INTO symbols")]
        with store.reader() as r:
            assert r.count_references(r.symbol(GREET).id) == 2


def test_a_bulk_staging_reuses_the_symbols_an_earlier_sync_left(tmp_path):
    """Symbols outlive the file versions that used them: a staging that is bulk (no version
    left) over a store that still holds symbols finds them, instead of writing them again."""
    path = tmp_path / "store.sqlite"
    with Store.open(path, keep=1) as store:
        with store.stage({}, {}) as staging:
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            staging.publish({})
        with store.reader() as r:
            greet_id = r.symbol(GREET).id
        with store.stage({}, {}) as staging:       # an empty generation: the versions go
            staging.publish({})
        with store.stage({}, {}) as staging:
            staging.publish({})
        assert row_counts(store)["file_versions"] == 0
        assert store._conn.execute("SELECT count(*) FROM symbols").fetchone()[0] > 0
        with store.stage({}, {}) as staging:
            assert staging.bulk
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            staging.publish({})
        with store.reader() as r:
            assert r.symbol(GREET).id == greet_id
            assert r.count_references(greet_id) == 2


def test_an_error_inside_a_staging_discards_it_and_keeps_the_error(store):
    with pytest.raises(RuntimeError, match="boom"):
        with store.stage({}, {}) as staging:
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            raise RuntimeError("boom")
    assert row_counts(store)["generations"] == 0
    assert row_counts(store)["file_versions"] == 0


def test_a_second_staging_is_refused_while_one_is_open(tmp_path):
    path = tmp_path / "store.sqlite"
    with Store.open(path) as first, Store.open(path) as second:
        with first.stage({}, {}):
            with pytest.raises(StoreError, match="Another sync is writing"):
                second.stage({}, {})
        with second.stage({}, {}) as staging:
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            assert staging.publish() == 1


def test_opening_a_store_while_another_stages_leaves_the_staging_alone(tmp_path):
    path = tmp_path / "store.sqlite"
    with Store.open(path) as writer:
        with writer.stage({}, {}) as staging:
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging._commit_batch()   # a committed batch another process could see
            Store.open(path).close()  # would collect the staging if it ignored the lock
            staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            assert staging.publish() == 1
        with writer.reader() as r:
            assert [f.path for f in r.files()] == [APP_PATH, GREETER_PATH]


def test_a_file_added_twice_or_with_an_absolute_path_is_refused(store):
    with store.stage({}, {}) as staging:
        staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
        with pytest.raises(StoreError, match="added twice"):
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
    with store.stage({}, {}) as staging:
        for bad in ("/ws/App.java", "../App.java", "a\\App.java", "./App.java", ""):
            with pytest.raises(StoreError, match="relative to the workspace root"):
                staging.add_file(MODULE, "main", bad, sha("a"), 10, app_facts())


def test_broken_facts_are_refused_and_the_staging_goes_on(store):
    with store.stage({}, {}) as staging:
        with pytest.raises(StoreError, match="unknown reference kind 'call'"):
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10,
                             facts(refs=[ref(GREET)._replace(kind="call")]))
        with pytest.raises(StoreError, match="has no binding key"):
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, facts(refs=[ref("")]))
        staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
        assert staging.publish() == 1


def test_a_full_disk_while_staging_is_a_store_error_and_the_last_generation_stays(store):
    publish(store, {APP_PATH: app_facts()})
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages + 2}")   # the disk is full
    big = facts(refs=[ref(f"Lcom/acme/T{i};", "type_use", at=(i, 0)) for i in range(5000)])
    with pytest.raises(StoreError, match="disk full: free space on "):
        with store.stage({}, {}) as staging:
            staging.add_file(MODULE, "main", GREETER_PATH, sha("big"), 10, big)
    store._conn.execute("PRAGMA max_page_count = 1073741823")
    with store.reader() as r:
        assert r.generation.number == 1
        assert [f.path for f in r.files()] == [APP_PATH]
    assert publish(store, {APP_PATH: app_facts(), GREETER_PATH: greeter_facts()}) == 2


def test_a_publish_that_fails_before_its_commit_changes_nothing(store, monkeypatch):
    from pybridge.store import faults

    publish(store, {APP_PATH: app_facts()})

    def fail(point):
        if point == "publish.before_commit":
            raise OSError("the machine stumbled")

    monkeypatch.setattr(faults, "hit", fail)
    with pytest.raises(OSError, match="stumbled"):
        publish(store, {APP_PATH: app_facts(calls=7)})
    monkeypatch.undo()
    assert store.current_generation().number == 1
    assert row_counts(store)["generations"] == 1
    assert row_counts(store)["file_versions"] == 1
    assert publish(store, {APP_PATH: app_facts(calls=7)}) == 2   # the lock was released


def test_a_reader_searches_the_name_lists_of_its_own_generation(store):
    """`paths_mentioning` reads a generation's lists once per reader: a reader opened before the
    next generation keeps answering for its own, and a reader of the next one sees its names."""
    def stage(names_of: dict[str, frozenset[str]]) -> None:
        with store.stage({}, {}) as staging:
            for path, names in names_of.items():
                staging.add_file(MODULE, "main", path, sha(path + repr(sorted(names))), 10,
                                 facts(path), FileSummary(names, {}))
            staging.publish({})

    stage({APP_PATH: frozenset({"App", "greet"}), GREETER_PATH: frozenset({"Greeter"})})
    with store.reader() as first:
        assert first.paths_mentioning(["greet"]) == {APP_PATH}
        stage({APP_PATH: frozenset({"App"}), GREETER_PATH: frozenset({"Greeter", "greet", "hello"})})
        assert first.paths_mentioning(["greet", "hello"]) == {APP_PATH}
        with store.reader() as second:
            assert second.paths_mentioning(["greet", "hello"]) == {GREETER_PATH}
            assert second.paths_mentioning(["App"]) == {APP_PATH}


# migrations --------------------------------------------------------------------


ALL_MIGRATIONS = [name for name, _ in MIGRATIONS]


def test_migrations_are_recorded_and_not_applied_again_on_reopen(tmp_path):
    assert ALL_MIGRATIONS[:6] == ["0001_initial", "0002_incremental", "0003_blocked_names", "0004_checkouts",
                                  "0005_blocked_occurrences", "0006_name_lists"]
    path = tmp_path / "store.sqlite"
    with Store.open(path) as s:
        assert s.applied_migrations() == ALL_MIGRATIONS
        publish(s, {APP_PATH: app_facts()})
    with Store.open(path) as s:
        assert s.applied_migrations() == ALL_MIGRATIONS
        assert s.current_generation().number == 1
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM migrations").fetchone()[0] == len(ALL_MIGRATIONS)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_blocked_names_of_one_row_per_name_migrate_to_rows_that_can_name_anything(tmp_path):
    # 0005_blocked_occurrences: a row stored as one per name (its first token and how many)
    # keeps standing for all its tokens, and can name any kind, with no arity
    path = tmp_path / "old.sqlite"
    conn = store_at_migration(path, 3)
    conn.execute("INSERT INTO generations (id, number, state, created_at, snapshot, meta) VALUES"
                 " (1, 1, 1, 'x', '{}', '{}')")
    conn.execute("INSERT INTO file_versions (id, digest, path, module, scope, content_sha256, size,"
                 " binding_complete, n_declarations, n_references, n_relations, n_problems, names_recorded)"
                 " VALUES (1, x'00', 'A.java', 'm', 'main', 's', 1, 0, 0, 0, 0, 0, 1)")
    conn.execute("INSERT INTO manifest VALUES (1, 1)")
    conn.execute("UPDATE current SET generation_id = 1, last_number = 1")
    conn.execute("INSERT INTO blocked_names VALUES (1, 'take', 1, 4, 8, 0, 12, 3)")
    conn.close()
    with Store.open(path) as store, store.reader() as r:
        [row] = r.blocked(["take"])
        assert (row.path, row.reason, row.span, row.count, row.can_name, row.arity) == (
            "A.java", "uncertain_call", Span(4, 8, 4, 12), 3, 31, -1)


def test_name_rows_migrate_to_one_name_list_per_version(tmp_path):
    # 0006_name_lists: the rows of file_names become each version's name list; a version with a
    # summary but no names gets the empty list, and one without a summary stays without
    path = tmp_path / "old.sqlite"
    conn = store_at_migration(path, 5)
    conn.execute("INSERT INTO generations (id, checkout_id, number, state, created_at, snapshot, meta)"
                 " VALUES (1, 1, 1, 1, 'x', '{}', '{}')")
    for fv, path_ in enumerate(["A.java", "B.java", "C.java"], start=1):
        conn.execute("INSERT INTO file_versions (id, digest, path, module, scope, content_sha256, size,"
                     " binding_complete, n_declarations, n_references, n_relations, n_problems, names_recorded)"
                     " VALUES (?, ?, ?, 'm', 'main', 's', 1, 0, 0, 0, 0, 0, 1)", (fv, bytes([fv]), path_))
        conn.execute("INSERT INTO manifest VALUES (1, ?)", (fv,))
    conn.execute("UPDATE checkouts SET generation_id = 1, last_number = 1")
    conn.executemany("INSERT INTO file_summaries VALUES (?, '{}')", [(1,), (2,)])
    conn.executemany("INSERT INTO file_names VALUES (?, 1)", [("take",), ("Take",), ("é",), ("taken",)])
    conn.close()
    with Store.open(path) as store, store.reader() as r:
        assert r.paths_mentioning(["take"]) == r.paths_mentioning(["é", "nowhere"]) == {"A.java"}
        assert r.paths_mentioning(["tak", "ake", "Taken"]) == set()
        assert r.unsummarized_files() == 1
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT file_version_id, names FROM file_summaries ORDER BY 1").fetchall() == [
        (1, namelist.pack({"take", "Take", "é", "taken"})), (2, namelist.EMPTY)]
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'file_names%'").fetchone()[0] == 0
    conn.close()


def test_a_store_written_by_a_newer_pybridge_is_refused(tmp_path):
    path = tmp_path / "store.sqlite"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO migrations (name, applied_at) VALUES ('9999_future', 'x')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer pybridge"):
        Store.open(path)


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path):
    path = tmp_path / "store.sqlite"
    path.write_bytes(b"this is not sqlite" * 300)
    with pytest.raises(StoreError, match="delete the state folder"):
        Store.open(path)


# retention ---------------------------------------------------------------------


def test_gc_keeps_the_newest_generations_and_removes_unused_versions_but_never_symbols(tmp_path):
    with Store.open(tmp_path / "store.sqlite", keep=2) as store:
        for calls in (1, 2, 3, 4):
            publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts(calls=calls)})
        symbols_before = store.stats()["symbols"]
        # A symbol only generation 1 knew about.
        one_off = ref("Lcom/acme/Gone;", "type_use", at=(9, 1), container=GREET)
        publish(store, {GREETER_PATH: greeter_facts(extra_refs=[one_off]),
                        APP_PATH: app_facts(calls=4)})
        publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts(calls=5)})
        assert [g.number for g in store.generations()] == [6, 5]
        stats = store.stats()
        # Kept: App with 4 and 5 calls, Greeter with and without the extra reference.
        assert (stats["generations"], stats["manifest"], stats["file_versions"]) == (2, 4, 4)
        assert stats["symbols"] == symbols_before + 1
        assert stats["refs"] == (2 + 4) + (2 + 5) + 3 + 4
        with store.reader() as r:
            assert r.symbol("Lcom/acme/Gone;") is not None
            assert r.count_references(r.symbol("Lcom/acme/Gone;").id) == 0
        conn = sqlite3.connect(store.path)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.close()


# queries -----------------------------------------------------------------------


@pytest.fixture
def workspace(store):
    test_path, test_facts = greeter_test_file()
    publish(store, {GREETER_PATH: greeter_facts(), APP_PATH: app_facts(), test_path: test_facts},
            scope_of=lambda p: "test" if "/test/" in p else "main")
    return store


def test_declarations_are_found_by_name_dotted_suffix_scip_and_key(workspace):
    with workspace.reader() as r:
        def keys(**how):
            return [d.key for d in r.declarations(**how)]

        assert keys(name="greet") == [GREET]
        assert keys(dotted="com.acme.Greeter.greet") == [GREET]
        assert keys(dotted="Greeter.greet") == [GREET]
        assert keys(dotted="acme.Greeter") == [GREETER]
        assert keys(dotted="eter.greet") == []            # suffixes end at a dot
        assert keys(scip=f"{SCIP_PREFIX}com/acme/Greeter#") == [GREETER]
        assert keys(key=MAIN) == [MAIN]
        assert keys(symbol=[r.symbol(MAIN).id, r.symbol(APP).id]) == [APP, MAIN]
        assert keys(name="greet", kinds=["CLASS"]) == []
        assert keys(name="greets", scope="main") == []
        assert keys(name="greets", scope="test") == ["Lcom/acme/GreeterTest;.greets()V"]
        assert keys(name="name") == []                    # parameters: by position or key
        assert keys(key=NAME_PARAM) == [NAME_PARAM]
        assert keys(key="Lnowhere;") == []
        with pytest.raises(StoreError, match="exactly one"):
            r.declarations(name="greet", scip="x")


def test_at_a_position_the_declaration_comes_before_references_and_the_end_counts_last(workspace):
    with workspace.reader() as r:
        [hit] = r.at(GREETER_PATH, 3, 18)
        assert isinstance(hit, DeclRow) and hit.key == GREET
        assert [h.key for h in r.at(GREETER_PATH, 3, 31)] == [NAME_PARAM]   # a parameter
        [use] = r.at(GREETER_PATH, 4, 29)
        assert isinstance(use, RefRow) and use.target_key == NAME_PARAM
        assert r.at(GREETER_PATH, 4, 31)[0].target_key == NAME_PARAM       # just after the name
        # `new Greeter()`: the construction reference at the type's token.
        assert [(h.kind, h.target_key) for h in r.at(APP_PATH, 3, 25)] == [
            ("construction", GREETER)]
        assert r.at(GREETER_PATH, 0, 0) == []
        assert r.at("nowhere/X.java", 3, 18) == []


def test_references_filter_by_module_scope_and_kind(workspace):
    with workspace.reader() as r:
        greet, greeter = r.symbol(GREET).id, r.symbol(GREETER).id
        assert [x.scope for x in r.references(greet)] == ["main", "main", "test"]
        assert [x.path for x in r.references(greet, scope="test")] == [greeter_test_file()[0]]
        assert r.count_references(greet, scope="main") == 2
        assert r.count_references(greet, module="other:module") == 0
        assert [x.kind for x in r.references(greeter)] == ["type_use", "construction"]
        assert [x.kind for x in r.references(greeter, kinds=CALL_KINDS)] == ["construction"]
        assert r.count_references(greeter, kinds=["type_use"]) == 1


def test_calls_from_lists_the_outgoing_calls_of_a_method(workspace):
    with workspace.reader() as r:
        calls = r.calls_from(r.symbol(MAIN).id)
        assert [(x.kind, x.target_key) for x in calls] == [
            ("construction", GREETER), ("invocation", GREET), ("invocation", GREET)]
        assert [x.target_key for x in r.calls_from(r.symbol(GREET).id)] == [PRINTLN]


def test_problems_filter_by_name_kind_and_path(workspace):
    with workspace.reader() as r:
        assert [p.name for p in r.problems(names=["Missing"])] == ["Missing"]
        assert r.problems(names=["Greeter"]) == []
        assert r.problems(kinds=["syntax"]) == []
        assert r.count_problems(path=APP_PATH) == 1
        assert r.count_problems(path=GREETER_PATH) == 0
        assert r.count_problems(scope="test") == 0
        assert r.module_scopes()[0].binding_complete_files == 1


def test_reference_pages_are_stable_and_join_to_the_full_list(tmp_path):
    with Store.open(tmp_path / "store.sqlite") as store:
        stage_synthetic(store, 40, 60)
        with store.reader() as r:
            busiest = max(
                (r.symbol(f"Lcom/acme/p{i % 20}/Class{i};").id for i in range(40)),
                key=r.count_references)
            everything = r.references(busiest)
            assert len(everything) == r.count_references(busiest) > 10
            assert [x.sort_key for x in everything] == sorted(x.sort_key for x in everything)
            pages, after = [], None
            while True:
                page = r.references(busiest, after=after, limit=3)
                if not page:
                    break
                assert r.references(busiest, after=after, limit=3) == page   # same page again
                pages.append(page)
                after = page[-1].sort_key
            assert [x for page in pages for x in page] == everything
            assert all(len(page) == 3 for page in pages[:-1])


def test_the_main_queries_are_index_lookups_not_scans(workspace, monkeypatch):
    from pybridge.store import reader as reader_module

    seen: list[tuple[str, object]] = []
    original = reader_module.Reader._rows

    def spy(self, sql, params=()):
        seen.append((sql, params))
        return original(self, sql, params)

    monkeypatch.setattr(reader_module.Reader, "_rows", spy)
    with workspace.reader() as r:
        greet = r.symbol(GREET).id
        r.references(greet, module=MODULE, after=("a", 0, 0, 0, 0), limit=10)
        r.references(greet, kinds=CALL_KINDS)
        r.count_references(greet)
        r.calls_from(r.symbol(MAIN).id)
        r.declarations(name="greet")
        r.declarations(dotted="Greeter.greet")
        r.declarations(scip="x")
        r.declarations(key=GREET)
        r.at(GREETER_PATH, 3, 18)
        r.relations(greet)
        r.problems(names=["Missing"])
        r.problems(path=APP_PATH)
        plans = [(sql, r._conn.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall())
                 for sql, params in seen]
    for sql, plan in plans:
        details = [row[-1] for row in plan]
        # a subquery the plan builds from index lookups (`reference_files`: references counted per
        # file from refs_by_target) is read whole: its rows are the symbol's files, not a table
        built = {d.split()[-1] for d in details if d.startswith(("CO-ROUTINE", "MATERIALIZE"))}
        scans = [d for d in details if d.startswith("SCAN") and "CONSTANT ROW" not in d
                 and d.split()[-1] not in built]
        assert scans == [], (sql, details)


def test_the_store_imports_nothing_of_pybridge_but_facts_and_errors():
    import json
    import subprocess
    import sys

    code = ("import json, sys, pybridge.store; "
            "print(json.dumps([m for m in sys.modules if m.startswith(('pybridge', 'jpype'))]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert {m for m in loaded if not m.startswith("pybridge.store")} == {
        "pybridge", "pybridge.facts", "pybridge.errors"}


def test_bulk_staging_can_be_turned_off(tmp_path, monkeypatch):
    """PYBRIDGE_BULK_STAGING=0: a first staging keeps every index (bench/staging.py compares the two)."""
    monkeypatch.setenv("PYBRIDGE_BULK_STAGING", "0")
    path = tmp_path / "store.sqlite"
    with Store.open(path) as store:
        with store.stage({}, {}) as staging:
            assert not staging.bulk
            assert _indexes(path) == set(index_definitions())
            staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            staging.publish({})


def test_a_reader_opening_a_store_that_a_sync_is_creating_waits_for_its_wal_mode(tmp_path):
    """A first sync creates the store's file (0600, empty) before its first statement sets WAL; a query
    that opened it in between (serve's first sync starting under a client's call) failed with 'cannot use
    write-ahead logging'. The reader waits for an empty file to become a WAL store."""
    path = tmp_path / "store.sqlite"
    path.touch(mode=0o600)                      # what the writer has made before its first statement

    def create() -> None:
        time.sleep(0.3)
        Store.open(path).close()

    writer = threading.Thread(target=create)
    writer.start()
    try:
        store = Store.open(path, readonly=True)
        store.close()
    finally:
        writer.join()


def test_a_mode_read_before_the_writer_made_its_tables_is_read_again(tmp_path):
    """The race behind the test above, made deterministic: the reader read the empty file's mode
    (`delete`), then the writer set WAL and made its tables before the reader's next look. The
    reader must answer the mode it reads after seeing the tables, not the one it read before."""
    path = tmp_path / "store.sqlite"
    Store.open(path).close()                    # WAL, with tables
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert db._settled_mode(conn, "delete").lower() == "wal"
    finally:
        conn.close()


def _manifest_of(store: Store, generation_id: int) -> set[int]:
    return {fv for (fv,) in store._conn.execute(
        "SELECT file_version_id FROM manifest WHERE generation_id = ?", (generation_id,))}


@pytest.mark.parametrize("from_parent", [True, False])
def test_reused_versions_are_copied_from_the_parent_manifest_in_one_statement(tmp_path, from_parent):
    """Issue 27: a generation that differs from its parent in one file writes its unchanged rows
    with one INSERT ... SELECT over the parent's manifest, not one bound row per file; the rows
    are the same either way."""
    with Store.open(tmp_path / "store.sqlite") as store:
        with store.stage({}, {}) as staging:
            greeter, _ = staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            app, _ = staging.add_file(MODULE, "main", APP_PATH, sha("a"), 10, app_facts())
            other, _ = staging.add_file(MODULE, "main", "core/B.java", sha("b"), 10, facts("/ws/B.java"))
            parent = staging.generation_id
            staging.publish({})
        seen: list[str] = []
        with store.stage({}, {}) as staging:
            store._conn.set_trace_callback(seen.append)
            staging.reuse_versions([(GREETER_PATH, greeter), ("core/B.java", other)],
                                   parent if from_parent else None)
            store._conn.set_trace_callback(None)
            staging.add_file(MODULE, "main", APP_PATH, sha("a2"), 11, app_facts(calls=3))
            child = staging.generation_id
            staging.publish({})
        inserts = [q for q in seen if q.startswith("INSERT INTO manifest")]
        assert len(inserts) == (1 if from_parent else 2), inserts
        assert ("SELECT" in inserts[0]) is from_parent
        assert _manifest_of(store, child) - {greeter, other} == _manifest_of(store, child) - _manifest_of(store, parent)
        assert {greeter, other} <= _manifest_of(store, child) and app not in _manifest_of(store, child)
        with store.reader() as r:
            assert sorted(f.path for f in r.files()) == sorted([GREETER_PATH, APP_PATH, "core/B.java"])


def test_copying_from_a_parent_that_lacks_a_version_is_refused(tmp_path):
    with Store.open(tmp_path / "store.sqlite") as store:
        with store.stage({}, {}) as staging:
            greeter, _ = staging.add_file(MODULE, "main", GREETER_PATH, sha("g"), 10, greeter_facts())
            parent = staging.generation_id
            staging.publish({})
        with store.stage({}, {}) as staging:
            with pytest.raises(StoreError, match="does not list every version"):
                staging.reuse_versions([(GREETER_PATH, greeter), (APP_PATH, greeter + 99)], parent)


def test_the_rows_of_many_files_at_once_are_those_of_each_file_queried_alone(workspace):
    """`Reader.files_rows`: one query per table for many files (a check's comparison) gives each file's
    references, declarations, relations and problems as its own queries do, in their order."""
    test_path = greeter_test_file()[0]
    with workspace.reader() as r:
        for errors_only in (False, True):
            rows = r.files_rows([APP_PATH, GREETER_PATH, test_path, "nowhere/X.java"], errors_only=errors_only)
            assert sorted(rows) == sorted([APP_PATH, GREETER_PATH, test_path])     # a path not held is left out
            for path, got in rows.items():
                assert got.references == r.file_references(path)
                assert got.declarations == r.file_declarations(path)
                assert got.relations == r.file_relations(path)
                assert got.problems == r.problems(path=path, errors_only=errors_only)
        assert [x.kind for x in r.files_rows([GREETER_PATH])[GREETER_PATH].relations] == ["extends", "overrides"]
        assert r.files_rows([APP_PATH])[APP_PATH].problems != []
        assert r.files_rows([]) == {}
