"""A SIGKILL at any point of a sync leaves the last published generation served.

Each test runs a child Python process that stages a large generation into a
store that already has one, and kills itself (SIGKILL, no cleanup of any
kind) at one point: in the middle of a staging batch, right after a batch
commit, inside the publish transaction before its commit, right after the
publish commit, inside GC. The parent then reopens the store and checks that
it opens cleanly, passes `PRAGMA integrity_check`, serves a complete
generation (the previous one, or the new one once its publish committed),
has no debris left, and accepts the next sync.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from pybridge.store import Store
from pybridge.store.schema import index_definitions, missing_indexes
from tests.support.store_factories import class_key, method_key, stage_synthetic, synthetic_file

ROOT = Path(__file__).resolve().parent.parent.parent
N_FILES = 150
REFS_PER_FILE = 200
BATCH_ROWS = 4000


def variant_of_generation(number: int):
    # Generation 2 changes every other file; the rest are reused versions.
    return (lambda i: 0) if number == 1 else (lambda i: i % 2)


CHILD = r"""
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from pybridge.store import Store, faults
from tests.support.store_factories import stage_synthetic
from tests.store.test_store_crash import BATCH_ROWS, N_FILES, REFS_PER_FILE, variant_of_generation

point, _, nth = os.environ["PYBRIDGE_TEST_KILL_AT"].partition("@")
remaining = [int(nth)]

def maybe_die(name):
    if name == point:
        remaining[0] -= 1
        if remaining[0] == 0:
            os.kill(os.getpid(), signal.SIGKILL)

faults.hit = maybe_die
store = Store.open(sys.argv[2], keep=int(sys.argv[3]), batch_rows=BATCH_ROWS)
early = os.environ.get("PYBRIDGE_TEST_INDEXES_AFTER")
stage_synthetic(store, N_FILES, REFS_PER_FILE, variant_of=variant_of_generation(2),
                on_file=lambda n: maybe_die(f"file{n}"), indexes_after=int(early) if early else None)
print("survived")
"""


def expected_reference_counts(number: int) -> Counter:
    variant = variant_of_generation(number)
    counts: Counter = Counter()
    for i in range(N_FILES):
        _, ff = synthetic_file(i, N_FILES, REFS_PER_FILE, variant=variant(i))
        counts.update(r.target_key for r in ff.references)
    return counts


def assert_generation_complete(store: Store, number: int, content: int) -> None:
    """The current generation is `number` and holds generation `content`'s facts."""
    expected = expected_reference_counts(content)
    with store.reader() as r:
        assert r.generation.number == number
        files = r.files()
        assert len(files) == N_FILES
        assert sum(f.references for f in files) == N_FILES * REFS_PER_FILE
        assert r.generation.meta["counts"]["references"] == N_FILES * REFS_PER_FILE
        sample = [class_key(i) for i in range(0, N_FILES, 7)] + \
                 [method_key(i, 2) for i in range(0, N_FILES, 11)]
        for key in sample:
            symbol = r.symbol(key)
            assert r.count_references(symbol.id) == expected[key], key
            assert len(r.references(symbol.id)) == expected[key], key
        assert [d.key for d in r.declarations(key=class_key(3))] == [class_key(3)]


def assert_no_debris(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        assert conn.execute("SELECT count(*) FROM generations WHERE state = 0").fetchone()[0] == 0
        orphans = conn.execute(
            "SELECT count(*) FROM file_versions"
            " WHERE id NOT IN (SELECT file_version_id FROM manifest)").fetchone()[0]
        assert orphans == 0
    finally:
        conn.close()


@pytest.fixture(scope="module")
def published_once(tmp_path_factory) -> Path:
    """A store with generation 1 published, copied by each test."""
    path = tmp_path_factory.mktemp("crash") / "template.sqlite"
    with Store.open(path) as store:
        stage_synthetic(store, N_FILES, REFS_PER_FILE, variant_of=variant_of_generation(1))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def run_child_until_killed(path: Path, kill_at: str, keep: int, indexes_after: int | None = None) -> None:
    env = {**os.environ, "PYBRIDGE_TEST_KILL_AT": kill_at}
    if indexes_after is not None:
        env["PYBRIDGE_TEST_INDEXES_AFTER"] = str(indexes_after)
    child = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path), str(keep)],
                           env=env, capture_output=True, text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, (child.returncode, child.stdout, child.stderr)


@pytest.mark.parametrize(("kill_at", "keep", "published"), [
    pytest.param("file60@1", 3, 1, id="mid-batch-after-60-files"),
    pytest.param("staging.batch_committed@2", 3, 1, id="right-after-a-batch-commit"),
    pytest.param("publish.before_commit@1", 3, 1, id="inside-publish-before-commit"),
    pytest.param("publish.after_commit@1", 3, 2, id="right-after-publish-commit"),
    pytest.param("gc.before_commit@1", 1, 2, id="inside-gc-before-commit"),
])
def test_a_sigkilled_sync_leaves_a_complete_published_generation(
        published_once, tmp_path, kill_at, keep, published):
    path = tmp_path / "store.sqlite"
    path.write_bytes(published_once.read_bytes())

    run_child_until_killed(path, kill_at, keep)

    conn = sqlite3.connect(path)   # what the kill left behind, before pybridge opens it
    unpublished, versions = conn.execute(
        "SELECT (SELECT count(*) FROM generations WHERE state = 0),"
        " (SELECT count(*) FROM file_versions)").fetchone()
    conn.close()
    assert unpublished == (1 if published == 1 else 0)
    if kill_at.startswith(("file", "staging")):
        assert versions > N_FILES    # committed batches of the killed staging

    with Store.open(path, keep=keep) as store:   # opens cleanly, collects the debris
        assert store.current_generation().number == published
        assert_generation_complete(store, published, content=published)
    assert_no_debris(path)
    with Store.open(path, keep=keep) as store:   # and the next sync works
        assert stage_synthetic(store, N_FILES, REFS_PER_FILE,
                               variant_of=variant_of_generation(2)) == published + 1
        assert_generation_complete(store, published + 1, content=2)
    assert_no_debris(path)


@pytest.mark.parametrize(("kill_at", "dropped", "indexes_after"), [
    pytest.param("file60@1", True, None, id="mid-batch-after-60-files"),
    pytest.param("staging.batch_committed@2", True, None, id="right-after-a-batch-commit"),
    pytest.param("publish.before_indexes@1", True, None, id="before-building-the-indexes"),
    pytest.param("publish.before_commit@1", False, None, id="inside-publish-before-commit"),
    # the pipeline's early indexes (`Staging.build_indexes`, EARLY_INDEXES_AT of a first sync's files)
    pytest.param("staging.indexes_built@1", False, 100, id="right-after-building-the-indexes-early"),
    pytest.param("file130@1", False, 100, id="mid-batch-after-the-indexes-were-built-early"),
])
def test_a_sigkilled_first_sync_leaves_a_store_the_next_sync_fills(tmp_path, kill_at, dropped, indexes_after):
    """A first sync stages without the secondary indexes (Staging, bulk): killed before it
    published, it leaves them dropped (or built, when it was past `build_indexes`), and the next
    writer builds what is missing before collecting."""
    path = tmp_path / "store.sqlite"
    run_child_until_killed(path, kill_at, keep=3, indexes_after=indexes_after)

    conn = sqlite3.connect(path)
    missing = [name for name in index_definitions() if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)).fetchone()]
    conn.close()
    assert bool(missing) == dropped     # publish builds them before its own transaction

    with Store.open(path, keep=3) as store:
        assert store.current_generation() is None
    assert_no_debris(path)
    conn = sqlite3.connect(path)
    try:
        assert missing_indexes(conn) == []
        assert conn.execute("SELECT count(*) FROM file_versions").fetchone()[0] == 0
    finally:
        conn.close()
    with Store.open(path, keep=3) as store:
        assert stage_synthetic(store, N_FILES, REFS_PER_FILE, variant_of=variant_of_generation(2)) == 1
        assert_generation_complete(store, 1, content=2)
    assert_no_debris(path)
