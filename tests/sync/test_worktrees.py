"""Checkouts of one repository share one index (issue 27 part 1, DESIGN section 5).

A temporary git repository of samples/reactor with `git worktree add` checkouts; the state folders
are the default ones under a temporary PYBRIDGE_STATE_DIR (sharing is for default-placed folders).
Each worktree's facts are compared with a fresh sync of it into a state folder of its own
(`incremental_edits.differences`, every file's fact digest, then fact by fact).
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pybridge.query import keys
from pybridge.store import Store
from pybridge.sync import sync
from pybridge.sync.state import default_state_dir, git_repository, prepare, store_location, store_path
from tests.support.incremental_edits import differences
from tests.support.mcp_session import serve
from tests.support.old_stores import store_at_migration
from tests.support.query_support import facade_for, key_of, ok
from tests.sync.test_faults import _run_sync

GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"]
NAMES = "core/src/main/java/com/acme/core/Names.java"
BANNER = "app/src/main/java/com/acme/app/Banner.java"


def git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def add_worktree(main: Path, name: str) -> Path:
    path = main.parent / name
    git(main, "worktree", "add", "-q", "--detach", str(path))
    return path


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def add_method(path: Path, method: str) -> None:
    text = path.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}")
    path.write_text(text[:-1] + f"    {method}\n}}\n", encoding="utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory, samples, worker) -> Iterator[tuple[Path, Path]]:
    """(main checkout, state parent): samples/reactor committed in a git repository, synced once."""
    base = tmp_path_factory.mktemp("worktrees")
    main = base / "main"
    shutil.copytree(samples / "reactor", main)
    git(main, "init", "-q")
    git(main, "add", "-A")
    git(main, "commit", "-q", "-m", "reactor")
    home = base / "state"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_DIR", str(home))
        mp.delenv("PYBRIDGE_STATE_HOME", raising=False)
        mp.delenv("PYBRIDGE_SHARE_CHECKOUTS", raising=False)
        assert sync(main, worker=worker, allow_online=False).generation == 1
        yield main, home


@pytest.fixture
def home(repo, monkeypatch) -> Path:
    monkeypatch.setenv("PYBRIDGE_STATE_DIR", str(repo[1]))
    monkeypatch.delenv("PYBRIDGE_STATE_HOME", raising=False)
    monkeypatch.delenv("PYBRIDGE_SHARE_CHECKOUTS", raising=False)
    return repo[1]


def fresh_differences(root: Path, scratch: Path, worker) -> list[str]:
    """What differs between the checkout's current generation and a fresh sync of it (into a new
    state folder given the checkout's resolved classpaths: the same key, so no Maven run)."""
    scratch.mkdir(parents=True)
    shutil.copy(default_state_dir(root) / "classpath-cache.json", scratch / "classpath-cache.json")
    sync(root, state_dir=scratch, worker=worker, allow_online=False)
    location = store_location(default_state_dir(root))
    return differences(location.path, store_path(scratch), location.checkout, "")


def store_rows(path: Path, table: str) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def checkout_names(path: Path) -> set[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {row[0] for row in conn.execute("SELECT name FROM checkouts")}
    finally:
        conn.close()


def test_git_repository_is_read_from_the_dot_git_folder_or_file(repo, tmp_path):
    main, _ = repo
    wt = add_worktree(main, "probe")
    try:
        top, linked, nested = git_repository(main), git_repository(wt), git_repository(wt / "core")
        assert top is not None and linked is not None and nested is not None
        assert top.common_dir == linked.common_dir == nested.common_dir == (main / ".git").resolve()
        assert (top.subpath, linked.subpath, nested.subpath) == ("", "", "core")
        assert top.state_dir() == linked.state_dir() != nested.state_dir()
        plain = tmp_path / "plain"
        plain.mkdir()
        assert git_repository(plain) is None
    finally:
        git(main, "worktree", "remove", "--force", str(wt))


def test_a_worktree_shares_the_store_and_its_first_sync_indexes_only_what_differs(repo, home, worker, tmp_path):
    main, _ = repo
    wt = add_worktree(main, "wt-edit")
    append(wt / NAMES, "// a comment\n")                                     # a body-only edit
    add_method(wt / BANNER, "public String extra() { return \"x\"; }")      # a new declaration
    files = store_rows(store_location(default_state_dir(main)).path, "file_versions")
    result = sync(wt, worker=worker, allow_online=False)
    assert result.generation == 1 and result.published and result.incremental
    # The two edited files and what the new method's name can reach; not the 9 files of the reactor.
    assert 2 <= result.reindexed_files <= 4, result.to_json()
    main_at, wt_at = store_location(default_state_dir(main)), store_location(default_state_dir(wt))
    assert main_at.shared and wt_at.shared and main_at.path == wt_at.path
    assert (main_at.checkout, wt_at.checkout) == (str(main.resolve()), str(wt.resolve()))
    assert not store_path(default_state_dir(main)).exists() and not store_path(default_state_dir(wt)).exists()
    assert [p.name for p in (home / "repositories").iterdir()] == [main_at.path.parent.name]
    # Only the re-indexed files' new versions were added to the store.
    assert store_rows(wt_at.path, "file_versions") - files == result.reindexed_files
    assert fresh_differences(wt, tmp_path / "fresh", worker) == []
    # The main checkout's generation is untouched: still its generation 1, still equal to a fresh sync.
    with Store.open(main_at.path, readonly=True, checkout=main_at.checkout) as store:
        current = store.current_generation()
        assert current is not None and current.number == 1
    assert fresh_differences(main, tmp_path / "fresh-main", worker) == []


def test_an_identical_worktree_indexes_nothing_and_gets_its_own_generation_and_keys(repo, home, worker, tmp_path):
    main, _ = repo
    wt = add_worktree(main, "wt-same")
    result = sync(wt, worker=worker, allow_online=False)
    assert (result.generation, result.published, result.reindexed_files) == (1, True, 0)
    assert fresh_differences(wt, tmp_path / "fresh", worker) == []
    facade = facade_for((main, default_state_dir(main)), (wt, default_state_dir(wt)))
    try:
        key_main = key_of(facade, "Names.normalize", repo=str(main))
        key_wt = key_of(facade, "Names.normalize", repo=str(wt))
        assert key_main != key_wt           # keys stay per checkout (each state folder's secret)
        for key, root in ((key_main, main), (key_wt, wt)):
            assert [w.root for w in facade.spaces.by_tag(keys.parse_key(key).tag)] == [root.resolve()]
        answers = [ok(facade, "find_references", {"symbolKey": key}) for key in (key_main, key_wt)]
        assert answers[0]["references"] == answers[1]["references"] and len(answers[0]["references"]) == 4
    finally:
        facade.close()


def test_collecting_one_checkouts_generations_keeps_what_another_uses(repo, home, worker, tmp_path, monkeypatch):
    main, _ = repo
    wt = add_worktree(main, "wt-kept")
    append(wt / BANNER, "// the worktree's own version\n")
    assert sync(wt, worker=worker, allow_online=False).generation == 1
    monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "1")
    for n in range(3):        # main moves on; keep=1 collects its older generations each time
        append(main / NAMES, f"// main {n}\n")
        append(main / BANNER, f"// main {n}\n")
        assert sync(main, worker=worker, allow_online=False).published
    location = store_location(default_state_dir(wt))
    with Store.open(location.path, readonly=True, checkout=location.checkout) as store:
        assert [g.number for g in store.generations()] == [1]
        with store.reader() as r:
            assert len(r.files()) == 9
    conn = sqlite3.connect(location.path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM generations WHERE checkout_id ="
                            " (SELECT id FROM checkouts WHERE name = ?)", (str(main.resolve()),)).fetchone()[0] == 1
    finally:
        conn.close()
    assert fresh_differences(wt, tmp_path / "fresh", worker) == []
    assert fresh_differences(main, tmp_path / "fresh-main", worker) == []


def test_a_removed_worktrees_generations_are_forgotten_by_the_next_sync_of_a_sibling(repo, home, worker, tmp_path):
    main, _ = repo
    wt = add_worktree(main, "wt-removed")
    add_method(wt / BANNER, "public int removedSoon() { return 1; }")
    assert sync(wt, worker=worker, allow_online=False).published
    location = store_location(default_state_dir(wt))
    assert str(wt.resolve()) in checkout_names(location.path)
    git(main, "worktree", "remove", "--force", str(wt))
    append(main / NAMES, "// after the removal\n")
    assert sync(main, worker=worker, allow_online=False).published
    assert str(wt.resolve()) not in checkout_names(location.path)
    conn = sqlite3.connect(location.path)
    try:
        assert conn.execute("SELECT count(*) FROM file_versions"
                            " WHERE id NOT IN (SELECT file_version_id FROM manifest)").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM declarations d JOIN symbols s ON s.id = d.symbol_id"
                            " WHERE s.name = 'removedSoon'").fetchone()[0] == 0
    finally:
        conn.close()
    assert fresh_differences(main, tmp_path / "fresh-main", worker) == []


@pytest.mark.parametrize("kill_at", ["publish.before_commit", "gc.before_commit"])
def test_a_kill_during_a_worktrees_first_sync_or_a_shared_collection_loses_nothing(
        repo, home, worker, tmp_path, monkeypatch, kill_at):
    """SIGKILL of a real sync process at a named point: the worktree's first sync (inside its
    publish, the last moment before it would count), or a sync of the main checkout inside its
    first collection of the shared store (keep=1: the main checkout's older generations). The
    process kills itself at the point. Every checkout's current generation stays whole; the next
    syncs finish the work."""
    main, _ = repo
    wt = add_worktree(main, f"wt-kill-{kill_at.replace('.', '-')}")
    append(wt / NAMES, "// killed\n")
    victim = wt
    if kill_at == "gc.before_commit":
        assert sync(wt, worker=worker, allow_online=False).published
        monkeypatch.setenv("PYBRIDGE_KEEP_GENERATIONS", "1")
        append(main / BANNER, "// collected\n")
        victim = main
    location = store_location(default_state_dir(main))
    with Store.open(location.path, readonly=True, checkout=location.checkout) as store:
        before = store.current_generation()
    assert before is not None
    events, code = _run_sync(victim, default_state_dir(victim), None, kill_point=kill_at)
    assert code == -9 and events[-1] == ["fault", kill_at], events[-3:]
    conn = sqlite3.connect(location.path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
    with Store.open(location.path, readonly=True, checkout=location.checkout) as store:
        after = store.current_generation()
        assert after is not None
        with store.reader() as r:
            assert {f.path for f in r.files()} == set(after.snapshot["files"])
    if victim == wt:
        assert after.number == before.number
        wt_at = store_location(default_state_dir(wt))
        with Store.open(wt_at.path, readonly=True, checkout=wt_at.checkout) as store:
            assert store.current_generation() is None          # nothing published for the worktree
    result = sync(wt, worker=worker, allow_online=False)
    assert result.generation == 1 or victim == main
    assert fresh_differences(wt, tmp_path / "fresh", worker) == []
    sync(main, worker=worker, allow_online=False)
    assert fresh_differences(main, tmp_path / "fresh-main", worker) == []


def test_serving_two_checkouts_uses_one_warm_worker_and_syncs_the_new_one_from_its_sibling(repo, home):
    main, _ = repo
    wt = add_worktree(main, "wt-served")
    append(wt / NAMES, "// served\n")
    with serve([main, wt], home, {"PYBRIDGE_STATE_DIR": str(home), "PYBRIDGE_NO_AUTO_SYNC": "1"}) as client:
        result = client.call("sync", {"repo": str(wt)}).structured_content
        assert result["generation"] == 1 and result["incremental"] and result["reindexedFiles"] == 1, result
        status = {str(r): client.call("status", {"repo": str(r)}).structured_content for r in (main, wt)}
    workers = [s["live"]["worker"] for s in status.values()]
    assert workers[0]["pid"] == workers[1]["pid"] and workers[0]["starts"] == 1, workers


def test_a_workspace_outside_git_an_explicit_state_folder_or_an_older_one_keeps_its_own_store(
        repo, home, samples, tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    shutil.copytree(samples / "reactor", plain)
    location = prepare(default_state_dir(plain), plain)          # what a first sync decides
    assert not location.shared and location.path == store_path(default_state_dir(plain))
    main, _ = repo
    wt = add_worktree(main, "wt-own")
    location = prepare(tmp_path / "explicit", wt)                 # --state-dir DIR: the folder, whole
    assert not location.shared and location.path == store_path(tmp_path / "explicit")
    monkeypatch.setenv("PYBRIDGE_SHARE_CHECKOUTS", "0")
    assert not prepare(default_state_dir(wt), wt).shared
    # A default folder that already has a store (an older pybridge's, or made with sharing off)
    # keeps it; a folder that has decided keeps its decision.
    Store.open(store_path(default_state_dir(wt))).close()
    monkeypatch.delenv("PYBRIDGE_SHARE_CHECKOUTS")
    assert prepare(default_state_dir(wt), wt) == store_location(default_state_dir(wt))
    assert not store_location(default_state_dir(wt)).shared
    assert store_location(default_state_dir(main)).shared


def test_a_store_of_the_previous_schema_migrates_with_its_generations_current_and_numbered(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = store_at_migration(path, 3, foreign_keys=True)
    conn.execute("INSERT INTO generations (id, number, state, created_at, snapshot, meta) VALUES"
                 " (7, 4, 1, 'x', '{}', '{}'), (8, 5, 1, 'x', '{}', '{}')")
    conn.execute("INSERT INTO file_versions (id, digest, path, module, scope, content_sha256, size,"
                 " binding_complete, n_declarations, n_references, n_relations, n_problems)"
                 " VALUES (1, x'00', 'A.java', 'm', 'main', 's', 1, 1, 0, 0, 0, 0)")
    conn.execute("INSERT INTO manifest VALUES (7, 1), (8, 1)")
    conn.execute("UPDATE current SET generation_id = 8, last_number = 5")
    conn.close()
    with Store.open(path, keep=3) as store:
        current = store.current_generation()
        assert current is not None and current.number == 5
        assert [g.number for g in store.generations()] == [5, 4]
        with store.reader(4) as r:
            assert [f.path for f in r.files()] == ["A.java"]
        with store.stage({}, {}) as staging:
            assert staging.publish() == 6
