"""Incremental sync: a no-op publishes nothing, an edit re-indexes only what it can affect,
keys outlive generations (DESIGN section 5)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.store import Reader, Staging, Store
from pybridge.sync import store_path, sync
from pybridge.sync.pipeline import (
    BATCH_FILES_ENV,
    DEFAULT_BATCH_FILES,
    EARLY_INDEXES_AT,
    EARLY_INDEXES_ENV,
    batch_files,
)
from pybridge.sync.planner import declared_package
from pybridge.worker import Worker
from tests.support.incremental_edits import differences
from tests.support.query_support import err, facade_for, key_of, ok

ROOT = Path(__file__).resolve().parent.parent.parent
BANNER = "app/src/main/java/com/acme/app/Banner.java"
GREETER = "core/src/main/java/com/acme/core/Greeter.java"
NAMES = "core/src/main/java/com/acme/core/Names.java"


@pytest.fixture(scope="module")
def synced(tmp_path_factory, samples, worker):
    """The reactor sample synced once (Maven runs once for the module); each test gets a copy of
    the state and the pristine tree back at the same path (the classpath cache is keyed by it)."""
    base = tmp_path_factory.mktemp("incremental")
    root = base / "reactor"
    shutil.copytree(samples / "reactor", root)
    first = sync(root, state_dir=base / "state", worker=worker)
    return root, base / "state", first


@pytest.fixture
def reactor(synced, samples, tmp_path):
    root, base_state, first = synced
    shutil.rmtree(root)
    shutil.copytree(samples / "reactor", root)     # copy2: the mtimes of the first sync
    state = tmp_path / "state"
    shutil.copytree(base_state, state)
    return root, state, first


def edit(root: Path, path: str, old: str, new: str) -> None:
    text = (root / path).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    (root / path).write_text(text.replace(old, new, 1), encoding="utf-8")


def versions(state: Path) -> dict[str, int]:
    with Store.open(store_path(state)) as store, store.reader() as r:
        return {f.path: f.file_version_id for f in r.files()}


def request_sizes(monkeypatch) -> list[int]:
    """The number of files of each request the worker gets from now on (Worker.index_all, spied)."""
    sizes: list[int] = []
    real = Worker.index_all

    def counted(self, tasks, *args, **kwargs):
        sizes.extend(len(t.request.files) for t in tasks)
        return real(self, tasks, *args, **kwargs)

    monkeypatch.setattr(Worker, "index_all", counted)
    return sizes


def test_an_edit_inside_a_method_body_reindexes_that_file_alone_and_shares_every_other_version(reactor, worker):
    root, state, first = reactor
    before = versions(state)
    edit(root, BANNER, "String line =", "String line = /* edited */")
    result = sync(root, state_dir=state, worker=worker)
    assert result.published and result.incremental and result.generation == first.generation + 1
    assert result.reindexed_files == 1 and result.rounds == 1
    after = versions(state)
    assert {p for p in after if after[p] != before[p]} == {BANNER}


def test_an_incremental_sync_reads_the_previous_manifest_once(reactor, worker, tmp_path, monkeypatch):
    """The planner, the propagation and the manifest of the files no edit affects share one read of
    the previous generation's files (`Reader.files_by_path`): each read grows with the module."""
    root, state, _ = reactor
    reads: list[int] = []
    real = Reader.files

    def counted(self, **kwargs):
        reads.append(1)
        return real(self, **kwargs)

    monkeypatch.setattr(Reader, "files", counted)
    edit(root, BANNER, "String frame(String", "String frame(CharSequence")     # several rounds
    result = sync(root, state_dir=state, worker=worker)
    assert result.published and result.rounds >= 2
    assert len(reads) == 1
    monkeypatch.undo()
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_the_subtypes_of_a_changed_type_are_walked_by_index_not_read_whole(reactor, worker, tmp_path, monkeypatch):
    """Issue 27: propagation asks the store for the relations to the changed types, level by level,
    instead of reading every supertype edge of the generation (6,000 files: 1.7 s under load)."""
    root, state, _ = reactor
    whole: list[int] = []
    walked: list[tuple[str, str, str]] = []
    real_whole, real_walk = Reader.supertype_edges, Reader.subtype_edges

    def counted_whole(self):
        whole.append(1)
        return real_whole(self)

    def counted_walk(self, keys):
        found = real_walk(self, keys)
        walked.extend(found)
        return found

    monkeypatch.setattr(Reader, "supertype_edges", counted_whole)
    monkeypatch.setattr(Reader, "subtype_edges", counted_walk)
    edit(root, GREETER, "String greet(String name);",
         "String greet(String name);\n    default String wave() { return \"hi\"; }")
    result = sync(root, state_dir=state, worker=worker)
    assert result.published
    assert whole == []
    assert "service/src/main/java/com/acme/service/PoliteGreeter.java" in {path for path, _sub, _sup in walked}
    monkeypatch.undo()
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_a_sync_in_a_running_process_parses_one_snapshot(reactor, worker, monkeypatch):
    """Issue 27: a generation's snapshot (2.2 MB of JSON on a 6,000-file module) is parsed once per
    sync in a process that keeps running (serve): the store keeps the parsed object of a generation
    whose text did not change (`store._select_generation`), so the next sync's reads of its previous
    generation parse nothing, and only the one it publishes is parsed (for its result)."""
    root, state, _ = reactor
    edit(root, BANNER, "String line =", "String line = /* edited */")
    sync(root, state_dir=state, worker=worker)
    parsed: list[str] = []
    real = json.loads

    def counted(text, *args, **kwargs):
        if isinstance(text, str) and text.startswith('{"build_files"'):
            parsed.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    edit(root, BANNER, "String line = /* edited */", "String line = /* edited again */")
    result = sync(root, state_dir=state, worker=worker)
    assert result.published and result.reindexed_files == 1
    assert len(parsed) == 1


def test_a_full_sync_in_batches_of_files_equals_one_request_per_module(reactor, worker, tmp_path, monkeypatch):
    """PYBRIDGE_INDEX_BATCH_FILES splits a module's files into requests of at most that many (the
    worker's heap then holds one batch's declarations): the facts equal those of one request per
    module and scope (the fixture's state: a full sync of the same tree)."""
    root, state, _ = reactor
    sizes = request_sizes(monkeypatch)
    monkeypatch.setenv("PYBRIDGE_INDEX_BATCH_FILES", "2")
    done: list[int] = []

    def progress(event: dict) -> None:
        if event.get("phase") == "index":
            done.append(event["done"])

    result = sync(root, state_dir=tmp_path / "batched", worker=worker, progress=progress)
    assert result.published and max(sizes) == 2 and len(sizes) > 3
    # two requests' chunks come interleaved; the files done, summed over the requests, only grow
    assert len(done) > 3 and done == sorted(done)
    assert differences(store_path(state), store_path(tmp_path / "batched")) == []
    monkeypatch.delenv("PYBRIDGE_INDEX_BATCH_FILES")
    sizes.clear()
    sync(root, state_dir=tmp_path / "whole", worker=worker)
    assert max(sizes) > 2      # without it: one request per module and scope
    # a misplaced file (its folder is not its package): what it declares depends on the files
    # compiled with it, so its module and scope stay in one request
    (root / "core/src/main/java/com/acme/core/Moved.java").write_text(
        "package com.acme.elsewhere;\npublic class Moved {}\n", encoding="utf-8")
    monkeypatch.setenv("PYBRIDGE_INDEX_BATCH_FILES", "2")
    sizes.clear()
    sync(root, state_dir=tmp_path / "misplaced", worker=worker)
    assert max(sizes) > 2


def test_a_rehearsal_indexes_one_unchanged_file_and_publishes_nothing(reactor, worker, monkeypatch):
    """`sync(rehearse=True)` with nothing changed: one file of the largest module and scope goes to the
    worker as a catch-up of an edit to it would, and the generation, its keys and cursors stay."""
    root, state, _ = reactor
    before = versions(state)
    sizes = request_sizes(monkeypatch)
    result = sync(root, state_dir=state, worker=worker)
    assert not result.published and sizes == [] and "rehearse" not in result.timings
    result = sync(root, state_dir=state, worker=worker, rehearse=True)
    assert not result.published and sizes == [1] and result.timings["rehearse"] > 0
    assert versions(state) == before
    with Store.open(store_path(state)) as store:
        assert store.current_generation().number == result.generation


def test_a_first_sync_builds_its_indexes_once_three_quarters_of_its_files_are_staged(reactor, worker, tmp_path,
                                                                                     monkeypatch):
    """PYBRIDGE_EARLY_INDEXES (on by default): a first sync's bulk staging builds its indexes when
    `EARLY_INDEXES_AT` of its files are staged, while the JVM indexes the rest, not at publish; the
    facts equal those of a sync that builds them at publish. An incremental sync (no bulk) builds none."""
    root, state, _ = reactor
    staged_when_built: list[int] = []
    build = Staging.build_indexes

    def spy(self: Staging) -> None:
        staged_when_built.append(self.files_added)
        build(self)

    monkeypatch.setattr(Staging, "build_indexes", spy)
    monkeypatch.setenv(EARLY_INDEXES_ENV, "0")
    sync(root, state_dir=tmp_path / "late", worker=worker)
    assert staged_when_built == []
    monkeypatch.delenv(EARLY_INDEXES_ENV)
    result = sync(root, state_dir=tmp_path / "early", worker=worker)
    files = result.counts["files"]
    assert staged_when_built == [int(files * EARLY_INDEXES_AT)] and 0 < staged_when_built[0] < files
    assert differences(store_path(tmp_path / "late"), store_path(tmp_path / "early")) == []
    edit(root, GREETER, "public", "public ")
    assert sync(root, state_dir=tmp_path / "early", worker=worker).published
    assert len(staged_when_built) == 1


def test_batches_are_on_by_default_and_zero_turns_them_off(monkeypatch):
    """Unset, PYBRIDGE_INDEX_BATCH_FILES is DEFAULT_BATCH_FILES (the heap need not grow with the
    module: bench/RESULTS.md, "Large module"); 0 sends a module and scope in one request."""
    monkeypatch.delenv(BATCH_FILES_ENV, raising=False)
    assert batch_files() == DEFAULT_BATCH_FILES == 1000
    monkeypatch.setenv(BATCH_FILES_ENV, "0")
    assert batch_files() == 0


# JDT numbers a unit's lambdas (`lambda$N`, the prefix of their parameters' and locals' keys) in the
# order it resolves them: a final field read by a file compiled earlier in the request has its
# initializer resolved first. LambdaReader sorts before the files whose second fields it reads.
LAMBDA_FILES = {
    "LambdaReader.java": """package com.acme.core;

public class LambdaReader {
    static final int LENGTH = LambdaTable.LENGTH.apply("four");
    static final String LAST = LambdaWords.LAST.apply("word");
}
""",
    "LambdaTable.java": """package com.acme.core;

import java.util.function.Function;
import java.util.function.Supplier;

public class LambdaTable {
    public static final Function<String, String> ECHO = text -> { String same = text; return same; };
    public static final Function<String, Integer> LENGTH = text -> { int n = text.length(); return n; };

    static int nested() {
        Function<Integer, Supplier<Integer>> outer = x -> {
            int twice = x * 2;
            return () -> { int inner = twice; return inner; };
        };
        Runnable r = new Runnable() {
            public void run() { Runnable q = () -> { int deep = 1; }; q.run(); }
        };
        r.run();
        return outer.apply(1).get();
    }
}
""",
    "LambdaWords.java": """package com.acme.core;

import java.util.function.UnaryOperator;

public class LambdaWords {
    static final UnaryOperator<String> FIRST = w -> { String head = w.substring(0, 1); return head; };
    public static final UnaryOperator<String> LAST = w -> { String tail = w.substring(w.length() - 1); return tail; };
    static String seen;

    static {
        UnaryOperator<String> keep = s -> { String kept = s; return kept; };
        seen = keep.apply("x");
    }
}
""",
}


def test_lambda_keys_do_not_depend_on_the_files_compiled_in_the_same_request(reactor, worker, tmp_path, monkeypatch):
    """The keys of lambdas' parameters and locals come from the enclosing declaration and the lambda's
    place in it, not from JDT's numbering, which follows the order the request resolves them: a sync
    in requests of one file equals a sync in one request per module (before: the fields read by
    LambdaReader had each other's `lambda$N`, so their locals' keys differed)."""
    root, _, _ = reactor
    package = root / "core/src/main/java/com/acme/core"
    for name, text in LAMBDA_FILES.items():
        (package / name).write_text(text, encoding="utf-8")
    sync(root, state_dir=tmp_path / "whole", worker=worker)
    monkeypatch.setenv("PYBRIDGE_INDEX_BATCH_FILES", "1")
    sync(root, state_dir=tmp_path / "batched", worker=worker)
    assert differences(store_path(tmp_path / "whole"), store_path(tmp_path / "batched")) == []
    with Store.open(store_path(tmp_path / "whole")) as store, store.reader() as r:
        keys = {d.key for d in r.declarations_in("core/src/main/java/com/acme/core/LambdaTable.java")}
    # the outer lambda is the method's first, the one it returns its second (source order, nested included)
    assert {"Lcom/acme/core/LambdaTable;.nested()I.lambda$0#0#twice",
            "Lcom/acme/core/LambdaTable;.nested()I.lambda$1#0#inner"} <= keys, sorted(keys)


def test_a_static_method_added_to_an_interface_reindexes_that_file_alone(reactor, worker, tmp_path, monkeypatch):
    """A static (or private) interface method is not inherited and no lambda's function type: its
    implementors, subtypes and the files that mention the interface are not re-indexed for it
    (PYBRIDGE_PLAN_INTERFACE_STATICS=0: they are, as for any member). Equal to a fresh sync."""
    root, state, _ = reactor
    greeter = "core/src/main/java/com/acme/core/Greeter.java"
    monkeypatch.setenv("PYBRIDGE_PLAN_INTERFACE_STATICS", "0")
    edit(root, greeter, "String greet(String name);", "String greet(String name);\n    static int one() { return 1; }")
    assert sync(root, state_dir=state, worker=worker).reindexed_files > 3
    monkeypatch.delenv("PYBRIDGE_PLAN_INTERFACE_STATICS")
    edit(root, greeter, "String greet(String name);", "String greet(String name);\n    static int two() { return 2; }")
    result = sync(root, state_dir=state, worker=worker)
    assert result.published and result.reindexed_files == 1
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_a_changed_signature_reindexes_its_callers_and_equals_a_fresh_sync(reactor, worker, tmp_path):
    root, state, _ = reactor
    edit(root, BANNER, "String frame(String", "String frame(CharSequence")
    result = sync(root, state_dir=state, worker=worker)
    assert 1 < result.reindexed_files < 9 and result.rounds >= 2
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_a_touched_file_publishes_nothing_and_the_generation_reads_as_fresh(reactor, worker, samples):
    root, state, first = reactor
    path = root / NAMES
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    again = sync(root, state_dir=state, worker=worker)
    assert not again.published and again.generation == first.generation
    with facade_for((root, state), worker=worker) as facade:
        status = ok(facade, "status", {})
        assert status["generation"] == first.generation and status["stale"] is False


def test_a_no_op_sync_keeps_keys_and_cursors_of_the_current_generation(reactor, worker):
    root, state, first = reactor
    with facade_for((root, state), worker=worker) as facade:
        key = key_of(facade, "Names.normalize")
        page = ok(facade, "find_references", {"symbolKey": key, "limit": 1})
        listing = ok(facade, "find_symbol", {"query": "greet", "limit": 1})
        result = ok(facade, "sync", {})
        assert result["published"] is False and result["unchanged"] is True
        assert result["generation"] == first.generation and result["reindexedFiles"] == 0
        ok(facade, "find_references", {"symbolKey": key, "limit": 1, "cursor": page["nextCursor"]})
        ok(facade, "find_symbol", {"query": "greet", "limit": 1, "cursor": listing["nextCursor"]})
        assert key_of(facade, "Names.normalize") == key


def test_a_key_answers_after_an_edit_elsewhere_and_names_its_renamed_successor_when_gone(reactor, worker):
    root, state, _ = reactor
    with facade_for((root, state), worker=worker) as facade:
        key = key_of(facade, "Banner.frame")
        before = ok(facade, "find_references", {"symbolKey": key})
        edit(root, BANNER, "String line =", "String line = /* a body edit */")
        ok(facade, "sync", {})
        after = ok(facade, "find_references", {"symbolKey": key})
        assert after["symbol"]["symbolKey"] == key and after["meta"]["total"] == before["meta"]["total"]
        text = (root / BANNER).read_text(encoding="utf-8").replace("frame(", "border(")
        (root / BANNER).write_text(text, encoding="utf-8")
        app = root / "app/src/main/java/com/acme/app/App.java"
        app.write_text(app.read_text(encoding="utf-8").replace("Banner.frame(", "Banner.border("), encoding="utf-8")
        ok(facade, "sync", {})
        stale = err(facade, "find_references", {"symbolKey": key}, "stale_key")
        assert stale["replacement"] == key_of(facade, "Banner.border")
        assert ok(facade, "find_references", {"symbolKey": stale["replacement"]})["meta"]["total"] >= 1


def test_a_renamed_member_is_the_successor_though_a_sibling_after_it_has_its_descriptor(tmp_path, samples, worker):
    """Counter.measure()I is followed in its file by getCount()I, whose symbol id is also larger:
    a sibling that lived beside the old member is not its successor (a defect the TypeScript
    client test found)."""
    root = tmp_path / "kitchen"
    shutil.copytree(samples / "kitchen-sink", root)
    state = tmp_path / "state"
    sync(root, state_dir=state, worker=worker)
    with facade_for((root, state), worker=worker) as facade:
        key = key_of(facade, "Counter.measure")
        counter = root / "src/main/java/com/acme/kitchen/Counter.java"
        counter.write_text(re.sub(r"\bmeasure\b", "gauge", counter.read_text(encoding="utf-8")), encoding="utf-8")
        ok(facade, "sync", {})
        stale = err(facade, "find_references", {"symbolKey": key}, "stale_key")
        assert stale["replacement"] == key_of(facade, "Counter.gauge")


def test_a_key_of_a_changed_signature_names_the_one_overload_left(reactor, worker):
    root, state, _ = reactor
    with facade_for((root, state), worker=worker) as facade:
        key = key_of(facade, "Banner.frame")
        edit(root, BANNER, "String frame(String", "String frame(CharSequence")
        ok(facade, "sync", {})
        stale = err(facade, "find_references", {"symbolKey": key}, "stale_key")
        assert stale["replacement"] == key_of(facade, "Banner.frame")


def test_a_deleted_file_is_dropped_and_its_users_are_reindexed(reactor, worker, tmp_path):
    root, state, _ = reactor
    (root / GREETER).unlink()
    result = sync(root, state_dir=state, worker=worker)
    assert result.counts["files"] == 8 and result.reindexed_files >= 2
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_the_cli_sync_says_how_many_files_it_reindexed(reactor):
    root, state, _ = reactor
    edit(root, BANNER, "String line =", "String line = /* edited */")
    env = dict(os.environ, PYBRIDGE_HEAP="512m")
    out = subprocess.run([sys.executable, "-m", "pybridge.cli", "sync", str(root), "--state-dir", str(state),
                          "--json"], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["reindexedFiles"] == 1 and result["reusedFiles"] == 8 and result["published"] is True
    out = subprocess.run([sys.executable, "-m", "pybridge.cli", "sync", str(root), "--state-dir", str(state)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    assert "no input changed" in out.stdout and "stays current" in out.stdout


def test_a_constant_that_flows_into_another_files_constant_reaches_its_users(reactor, worker, tmp_path):
    root, state, _ = reactor
    core = root / "core/src/main/java/com/acme/core"
    (core / "Limits.java").write_text("package com.acme.core;\n\npublic final class Limits {\n"
                                      "    public static final int A = 1;\n}\n", encoding="utf-8")
    (core / "Derived.java").write_text("package com.acme.core;\n\npublic final class Derived {\n"
                                       "    public static final int B = Limits.A + 1;\n}\n", encoding="utf-8")
    app = root / "app/src/main/java/com/acme/app/Switch.java"
    app.write_text("package com.acme.app;\n\nimport com.acme.core.Derived;\n\nclass Switch {\n"
                   "    static String pick(int x) {\n        switch (x) {\n            case Derived.B: return \"b\";\n"
                   "            case 3: return \"three\";\n            default: return \"\";\n        }\n    }\n}\n",
                   encoding="utf-8")
    sync(root, state_dir=state, worker=worker)
    edit(root, "core/src/main/java/com/acme/core/Limits.java", "A = 1", "A = 2")   # B becomes 3: a duplicate case
    result = sync(root, state_dir=state, worker=worker)
    assert result.rounds >= 3
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    with Store.open(store_path(state)) as store, store.reader() as r:
        assert r.problems(path="app/src/main/java/com/acme/app/Switch.java")


def test_a_new_annotation_element_reaches_the_files_that_use_the_annotation(reactor, worker, tmp_path):
    root, state, _ = reactor
    core = root / "core/src/main/java/com/acme/core"
    (core / "Tag.java").write_text("package com.acme.core;\n\npublic @interface Tag {\n"
                                   "    String value() default \"\";\n    String a() default \"\";\n"
                                   "    String b() default \"\";\n}\n", encoding="utf-8")
    user = root / "app/src/main/java/com/acme/app/Tagged.java"
    user.write_text("package com.acme.app;\n\nimport com.acme.core.Tag;\n\n@Tag\nclass Tagged {\n}\n", encoding="utf-8")
    sync(root, state_dir=state, worker=worker)
    edit(root, "core/src/main/java/com/acme/core/Tag.java", "default \"\";", "default \"\";\n    int level();")
    sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    with Store.open(store_path(state)) as store, store.reader() as r:
        assert r.problems(path="app/src/main/java/com/acme/app/Tagged.java")


POLITE = "service/src/main/java/com/acme/service/PoliteGreeter.java"


def test_a_file_moved_to_another_folder_without_its_package_line_equals_a_fresh_sync(reactor, worker, tmp_path):
    """D3 (FAULTS-3): the sourcepath finds a type by its folder, so a file whose folder does not
    match its `package` line is seen only as a compiled unit. GreetingService (same package by
    declaration) resolved PoliteGreeter in a fresh sync and lost it in the incremental one."""
    root, state, _ = reactor
    moved = root / "service/src/main/java/com/acme/service/polite/PoliteGreeter.java"
    moved.parent.mkdir()
    (root / POLITE).rename(moved)
    sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    # Back again: the old place, where the sourcepath finds it once more.
    moved.rename(root / POLITE)
    sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh2", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh2")) == []


def _misplace_message(root: Path) -> None:
    """Message.java moved to core/…/com/acme/core/msg/ with its `package com.acme.core` line."""
    core = root / "core/src/main/java/com/acme/core"
    (core / "msg").mkdir()
    (core / "Message.java").rename(core / "msg/Message.java")


def test_a_misplaced_file_is_compiled_with_any_edited_file_of_its_module_and_scope(reactor, worker, tmp_path):
    root, state, _ = reactor
    _misplace_message(root)
    uses = "core/src/main/java/com/acme/core/Uses.java"
    (root / uses).write_text("package com.acme.core;\n\nclass Uses {\n    int f(Message m) { return m.length(); }\n}\n",
                             encoding="utf-8")
    sync(root, state_dir=state, worker=worker)
    edit(root, uses, "return m", "int local = 1; return m")    # a body edit: Uses alone is affected
    result = sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    assert result.reindexed_files == 2 and result.rounds == 1     # Uses, and Message compiled along
    with Store.open(store_path(state)) as store, store.reader() as r:
        assert not r.problems(path=uses)


def test_a_scope_that_sees_a_misplaced_file_compiles_whole_as_in_a_fresh_sync(reactor, worker, tmp_path):
    """Test files see Message only through the sourcepath, by folder: MT2 (package …msg) looks up
    msg/Message.java, which loads it and declares com.acme.core.Message to the files resolved
    after it. A fresh sync compiles MT2 before zT, so zT resolves Message; zT alone would not."""
    root, state, _ = reactor
    _misplace_message(root)
    tests = root / "core/src/test/java/com/acme/core"
    (tests / "msg").mkdir()
    (tests / "msg/MT2.java").write_text(
        "package com.acme.core.msg;\n\nclass MT2 {\n    Object f(Message m) { return m; }\n}\n", encoding="utf-8")
    (tests / "zT.java").write_text(
        "package com.acme.core;\n\nclass zT {\n    int f(Message m) { return m.length(); }\n}\n", encoding="utf-8")
    sync(root, state_dir=state, worker=worker)
    edit(root, "core/src/test/java/com/acme/core/zT.java", "return m", "int local = 1; return m")
    result = sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    assert result.reindexed_files == 3     # the whole test scope of core: NamesTest, MT2, zT


@pytest.mark.parametrize(("text", "package"), [
    ("package a.b;\nclass A {}", "a.b"),
    ("/* license */\n// note\n@Deprecated\n@p.Ann(value = {1, (2)})\npackage  a . b ;", "a.b"),
    ("\ufeff/** doc **/ package z;", "z"),
    ("import java.util.List;\nclass A {}", ""),
    ("// a comment\n@interface A {}", ""),
    ("class A {}\npackage a;", ""),
    ("package a.b", None),          # cut: JDT recovers some package, which one we cannot tell
    ("/* a comment left open", None),
    ("// only a comment", None),
    ("", None),
])
def test_the_declared_package_is_read_from_the_beginning_of_a_source(text, package):
    assert declared_package(text) == package


def test_a_copy_left_where_a_file_was_moved_from_is_compiled_with_it(reactor, worker, tmp_path):
    """Two files declare com.acme.core.Message (`cp` instead of `mv`): a fresh sync compiles both,
    and the later one gets "The type Message is already defined" and no declarations."""
    root, state, _ = reactor
    core = root / "core/src/main/java/com/acme/core"
    (core / "msg").mkdir()
    shutil.copy(core / "Message.java", core / "msg/Message.java")
    sync(root, state_dir=state, worker=worker)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []
    with Store.open(store_path(state)) as store, store.reader() as r:
        problems = r.problems(path="core/src/main/java/com/acme/core/msg/Message.java")
    assert any("already defined" in p.message for p in problems)
