"""GenerationMeta: the typed record of what a generation was built from, written by sync, read by query.

It reads what older versions stored (no `build` section), reads garbage as absent, and survives a
round trip; a synced sample's record names its build tool, modules, versions and classpaths; and
the query layer answers from it with the build files gone, never reading them.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

from pybridge.store import Store
from pybridge.sync import store_path, sync
from pybridge.sync.meta import Counts, GenerationMeta, MetaLimitation, ModuleMeta, ScopeMeta
from tests.support.query_support import SAMPLES, facade_for, ok

KS = "dev.pybridge.samples:kitchen-sink"

# A generation's metadata as pybridge wrote it before GenerationMeta (sync/pipeline.py `_meta`).
OLDER = {
    "commit": "abc", "root": "/ws", "generated_at": "2025-01-01T00:00:00+00:00", "duration": 1.5,
    "modules": [
        {"module": "g:a", "scope": "main", "release": 11, "encoding": "ISO-8859-1", "files": 3,
         "bindingComplete": 2, "references": 40, "problems": 1, "limitations": ["classpath_unresolved"]},
        {"module": "g:a", "scope": "test", "release": 11, "encoding": "ISO-8859-1", "files": 1,
         "bindingComplete": 1, "references": 5, "problems": 0, "limitations": []},
    ],
    "limitations": [
        {"kind": "classpath_unresolved", "module": "g:a", "scope": "main", "message": "Maven could not ..."},
        {"kind": "file_too_large", "module": "g:a", "scope": "main", "path": "src/Big.java", "size": 9,
         "message": "too large"},
        {"kind": "reflection_not_tracked", "module": None, "scope": None, "message": "reflection"},
    ],
    "module_ids": ["g:parent", "g:a"],
    "environments": {"g:a main": "e1", "g:a test": "e2"},
    "reindexed_files": 4,
    "counts": {"files": 4, "declarations": 10, "references": 45, "relations": 2, "problems": 1,
               "binding_complete_files": 3},
}


def test_a_record_an_older_version_stored_reads_with_its_modules_scopes_and_limitations():
    meta = GenerationMeta.from_json(OLDER)
    assert (meta.commit, meta.root, meta.duration, meta.build_tool) == ("abc", "/ws", 1.5, None)
    assert [m.id for m in meta.modules] == ["g:parent", "g:a"]
    assert meta.module("g:a") == ModuleMeta("g:a", has_sources=True, release=11, encoding="ISO-8859-1")
    assert meta.module("g:parent") == ModuleMeta("g:parent", has_sources=False)
    assert meta.encoding("g:a") == "ISO-8859-1" and meta.encoding("g:parent") == "UTF-8"
    assert meta.scope("g:a", "main") == ScopeMeta("g:a", "main", 11, "ISO-8859-1", 3, 2, 40, 1,
                                                  ("classpath_unresolved",))
    assert meta.limitations[1] == MetaLimitation("file_too_large", "too large", "g:a", "main", "src/Big.java", 9)
    assert meta.environments == {"g:a main": "e1", "g:a test": "e2"} and meta.reindexed_files == 4
    assert meta.counts == Counts(4, 10, 45, 2, 1, 3) and meta.agents == ()
    # what it writes back keeps every stored entry as it was
    again = meta.to_json()
    assert again["modules"] == OLDER["modules"] and again["limitations"] == OLDER["limitations"]


def test_a_record_without_environments_says_so_so_the_planner_indexes_everything():
    assert GenerationMeta.from_json({k: v for k, v in OLDER.items() if k != "environments"}).environments is None


def test_malformed_entries_read_as_absent_never_as_an_error():
    meta = GenerationMeta.from_json({"commit": 3, "modules": [1, {"module": "m"}, {"module": "m", "scope": "main",
                                     "files": "x", "release": True}], "limitations": ["x", {"message": "no kind"}],
                                     "module_ids": [None, "m"], "environments": [], "counts": {"files": "many"},
                                     "build": {"modules": "no", "paths": {}, "scopes": {"m main": {"classpath": [7]}}}})
    assert meta.commit is None and meta.limitations == () and meta.environments is None
    assert meta.scopes == (ScopeMeta("m", "main", None, None),)
    assert [m.id for m in meta.modules] == ["m"] and meta.counts == Counts()


def test_a_record_survives_its_json_with_paths_said_once():
    meta = GenerationMeta(
        commit=None, root="/ws", generated_at="t", duration=2.0, build_tool="maven",
        modules=(ModuleMeta("g:a", "1.0", "jar", "a", ("a/pom.xml",), True, 17, "UTF-8"),),
        scopes=(ScopeMeta("g:a", "main", 17, "UTF-8", 1, 1, 0, 0, (), ("/r/x.jar", "/r/y.jar"), (),
                          ("a/src/main/java",)),
                ScopeMeta("g:a", "test", 17, "UTF-8", 1, 1, 0, 0, (), ("/r/y.jar", "/r/x.jar"), ("/r/p.jar",),
                          ("a/src/test/java", "a/src/main/java"))),
        limitations=(MetaLimitation("reflection_not_tracked", "r"),), environments={"g:a main": "e"},
        reindexed_files=2, agents=("/r/lombok-1.18.42.jar",))
    stored = json.loads(json.dumps(meta.to_json()))
    assert stored["build"]["paths"] == ["/r/x.jar", "/r/y.jar", "/r/p.jar"]
    assert GenerationMeta.from_json(stored) == meta


def test_a_synced_workspace_records_its_build_tool_modules_and_how_each_scope_was_compiled(tmp_path, worker):
    root = tmp_path / "ws"
    shutil.copytree(SAMPLES / "reactor", root)
    sync(root, state_dir=tmp_path / "state", worker=worker)
    with Store.open(store_path(tmp_path / "state"), readonly=True) as store:
        info = store.current_generation()
        assert info is not None
        meta = GenerationMeta.of(info)
    assert meta.build_tool == "maven"
    core = meta.module("dev.pybridge.samples:core")
    assert core is not None and (core.version, core.kind, core.root, core.build_files) == \
        ("1.0", "jar", "core", ("core/pom.xml",))
    parent = meta.modules[0]
    assert (parent.has_sources, parent.build_files) == (False, ("pom.xml",))
    app_test = meta.scope("dev.pybridge.samples:app", "test")
    assert app_test is not None and app_test.sourcepath[:2] == ("app/src/test/java", "app/src/main/java")
    assert "core/src/main/java" in app_test.sourcepath
    assert meta.counts.files == sum(s.files for s in meta.scopes) > 0


def test_status_and_scip_symbols_come_from_the_generation_not_from_the_build_files(tmp_path, worker):
    root, state = tmp_path / "kitchen-sink", tmp_path / "state"
    shutil.copytree(SAMPLES / "kitchen-sink", root)
    sync(root, state_dir=state, worker=worker)
    (root / "pom.xml").write_text("<not a pom", encoding="utf-8")       # broken after the sync
    with facade_for((root, state)) as facade:
        status = ok(facade, "status", {})
        assert status["stale"] is True
        assert [(m["module"], m["version"], m["encoding"]) for m in status["modules"]] == [(KS, "1.0", "UTF-8")]
        [symbol] = ok(facade, "find_symbol", {"query": "Counter.count"})["symbols"]
        assert symbol["symbol"].startswith(f"scip-java maven {KS.replace(':', '/')} 1.0 ")


def test_a_sync_that_publishes_nothing_brings_an_older_record_up_to_date(tmp_path, worker):
    root, state = tmp_path / "kitchen-sink", tmp_path / "state"
    shutil.copytree(SAMPLES / "kitchen-sink", root)
    first = sync(root, state_dir=state, worker=worker)
    with sqlite3.connect(store_path(state)) as conn:      # as an older pybridge left it: no `build`
        [(text,)] = conn.execute("SELECT meta FROM generations WHERE number = ?", (first.generation,)).fetchall()
        older = {k: v for k, v in json.loads(text).items() if k != "build"}
        conn.execute("UPDATE generations SET meta = ? WHERE number = ?", (json.dumps(older), first.generation))
    package = KS.replace(":", "/")
    with facade_for((root, state)) as facade:         # one server, before and after
        assert [m["version"] for m in ok(facade, "status", {})["modules"]] == [None]   # unknown, not read
        [symbol] = ok(facade, "find_symbol", {"query": "Counter.count"})["symbols"]
        assert symbol["symbol"].startswith(f"scip-java maven {package} . ")
        again = sync(root, state_dir=state, worker=worker)
        assert again.published is False and again.generation == first.generation
        status = ok(facade, "status", {})
        assert [m["version"] for m in status["modules"]] == ["1.0"]
        assert status["counts"] == {"files": 12, "declarations": status["counts"]["declarations"],
                                    "references": 519, "relations": status["counts"]["relations"],
                                    "problems": 0, "bindingCompleteFiles": 12}
        [symbol] = ok(facade, "find_symbol", {"query": "Counter.count"})["symbols"]
        assert symbol["symbol"].startswith(f"scip-java maven {package} 1.0 ")
