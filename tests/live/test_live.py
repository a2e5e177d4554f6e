"""The live index of `serve`: edits reach exact answers without a `sync` call.

Through a real MCP client session (`pybridge serve` over stdio) on a copy of
samples/reactor, and in process for what a session cannot steer (a watcher
event with no query waiting, an edit in the middle of a sync).

Keys name declarations (issue 8 item 2): a key from before an edit answers
after it, as long as its declaration lives.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from pybridge.live import LiveConfig, LiveIndex
from pybridge.store import Store
from pybridge.sync import default_state_dir, store_path, sync
from pybridge.sync import snapshot as snapshot_module
from pybridge.sync.lock import SyncLock
from pybridge.sync.planner import forget_placements
from pybridge.sync.snapshot import any_change, changes, take
from pybridge.workspace import load_workspace
from tests.support.incremental_edits import differences
from tests.support.mcp_session import checked_call, serve

WAIT = 120      # seconds: a bound for waits on a loaded machine, never a measured time
NAMES = "core/src/main/java/com/acme/core/Names.java"
APP = "app/src/main/java/com/acme/app/App.java"
NAMES_TEST = "core/src/test/java/com/acme/core/NamesTest.java"
ENV = {"PYBRIDGE_FRESH_WAIT": str(WAIT), "PYBRIDGE_HEAP": "1g"}


@pytest.fixture(scope="module")
def template(tmp_path_factory, samples, worker):
    """samples/reactor synced once (Maven included) into a state home; each test restores a copy."""
    base = tmp_path_factory.mktemp("live-template")
    root, home = base / "reactor", base / "home"
    shutil.copytree(samples / "reactor", root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        sync(root, state_dir=default_state_dir(root), worker=worker)
    return root, home


@pytest.fixture
def reactor(template, tmp_path_factory):
    """A synced reactor at the template's path (a state folder belongs to its root), restored per test."""
    root, home = template
    saved = tmp_path_factory.mktemp("live-saved")
    shutil.copytree(root, saved / "reactor")
    shutil.copytree(home, saved / "home")
    yield root, home
    for live, copy in ((root, saved / "reactor"), (home, saved / "home")):
        shutil.rmtree(live)
        shutil.copytree(copy, live)


def call(client, name, args):
    payload, is_error, _text = checked_call(client, name, args)
    return payload, is_error


def ok(client, name, args):
    payload, is_error = call(client, name, args)
    assert not is_error, payload
    return payload


def err(client, name, args, code):
    payload, is_error = call(client, name, args)
    assert is_error and payload["code"] == code, payload
    return payload


def key_of(client, query):
    [symbol] = ok(client, "find_symbol", {"query": query})["symbols"]
    return symbol["symbolKey"]


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def add_a_call_to_normalize(root: Path) -> None:
    """Edit a method's body: App.run calls Names.normalize once more."""
    edit(root, APP, "return Banner.frame(message.getText());",
         "return Banner.frame(Names.normalize(message.getText()));")


def normalize_key_now(client) -> tuple[str, dict]:
    """The key of Names.normalize, through symbol_at: an exact tool, so it waits for the catch-up."""
    at = ok(client, "symbol_at", {"path": NAMES, "line": 11, "character": 26})
    assert at["symbol"]["dottedPath"] == "com.acme.core.Names.normalize"
    return at["symbol"]["symbolKey"], at


# --------------------------------------------------------------------------- through MCP


def test_an_edited_method_body_reaches_exact_answers_without_a_sync_call(reactor):
    root, home = reactor
    with serve([root], home, ENV) as client:
        before = ok(client, "find_references", {"symbolKey": key_of(client, "Names.normalize")})
        assert before["meta"]["generation"] == 1 and before["freshness"] == "fresh"
        add_a_call_to_normalize(root)
        key, at = normalize_key_now(client)
        assert at["freshness"] == "fresh"
        after = ok(client, "find_references", {"symbolKey": key})
        assert after["freshness"] == "fresh" and after["meta"]["generation"] == 2
        assert after["meta"]["total"] == before["meta"]["total"] + 1
        assert sum(r["path"] == APP for r in after["references"]) == 2
        live = ok(client, "status", {})["live"]
        assert live["watching"] is True and live["lastCatchUp"]["outcome"] == "published"
        assert live["lastCatchUp"]["generation"] == 2 and live["pending"] is False
        assert live["worker"]["running"] is True and live["worker"]["starts"] == 1


def test_a_key_from_before_an_edit_answers_fresh_after_it(reactor):
    root, home = reactor
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        before = ok(client, "find_references", {"symbolKey": key})
        add_a_call_to_normalize(root)
        payload, is_error = call(client, "find_references", {"symbolKey": key})
        assert not is_error, payload
        assert payload["freshness"] == "fresh" and payload["meta"]["total"] == before["meta"]["total"] + 1


def test_a_renamed_method_makes_its_old_key_stale_with_the_renamed_method_as_replacement(reactor):
    root, home = reactor
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        for rel in (NAMES, APP, NAMES_TEST):
            path = root / rel
            path.write_text(path.read_text(encoding="utf-8").replace("normalize(", "canonical("), encoding="utf-8")
        payload = err(client, "find_references", {"symbolKey": key}, "stale_key")
        assert payload["replacement"]
        renamed = ok(client, "find_references", {"symbolKey": payload["replacement"]})
        assert renamed["symbol"]["dottedPath"] == "com.acme.core.Names.canonical"


def test_no_watch_keeps_exact_tools_refusing_an_edited_workspace(reactor):
    root, home = reactor
    with serve([root], home, {**ENV, "PYBRIDGE_NO_WATCH": "1"}) as client:
        key = key_of(client, "Names.normalize")
        add_a_call_to_normalize(root)
        payload = err(client, "find_references", {"symbolKey": key}, "stale_snapshot")
        assert APP in payload["changed"] and "syncError" not in payload and "catchUp" not in payload
        status = ok(client, "status", {})
        assert status["generation"] == 1 and status["stale"] is True
        assert status["live"]["watching"] is False and status["live"]["lastCatchUp"] is None
        names = ok(client, "findReferences", {"symbol": "Names.normalize"})
        assert names["stale"] is True


def test_a_failed_catch_up_says_stale_snapshot_with_the_sync_error_and_keeps_the_last_generation(reactor):
    root, home = reactor
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        pom = root / "pom.xml"
        good = pom.read_text(encoding="utf-8")
        pom.write_text(good.replace("</project>", ""), encoding="utf-8")     # malformed XML
        add_a_call_to_normalize(root)
        payload = err(client, "find_references", {"symbolKey": key}, "stale_snapshot")
        assert payload["syncError"]["code"] == "sync_failed" and "pom.xml" in payload["syncError"]["error"]
        assert "sync failed" in payload["error"]
        status = ok(client, "status", {})
        assert status["generation"] == 1
        assert status["live"]["lastCatchUp"]["outcome"] == "failed"
        assert "pom.xml" in status["live"]["lastCatchUp"]["error"]
        names = ok(client, "findReferences", {"symbol": "Names.normalize"})     # name tools answer
        assert names["stale"] is True
        pom.write_text(good, encoding="utf-8")                                   # repaired: caught up
        key, at = normalize_key_now(client)
        assert at["freshness"] == "fresh"
        assert ok(client, "find_references", {"symbolKey": key})["meta"]["generation"] == 2


def test_when_the_wait_bound_passes_an_exact_tool_says_stale_snapshot(reactor):
    root, home = reactor
    with serve([root], home, {**ENV, "PYBRIDGE_FRESH_WAIT": "0"}) as client:
        key = key_of(client, "Names.normalize")
        add_a_call_to_normalize(root)
        payload = err(client, "find_references", {"symbolKey": key}, "stale_snapshot")
        assert payload["catchUp"] == {"waitedSeconds": 0} and "did not catch up" in payload["error"]


def _until(client, condition) -> dict:
    """Ask status until its live fields meet `condition` (a short bounded loop on a status condition)."""
    deadline = time.monotonic() + WAIT
    while True:
        live = ok(client, "status", {})["live"]
        if condition(live):
            return live
        assert time.monotonic() < deadline, live


def test_a_killed_worker_is_restarted_warm_and_the_next_edit_is_caught_up(reactor):
    root, home = reactor
    # The kill must land between requests: no start-up rehearsal (PYBRIDGE_LIVE_REHEARSE) holds the worker.
    with serve([root], home, {**ENV, "PYBRIDGE_LIVE_REHEARSE": "0"}) as client:
        live = _until(client, lambda live: live["worker"]["warm"])
        pid = live["worker"]["pid"]
        os.kill(pid, signal.SIGKILL)
        live = _until(client, lambda live: live["worker"]["restarts"] == 1 and live["worker"]["warm"])
        assert live["worker"]["pid"] != pid and "exit code" in live["worker"]["lastCrash"]
        assert live["worker"]["restartCauses"]["crashed"] == 1 and live["worker"]["lastRestart"].startswith("crashed")
        add_a_call_to_normalize(root)
        key, at = normalize_key_now(client)
        assert at["freshness"] == "fresh"
        assert ok(client, "status", {})["live"]["worker"]["pid"] == live["worker"]["pid"]


# ------------------------------------------- issue 22: never stale when it says fresh (real serve, real inotify)


def paths(answer: dict) -> set[str]:
    return {r["path"] for r in answer["references"]}


NEW_TEST = "service/src/test/java/com/acme/service/NewTest.java"


def test_a_new_source_folder_that_no_pom_announces_is_indexed_before_an_answer_says_fresh(reactor):
    """D1: service has no src/test/java; its first test is an everyday edit that no POM change announces."""
    root, home = reactor
    assert not (root / "service/src/test").exists()
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        assert ok(client, "find_references", {"symbolKey": key})["freshness"] == "fresh"
        new = root / NEW_TEST
        new.parent.mkdir(parents=True)
        new.write_text("package com.acme.service;\n\nclass NewTest {\n    String f() { return "
                       "com.acme.core.Names.normalize(\"a\"); }\n}\n", encoding="utf-8")
        after = ok(client, "find_references", {"symbolKey": key})
        assert after["freshness"] == "fresh" and after["meta"]["generation"] == 2
        assert NEW_TEST in paths(after)
        assert ok(client, "status", {})["live"]["lastCatchUp"]["outcome"] == "published"


def test_a_cli_sync_after_a_new_source_folder_indexes_it(reactor, worker):
    """D1, the CLI path: the sync reloads the model, so the new root's files are inputs that changed."""
    root, home = reactor
    new = root / NEW_TEST
    new.parent.mkdir(parents=True)
    new.write_text("package com.acme.service;\n\nclass NewTest {}\n", encoding="utf-8")
    result = sync(root, state_dir=home_state(root, home), worker=worker)
    assert result.published and NEW_TEST in _current(root, home).snapshot["files"]


def test_an_edit_through_a_hard_link_made_outside_the_workspace_is_never_answered_from_old_facts(reactor, tmp_path):
    """D2: inotify reports a write to the folder of the name that was opened; the file's own watch sees it."""
    root, home = reactor
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        assert APP in paths(ok(client, "find_references", {"symbolKey": key}))
        link = tmp_path / "App-link.java"
        os.link(root / APP, link)
        for _ in range(2):          # a sweep after the link, then an answer the barrier proves
            assert APP in paths(ok(client, "find_references", {"symbolKey": key}))
        text = link.read_text(encoding="utf-8")
        with open(link, "r+", encoding="utf-8") as f:      # in place, through the other name
            f.write(text.replace("Names.normalize(name)", '"x"'))
            f.truncate()
        after = ok(client, "find_references", {"symbolKey": key})
        assert after["freshness"] == "fresh" and APP not in paths(after)
        assert ok(client, "find_references", {"symbolKey": key})["meta"]["generation"] == 2


def _keep_size_and_mtime(path: Path, old: str, new: str, how: str, scratch: Path) -> None:
    """Rewrite `old` as `new` (same length) in `path`, leaving its size and mtime as they were."""
    assert len(old) == len(new)
    before = path.stat()
    text = path.read_text(encoding="utf-8").replace(old, new)
    if how == "utime":
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:                           # cp -p of a prepared copy: written in place, times copied
        prepared = scratch / path.name
        prepared.write_text(text, encoding="utf-8")
        os.utime(prepared, ns=(before.st_atime_ns, before.st_mtime_ns))
        shutil.copy2(prepared, path)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("how", ["utime", "cp -p"])
def test_an_edit_that_keeps_size_and_mtime_reaches_the_verdict_of_a_sync(reactor, tmp_path, how):
    """D4: the stat sweep hashes a file whose inode changed after the snapshot hashed it."""
    root, home = reactor
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        assert APP in paths(ok(client, "find_references", {"symbolKey": key}))
        _keep_size_and_mtime(root / APP, "Names.normalize(name)", "/*es.normalize(*/name", how, tmp_path)
        after = ok(client, "find_references", {"symbolKey": key})
        assert after["freshness"] == "fresh" and APP not in paths(after)
        assert after["meta"]["generation"] == 2


def test_a_source_folder_replaced_by_a_symbolic_link_ends_with_the_paths_of_a_fresh_sync(reactor, tmp_path, worker):
    """D5: every old path still stats the same through the link, but the model resolves the root."""
    root, home = reactor
    real = "service/src/main/java-real/com/acme/service/PoliteGreeter.java"
    with serve([root], home, ENV) as client:
        key = key_of(client, "Names.normalize")
        assert ok(client, "find_references", {"symbolKey": key})["freshness"] == "fresh"
        folder = root / "service/src/main/java"
        folder.rename(folder.with_name("java-real"))
        folder.symlink_to("java-real")
        after = ok(client, "find_references", {"symbolKey": key})
        assert after["freshness"] == "fresh" and real in paths(after)
    sync(root, state_dir=tmp_path / "fresh", worker=worker)
    assert differences(store_path(home_state(root, home)), store_path(tmp_path / "fresh")) == []


# --------------------------------------------------------------------------- the sweep (snapshot.changes)


@pytest.fixture
def tree(samples, tmp_path):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    return root


def test_the_sweep_hashes_a_file_whose_size_and_mtime_were_kept_and_only_then(tree, tmp_path):
    snap = take(load_workspace(tree))
    assert changes(snap) == []
    _keep_size_and_mtime(tree / APP, "Names.normalize(name)", "/*es.normalize(*/name", "utime", tmp_path)
    assert changes(snap) == [APP]
    _keep_size_and_mtime(tree / APP, "/*es.normalize(*/name", "Names.normalize(name)", "utime", tmp_path)
    assert changes(snap) == []          # the inode changed, the bytes are back: nothing to sync


_OPENED: list[str] | None = None      # while a list: the paths the audit hook saw opened
_READ: list[str] | None = None        # while a list: those opened by open() ('rb'), not os.open (no mode)


def _record_opens(event: str, args: tuple) -> None:
    if event == "open" and _OPENED is not None and isinstance(args[0], str):
        _OPENED.append(args[0])
        if _READ is not None and args[1] is not None:
            _READ.append(args[0])


sys.addaudithook(_record_opens)


def test_the_sweep_right_after_a_copy_reads_no_file_whose_inode_kept_its_ctime(tree):
    """A snapshot taken right after a copy or checkout records each file's ctime: the sweep hashes
    none of them (a clock margin made every file changed in the second before the sync suspect)."""
    global _OPENED
    snap = take(load_workspace(tree))
    assert set(snap.ctimes) == set(snap.files) | set(snap.build_files)
    _OPENED = []
    try:
        assert changes(snap) == []
        opened = list(_OPENED)
    finally:
        _OPENED = None
    assert [p for p in opened if p.endswith((".java", ".xml"))] == []


_SCANNED: list[str] | None = None     # while a list: the folders os.scandir listed (os.walk uses it)


def _record_scans(event: str, args: tuple) -> None:
    if event == "os.scandir" and _SCANNED is not None:
        _SCANNED.append(str(args[0]))


sys.addaudithook(_record_scans)


def test_the_catch_up_check_stops_at_the_first_change_without_walking_the_source_folders(tree, monkeypatch):
    """`any_change` (the live index's check before each catch-up) answers as `changes` does, and
    after an edit of a known file it lists no folder (PYBRIDGE_SWEEP_EARLY_EXIT=0: every one)."""
    snap = take(load_workspace(tree))

    def scans(action):
        global _SCANNED
        _SCANNED = []
        try:
            return action(), len(_SCANNED)
        finally:
            _SCANNED = None

    unchanged, listed = scans(lambda: any_change(snap))
    assert unchanged is False and listed > 3        # nothing changed: the whole sweep, folders included
    (tree / APP).write_text((tree / APP).read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    assert scans(lambda: any_change(snap)) == (True, 0)
    monkeypatch.setenv("PYBRIDGE_SWEEP_EARLY_EXIT", "0")
    assert scans(lambda: any_change(snap)) == (True, listed)
    monkeypatch.delenv("PYBRIDGE_SWEEP_EARLY_EXIT")
    snap = take(load_workspace(tree))
    (tree / "app/src/main/java/com/acme/app/Added.java").write_text("package com.acme.app; class Added {}\n")
    assert any_change(snap) is True and changes(snap) == ["app/src/main/java/com/acme/app/Added.java"]


def _opened_sources(action, whole: bool = False):
    """What `action()` returns, and the .java and .xml files it opened (the audit hook above);
    `whole`: only those opened with open() (hashed or read whole; the planner's placement reads each
    file's package header with os.open)."""
    global _OPENED, _READ
    _OPENED, _READ = [], []
    try:
        result = action()
        opened = list(_READ if whole else _OPENED)
    finally:
        _OPENED = _READ = None
    return result, sorted({p for p in opened if p.endswith((".java", ".xml"))})


def _aged(snap):
    """`snap` as if taken a minute later than it was: no record is racy (a sync a while after it)."""
    snap.taken_ns += 60_000_000_000
    return snap


def test_take_after_a_one_file_edit_hashes_only_that_file(tree, monkeypatch):
    """Digests whose stat record still matches are reused; PYBRIDGE_SNAPSHOT_REUSE=0 hashes all again."""
    workspace = load_workspace(tree)
    first = _aged(take(workspace))
    (tree / APP).write_text((tree / APP).read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    second, opened = _opened_sources(lambda: take(workspace, previous=first))
    assert opened == [str(tree / APP)]
    fresh = take(workspace)
    assert second.files == fresh.files and second.build_files == fresh.build_files
    assert second.inodes == fresh.inodes and second.ctimes == fresh.ctimes
    monkeypatch.setenv("PYBRIDGE_SNAPSHOT_REUSE", "0")
    _, opened = _opened_sources(lambda: take(workspace, previous=second))
    assert len(opened) == len(fresh.files) + len(fresh.build_files)


def test_take_hashes_a_racy_file_whose_stat_was_kept_in_the_tick_of_the_snapshot(tree, tmp_path):
    """Git's racy-file rule: a record not older than its snapshot by the timestamp margin is not
    trusted. Simulated: a rewrite that kept size and mtime (touch -d back), and whose new ctime the
    record also holds, as an edit in the same tick as the snapshot's stat would."""
    workspace = load_workspace(tree)
    snap = take(workspace)
    _keep_size_and_mtime(tree / APP, "Names.normalize(name)", "/*es.normalize(*/name", "utime", tmp_path)
    snap.ctimes[APP] = (tree / APP).stat().st_ctime_ns          # the edit fell within the stat's tick
    assert take(workspace, previous=snap).files[APP] != snap.files[APP]    # racy: hashed, seen
    assert take(workspace, previous=_aged(snap)).files[APP] == snap.files[APP]   # trusted: the hole it closes


def test_take_hashes_a_file_whose_stat_changed_or_that_was_replaced_by_a_rename(tree, tmp_path):
    workspace = load_workspace(tree)
    snap = _aged(take(workspace))
    _keep_size_and_mtime(tree / APP, "Names.normalize(name)", "/*es.normalize(*/name", "utime", tmp_path)
    assert take(workspace, previous=snap).files[APP] != snap.files[APP]   # the ctime changed
    snap = _aged(take(workspace))
    before = (tree / APP).stat()
    prepared = tree / "app/App.java.new"          # an editor's save: a new file renamed over the old
    prepared.write_text((tree / APP).read_text(encoding="utf-8").replace(
        "/*es.normalize(*/name", "Names.normalize(name)"), encoding="utf-8")
    os.utime(prepared, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(prepared, tree / APP)
    after = (tree / APP).stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ino != before.st_ino
    snap.ctimes[APP] = after.st_ctime_ns          # even were the ctime kept, the inode tells
    assert take(workspace, previous=snap).files[APP] != snap.files[APP]


def test_a_sync_after_a_one_file_edit_hashes_only_that_file(reactor, worker, monkeypatch):
    """The sync passes its previous generation's snapshot to `take`: of the workspace's sources it
    reads whole only the edited file (to hash it and to stage it)."""
    root, _home = reactor
    state = default_state_dir(root)
    # The fixture copied every file a moment ago: within 2 s, all would be racy. A 10 ms margin, and
    # 50 ms between the copy and the snapshot, keep the test short.
    monkeypatch.setattr(snapshot_module, "RACY_MARGIN_NS", 10_000_000)
    time.sleep(0.05)
    sync(root, state_dir=state, worker=worker)        # no input changed: the snapshot's stats refreshed
    (root / APP).write_text((root / APP).read_text(encoding="utf-8") + "\n// edited\n", encoding="utf-8")
    result, opened = _opened_sources(lambda: sync(root, state_dir=state, worker=worker), whole=True)
    assert result.published
    assert [p for p in opened if p.endswith(".java")] == [str(root / APP)]


def test_an_edit_sync_of_a_warm_process_opens_only_the_edited_file(reactor, worker, monkeypatch):
    """The planner's placement (each file's package, read from its first 4 KB) is cached by the
    snapshot's digest: once one incremental sync has read the module, the next edit's sync opens,
    of the workspace's sources, the edited file alone (PYBRIDGE_PLACEMENT_CACHE=0: every file)."""
    root, _home = reactor
    state = default_state_dir(root)
    monkeypatch.setattr(snapshot_module, "RACY_MARGIN_NS", 10_000_000)    # as in the test above
    time.sleep(0.05)
    sync(root, state_dir=state, worker=worker)     # catches up with what earlier tests left
    forget_placements()                              # a process whose placement cache is empty
    sources = len(take(load_workspace(root)).files)
    for i, cache in enumerate(("1", "1", "0")):
        monkeypatch.setenv("PYBRIDGE_PLACEMENT_CACHE", cache)
        (root / APP).write_text((root / APP).read_text(encoding="utf-8") + f"\n// edited {i}\n", encoding="utf-8")
        result, opened = _opened_sources(lambda: sync(root, state_dir=state, worker=worker))
        assert result.published
        java = [p for p in opened if p.endswith(".java")]
        if i == 1:      # the cache holds every other file's package: only the edited file is read
            assert java == [str(root / APP)]
        else:           # the process's first incremental sync, and no cache: placement opens every file
            assert len(java) == sources > 2
    fresh_state = root.parent / "fresh-state"
    fresh = sync(root, state_dir=fresh_state, worker=worker)
    assert fresh.published and differences(store_path(state), store_path(fresh_state)) == []


def test_the_sweep_sees_a_new_source_root_a_generated_one_and_a_root_replaced_by_a_link(tree):
    snap = take(load_workspace(tree))
    assert "service/src/test/java" in snap.places and snap.places["service/src/test/java"] == []
    (tree / "service/src/test/java").mkdir(parents=True)           # empty: the model has one root more
    assert changes(snap) == ["service/src/test/java"]
    snap = take(load_workspace(tree))
    (tree / "core/target/generated-sources/annotations").mkdir(parents=True)
    assert changes(snap) == ["core/target/generated-sources/*"]
    snap = take(load_workspace(tree))
    folder = tree / "service/src/main/java"
    folder.rename(folder.with_name("java-real"))
    folder.symlink_to("java-real")
    assert changes(snap) == ["service/src/main/java"]
    assert take(load_workspace(tree)).places["service/src/main/java"] == ["service/src/main/java-real"]


# --------------------------------------------------------------------------- in process


def _current(root: Path, home: Path):
    store = Store.open(store_path(home_state(root, home)))
    try:
        return store.current_generation()
    finally:
        store.close()


def home_state(root: Path, home: Path) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        return default_state_dir(root)


def _live(root: Path, home: Path, sync_function=sync, **config) -> LiveIndex:
    settings = {"heap": "1g", "fresh_wait_s": WAIT, "prewarm": False, "rehearse": False, **config}
    return LiveIndex([("reactor", root, home_state(root, home))], LiveConfig(**settings),
                     sync_function=sync_function)


def _wait(live: LiveIndex, condition) -> None:
    with live.cond:
        assert live.cond.wait_for(condition, timeout=WAIT), live.describe(next(iter(live.targets)))


@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
def test_the_watcher_alone_brings_an_edit_into_a_new_generation(reactor, poll):
    root, home = reactor
    with _live(root, home, poll=poll, poll_ms=50) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        assert live.watcher.mode == ("polling" if poll else "events")
        target = live.targets[root]
        _wait(live, lambda: target.last is not None and not target.syncing)   # the start-up check
        assert target.last["outcome"] == "unchanged"
        add_a_call_to_normalize(root)
        _wait(live, lambda: target.catch_ups == 1 and not target.pending and not target.syncing)
        assert target.last["outcome"] == "published" and target.last["generation"] == 2
        assert target.events >= 1
    current = _current(root, home)
    assert current.number == 2 and APP in current.snapshot["files"]


@pytest.mark.parametrize("switch", ["1", "0"])
def test_the_first_catch_up_with_nothing_changed_rehearses_one_edit_once_and_publishes_nothing(
        reactor, monkeypatch, switch):
    """PYBRIDGE_LIVE_REHEARSE (default 1): the start-up check that finds nothing changed syncs once with
    `rehearse` (one file indexed again, nothing published), so that the first edit finds the caches the
    later ones find; later checks that find nothing changed sync nothing."""
    monkeypatch.setenv("PYBRIDGE_LIVE_REHEARSE", switch)
    assert LiveConfig.from_env().rehearse is (switch == "1")
    root, home = reactor
    calls: list[dict] = []

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return sync(*args, **kwargs)

    with _live(root, home, sync_function=counted, rehearse=LiveConfig.from_env().rehearse) as live:
        target = live.targets[root]
        _wait(live, lambda: target.last is not None and not target.syncing)     # the start-up check
        assert target.last["outcome"] == "unchanged" and target.catch_ups == 0
        assert [c.get("rehearse") for c in calls] == ([True] if switch == "1" else [])
        live.notice(root)
        _wait(live, lambda: not target.pending and not target.syncing)
        assert len(calls) == (1 if switch == "1" else 0)
        add_a_call_to_normalize(root)
        _wait(live, lambda: target.catch_ups == 1 and not target.pending and not target.syncing)
        assert target.last["outcome"] == "published" and target.last["generation"] == 2
        assert not calls[-1].get("rehearse")
    assert _current(root, home).number == 2


def test_a_rehearsal_that_finds_an_edit_publishes_it_and_says_so(reactor):
    """Seen in CI: the edit landed after the start-up check compared the stats and before its rehearsal
    read the files, so the rehearsal synced and published generation 2, yet the catch-up said
    "unchanged": status had no lastCatchUp and no diff of the last edit, while the answers were at 2."""
    root, home = reactor
    calls: list[dict] = []

    def edit_before_the_rehearsal(*args, **kwargs):
        calls.append(kwargs)
        if kwargs.get("rehearse"):
            add_a_call_to_normalize(root)
        return sync(*args, **kwargs)

    with _live(root, home, sync_function=edit_before_the_rehearsal, rehearse=True) as live:
        target = live.targets[root]
        _wait(live, lambda: target.last_sync is not None and not target.syncing and not target.noting)
        assert calls[0].get("rehearse") is True
        status = live.describe(root)
        assert status is not None
        assert status["lastCatchUp"]["outcome"] == "published" and status["lastCatchUp"]["generation"] == 2
        assert target.catch_ups >= 1 and status["lastEdit"] is not None
    assert _current(root, home).number == 2


def test_a_burst_of_edits_is_debounced_into_one_catch_up(reactor):
    root, home = reactor
    with _live(root, home, debounce_s=5.0) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        target = live.targets[root]
        _wait(live, lambda: target.last is not None and not target.syncing and not target.pending)
        add_a_call_to_normalize(root)
        edit(root, NAMES_TEST, "class NamesTest {", "class NamesTest {\n    int burst;")
        edit(root, NAMES, "public final class Names {", "public final class Names {\n    static int burst;")
        _wait(live, lambda: target.catch_ups >= 1 and not target.pending and not target.syncing)
        assert target.catch_ups == 1 and target.last_sync["outcome"] == "published"
    files = _current(root, home).snapshot["files"]
    for rel in (APP, NAMES_TEST, NAMES):
        assert files[rel][0] == (root / rel).stat().st_size, rel


def test_files_outside_the_inputs_never_start_a_catch_up(reactor):
    root, home = reactor
    with _live(root, home) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        scope = live.targets[root].scope
        assert scope.relevant(root / APP) and scope.relevant(root / "core/pom.xml")
        for ignored in ("core/target/classes/Foo.java", ".git/x/pom.xml", "app/README.md",
                        "app/src/site/Example.java"):
            assert not scope.relevant(root / ignored), ignored
        assert not scope.relevant(home_state(root, home) / "x/pom.xml")


def test_an_edit_during_a_sync_leads_to_one_more_catch_up_and_is_never_lost(reactor):
    root, home = reactor
    calls = []

    def sync_and_edit_midway(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            def progress(event):
                if event.get("phase") == "index" and not (root / "core/src/main/java/com/acme/core/Late.java").exists():
                    (root / "core/src/main/java/com/acme/core/Late.java").write_text(
                        "package com.acme.core;\npublic class Late { String n = Names.normalize(\"x\"); }\n",
                        encoding="utf-8")
            kwargs["progress"] = progress
        result = sync(*args, **kwargs)
        if len(calls) == 2:     # an edit after the sync's own last check: only the watcher can see it
            edit(root, NAMES_TEST, "class NamesTest {", "class NamesTest {\n    int later;")
        return result

    with _live(root, home, sync_function=sync_and_edit_midway) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        target = live.targets[root]
        add_a_call_to_normalize(root)
        _wait(live, lambda: len(calls) >= 3 and not target.pending and not target.syncing)
        outcomes = target.last
        assert outcomes["outcome"] == "published"
    current = _current(root, home)
    files = current.snapshot["files"]
    late = "core/src/main/java/com/acme/core/Late.java"
    assert late in files                                 # the edit that spoiled the first sync
    assert files[NAMES_TEST][0] == (root / NAMES_TEST).stat().st_size     # the edit after the second
    assert len(calls) == 3


def test_a_catch_up_overtaken_by_an_edit_keeps_its_jvm_and_the_next_one_runs_on_it(reactor):
    """O1: the edit lands while the catch-up indexes the very file; the request is read to its end
    (the JVM is not killed) and the catch-up that follows runs on the same, warm, JVM."""
    root, home = reactor
    calls = []

    def sync_and_edit_while_indexing(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            def progress(event):
                if event.get("phase") == "index" and "storm" not in (root / APP).read_text(encoding="utf-8"):
                    with open(root / APP, "a", encoding="utf-8") as f:
                        f.write("// storm\n")
            kwargs["progress"] = progress
        return sync(*args, **kwargs)

    with _live(root, home, sync_function=sync_and_edit_while_indexing) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        target = live.targets[root]
        add_a_call_to_normalize(root)
        _wait(live, lambda: len(calls) >= 2 and not target.pending and not target.syncing)
        assert target.last is not None and target.last["outcome"] == "published"
        worker = live.worker.describe()
        assert worker["drained"] == 1 and worker["starts"] == 1 and worker["restarts"] == 0, worker
    assert "storm" in (root / APP).read_text(encoding="utf-8")
    assert _current(root, home).snapshot["files"][APP][0] == (root / APP).stat().st_size


def test_a_catch_up_that_fails_while_files_change_under_it_runs_again_instead_of_failing(reactor):
    """Seen in the soak: a source folder removed while the indexer ran made JDT refuse its sourcepath
    ("invalid environment settings"); that failure is about a tree that is gone, not the one on disk."""
    from pybridge.errors import WorkerError

    root, home = reactor
    calls = []
    live_box: list[LiveIndex] = []

    def fails_while_an_edit_lands(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            target = live_box[0].targets[root]
            edit(root, NAMES_TEST, "class NamesTest {", "class NamesTest {\n    int under;")
            edited = time.monotonic()
            deadline = edited + WAIT
            while target.last_event is None or target.last_event < edited:      # the watcher's event
                assert time.monotonic() < deadline
                time.sleep(0.01)
            raise WorkerError("The indexer failed: java.lang.IllegalStateException: invalid environment "
                              "settings", cause="error")
        return sync(*args, **kwargs)

    with _live(root, home, sync_function=fails_while_an_edit_lands) as live:
        live_box.append(live)
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and outcome.generation == 2, outcome
    assert len(calls) == 2
    assert (root / NAMES_TEST).stat().st_size == _current(root, home).snapshot["files"][NAMES_TEST][0]


def test_a_generation_from_before_places_were_recorded_is_synced_once_and_then_sees_a_new_root(reactor):
    """A store synced by an earlier pybridge: its snapshot lacks `places` and `ctimes`, so a stat
    comparison could not see a new source root; the first catch-up syncs, and the snapshot has them."""
    root, home = reactor
    current = _current(root, home)
    old = {k: v for k, v in current.snapshot.items() if k not in ("places", "ctimes")}
    with Store.open(store_path(home_state(root, home))) as store:
        store.refresh_generation(current.number, old, {})
    assert "places" not in _current(root, home).snapshot
    with _live(root, home) as live:
        target = live.targets[root]
        _wait(live, lambda: target.last is not None and not target.syncing and not target.pending)
        assert target.last["outcome"] == "published" and target.last["generation"] == 1
    assert "service/src/test/java" in _current(root, home).snapshot["places"]


def test_a_check_that_another_query_invalidates_meanwhile_still_returns_its_own_result(reactor):
    """Seen in the soak (1 answer in 1,800: 'NoneType' object has no attribute 'source'): a query whose
    wait ended invalidated the cache between another query's check and its return."""
    from pybridge.query.freshness import Freshness

    root, home = reactor
    fresh = Freshness(root)

    class Interleaved(LiveIndex):
        def notice(self, root: Path) -> None:
            fresh.invalidate()          # another query's catch-up ended just now
            super().notice(root)

    live = Interleaved([("reactor", root, home_state(root, home))], LiveConfig(watch=False))
    try:
        fresh.live = live
        add_a_call_to_normalize(root)
        check = fresh.check(_current(root, home))
        assert check is not None and check.changed == (APP,)
    finally:
        live.close()


def test_a_query_that_saw_the_change_first_triggers_and_awaits_the_catch_up_itself(reactor):
    """No watcher event needed: `wait_fresh` demands a catch-up that starts after it was asked."""
    root, home = reactor
    with _live(root, home, watch=True) as live:
        live.watcher.close()            # events are lost from here on
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and outcome.generation == 2
    assert _current(root, home).number == 2


def test_the_query_layer_never_imports_the_live_index():
    import ast

    root = Path(__file__).resolve().parent.parent.parent / "pybridge" / "query"
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.startswith("pybridge.live") for n in names), path.name


def test_an_exact_check_reuses_a_sweep_only_while_no_input_event_arrived(reactor):
    """Under the live index a cached freshness check is reused with a proof (the inotify counter did not
    move), and an edit made just before the next check is seen by it, with no sleep in between."""
    from pybridge.query.freshness import Freshness

    root, home = reactor
    with _live(root, home) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        generation = _current(root, home)
        fresh = Freshness(root)
        fresh.live = live
        first = fresh.check(generation)
        assert not first.reused and first.epoch is not None and not first.changed
        again = fresh.recheck(fresh.check(generation))
        assert again.reused and again.proven and not again.changed
        assert live.describe(root)["freshnessProof"] == "events"
        edit(root, NAMES, "public final class Names {", "public final class Names {\n    static int now;")
        after = fresh.recheck(fresh.check(generation))
        assert not after.reused and after.changed == (NAMES,)


def test_a_cached_source_file_is_checked_by_stat_once_per_freshness_proof(reactor, monkeypatch):
    """PYBRIDGE_LINES_BY_EVENTS: under the live index's proof (no input event since the sweep), a
    source file the line cache checked by `stat` under that proof is not checked again; an edit
    ends the proof, and the next read checks (and reads) the file again: never an old line where
    the check says fresh."""
    from pybridge.query.freshness import Freshness
    from pybridge.query.source import Sources, trusted

    root, home = reactor
    with _live(root, home) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        generation = _current(root, home)
        fresh = Freshness(root)
        fresh.live = live
        sources = Sources(root.resolve())
        first = fresh.check(generation)
        assert first.proof is not None and not first.changed
        before = sources.lines(NAMES, "UTF-8", trusted(first.proof))
        assert before is not None and sources.stats == 1
        for _ in range(3):
            again = fresh.check(generation)
            assert again.proven and again.proof is first.proof
            assert sources.lines(NAMES, "UTF-8", trusted(again.proof)) is before
        assert sources.stats == 1
        monkeypatch.setenv("PYBRIDGE_LINES_BY_EVENTS", "0")
        assert trusted(first.proof) is None
        assert sources.lines(NAMES, "UTF-8", trusted(first.proof)) is before and sources.stats == 2
        monkeypatch.delenv("PYBRIDGE_LINES_BY_EVENTS")
        edit(root, NAMES, "public final class Names {", "public final class Names {\n    static int now;")
        after = fresh.check(generation)
        assert after.changed == (NAMES,) and after.proof is None
        lines = sources.lines(NAMES, "UTF-8", after.proof)
        assert lines is not None and "    static int now;" in lines and sources.stats == 3


# ------------------------------------------------------------ after the answer (PYBRIDGE_LIVE_AFTER_ANSWER)


class _PausedNote(LiveIndex):
    """A live index whose last-edit diff waits for `release` (to look at what happens meanwhile)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.noting = threading.Event()
        self.release = threading.Event()

    def _note_last_edit(self, t, before, after) -> None:
        self.noting.set()
        assert self.release.wait(WAIT)
        super()._note_last_edit(t, before, after)


def _published_numbers(root: Path, home: Path) -> list[int]:
    """The published generations kept in the store, read without collecting (a reader never does)."""
    store = Store.open(store_path(home_state(root, home)), readonly=True)
    try:
        return sorted(g.number for g in store.generations())
    finally:
        store.close()


def test_a_catch_up_answers_before_its_last_edit_diff_and_collection_and_status_waits_for_the_diff(
        reactor, monkeypatch):
    root, home = reactor
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "1")
    monkeypatch.delenv("PYBRIDGE_LIVE_AFTER_ANSWER", raising=False)
    settings = {"heap": "1g", "fresh_wait_s": WAIT, "prewarm": False}
    live = _PausedNote([("reactor", root, home_state(root, home))], LiveConfig(**settings))
    with live:
        live.watcher.close()            # only the query's demand starts the catch-up
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)     # returns while the diff waits
        assert outcome.state == "fresh" and outcome.generation == 2
        assert live.noting.is_set()
        # published without collecting: generation 1 is still there, beyond the one kept
        assert _published_numbers(root, home) == [1, 2]
        described: list = []
        status = threading.Thread(target=lambda: described.append(live.describe(root)))
        status.start()
        status.join(0.2)
        assert not described            # status waits for the diff of the edit it shows
        live.release.set()
        status.join(WAIT)
        assert described and described[0]["lastEdit"]["generation"] == 2
        assert described[0]["lastEdit"]["previous"] == 1
        _wait(live, lambda: not live.targets[root].noting)
    assert _published_numbers(root, home) == [2]    # collected after the answer


def test_with_the_switch_off_a_catch_up_diffs_and_collects_before_it_answers(reactor, monkeypatch):
    root, home = reactor
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "1")
    monkeypatch.setenv("PYBRIDGE_LIVE_AFTER_ANSWER", "0")
    with _live(root, home) as live:
        live.watcher.close()
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and outcome.generation == 2
        assert _published_numbers(root, home) == [2]     # collected by the publish, before the answer
        # (keeping one generation, the diff then finds generation 1 gone: no last edit; after the
        # answer, the diff runs before the collection and has it, as the test above shows)
        assert live.targets[root].last_edit is None


def test_the_collection_after_the_answer_leaves_a_store_alone_while_a_sync_holds_its_lock(reactor, monkeypatch):
    root, home = reactor
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "1")
    state = home_state(root, home)
    sync(root, state_dir=state, collect=False, force=True)
    assert _published_numbers(root, home) == [1, 2]
    live = LiveIndex([("reactor", root, state)], LiveConfig(heap="1g", fresh_wait_s=WAIT, prewarm=False,
                                                                watch=False))
    lock = SyncLock(state)
    lock.acquire(wait=False)
    try:
        live._collect(live.targets[root])
        assert _published_numbers(root, home) == [1, 2]
    finally:
        lock.release()
    live._collect(live.targets[root])
    assert _published_numbers(root, home) == [2]


# ------------------------------------------------------- the barrier's count for a sweep (PYBRIDGE_SWEEP_BY_EVENTS)


def _counting_sweeps(monkeypatch) -> list[str]:
    """Who swept (`changes`): the sync's end-of-run check ("sync") or a query's freshness check ("query")."""
    from pybridge.query import freshness
    from pybridge.sync import pipeline

    swept: list[str] = []
    real = snapshot_module.changes

    def counted(who):
        def sweep(snap, *args, **kwargs):
            swept.append(who)
            return real(snap, *args, **kwargs)
        return sweep

    monkeypatch.setattr(pipeline.snapshots, "changes", counted("sync"))
    monkeypatch.setattr(freshness, "changes", counted("query"))
    return swept


@pytest.mark.parametrize("switch", ["1", "0"])
def test_a_catch_up_and_the_first_query_on_it_take_the_barriers_count_for_a_sweep(reactor, monkeypatch, switch):
    from pybridge.query.freshness import Freshness

    root, home = reactor
    monkeypatch.setenv("PYBRIDGE_SWEEP_BY_EVENTS", switch)
    with _live(root, home) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        fresh = Freshness(root)
        fresh.live = live
        assert not fresh.check(_current(root, home)).changed       # the barrier watches from here
        swept = _counting_sweeps(monkeypatch)
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and outcome.generation == 2
        generation = _current(root, home)
        check = fresh.check(generation)
        assert not check.changed and not check.failed
        if switch == "1":
            assert swept == [] and check.proven and check.proof is not None
            assert live.proven(root) == (2, check.epoch)
        else:
            assert swept == ["sync", "query"] and not check.proven
            assert live.proven(root) is None
        # an edit after the catch-up ends the proof: the next check sweeps and sees it
        edit(root, NAMES, "public final class Names {", "public final class Names {\n    static int later;")
        after = fresh.check(generation)
        assert after.changed == (NAMES,) and not after.proven


def test_an_edit_while_a_catch_up_indexes_is_seen_by_its_end_of_run_check_with_the_barrier_on(reactor, monkeypatch):
    """The barrier's count moved during the sync: the end-of-run check sweeps, finds the edit, and the
    sync publishes nothing (the catch-up runs again); never a generation that misses the edit."""
    root, home = reactor
    monkeypatch.delenv("PYBRIDGE_SWEEP_BY_EVENTS", raising=False)
    edited = []

    def sync_and_edit_while_indexing(*args, **kwargs):
        if not edited:
            progress = kwargs.get("progress")

            def on_event(event):
                if event.get("phase") == "index" and not edited:
                    edited.append(True)
                    edit(root, NAMES, "public final class Names {",
                         "public final class Names {\n    static int during;")
                if progress is not None:
                    progress(event)
            kwargs["progress"] = on_event
        return sync(*args, **kwargs)

    with _live(root, home, sync_function=sync_and_edit_while_indexing) as live:
        assert live.watcher is not None and live.watcher.ready.wait(WAIT)
        from pybridge.query.freshness import Freshness
        fresh = Freshness(root)
        fresh.live = live
        assert not fresh.check(_current(root, home)).changed
        add_a_call_to_normalize(root)
        outcome = live.wait_fresh(root)
        assert outcome.state == "fresh" and edited
    current = _current(root, home)
    assert current.snapshot["files"][NAMES][0] == (root / NAMES).stat().st_size
    assert current.snapshot["files"][APP][0] == (root / APP).stat().st_size


@pytest.mark.parametrize("switch", ["1", "0"])
def test_the_watchers_catch_up_after_a_published_one_is_unchanged_by_the_barriers_count(reactor, monkeypatch, switch):
    """The edit's own event asks for one more catch-up after the one that indexed it: with the barrier's
    count unmoved since that one's proof it says unchanged without a sweep (PYBRIDGE_SWEEP_BY_EVENTS=0:
    by one)."""
    from pybridge.live import index as index_module

    root, home = reactor
    monkeypatch.setenv("PYBRIDGE_SWEEP_BY_EVENTS", switch)
    checks: list[bool] = []
    real = index_module.any_change

    def counted(snap):
        checks.append(real(snap))
        return checks[-1]

    monkeypatch.setattr(index_module, "any_change", counted)
    with _live(root, home) as live:
        live.watcher.close()            # only what this test asks for starts a catch-up
        target = live.targets[root]
        _wait(live, lambda: target.last is not None and not target.syncing and not target.pending)
        live.epoch(root, snapshot_module.Snapshot.from_json(root, _current(root, home).snapshot))  # watching
        add_a_call_to_normalize(root)
        assert live.wait_fresh(root).state == "fresh"
        checks.clear()
        live.notice(root)               # as the watcher's event of that edit does
        _wait(live, lambda: not target.pending and not target.syncing)
        assert target.last["outcome"] == "unchanged" and target.last["generation"] == 2
        assert checks == ([] if switch == "1" else [False])
        edit(root, NAMES, "public final class Names {", "public final class Names {\n    static int next;")
        assert live.wait_fresh(root).generation == 3      # a moved count: checked by stat, and synced
        assert True in checks
