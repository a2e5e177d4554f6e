"""The warm worker of `serve`: one indexer JVM kept between syncs.

`WarmWorker` is a `pybridge.worker.Worker` that every sync of the server
shares (background catch-ups and the `sync` tool alike), so JDT stays loaded
and compiled between syncs. On top of the plain worker it:

- serialises requests (one lock: the worker protocol is one request at a
  time; syncs of two workspaces may otherwise share the JVM concurrently);
- warms up once per child (`warmup()` is a no-op on a child already warm, so
  the warm-up that each sync runs during Maven costs nothing the second time);
- restarts a child that died between requests (a crash, the OOM killer, a
  kill), in the background, and warms it again;
- lets the child go after `idle_s` seconds without a request (the next sync
  starts a new one), and after a sync that left its resident memory above
  `max_rss` bytes (the JVM keeps the heap it grew into; a new one starts small).

`changed` is a condition notified on every change of state (start, release,
restart), so that callers and tests can wait for one without sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from pybridge.worker import Worker
from pybridge.worker.client import DEFAULT_HEAP, IndexResult, IndexTask

log = logging.getLogger("pybridge.live")


class WarmWorker(Worker):
    def __init__(self, *, heap: str | None = None, idle_s: float = 600.0, max_rss: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(heap=heap or DEFAULT_HEAP, **kwargs)
        self.idle_s = idle_s
        self.max_rss = max_rss
        self.changed = threading.Condition(threading.RLock())
        self.last_used = time.monotonic()
        self.starts = 0
        self.restarts = 0
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
            super().start()
            self.starts += 1
            self.last_used = time.monotonic()
            self.changed.notify_all()

    def warmup(self) -> None:
        with self.changed:
            self.start()
            if self._warm_pid is not None and self._warm_pid == self.pid:
                return
            super().warmup()
            self._warm_pid = self.pid
            self.last_used = time.monotonic()
            self.changed.notify_all()

    def index_all(self, tasks: Sequence[IndexTask], timeout: float | None = None,
                  chunk_files: int = 32) -> list[IndexResult]:
        # `index` comes here too (Worker.index is index_all of one task).
        with self.changed:
            self.last_used = time.monotonic()
            try:
                return super().index_all(tasks, timeout=timeout, chunk_files=chunk_files)
            finally:
                self.last_used = time.monotonic()
                self._check_memory()

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
                    self.restarts += 1
                    self._guarded(self.warmup, "restart")
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
            "starts": self.starts, "restarts": self.restarts, "releases": dict(self.releases),
            "lastRelease": self.last_release, "lastCrash": self.last_crash,
        }
