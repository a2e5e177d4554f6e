"""Sync: Maven workspaces in, published generations out; every fault leaves the last generation served."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pybridge.errors import WorkspaceError
from pybridge.store import Store
from pybridge.sync import StaleSnapshotError, SyncBusyError, store_path, sync
from pybridge.sync.lock import SyncLock
from tests.support.incremental_edits import differences

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def reactor(tmp_path_factory, samples, worker):
    """The reactor sample, copied, synced once (generation 1)."""
    base = tmp_path_factory.mktemp("reactor")
    root = base / "reactor"
    shutil.copytree(samples / "reactor", root)
    state = base / "state"
    result = sync(root, state_dir=state, worker=worker)
    return root, state, result


def test_the_reactor_syncs_without_mvn_install_and_writes_nothing_into_the_tree(reactor):
    root, state, result = reactor
    assert result.generation == 1
    assert {(m["module"], m["scope"]) for m in result.modules} == {
        ("dev.pybridge.samples:core", "main"), ("dev.pybridge.samples:core", "test"),
        ("dev.pybridge.samples:service", "main"), ("dev.pybridge.samples:app", "main"),
        ("dev.pybridge.samples:app", "test")}
    assert list(root.rglob("target")) == []
    assert not any(lim["kind"] == "classpath_unresolved" for lim in result.limitations)


def test_references_across_modules_land_on_the_other_modules_declarations(reactor):
    root, state, _ = reactor
    with Store.open(store_path(state)) as store, store.reader() as r:
        [greeter] = r.declarations(dotted="com.acme.core.Greeter")
        assert greeter.module == "dev.pybridge.samples:core"
        users = {(ref.module, ref.scope) for ref in r.references(greeter.symbol_id)}
    assert ("dev.pybridge.samples:service", "main") in users
    assert ("dev.pybridge.samples:app", "test") in users


def test_the_test_scope_is_compiled_with_full_bindings(reactor):
    _, state, result = reactor
    tests = [m for m in result.modules if m["scope"] == "test"]
    assert tests and all(m["files"] == m["bindingComplete"] and m["problems"] == 0 for m in tests)
    with Store.open(store_path(state)) as store, store.reader() as r:
        [assert_equals] = [d for d in r.declarations(name="runFramesTheGreeting")]
        assert assert_equals.scope == "test"
        [junit] = [s for s in r.declarations(dotted="com.acme.app.App.run")]
        kinds = {ref.kind for ref in r.references(junit.symbol_id) if ref.scope == "test"}
    assert kinds == {"invocation"}


def test_an_unchanged_resync_publishes_nothing_and_the_current_generation_stays_current(reactor, worker):
    root, state, first = reactor
    with Store.open(store_path(state)) as store:
        before = store.stats()
    again = sync(root, state_dir=state, worker=worker)
    assert again.generation == first.generation and not again.published and again.unchanged
    assert again.reindexed_files == 0 and again.reused_files == again.counts["files"] == first.counts["files"]
    assert again.to_json()["published"] is False and again.to_json()["unchanged"] is True
    with Store.open(store_path(state)) as store:
        after = store.stats()
        assert store.current_generation().number == first.generation
    assert {k: v for k, v in after.items() if k != "bytes"} == {k: v for k, v in before.items() if k != "bytes"}


def test_a_forced_resync_reindexes_and_still_stores_no_duplicate_facts(reactor, worker):
    root, state, first = reactor
    with Store.open(store_path(state)) as store:
        before = store.stats()
    again = sync(root, state_dir=state, worker=worker, force=True)
    assert again.published and again.reindexed_files == again.reused_files == first.counts["files"]
    assert not again.incremental and again.full_reason == "forced"
    assert again.timings["index"] > 0
    with Store.open(store_path(state)) as store:
        after = store.stats()
    assert after["refs"] == before["refs"] and after["declarations"] == before["declarations"]


def _without_mvn_path(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("java", "git"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(os.path.realpath(found))
    return str(bin_dir)


def test_without_mvn_on_path_sync_completes_and_names_classpath_unresolved(tmp_path, samples, worker, monkeypatch):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    monkeypatch.setenv("PATH", _without_mvn_path(tmp_path))
    result = sync(root, state_dir=tmp_path / "state", worker=worker)
    unresolved = [lim for lim in result.limitations if lim["kind"] == "classpath_unresolved"]
    assert {lim["module"] for lim in unresolved} == {
        "dev.pybridge.samples:core", "dev.pybridge.samples:service", "dev.pybridge.samples:app"}
    assert all("mvn" in lim["message"] for lim in unresolved)
    assert result.counts["files"] == 9


def test_an_unresolvable_dependency_is_named_with_mavens_message_and_the_module_still_indexed(tmp_path, samples,
                                                                                           worker):
    root = tmp_path / "broken"
    shutil.copytree(samples / "broken", root)
    result = sync(root, state_dir=tmp_path / "state", worker=worker, allow_online=False)
    [lim] = [lim for lim in result.limitations if lim["kind"] == "classpath_unresolved"]
    assert lim["module"] == "dev.pybridge.samples:broken"
    assert "ghost-lib" in lim["message"]
    [module] = result.modules
    assert module["files"] == 4 and module["bindingComplete"] == 1


@pytest.mark.parametrize("content, expected", [
    ("<project><modelVersion>4.0.0", "pom.xml"),
    ("""<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId>
        <version>1</version><packaging>pom</packaging><modules><module>missing</module></modules></project>""",
     "missing"),
])
def test_a_malformed_pom_is_a_clear_error_naming_the_file_never_a_traceback(tmp_path, content, expected):
    (tmp_path / "pom.xml").write_text(content, encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "pybridge.cli", "sync", str(tmp_path), "--state-dir",
                          str(tmp_path / "state")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    assert expected in out.stderr and "Error:" in out.stderr


def test_a_module_cycle_is_a_workspace_error_naming_the_poms(tmp_path):
    for name, other in (("a", "b"), ("b", "a")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "pom.xml").write_text(
            f"""<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>{name}</artifactId>
            <version>1</version><packaging>pom</packaging><modules><module>../{other}</module></modules></project>""",
            encoding="utf-8")
    with pytest.raises(WorkspaceError) as err:
        sync(tmp_path / "a", state_dir=tmp_path / "state")
    assert "pom.xml" in str(err.value)


def test_editing_a_source_file_during_the_sync_publishes_nothing_and_names_the_path(tmp_path, samples, worker):
    root = tmp_path / "kitchen"
    shutil.copytree(samples / "kitchen-sink", root)
    state = tmp_path / "state"
    sync(root, state_dir=state, worker=worker)
    victim = root / "src/main/java/com/acme/kitchen/Counter.java"
    other = root / "src/main/java/com/acme/kitchen/Kitchen.java"
    other.write_text(other.read_text(encoding="utf-8") + "// an edit, so that the next sync indexes\n",
                     encoding="utf-8")

    def edit_while_indexing(event: dict) -> None:
        if event["phase"] == "index" and victim.read_text(encoding="utf-8").endswith("}\n"):
            victim.write_text(victim.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")

    with pytest.raises(StaleSnapshotError) as err:
        sync(root, state_dir=state, worker=worker, progress=edit_while_indexing)
    assert err.value.code == "stale_snapshot"
    assert err.value.changed == ["src/main/java/com/acme/kitchen/Counter.java"]
    with Store.open(store_path(state)) as store:
        assert store.current_generation().number == 1


def test_a_second_sync_fails_at_once_when_asked_not_to_wait(tmp_path, samples):
    state = tmp_path / "state"
    with SyncLock(state) as lock:
        lock.acquire()
        with pytest.raises(SyncBusyError) as err:
            sync(samples / "kitchen-sink", state_dir=state, wait=False)
    assert "Another sync" in str(err.value)


def test_a_second_sync_waits_with_a_message_until_the_first_is_done(tmp_path, samples, worker):
    state = tmp_path / "state"
    lock = SyncLock(state)
    lock.acquire()
    said = []
    threading.Timer(0.5, lock.release).start()
    result = sync(samples / "kitchen-sink", state_dir=state, worker=worker,
                  progress=lambda e: said.append(e.get("message", "")))
    assert result.generation == 1
    assert any("waiting" in m for m in said)


KILLER = """
import os, signal, sys, threading
from pybridge.sync import faults
from pybridge.store import faults as store_faults
point, root, state = sys.argv[1:4]
def hit(p):
    if p != point:
        return
    if p == "sync.maven":   # kill the whole group a moment later, while Maven runs
        threading.Timer(1.0, lambda: os.killpg(0, signal.SIGKILL)).start()
    else:
        os.killpg(0, signal.SIGKILL)
faults.hit = hit
store_faults.hit = hit
from pybridge.sync import sync
sync(root, state_dir=state, heap="512m")
print("NOT KILLED")
"""


@pytest.mark.parametrize("point", ["sync.maven", "sync.planned", "sync.indexing", "sync.staging", "sync.next_round",
                                   "publish.before_commit"])
def test_a_sync_killed_at_any_point_leaves_the_previous_generation_intact_and_served(tmp_path, samples, worker,
                                                                                    point):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    # Make the second (incremental) sync index something new, so a half-written generation would differ;
    # `frame` is called from other files, so a second round follows.
    state = tmp_path / "state"
    first = sync(root, state_dir=state, worker=worker)
    app = root / "app/src/main/java/com/acme/app/Banner.java"
    text = app.read_text(encoding="utf-8").replace("String frame(String", "String frame(CharSequence")
    app.write_text(text + "\nclass Extra { Banner b; }\n", encoding="utf-8")
    if point == "sync.maven":
        # Maven must run (and be killed while it runs): a changed build file, and no cached classpaths. With
        # the build files unchanged the sync reuses the generation's classpaths and runs no Maven, and a
        # fast machine finished the whole sync before the kill's timer.
        (state / "classpath-cache.json").unlink()
        (root / "pom.xml").write_text((root / "pom.xml").read_text(encoding="utf-8") + "<!-- changed -->\n",
                                      encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", KILLER, point, str(root), str(state)], capture_output=True,
                          text=True, timeout=300, start_new_session=True, cwd=ROOT)
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    with Store.open(store_path(state)) as store:
        current = store.current_generation()
        assert current.number == 1
        with store.reader() as r:
            assert len(r.files()) == first.counts["files"]
            assert sum(f.references for f in r.files()) == first.counts["references"]
            assert not r.declarations(name="Extra")
        conn = store._checkout()
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            store._checkin(conn)
    again = sync(root, state_dir=state, worker=worker)
    assert again.generation == 2 and again.incremental and again.rounds >= 2
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(state), store_path(tmp_path / "fresh")) == []


def test_indexing_and_staging_run_with_fewer_cyclic_collections_and_the_thresholds_come_back(tmp_path, worker):
    import gc

    from pybridge.sync.pipeline import STAGING_GC_THRESHOLD

    root = tmp_path / "ws"
    shutil.copytree(ROOT / "samples" / "kitchen-sink", root)
    seen: list[tuple[int, int, int]] = []

    def progress(event: dict) -> None:
        if event.get("phase") == "index":
            seen.append(gc.get_threshold())

    before = gc.get_threshold()
    sync(root, state_dir=tmp_path / "state", worker=worker, force=True, progress=progress)
    assert seen and set(seen) == {STAGING_GC_THRESHOLD}
    assert gc.get_threshold() == before


def test_a_small_round_streams_its_facts_in_chunks_of_a_few_files(tmp_path, worker, monkeypatch):
    """A round of few files comes in at least eight chunks (`chunk_files`), so that the parent stages the
    first files while the JVM indexes the next ones; a round of one chunk of 32 files was staged only
    after the JVM had indexed all of it (a worktree's 20 files: 0.09 s of staging after 0.3 s of JVM)."""
    from pybridge.sync.pipeline import CHUNK_FILES, chunk_files
    from pybridge.worker import IndexTask

    root = tmp_path / "ws"
    shutil.copytree(ROOT / "samples" / "kitchen-sink", root)
    chunks: list[int] = []
    index_all = worker.index_all

    def spy(tasks, **kwargs):
        def counted(on_files):
            return lambda files: (chunks.append(len(files)), on_files(files))
        return index_all([IndexTask(t.request, t.progress, counted(t.on_files)) for t in tasks], **kwargs)

    monkeypatch.setattr(worker, "index_all", spy)
    result = sync(root, state_dir=tmp_path / "state", worker=worker, force=True)
    files = result.reindexed_files
    assert files >= 8 and sum(chunks) == files
    assert len(chunks) >= 6 and max(chunks) <= chunk_files(files) < CHUNK_FILES
    assert chunk_files(1) == 1 and chunk_files(20) == 3 and chunk_files(6238) == CHUNK_FILES
