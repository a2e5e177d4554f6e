"""The warm worker of `serve`: one indexer JVM kept between syncs.

`WarmWorker` is a `pybridge.worker.Worker` that every sync of the server
shares (background catch-ups and the `sync` tool alike), so JDT stays loaded
and compiled between syncs. On top of the plain worker it:

- serialises requests (one lock: the worker protocol is one request at a
  time; syncs of two workspaces may otherwise share the JVM concurrently);
- warms up once per child (`warmup()` is a no-op on a child already warm, so
  the warm-up that each sync runs during Maven costs nothing the second time);
- restarts a child that died between requests (a crash, the OOM killer, a
  kill) or in one, in the background, and warms it again (a sync that comes
  meanwhile waits for the warm-up rather than starting a cold JVM);
- lets the child go after `idle_s` seconds without a request (the next sync
  starts a new one), and after a sync that left its resident memory above
  `max_rss` bytes (the JVM keeps the heap it grew into; a new one starts small);
- keeps the child when a sync abandons a request (its inputs changed under
  it: a catch-up overtaken by an edit storm raises from the callback that
  stages the facts). A plain `Worker` kills the child then, since the rest of
  the request's messages are still coming; here the rest is read and
  discarded when at most `drain_files` files are left to index (a catch-up's
  few files: far cheaper than a new JVM, which starts cold), and the error is
  raised after. The next catch-up queues behind it on the worker's lock.
- counts every new child after the first as a restart, with its cause
  (`restart_causes`, `last_restart`): `crashed` (died between requests),
  `start_failed` / `warmup_failed` / `request_failed` (killed, out of memory,
  crashed or timed out while starting, warming up or in a request), `aborted` (a sync abandoned a request
  with more than `drain_files` files left), `idle`, `memory` (let go), and
  `agents` (the Java agents changed).

`changed` is a condition notified on every change of state (start, release,
restart), so that callers and tests can wait for one without sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pybridge.errors import WorkerError
from pybridge.facts import FileFacts
from pybridge.worker import Worker
from pybridge.worker.client import CHUNK_FILES, DEFAULT_HEAP, IndexResult, IndexTask

log = logging.getLogger("pybridge.live")

DRAIN_FILES = 256
"""An abandoned request with at most this many files left is read to its end, not killed: JDT indexes a
few hundred files in the seconds a new JVM needs to start, and the new one would start cold."""
RESTART_CAUSES = ("crashed", "start_failed", "warmup_failed", "request_failed", "aborted", "idle", "memory", "agents")


class _Abandon:
    """The callbacks of one `index_all`, wrapped: the first exception a callback raises abandons the
    request; with few files left, the rest of its messages are discarded instead of killing the child.

    The wrapped tasks (`wrap`) point at this object, and it does not point back at them: a cycle here
    held a whole sync's objects (its staging's symbol cache, its summaries: 60,000 objects on guava)
    until the cyclic collector found them, 30 to 70 ms in the middle of a later sync."""

    def __init__(self, tasks: Sequence[IndexTask], drain_files: int) -> None:
        self.total = sum(len(task.request.files) for task in tasks)
        self.received = 0
        self.drain_files = drain_files
        self.error: Exception | None = None

    def wrap(self, tasks: Sequence[IndexTask]) -> list[IndexTask]:
        return [IndexTask(task.request, self._progress(task), self._on_files(task)) for task in tasks]

    def _progress(self, task: IndexTask) -> Callable[[int, int], None] | None:
        progress = task.progress
        if progress is None:
            return None

        def call(done: int, of: int) -> None:
            if self.error is None:
                self._guard(lambda: progress(done, of))
        return call

    def _on_files(self, task: IndexTask) -> Callable[[list[FileFacts]], None] | None:
        on_files = task.on_files
        if on_files is None:
            return None

        def call(chunk: list[FileFacts]) -> None:
            self.received += len(chunk)
            if self.error is None:
                self._guard(lambda: on_files(chunk))
        return call

    def _guard(self, action: Callable[[], None]) -> None:
        try:
            action()
        except Exception as exc:
            if self.total - self.received > self.drain_files:
                raise               # too much left: the plain worker kills the child
            self.error = exc


COLLECT_AFTER_FILES = 200
"""A request of this many files or more leaves the warm worker's heap full of its dead compiler
state, much of it promoted to the old generation: the child collects the heap once it has sent the
request's answer, while it waits for the next one (child.py, `_collect_heap`). Otherwise the next
requests pay for it: young collections that copy what dead old objects still point at, 150 to
290 ms each, then a full collection in the middle of a small request (bench/worktrees.py with
-Xlog:gc; after a guava sync 130 MB are left to copy and 14 MB live). Live edits, a few files
each, collect nothing."""


class WarmWorker(Worker):
    gc_args: tuple[str, ...] = ()        # the collector's default tenuring: see `Worker.gc_args`
    collect_after_files = COLLECT_AFTER_FILES
    # A file whose stat is new is looked up in the secondary-type search by its bytes (SecondaryTypes.java):
    # a worktree of a checkout the worker has indexed reuses its parses. SHA-256 is not compiled by C1, so
    # a worker that indexes once and exits, whose new files are all new bytes too, goes without it (0.2-0.4
    # s of CPU on hibernate-core's first sync).
    indexer_properties = ("-Dpybridge.secondaryTypesByContent=true",)
    def __init__(self, *, heap: str | None = None, idle_s: float = 600.0, max_rss: int | None = None,
                 drain_files: int = DRAIN_FILES, **kwargs: Any) -> None:
        super().__init__(heap=heap or DEFAULT_HEAP, **kwargs)
        self.idle_s = idle_s
        self.max_rss = max_rss
        self.drain_files = drain_files
        self.changed = threading.Condition(threading.RLock())
        self.last_used = time.monotonic()
        self.starts = 0
        self.restarts = 0
        self.restart_causes: dict[str, int] = dict.fromkeys(RESTART_CAUSES, 0)
        self.last_restart: str | None = None     # the cause and what happened, e.g. "aborted: ..."
        self.drained = 0                         # abandoned requests read to their end (child kept)
        self._ended: tuple[str, str] | None = None   # (cause, what) of the last child's end; None: none yet
        self.releases: dict[str, int] = {"idle": 0, "memory": 0}
        self.last_release: str | None = None
        self.last_crash: str | None = None
        self.peak_rss: int | None = None
        self._warm_pid: int | None = None
        self._closed = False
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None

    # ------------------------------------------------------------ the Worker API, serialised

    def start(self) -> None:
        with self.changed:
            if self._closed:
                raise RuntimeError("This warm worker is closed.")
            if self.pid is None and self._proc is not None:
                self._crashed("found dead at start")     # died since the last request: reap it first
            if self.pid is not None:
                return
            try:
                super().start()
            except WorkerError as exc:
                self._ended = ("start_failed", str(exc.message).split("\n", 1)[0])
                raise
            self.starts += 1
            if self._ended is not None:
                cause, what = self._ended
                self.restarts += 1
                self.restart_causes[cause] = self.restart_causes.get(cause, 0) + 1
                self.last_restart = f"{cause}: {what}"
                self._ended = None
            self.last_used = time.monotonic()
            self.changed.notify_all()

    def warmup(self) -> None:
        with self.changed:
            self.start()
            if self._warm_pid is not None and self._warm_pid == self.pid:
                return
            try:
                super().warmup()
            except WorkerError as exc:
                self._child_gone("warmup_failed", exc)
                raise
            self._warm_pid = self.pid
            self.last_used = time.monotonic()
            self.changed.notify_all()

    def use_agents(self, agents: Sequence[str | Path]) -> bool:
        with self.changed:
            running = self.pid is not None
            replaced = super().use_agents(agents)
            if replaced and running:
                self._warm_pid = None
                self._ended = ("agents", "the Java agents changed")
            return replaced

    def index_all(self, tasks: Sequence[IndexTask], timeout: float | None = None,
                  chunk_files: int = CHUNK_FILES) -> list[IndexResult]:
        # `index` comes here too (Worker.index is index_all of one task).
        with self.changed:
            self.last_used = time.monotonic()
            abandon = _Abandon(tasks, self.drain_files)
            try:
                results = super().index_all(abandon.wrap(tasks), timeout=timeout, chunk_files=chunk_files)
            except WorkerError as exc:
                self._child_gone("request_failed", exc)
                raise
            except Exception as exc:    # a callback gave up with too much left: the child was dropped
                self._child_gone("aborted", exc)
                raise
            finally:
                self.last_used = time.monotonic()
                self._check_memory()
            if abandon.error is not None:
                self.drained += 1       # the child read the request to its end and is still warm
                raise abandon.error
            return results

    def _child_gone(self, cause: str, exc: BaseException) -> None:
        """Note why the child ended, if it did (the next start counts a restart with this cause)."""
        if self.pid is None:
            self._warm_pid = None
            what = str(getattr(exc, "message", None) or exc).split("\n", 1)[0]
            self._ended = (cause, what)
            self.changed.notify_all()

    def close(self) -> None:
        """Stops the child and the housekeeping thread for good."""
        self._stop.set()
        with self.changed:
            self._closed = True
            super().close()
            self.changed.notify_all()
        keeper = self._keeper
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout=30)

    # ------------------------------------------------------------ housekeeping

    def keep(self, prewarm: bool = False, tick: float | None = None) -> None:
        """Start the housekeeping thread (idle release, crash restart); with `prewarm`, start and warm
        the JVM at once in it."""
        if self._keeper is not None:
            return
        period = tick if tick is not None else min(1.0, max(self.idle_s / 4, 0.05))
        self._keeper = threading.Thread(target=self._keep, args=(prewarm, period), name="pybridge-warm-worker",
                                        daemon=True)
        self._keeper.start()

    def _keep(self, prewarm: bool, period: float) -> None:
        if prewarm:
            self._guarded(self.warmup, "warm-up")
        while not self._stop.wait(period):
            if not self.changed.acquire(blocking=False):
                continue            # a request is running: nothing to do now
            try:
                if self._closed:
                    return
                if self._proc is not None and self._proc.poll() is not None:
                    self._crashed("died between requests")
                    self._guarded(self.warmup, "restart")
                elif self.pid is None and self._ended is not None and self._ended[0] in ("request_failed", "aborted"):
                    self._guarded(self.warmup, "restart")   # the next sync queues behind this warm-up
                elif self.pid is not None and time.monotonic() - self.last_used >= self.idle_s:
                    self._let_go("idle")
            finally:
                self.changed.release()

    def _guarded(self, action: Any, what: str) -> None:
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - the next sync retries and reports the error
            log.warning("worker %s failed: %s", what, exc)
            with self.changed:
                self.last_crash = f"{what} failed: {exc}"
                self.changed.notify_all()

    def _crashed(self, how: str) -> None:
        proc = self._proc
        code = proc.poll() if proc is not None else None
        self._reap()
        self._warm_pid = None
        self.last_crash = f"the worker child {how} (exit code {code})"
        self._ended = ("crashed", self.last_crash)
        log.warning("%s", self.last_crash)
        self.changed.notify_all()

    def _check_memory(self) -> None:
        rss = self.rss()
        if rss is None:
            return
        self.peak_rss = max(self.peak_rss or 0, rss)
        if self.max_rss is not None and rss > self.max_rss:
            log.info("worker RSS %d MB above the bound of %d MB: letting it go", rss >> 20, self.max_rss >> 20)
            self._let_go("memory")

    def _let_go(self, why: str) -> None:
        Worker.close(self)
        self._warm_pid = None
        self.releases[why] += 1
        self.last_release = why
        self._ended = (why, "let go when idle" if why == "idle" else "let go above its memory bound")
        self.changed.notify_all()

    # ------------------------------------------------------------ status

    def describe(self) -> dict[str, Any]:
        """A snapshot for `status`; never waits for a running request."""
        rss = self.rss()
        return {
            "running": self.pid is not None, "pid": self.pid,
            "warm": self.pid is not None and self._warm_pid == self.pid,
            "rssMb": None if rss is None else round(rss / 2**20, 1),
            "maxRssMb": None if self.max_rss is None else round(self.max_rss / 2**20),
            "idleSeconds": round(time.monotonic() - self.last_used, 1) if self.pid is not None else None,
            "idleLimitSeconds": self.idle_s,
            "starts": self.starts, "restarts": self.restarts,
            "restartCauses": {_camel(k): v for k, v in self.restart_causes.items()},
            "lastRestart": self.last_restart, "drained": self.drained, "releases": dict(self.releases),
            "lastRelease": self.last_release, "lastCrash": self.last_crash,
        }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
