"""The warm worker of `serve`: kept between syncs, restarted after a crash, let go when idle or too big."""

from __future__ import annotations

import gc
import os
import signal
import weakref
from pathlib import Path

import pytest

from pybridge.errors import WorkerError
from pybridge.live import WarmWorker
from pybridge.worker import IndexRequest, IndexTask, Worker
from tests.support.indexing import java_files

WAIT = 120      # seconds: a bound for waits on a loaded machine, never a measured time


def _wait(w: WarmWorker, condition) -> None:
    with w.changed:
        assert w.changed.wait_for(condition, timeout=WAIT), w.describe()


def _request(samples) -> IndexRequest:
    src = samples / "kitchen-sink" / "src/main/java"
    return IndexRequest(files=java_files(src)[:2], sourcepath=[str(src)])


def test_the_warm_worker_warms_up_once_per_child_and_serves_many_requests(samples):
    w = WarmWorker(heap="512m")
    try:
        w.warmup()
        pid = w.pid
        w.warmup()              # a no-op on a warm child
        first = w.index(_request(samples))
        second = w.index(_request(samples))
        assert w.pid == pid and w.starts == 1
        assert first.files and [f.path for f in first.files] == [f.path for f in second.files]
        assert w.describe()["warm"] is True
    finally:
        w.close()
    assert w.pid is None


def test_an_idle_worker_is_let_go_and_the_next_request_starts_a_new_one(samples):
    w = WarmWorker(heap="512m", idle_s=0.2)
    try:
        w.keep(prewarm=True, tick=0.05)
        _wait(w, lambda: w.releases["idle"] == 1)
        assert w.pid is None and w.last_release == "idle"
        assert w.index(_request(samples)).files
        assert w.starts == 2
    finally:
        w.close()


def test_a_worker_killed_between_requests_is_restarted_warm(samples):
    w = WarmWorker(heap="512m")
    try:
        w.keep(prewarm=True, tick=0.05)
        _wait(w, lambda: w.describe()["warm"])
        old = w.pid
        os.kill(old, signal.SIGKILL)
        _wait(w, lambda: w.restarts == 1 and w.pid not in (None, old) and w.describe()["warm"])
        assert "exit code" in (w.last_crash or "")
        assert w.restart_causes["crashed"] == 1 and (w.last_restart or "").startswith("crashed: ")
        assert w.index(_request(samples)).files
    finally:
        w.close()


def test_a_worker_above_its_memory_bound_is_let_go_after_the_request(samples):
    w = WarmWorker(heap="512m", max_rss=1)
    try:
        result = w.index(_request(samples))
        assert result.files               # the request itself is answered
        assert w.pid is None and w.releases["memory"] == 1 and w.last_release == "memory"
        assert w.peak_rss and w.peak_rss > 1
    finally:
        w.close()


def test_rss_is_the_childs_resident_memory_and_none_without_a_child():
    w = WarmWorker(heap="256m")
    try:
        assert w.rss() is None
        w.start()
        rss = w.rss()
        assert rss is not None and rss > 10 * 2**20
    finally:
        w.close()


def _give_up(_chunk) -> None:
    raise RuntimeError("the inputs changed under the request")


def test_a_request_its_caller_gives_up_on_is_read_to_its_end_and_the_child_kept(samples):
    """Issue 22 O1: a catch-up overtaken by an edit does not kill the JVM (a new one would start cold)."""
    w = WarmWorker(heap="512m")
    try:
        w.warmup()
        pid = w.pid
        with pytest.raises(RuntimeError, match="changed under the request"):
            w.index(_request(samples), on_files=_give_up, chunk_files=1)
        assert w.pid == pid and w.drained == 1 and w.restarts == 0
        assert w.index(_request(samples)).files        # still in step with the protocol
        assert w.describe()["warm"] is True and w.starts == 1
    finally:
        w.close()


def test_a_request_given_up_with_much_left_drops_the_child_and_the_restart_says_so(samples):
    w = WarmWorker(heap="512m", drain_files=0)
    try:
        w.keep(tick=0.05)
        w.start()
        with pytest.raises(RuntimeError):
            w.index(_request(samples), on_files=_give_up, chunk_files=1)
        _wait(w, lambda: w.restarts == 1 and w.describe()["warm"])     # restarted and warmed in the background
        assert w.restart_causes["aborted"] == 1 and (w.last_restart or "").startswith("aborted: ")
        assert w.describe()["restartCauses"]["aborted"] == 1
    finally:
        w.close()


def test_a_warm_up_that_fails_is_counted_with_its_cause_at_the_next_start(samples):
    w = WarmWorker(heap="512m")
    try:
        w.start()
        w.start_timeout = 0.01          # the warm-up indexes a bundled source: far longer than this
        with pytest.raises(WorkerError):
            w.warmup()
        w.start_timeout = WAIT
        w.warmup()
        assert w.restarts == 1 and w.restart_causes["warmup_failed"] == 1 and w.describe()["warm"]
    finally:
        w.close()


def test_a_release_is_a_restart_with_its_cause_when_a_child_starts_again(samples):
    w = WarmWorker(heap="512m", max_rss=1)
    try:
        assert w.index(_request(samples)).files and w.pid is None
        w.start()
        assert w.restarts == 1 and w.restart_causes["memory"] == 1
    finally:
        w.close()


def test_new_agents_replace_the_child_and_the_warm_worker_stays_open(samples):
    """A catch-up whose classpaths call for Lombok's agent (a Gradle build with Lombok on the processor
    path, after a sync without it in this server) replaces the child; it used to close the warm worker
    for good (`Worker.use_agents` called the overridden `close`), so every later catch-up failed."""
    lombok = sorted((Path.home() / ".m2/repository/org/projectlombok/lombok").glob("*/lombok-*.jar"))
    if not lombok:
        pytest.skip("no Lombok jar in the local Maven repository")
    w = WarmWorker(heap="512m")
    try:
        w.start()
        assert w.use_agents([lombok[-1]]) and w.pid is None
        assert w.index(_request(samples)).files and w.pid is not None
        assert w.restart_causes["agents"] == 1
    finally:
        w.close()


class _Held:
    """Stands for what a sync's callbacks reach: its staging, its symbol cache, its summaries."""


def test_a_request_leaves_no_cycle_holding_what_its_callbacks_reach(samples):
    """The wrapped callbacks of a request point at its `_Abandon`, which must not point back: such a
    cycle held a whole sync's objects (60,000 on guava) until the cyclic collector found them, 30 to
    70 ms in the middle of a later sync. Freed by reference counting, they go when the caller drops them."""
    w = WarmWorker(heap="512m")
    gc.disable()
    try:
        held = _Held()
        got: list[int] = []

        def on_files(chunk, _held=held) -> None:
            got.append(len(chunk))

        w.index_all([IndexTask(_request(samples), lambda done, of, _held=held: None, on_files)])
        gone = weakref.ref(held)
        del held, on_files
        assert got and gone() is None
    finally:
        gc.enable()
        w.close()


def _ignore(_chunk) -> None:
    pass


def _collections(log: Path) -> int:
    """How many collections the GC.run diagnostic command started, by the JVM's -Xlog:gc log."""
    return log.read_text().count("Pause Full (Diagnostic Command)") if log.exists() else 0


@pytest.mark.parametrize("kind", ["warm", "one-shot"])
def test_a_warm_worker_collects_its_heap_after_a_large_request_and_a_one_shot_worker_never(samples, tmp_path, kind):
    """After a request of `collect_after_files` files or more (one request, or several streamed
    together in one message) the warm worker's child collects the heap before it reads the next
    request, so that the next one does not pay for the dead compiler state; after a small one it
    does not. A worker that indexes and exits never does."""
    src = samples / "kitchen-sink" / "src/main/java"
    files = java_files(src)
    log = tmp_path / "gc.log"
    cls = WarmWorker if kind == "warm" else Worker
    w = cls(heap="512m", jvm_args=[f"-Xlog:gc:file={log}"])
    w.collect_after_files = 0 if kind == "one-shot" else 6
    small = IndexRequest(files=files[:2], sourcepath=[str(src)])
    try:
        w.index(small)
        assert _collections(log) == 0
        w.index(IndexRequest(files=files[:8], sourcepath=[str(src)]))
        w.index(small)          # read by the child after the collection, if any
        after_one = _collections(log)
        w.index_all([IndexTask(IndexRequest(files=files[:4], sourcepath=[str(src)]), None, _ignore),
                     IndexTask(IndexRequest(files=files[4:8], sourcepath=[str(src)]), None, _ignore)])
        w.index(small)
        after_two = _collections(log)
    finally:
        w.close()
    assert (after_one, after_two) == ((1, 2) if kind == "warm" else (0, 0))
