"""Issue 13: each defect the fault campaign found, reproduced (these failed before the fix).

Item 1 symlinks in a source folder, 3 readers collecting generations, 4 a
full disk (injected here; a real small volume in test_faults.py), 5 state
file modes and lock symlinks, 6 key spellings, 7 very large files, 8 a state
folder bound to its workspace, 9 doubled sentences. Item 10 (the build
scripts) is in test_build_scripts.py.
"""

from __future__ import annotations

import base64
import errno
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.errors import PybridgeError, StoreError
from pybridge.query import Facade, keys
from pybridge.store import Store
from pybridge.store import faults as store_faults
from pybridge.sync import faults as sync_faults
from pybridge.sync import state_dir_for, store_path, sync
from pybridge.worker import Worker, protocol
from tests.support.query_support import err, facade_for, key_of, ok

ROOT = Path(__file__).resolve().parent.parent.parent
KITCHEN_PKG = "src/main/java/com/acme/kitchen"


@pytest.fixture
def kitchen(tmp_path, samples):
    root = tmp_path / "kitchen-sink"
    shutil.copytree(samples / "kitchen-sink", root)
    return root, tmp_path / "state"


def _store_gens(state: Path) -> list[int]:
    """The published generation numbers, read with plain sqlite3 (no pybridge code that could collect)."""
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        return [n for (n,) in conn.execute("SELECT number FROM generations WHERE state = 1 ORDER BY number DESC")]
    finally:
        conn.close()


# 1 -------------------------------------------------------------------------

def test_dangling_and_looping_java_symlinks_are_named_problems_and_the_sync_goes_on(kitchen, worker, tmp_path):
    root, state = kitchen
    src = root / KITCHEN_PKG
    (src / "Gone.java").symlink_to(src / "DoesNotExist.java")
    (src / "Loop.java").symlink_to(src / "Loop.java")
    (src / "LoopA.java").symlink_to(src / "LoopB.java")
    (src / "LoopB.java").symlink_to(src / "LoopA.java")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Leak.java").write_text("package com.acme.kitchen; public class Leak { int secret; }\n")
    (src / "Leak.java").symlink_to(outside / "Leak.java")
    (src / "Twin.java").symlink_to(src / "Counter.java")        # inside the workspace: indexed

    result = sync(root, state_dir=state, worker=worker)

    named = {lim.get("path"): lim["kind"] for lim in result.limitations if "path" in lim}
    assert named == {f"{KITCHEN_PKG}/Gone.java": "file_unreadable",
                     f"{KITCHEN_PKG}/Loop.java": "file_unreadable",
                     f"{KITCHEN_PKG}/LoopA.java": "file_unreadable",
                     f"{KITCHEN_PKG}/LoopB.java": "file_unreadable",
                     f"{KITCHEN_PKG}/Leak.java": "file_outside_workspace"}
    messages = {lim["path"]: lim["message"] for lim in result.limitations if "path" in lim}
    assert "dangling symbolic link" in messages[f"{KITCHEN_PKG}/Gone.java"]
    assert "symbolic link loop" in messages[f"{KITCHEN_PKG}/Loop.java"]
    with Store.open(store_path(state), readonly=True) as store, store.reader() as r:
        assert r.declarations(name="Leak") == [] and r.declarations(name="secret") == []
        paths = {f.path for f in r.files()}
    assert f"{KITCHEN_PKG}/Counter.java" in paths and f"{KITCHEN_PKG}/Gone.java" not in paths
    with facade_for((root, state)) as facade:
        status = ok(facade, "status", {})
        assert status["stale"] is False           # skipped entries do not make the index stale
        assert {"file_unreadable", "file_outside_workspace"} <= {lim["kind"] for lim in status["limitations"]}
        (src / "Gone.java").unlink()
        (src / "Gone.java").write_text("package com.acme.kitchen; class Gone {}\n")
    with facade_for((root, state)) as facade:      # the skipped file became readable: stale
        assert ok(facade, "status", {})["stale"] is True


def test_a_source_folder_that_resolves_outside_the_workspace_is_never_read(tmp_path, worker):
    outside = tmp_path / "outside" / "com" / "x"
    outside.mkdir(parents=True)
    (outside / "Secret.java").write_text("package com.x; public class Secret {}\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "pom.xml").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId>"
        "<version>1</version><build><sourceDirectory>src/main/java</sourceDirectory></build></project>")
    (root / "src" / "main").mkdir(parents=True)
    (root / "src" / "main" / "java").symlink_to(tmp_path / "outside")
    result = sync(root, state_dir=tmp_path / "state", worker=worker)
    assert [lim["kind"] for lim in result.limitations if "path" in lim] == ["file_outside_workspace"]
    with Store.open(store_path(tmp_path / "state"), readonly=True) as store, store.reader() as r:
        assert r.files() == [] and r.declarations(name="Secret") == []


# 3 -------------------------------------------------------------------------

def test_a_query_never_collects_generations_the_configured_keep_holds(kitchen, worker, monkeypatch):
    root, state = kitchen
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "8")
    counter = root / KITCHEN_PKG / "Counter.java"
    for i in range(9):                # 1 full sync, then 8 incremental ones (a comment each: one file)
        if i:
            counter.write_text(counter.read_text(encoding="utf-8") + f"// edit {i}\n", encoding="utf-8")
        sync(root, state_dir=state, worker=worker)
    assert _store_gens(state) == [9, 8, 7, 6, 5, 4, 3, 2]
    monkeypatch.delenv("PYBRIDGE_KEEP_GENERATIONS")      # a query process that knows no keep
    with facade_for((root, state)) as facade:
        ok(facade, "status", {})
        key_of(facade, "Counter.count")
    assert _store_gens(state) == [9, 8, 7, 6, 5, 4, 3, 2]
    with Store.open(store_path(state), readonly=True) as store:
        with pytest.raises(StoreError, match="read-only"):
            store.gc()
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "4")  # the writer collects, with the configured keep
    counter.write_text(counter.read_text(encoding="utf-8") + "// edit 9\n", encoding="utf-8")
    sync(root, state_dir=state, worker=worker)
    assert _store_gens(state) == [10, 9, 8, 7]


# 4 -------------------------------------------------------------------------

def _full_after(pages: int):
    def connected(conn) -> None:
        count = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {count + pages}")
    return connected


def test_a_full_disk_during_sync_is_named_and_the_last_generation_stays(kitchen, worker, monkeypatch):
    root, state = kitchen
    sync(root, state_dir=state, worker=worker)
    counter = root / KITCHEN_PKG / "Counter.java"
    counter.write_text(counter.read_text() + "\n// edited\n")
    monkeypatch.setattr(store_faults, "connected", _full_after(1))     # SQLITE_FULL, as on a full volume
    with facade_for((root, state), worker=worker) as facade:
        failed = err(facade, "sync", {}, "sync_failed")
        assert "disk full: free space on " in failed["error"]
        assert failed["error"].count("still served") == 1                    # item 9
        monkeypatch.setattr(store_faults, "connected", lambda conn: None)
        assert ok(facade, "status", {})["generation"] == 1


def test_an_enospc_anywhere_in_a_sync_is_named_disk_full_with_the_volume(kitchen, worker, monkeypatch):
    root, state = kitchen

    def no_space(point: str) -> None:
        if point == "sync.staging":
            raise OSError(errno.ENOSPC, "No space left on device", str(state / "scratch"))

    monkeypatch.setattr(sync_faults, "hit", no_space)
    with pytest.raises(PybridgeError, match=r"disk full: free space on /") as info:
        sync(root, state_dir=state, worker=worker)
    assert info.value.details["reason"] == "disk_full"


def test_a_query_opens_the_store_read_only_and_writes_nothing(kitchen, worker):
    root, state = kitchen
    sync(root, state_dir=state, worker=worker)
    path = store_path(state)
    before = {p.name: p.stat().st_mtime_ns for p in state.iterdir() if p.is_file()}
    with Store.open(path, readonly=True) as store:
        assert store.readonly
        with pytest.raises(StoreError, match="read-only"):
            store.stage({}, {})
        with store.reader() as r:
            assert r.generation.number == 1
    with facade_for((root, state)) as facade:
        ok(facade, "find_symbol", {"query": "Counter.count"})
    after = {p.name: p.stat().st_mtime_ns for p in state.iterdir() if p.is_file()
             if not p.name.endswith(("-wal", "-shm"))}
    assert after == {k: v for k, v in before.items() if not k.endswith(("-wal", "-shm"))}


# 5 -------------------------------------------------------------------------

def test_the_state_folder_is_0700_and_its_files_0600(kitchen, worker):
    root, state = kitchen
    sync(root, state_dir=state, worker=worker)
    with facade_for((root, state)) as facade:
        key_of(facade, "Counter.count")
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for name in ("store.sqlite", "store.sqlite.lock", "sync.lock", "secret", "workspace.json"):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name


@pytest.mark.parametrize("lock_name", ["sync.lock", "store.sqlite.lock"])
def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(kitchen, worker, tmp_path, lock_name):
    root, state = kitchen
    state.mkdir(mode=0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (state / lock_name).symlink_to(victim)
    with pytest.raises(PybridgeError, match="symbolic link"):
        sync(root, state_dir=state, worker=worker)
    assert victim.read_text() == "precious\n"


# 6 -------------------------------------------------------------------------

def _respell(token: str) -> list[str]:
    """Other spellings of the same bytes: the unused low bits of the last character set."""
    data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    out = []
    for ch in alphabet:
        other = token[:-1] + ch
        if other != token and base64.urlsafe_b64decode(other + "=" * (-len(other) % 4)) == data:
            out.append(other)
    return out


def test_a_symbol_key_and_a_cursor_have_one_accepted_spelling(kitchen, worker):
    root, state = kitchen
    sync(root, state_dir=state, worker=worker)
    with facade_for((root, state)) as facade:
        key = key_of(facade, "Counter.count")
        others = _respell(key)
        # A 20-character key (15 bytes) uses every bit of its last character; a longer one does not.
        assert others or len(key) % 4 == 0, key
        for other in others:
            err(facade, "find_references", {"symbolKey": other}, "invalid_key")
        ok(facade, "find_references", {"symbolKey": key})
        long_key = keys.make_key(b"s" * 32, 300, "Lx;")     # a symbol id above 127: 16 bytes, 22 characters
        assert len(long_key) == 22 and len(_respell(long_key)) == 15
        assert keys.parse_key(long_key).symbol_id == 300
        for other in _respell(long_key):
            with pytest.raises(keys.TokenError, match="canonical"):
                keys.parse_key(other)
        cursor = ok(facade, "find_symbol", {"query": "greet", "limit": 1})["nextCursor"]
        for other in _respell(cursor):
            err(facade, "find_symbol", {"query": "greet", "limit": 1, "cursor": other}, "invalid_cursor")
        ok(facade, "find_symbol", {"query": "greet", "limit": 1, "cursor": cursor})


# 7 -------------------------------------------------------------------------

def test_a_file_above_the_size_bound_is_named_file_too_large_and_blocks_coverage(kitchen, worker, monkeypatch):
    root, state = kitchen
    kitchen_java = root / KITCHEN_PKG / "Kitchen.java"
    size = kitchen_java.stat().st_size
    monkeypatch.setenv("PYBRIDGE_MAX_FILE_BYTES", str(size - 1))
    result = sync(root, state_dir=state, worker=worker)
    [lim] = [lim for lim in result.limitations if lim["kind"] == "file_too_large"]
    assert lim["path"] == f"{KITCHEN_PKG}/Kitchen.java" and lim["size"] == size
    assert f"{KITCHEN_PKG}/Kitchen.java ({size:,} bytes)" in lim["message"]
    assert "PYBRIDGE_MAX_FILE_BYTES" in lim["message"]
    [scope] = result.modules
    assert scope["files"] == 12 and scope["bindingComplete"] == 11
    with facade_for((root, state)) as facade:
        status = ok(facade, "status", {})
        assert "file_too_large" in [x["kind"] for x in status["limitations"]]
        refs = ok(facade, "find_references", {"symbolKey": key_of(facade, "Counter.TOTAL")})
        assert refs["meta"]["referenceCoverage"] is False     # never a false certificate
    assert sync(root, state_dir=state, worker=worker).published is False   # nothing changed: nothing published
    tail = "// still too large\n"
    kitchen_java.write_text(kitchen_java.read_text(encoding="utf-8") + tail, encoding="utf-8")
    edited = sync(root, state_dir=state, worker=worker)       # the oversized file changed: a new generation
    assert edited.published is True and edited.generation == result.generation + 1
    assert [lim["size"] for lim in edited.limitations if lim["kind"] == "file_too_large"] == [size + len(tail)]
    monkeypatch.setenv("PYBRIDGE_MAX_FILE_BYTES", "0")             # 0: no bound, indexed again
    again = sync(root, state_dir=state, worker=worker)
    assert not [lim for lim in again.limitations if lim["kind"] == "file_too_large"]


def test_a_malformed_size_bound_is_a_clear_error(kitchen, worker, monkeypatch):
    root, state = kitchen
    monkeypatch.setenv("PYBRIDGE_MAX_FILE_BYTES", "2MB")
    with pytest.raises(PybridgeError, match="PYBRIDGE_MAX_FILE_BYTES='2MB' is not a whole number"):
        sync(root, state_dir=state, worker=worker)


# 8 -------------------------------------------------------------------------

def test_a_state_folder_refuses_a_second_workspace(tmp_path, samples, worker):
    a, b = tmp_path / "a" / "kitchen-sink", tmp_path / "b" / "reactor"
    shutil.copytree(samples / "kitchen-sink", a)
    shutil.copytree(samples / "reactor", b)
    state = tmp_path / "shared"
    sync(a, state_dir=state, worker=worker)
    with pytest.raises(PybridgeError, match=f"belongs to the workspace {a}, not {b}"):
        sync(b, state_dir=state, worker=worker)
    with Facade([b], {b: state}) as facade:
        refused = err(facade, "find_symbol", {"query": "Counter"}, "invalid_argument")
        assert "belongs to the workspace" in refused["error"]
    with facade_for((a, state)) as facade:
        assert ok(facade, "find_symbol", {"query": "Counter"})["total"] >= 1


def test_pybridge_state_dir_is_a_parent_with_one_folder_per_workspace(tmp_path, samples, monkeypatch):
    monkeypatch.setenv("PYBRIDGE_STATE_DIR", str(tmp_path / "states"))
    a, b = tmp_path / "a" / "ws", tmp_path / "b" / "ws"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    sa, sb = state_dir_for(a), state_dir_for(b)
    assert sa != sb and sa.parent == sb.parent == (tmp_path / "states").resolve()
    assert state_dir_for(a, tmp_path / "exact") == (tmp_path / "exact").resolve()


# 9 -------------------------------------------------------------------------

def test_a_killed_worker_says_the_previous_generation_is_served_once(kitchen, monkeypatch):
    root, state = kitchen
    with Worker(heap="1g") as w, facade_for((root, state), worker=w) as facade:
        killed = []
        send = protocol.send

        def send_then_kill(stream, message) -> None:
            # The kill lands at one point whatever the load: after the sync's first index request
            # is in the child's stdin and before the child can have read it. The child is stopped
            # before the request is written (a stopped child neither reads nor answers, and
            # `Worker.start` still sees it running), killed once it is written.
            if message[0] != "index" or killed:
                send(stream, message)
                return
            assert w.pid is not None, "the sync sent an index request with no worker running"
            killed.append(w.pid)
            os.kill(w.pid, signal.SIGSTOP)
            try:
                send(stream, message)
            finally:
                os.kill(killed[0], signal.SIGKILL)

        monkeypatch.setattr(protocol, "send", send_then_kill)
        result, is_error = facade.call("sync", {})
        assert is_error and killed, result
        assert "killed by SIGKILL" in result["error"]
        assert result["error"].count("previous generation") == 1, result["error"]


def test_the_cli_names_a_state_folder_of_another_workspace(tmp_path, samples, worker):
    a, b = tmp_path / "a" / "kitchen-sink", tmp_path / "b" / "kitchen-sink"
    shutil.copytree(samples / "kitchen-sink", a)
    shutil.copytree(samples / "kitchen-sink", b)
    state = tmp_path / "shared"
    sync(a, state_dir=state, worker=worker)
    done = subprocess.run([sys.executable, "-m", "pybridge.cli", "status", "--state-dir", str(state)],
                          cwd=b, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "belongs to the workspace" in done.stdout + done.stderr
