"""The live index: watch, debounce, catch up in the background, answer "fresh yet?".

One `LiveIndex` per `pybridge serve`. It owns:

- the warm worker (`WarmWorker`) that every sync of the server uses;
- the watcher (`Watcher`), which reports edits of the inputs that matter;
- one catch-up thread, which runs every sync of the live index, one at a
  time (syncs never overlap: the thread is one, and the sync lock of the
  state folder serialises it with a `sync` tool call or another process).

Each workspace keeps counters: `requested` grows with every relevant edit and
every demand of a query; a catch-up takes the value at its start as
`started`, and on its end sets `finished` to it. An edit that lands while a
sync runs makes `requested` pass `started`, so one more catch-up follows:
no edit is lost. A sync that saw its inputs change while it ran
(`StaleSnapshotError`) publishes nothing and is queued again at once.

Debounce: a catch-up starts once no edit arrived for `debounce_s` (bursts of
saves make one sync), or at once when a query waits for it.

The query layer asks through a small protocol (`pybridge.query.freshness.LiveHook`):

- `wait_fresh(root, timeout)`: demand a catch-up that starts after this
  call (the query saw the change by `stat`, perhaps before the watcher's
  event arrived: it never relies on the event) and wait for it, up to
  `timeout` (default: the configured bound). The outcome's `state` is
  `fresh`, `failed` (with `error`: the sync's error object), `timeout` or
  `off` (this workspace is not watched).
- `notice(root)`: a query saw the workspace changed; schedule a catch-up
  unless one is pending (covers an event lost by the OS).
- `changed_since(root, t)`: did an edit arrive since `time.monotonic()` was
  `t`? The freshness check's one-second cache is not trusted past an edit.
- `describe(root)`: the live fields of `status`.

After a catch-up that published, the work nobody waits on runs once its waiters are woken
(`PYBRIDGE_LIVE_AFTER_ANSWER`, on by default): the binding diff of the last edit
(`pybridge.edits.lastedit`: on hibernate-core, 6,238 files, about 0.08 s of the catch-up) and the
store's garbage collection of the generations beyond the kept ones (the sync publishes without it:
`sync(collect=False)`; a catch-up's collection read every manifest row, 0.06 to 0.1 s). `describe`
(status, diagnostics: `lastEdit`) waits for that diff, so that what it shows is the same as when the
diff ran before the wait ended; the next catch-up runs after both, on the same thread.

Before a catch-up syncs, it compares the workspace with the current
generation by `stat` (`pybridge.sync.snapshot.changes`: which hashes a file
whose size and mtime were kept by an edit, and looks at the places where a
source root can appear), or, where the last catch-up left a barrier count
that has not moved since, by that count (`PYBRIDGE_SWEEP_BY_EVENTS`): when nothing differs (an edit reverted, a file
touched and rewritten identically that the last sync already saw) it
publishes nothing. A generation whose snapshot predates those places is
synced once, which brings it up to date.

A never-synced workspace gets its first sync in the background at start
(`LiveConfig.auto_sync`, on unless `serve --no-auto-sync`; with `--no-watch`
too, where it is the only sync the live index runs). Meanwhile
`first_sync(root)` says how far it got (`FirstSync`: `indexing` with files done
and total and an ETA, `failed` with the sync's error, or `done`), and
`wait_first_sync(root, timeout)` waits for its end. A failed first sync is
tried again on the next relevant edit, as a failed catch-up is. Without
auto-sync a never-synced workspace is left alone: the first sync is the
user's call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pybridge import switches
from pybridge.edits.lastedit import last_edit
from pybridge.edits.lastedit import summary as edit_summary
from pybridge.errors import PybridgeError, WorkerError, WorkspaceError
from pybridge.live.barrier import Barrier
from pybridge.live.config import LiveConfig
from pybridge.live.watcher import Scope, Watcher
from pybridge.live.worker import WarmWorker
from pybridge.query.keys import load_secret, make_key
from pybridge.store import Store
from pybridge.sync import StaleSnapshotError
from pybridge.sync import sync as run_sync
from pybridge.sync.lock import SyncBusyError, SyncLock
from pybridge.sync.meta import GenerationMeta
from pybridge.sync.snapshot import PARENT_MARK, Snapshot, any_change
from pybridge.sync.state import store_location
from pybridge.workspace import AUTO, BUILD_SYSTEMS, BuildSystem, by_name, candidate_roots, select

log = logging.getLogger("pybridge.live")

SyncFunction = Callable[..., Any]

AFTER_ANSWER_ENV = "PYBRIDGE_LIVE_AFTER_ANSWER"
SWEEP_BY_EVENTS_ENV = "PYBRIDGE_SWEEP_BY_EVENTS"


def sweep_by_events() -> bool:
    """Whether a catch-up's sync takes the inotify barrier's unchanged count for its end-of-run sweep,
    and the first query on what it published takes the count as of which the files matched for its
    own (PYBRIDGE_SWEEP_BY_EVENTS, on by default)."""
    return switches.enabled(SWEEP_BY_EVENTS_ENV, "sweep the files before each catch-up publishes, and again "
                                                  "in the first exact query on what it published")


def after_answer() -> bool:
    """Whether a catch-up wakes its waiters before the last edit's diff and the store's collection
    (PYBRIDGE_LIVE_AFTER_ANSWER, on by default)."""
    return switches.enabled(AFTER_ANSWER_ENV, "compute the last edit's diff and collect the store's old "
                                               "generations before a catch-up's waiters are woken")


@dataclass(frozen=True)
class Outcome:
    """What a wait for freshness came to: `fresh`, `failed` (with the sync's `error`), `timeout`, `off`."""

    state: str
    error: dict[str, Any] | None = None
    generation: int | None = None
    waited_s: float = 0.0


@dataclass
class FirstSync:
    """How far the background first sync of a never-synced workspace got (`LiveIndex.first_sync`):
    `state` is `indexing` (queued or running; `phase` is the sync's current step), `failed` (with
    the sync's `error` object) or `done`. `files_total` and `eta_seconds` are None until the files
    to index are listed and the first of them indexed."""

    state: str
    phase: str = "queued"
    files_done: int = 0
    files_total: int | None = None
    eta_seconds: float | None = None
    error: dict[str, Any] | None = None


@dataclass
class _FirstRun:
    """The live index's own record of a first sync (`FirstSync` is what it shows)."""

    state: str = "indexing"
    phase: str = "queued"
    files_done: int = 0
    files_total: int | None = None
    index_t0: float | None = None       # monotonic time of the first progress event of the index phase
    index_done0: int = 0                # files done at that event
    error: dict[str, Any] | None = None

    def view(self) -> FirstSync:
        eta = None
        if self.state == "indexing" and self.index_t0 is not None and self.files_total is not None \
                and self.files_done > self.index_done0:
            rate = (self.files_done - self.index_done0) / max(time.monotonic() - self.index_t0, 1e-3)
            eta = round((self.files_total - self.files_done) / rate, 1)
        return FirstSync(self.state, self.phase, self.files_done, self.files_total, eta, self.error)


@dataclass
class Target:
    """One workspace the live index serves."""

    slug: str
    root: Path
    state: Path
    build_tool: str = AUTO                   # `--build-tool`
    system: BuildSystem | None = field(init=False)   # None: no build system owns the root (yet)
    scope: Scope = field(init=False)
    requested: int = 0
    started: int = 0
    finished: int = 0
    syncing: bool = False
    demanded: bool = False
    started_at: float | None = None          # monotonic start of the last catch-up
    last_event: float | None = None          # monotonic time of the last relevant edit
    first_pending: float | None = None       # monotonic time of the oldest edit not yet caught up
    events: int = 0
    catch_ups: int = 0
    last: dict[str, Any] | None = None       # the last catch-up's outcome, "unchanged" included
    last_sync: dict[str, Any] | None = None  # the last one that ran a sync (status: lastCatchUp)
    last_error: dict[str, Any] | None = None
    first: _FirstRun | None = None           # the background first sync of a never-synced workspace
    last_edit: dict[str, Any] | None = None  # what the last published catch-up changed (edits.lastedit.summary)
    after: tuple[int | None, int] | None = None   # (before, after) generations whose follow-up work is due
    proof: tuple[int, int] | None = None     # (generation, barrier count as of which its files matched)
    noting: bool = False                     # that work runs (describe waits for its `last_edit`)
    rehearsed: bool = False                  # its first catch-up with nothing changed rehearsed one (`_rehearse`)

    def __post_init__(self) -> None:
        self.system = _system_of(self.root, self.state, self.build_tool)
        self.scope = Scope(self.root, self.state, self.is_input)

    def is_input(self, path: Path) -> bool:
        """Whether `path` is one of the build system's inputs (any build system's, while none owns the root)."""
        systems = (self.system,) if self.system is not None else BUILD_SYSTEMS
        return any(s.is_input(self.root, path) for s in systems)

    @property
    def pending(self) -> bool:
        return self.requested > self.started


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class LiveIndex:
    def __init__(self, targets: list[tuple[str, Path, Path]], config: LiveConfig,
                 sync_function: SyncFunction = run_sync, build_tool: str = AUTO) -> None:
        """`targets`: (slug, root, state folder) of each served workspace; `build_tool`: `--build-tool`."""
        self.config = config
        self.targets = {Path(root): Target(slug, Path(root), Path(state), build_tool)
                        for slug, root, state in targets}
        self.worker = WarmWorker(heap=config.heap, idle_s=config.worker_idle_s,
                                 max_rss=int(config.worker_max_rss_mb * 2**20))
        self.sync_function = sync_function
        self.cond = threading.Condition()
        self.watcher: Watcher | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self._barriers: dict[Path, Barrier | None] = {}
        self._barrier_lock = threading.Lock()

    # ------------------------------------------------------------ lifecycle

    def start(self) -> "LiveIndex":
        if self.config.auto_sync:
            for t in self.targets.values():
                if self._current(t) is None:
                    t.first = _FirstRun()
        first = [t for t in self.targets.values() if t.first is not None]
        # The JVM starts with the Java agents (Lombok's) the published generations needed: a catch-up
        # with other agents would restart it, and the first edit would wait for a cold JVM.
        self.worker.use_agents(self._published_agents())
        self.worker.keep(prewarm=(self.config.watch or bool(first)) and self.config.prewarm)
        if not self.config.watch and not first:
            return self
        if self.config.watch:
            for t in self.targets.values():
                self._load_scope(t)
            self.watcher = Watcher([t.scope for t in self.targets.values()], self._on_change,
                                   poll=self.config.poll, poll_ms=self.config.poll_ms)
            self.watcher.start()
        self._thread = threading.Thread(target=self._loop, name="pybridge-catch-up", daemon=True)
        self._thread.start()
        if self.watching:
            for t in self.targets.values():
                self.notice(t.root)      # edits made while no server watched are caught up at start
        else:
            with self.cond:
                for t in first:
                    self._request(t, demand=True)
        return self

    def close(self) -> None:
        with self.cond:
            self._closed = True
            syncing = any(t.syncing for t in self.targets.values())
            self.cond.notify_all()
        if syncing:
            self.worker.kill()      # a shutdown does not wait for a long catch-up; nothing is published
        if self.watcher is not None:
            self.watcher.close()
        if self._thread is not None:
            self._thread.join(timeout=120)
        self.worker.close()
        with self._barrier_lock:
            for barrier in self._barriers.values():
                if barrier is not None:
                    barrier.close()
            self._barriers.clear()

    def __enter__(self) -> "LiveIndex":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def watching(self) -> bool:
        return self.watcher is not None

    # ------------------------------------------------------------ the hook (pybridge.query.freshness.LiveHook)

    def bound(self) -> float:
        return self.config.fresh_wait_s

    def wait_fresh(self, root: Path, timeout: float | None = None) -> Outcome:
        t = self.targets.get(Path(root))
        if t is None or not self.watching:
            return Outcome("off")
        bound = self.config.fresh_wait_s if timeout is None else timeout
        t0 = time.monotonic()
        deadline = t0 + max(bound, 0.0)
        with self.cond:
            ticket = self._request(t, demand=True)
            while True:
                while t.finished < ticket:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or self._closed:
                        return Outcome("timeout", waited_s=time.monotonic() - t0)
                    self.cond.wait(remaining)
                last = t.last or {}
                if last.get("outcome") == "changed":
                    ticket = t.requested        # files changed during that sync: it runs again
                    continue
                state = "failed" if last.get("outcome") in ("failed", "not_synced") else "fresh"
                return Outcome(state, error=t.last_error if state == "failed" else None,
                               generation=last.get("generation"), waited_s=time.monotonic() - t0)

    def notice(self, root: Path) -> None:
        t = self.targets.get(Path(root))
        if t is None or not self.watching:
            return
        with self.cond:
            if t.pending or t.syncing:
                return
            failed = t.last is not None and t.last.get("outcome") in ("failed", "not_synced")
            if failed and (t.last_event is None or (t.started_at is not None and t.last_event < t.started_at)):
                return          # the inputs that failed are unchanged: wait for an edit or a query's demand
            self._request(t, demand=False)

    def first_sync(self, root: Path) -> FirstSync | None:
        """How far the background first sync of the workspace got; None when there was none (it was
        synced before this server started, or auto-sync is off)."""
        t = self.targets.get(Path(root))
        with self.cond:
            return t.first.view() if t is not None and t.first is not None else None

    def wait_first_sync(self, root: Path, timeout: float) -> FirstSync | None:
        """Wait, up to `timeout` seconds, for the background first sync to end; what it came to."""
        t = self.targets.get(Path(root))
        if t is None or t.first is None:
            return None
        deadline = time.monotonic() + max(timeout, 0.0)
        with self.cond:
            while t.first.state == "indexing" and not self._closed:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self.cond.wait(remaining)
            return t.first.view()

    def changed_since(self, root: Path, at: float) -> bool:
        t = self.targets.get(Path(root))
        return t is not None and t.last_event is not None and t.last_event >= at

    def epoch(self, root: Path, snapshot: Snapshot) -> int | None:
        """The inotify event counter over the snapshot's inputs (`pybridge.live.barrier`), or None when
        it proves nothing here: not watching, polling asked for, no inotify, or closed."""
        if not self.watching or self.config.poll or self._closed:
            return None
        root = Path(root)
        with self._barrier_lock:
            if root not in self._barriers:
                self._barriers[root] = Barrier.create() if root in self.targets else None
            barrier = self._barriers[root]
        if barrier is None:
            return None
        return barrier.epoch(str(root), snapshot.source_roots, snapshot.build_files, snapshot.places)

    def proven(self, root: Path) -> tuple[int, int] | None:
        """(generation, barrier count) when the last catch-up published that generation with its files
        matching its snapshot as of that count (`sync`'s `epoch`); None otherwise."""
        t = self.targets.get(Path(root))
        if t is None or not sweep_by_events():
            return None
        with self.cond:
            return t.proof

    def _proof(self, root: Path) -> str:
        """How exact queries know the files match: `events` (the inotify counter) or `stat` (a sweep)."""
        with self._barrier_lock:
            barrier = self._barriers.get(root)
        return "events" if barrier is not None and barrier.proving else "stat"

    def describe(self, root: Path) -> dict[str, Any] | None:
        t = self.targets.get(Path(root))
        if t is None:
            return None
        with self.cond:     # the last edit's diff of a catch-up that already woke its waiters
            self.cond.wait_for(lambda: not t.noting or self._closed, timeout=max(self.config.fresh_wait_s, 1.0))
        now = time.monotonic()
        w = self.watcher
        return {
            "watching": w is not None,
            "watchMode": (w.mode if w is not None else "off"),
            "watchError": w.error if w is not None else None,
            "pending": t.pending, "syncing": t.syncing,
            "lagSeconds": round(now - t.first_pending, 3) if t.first_pending is not None else 0.0,
            "edits": t.events, "catchUps": t.catch_ups,
            "lastCatchUp": t.last_sync,
            "lastCheck": t.last,
            "lastEdit": t.last_edit,
            "freshWaitSeconds": self.config.fresh_wait_s,
            "freshnessProof": self._proof(Path(root)),
            "worker": self.worker.describe(),
        }

    # ------------------------------------------------------------ edits

    def _on_change(self, root: Path, paths: list[Path]) -> None:
        t = self.targets.get(root)
        if t is None:
            return
        with self.cond:
            t.events += len(paths)
            t.last_event = time.monotonic()
            if any(t.is_input(p) for p in paths):
                t.scope.set_source_roots(())        # modules may have changed: every .java counts until reloaded
            self._request(t, demand=False)

    def _request(self, t: Target, demand: bool) -> int:
        """Ask for a catch-up that starts after now; the ticket is reached when `finished` gets to it."""
        t.requested += 1
        if t.first_pending is None:
            t.first_pending = time.monotonic()
        t.demanded = t.demanded or demand
        self.cond.notify_all()
        return t.requested

    # ------------------------------------------------------------ the catch-up thread

    def _next(self) -> Target | None:
        """The next workspace due for a catch-up, waiting for one; None when closing."""
        with self.cond:
            while not self._closed:
                now = time.monotonic()
                wake: float | None = None
                for t in self.targets.values():
                    if not t.pending:
                        continue
                    due = now if t.demanded or t.last_event is None else t.last_event + self.config.debounce_s
                    if due <= now:
                        t.started, t.syncing, t.demanded = t.requested, True, False
                        t.started_at = now
                        if t.first is not None and t.first.state == "failed":
                            t.first = _FirstRun()        # tried again after an edit
                        return t
                    wake = due if wake is None else min(wake, due)
                self.cond.wait(None if wake is None else max(wake - now, 0.001))
        return None

    def _loop(self) -> None:
        while True:
            t = self._next()
            if t is None:
                return
            began = time.monotonic()
            first_pending = t.first_pending
            try:
                outcome, error = self._catch_up(t)
            except Exception as exc:  # the loop must survive anything
                log.exception("catch-up of %s failed", t.root)
                outcome = {"outcome": "failed", "generation": None}
                error = {"error": f"The catch-up sync failed unexpectedly ({type(exc).__name__}: {exc}).",
                         "code": "sync_failed"}
            ended = time.monotonic()
            with self.cond:
                t.syncing = False
                t.finished = t.started
                t.catch_ups += 1 if outcome["outcome"] != "unchanged" else 0
                outcome.update({"at": _now_iso(), "durationSeconds": round(ended - began, 3)})
                if first_pending is not None and outcome["outcome"] in ("published", "unchanged"):
                    outcome["lagSeconds"] = round(ended - first_pending, 3)
                if error is not None:
                    outcome["error"] = error.get("error")
                    outcome["code"] = error.get("code")
                t.last, t.last_error = outcome, error
                if t.first is not None and t.first.state == "indexing":
                    if outcome["outcome"] == "published":
                        t.first.state, t.first.phase = "done", "done"
                    elif outcome["outcome"] != "changed":       # changed: it runs again at once
                        t.first.state, t.first.error = "failed", error
                if outcome["outcome"] != "unchanged":
                    t.last_sync = outcome
                if outcome["outcome"] == "changed":
                    self._request(t, demand=True)        # the edit that spoiled it is on disk: go again
                elif not t.pending:
                    t.first_pending = None
                after, t.after = t.after, None
                t.noting = after is not None
                self.cond.notify_all()
            if after is not None:
                self._after_answer(t, *after)

    def _after_answer(self, t: Target, before: int | None, after: int) -> None:
        """What a published catch-up leaves for after its waiters are woken: the last edit's diff, and
        the collection of the generations beyond the kept ones (`_collect`)."""
        try:
            if before is not None and before != after:
                self._note_last_edit(t, before, after)
            self._collect(t)
        finally:
            with self.cond:
                t.noting = False
                self.cond.notify_all()

    def _collect(self, t: Target) -> None:
        """The store's garbage collection after a catch-up published without it (`sync(collect=False)`),
        under the state folder's sync lock, taken without waiting: a sync holding it stages, and
        its `stage` collects first (so does any writer's open). Best effort: a store left uncollected
        is collected by the next sync."""
        location = store_location(t.state)
        # the locks a sync holds, in its order: the checkout's, then (a shared store) the repository's
        locks = [SyncLock(t.state)] + ([SyncLock(location.repository)] if location.repository is not None else [])
        held: list[SyncLock] = []
        try:
            for lock in locks:
                lock.acquire(wait=False)
                held.append(lock)
            Store.open(location.path, checkout=location.checkout, state_dir=t.state).close()  # collects
        except SyncBusyError:
            pass
        except Exception:
            log.warning("the store of %s could not be collected after the catch-up", t.root, exc_info=True)
        finally:
            for lock in reversed(held):
                lock.release()

    def _catch_up(self, t: Target) -> tuple[dict[str, Any], dict[str, Any] | None]:
        current = self._current(t)
        if current is None and t.first is None:
            return {"outcome": "not_synced", "generation": None}, {
                "error": f"{t.slug} has never been synced; call sync once, then edits are caught up "
                         f"in the background.", "code": "not_synced"}
        number: int | None = None
        progress: Callable[[dict[str, Any]], None] | None = None
        if current is None:
            progress = self._first_progress(t)
        else:
            number, snapshot = current
            try:
                snap = Snapshot.from_json(t.root, snapshot)
                # a snapshot older than `places` and `ctimes` cannot see a new source root or a kept-stat
                # edit: one sync brings it up to date
                if not snap.legacy and (self._still_proven(t, number, snap) or not any_change(snap)):
                    if t.rehearsed or not self.config.rehearse:
                        return {"outcome": "unchanged", "generation": number}, None
                    return self._rehearse(t, number)     # the first look at this workspace
            except Exception:  # an unreadable snapshot: let the sync decide
                log.debug("stat comparison failed for %s", t.root, exc_info=True)
        extra: dict[str, Any] = {} if progress is None else {"progress": progress}
        later = after_answer() and current is not None
        if later:
            extra["collect"] = False     # `_collect`, once the waiters are woken
        if current is not None and sweep_by_events():
            extra["epoch"] = lambda snap: self.epoch(t.root, snap)
        attempts = 2            # a worker that died under the sync gets one retry with a fresh child
        while True:
            attempts -= 1
            try:
                result = self._sync(t, **extra)
            except StaleSnapshotError as exc:
                return {"outcome": "changed", "generation": number, "changed": list(exc.changed)[:20]}, {
                    "error": exc.message, "code": "stale_snapshot"}
            except WorkerError as exc:
                if attempts > 0 and exc.cause in ("killed", "crashed") and not self._closed:
                    log.warning("worker failed during the catch-up of %s (%s); retrying", t.root, exc.cause)
                    continue
                return self._changed(t, number, exc) or self._failed(t, number, exc)
            except PybridgeError as exc:
                return self._changed(t, number, exc) or self._failed(t, number, exc)
            return self._synced(t, number, result, later), None

    def _synced(self, t: Target, number: int | None, result: Any, later: bool) -> dict[str, Any]:
        """The outcome of a catch-up whose sync returned `result` over generation `number`: the scope
        reloaded, the freshness proof kept, and the last edit's diff noted (or left, with the store's
        collection, to `_after_answer` when `later`)."""
        self._load_scope(t)
        published = getattr(result, "published", False)
        proven = getattr(result, "epoch", None)
        with self.cond:
            t.proof = (result.generation, proven) if published and proven is not None else None
        if later and published:
            t.after = (number, result.generation)      # `_after_answer`
        elif published and number is not None and result.generation != number:
            self._note_last_edit(t, number, result.generation)
        return {"outcome": "published", "generation": result.generation,
                "syncSeconds": round(result.duration_s, 3)}

    def _sync(self, t: Target, **extra: Any) -> Any:
        """One sync of `t` on the warm worker, as every catch-up runs it."""
        return self.sync_function(t.root, state_dir=t.state, worker=self.worker, wait=True,
                                  allow_online=self.config.allow_online,
                                  build_tool=t.system.name if t.system is not None else t.build_tool, **extra)

    def _rehearse(self, t: Target, number: int | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The first catch-up of a workspace that finds nothing changed syncs anyway, with `rehearse`:
        one unchanged file is indexed again and nothing is published (`pybridge.sync.pipeline._rehearse`),
        so that the first edit an agent makes finds the caches the later ones find (PYBRIDGE_LIVE_REHEARSE).
        Its outcome is the stat comparison's, unchanged, unless an edit landed between that comparison
        and the rehearsal's own: then the rehearsal synced and published as any catch-up does, and its
        outcome says so (`_synced`; the store's collection, which it left, is `_after_answer`'s)."""
        t.rehearsed = True
        try:
            result = self._sync(t, rehearse=True, collect=False)
        except Exception:  # a rehearsal only saves time; the next catch-up runs as it would have
            log.warning("the rehearsal catch-up of %s failed", t.root, exc_info=True)
            return {"outcome": "unchanged", "generation": number}, None
        if getattr(result, "published", False):
            return self._synced(t, number, result, later=True), None
        return {"outcome": "unchanged", "generation": number}, None

    def _still_proven(self, t: Target, number: int, snap: Snapshot) -> bool:
        """Whether the catch-up that published generation `number` found its files matching as of a barrier
        count that has not moved since (`sync`'s `epoch`): no input changed, as the stat check would find.
        The watcher's event of the edit that catch-up indexed asks for one more catch-up, which is this."""
        if not sweep_by_events():
            return False
        with self.cond:
            proof = t.proof
        return proof is not None and proof[0] == number and self.epoch(t.root, snap) == proof[1]

    def _note_last_edit(self, t: Target, before: int, after: int) -> None:
        """Keep the binding diff of what the catch-up published (`pybridge.edits.lastedit`): from the
        facts of the two generations, no compile. Best effort: a failure leaves no last edit."""
        try:
            location = store_location(t.state)
            with Store.open(location.path, readonly=True, checkout=location.checkout) as store:
                with store.reader(before) as old, store.reader(after) as new:
                    secret = load_secret(t.state)
                    check = last_edit(old, new, lambda symbol_id, key: make_key(secret, symbol_id, key))
            t.last_edit = None if check is None else edit_summary(check, before, _now_iso())
        except Exception:
            log.warning("the diff of the last edit of %s could not be computed", t.root, exc_info=True)
            t.last_edit = None

    def _first_progress(self, t: Target) -> Callable[[dict[str, Any]], None]:
        """The first sync's progress events, kept on `t.first` for `first_sync`."""
        def on_event(event: dict[str, Any]) -> None:
            with self.cond:
                first = t.first
                if first is None:
                    return
                first.phase = str(event.get("phase") or first.phase)
                if first.phase == "index" and event.get("total"):
                    first.files_done, first.files_total = int(event.get("done") or 0), int(event["total"])
                    if first.index_t0 is None:
                        first.index_t0, first.index_done0 = time.monotonic(), first.files_done
        return on_event

    def _changed(self, t: Target, number: int | None,
                 exc: PybridgeError) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """A sync that failed while its inputs changed (e.g. a source folder removed under the indexer: JDT
        refuses a sourcepath entry that is gone) failed on a tree that is no longer there: it runs again at
        once, as a sync that saw its inputs change does. None when no edit arrived since it started, and for
        a first sync (no generation yet: its failure is reported, and the next edit starts it again)."""
        if (number is None or t.last_event is None or t.started_at is None or t.last_event < t.started_at
                or self._closed):
            return None
        log.info("catch-up of %s failed while files changed (%s); running it again", t.root, exc.message)
        return {"outcome": "changed", "generation": number}, {
            "error": f"The catch-up sync failed while files changed under it ({exc.message}); it runs again.",
            "code": "stale_snapshot"}

    def _failed(self, t: Target, number: int | None, exc: PybridgeError) -> tuple[dict[str, Any], dict[str, Any]]:
        cause = getattr(exc, "cause", None) or type(exc).__name__
        log.warning("catch-up of %s failed: %s", t.root, exc.message)
        if number is None:
            return {"outcome": "failed", "generation": None}, {
                "error": f"The first sync of {t.slug} failed: {exc.message} Fix that, then call sync (the "
                         f"server also tries again when a file of the workspace changes).",
                "code": "sync_failed", "cause": cause}
        return {"outcome": "failed", "generation": number}, {
            "error": f"The catch-up sync of {t.slug} failed: {exc.message} Generation {number} is still "
                     f"served.", "code": "sync_failed", "cause": cause}

    def _published_agents(self) -> tuple[str, ...]:
        """The Java agents of the first served workspace whose published generation needed any (one JVM
        serves them all; workspaces that need other agents restart it when they sync)."""
        for t in self.targets.values():
            location = store_location(t.state)
            if not location.path.exists():
                continue
            store = Store.open(location.path, readonly=True, checkout=location.checkout)
            try:
                info = store.current_generation()
            finally:
                store.close()
            if info is not None and (agents := GenerationMeta.of(info).agents):
                return agents
        return ()

    def _current(self, t: Target) -> tuple[int, dict[str, Any]] | None:
        location = store_location(t.state)
        if not location.path.exists():
            return None
        store = Store.open(location.path, readonly=True, checkout=location.checkout)
        try:
            info = store.current_generation()
            return None if info is None else (info.number, info.snapshot)
        finally:
            store.close()

    def _load_scope(self, t: Target) -> None:
        """The source folders that count, and the places where one can appear, from the workspace model
        (and the current generation)."""
        roots: set[Path] = set()
        places: set[Path] = set()
        parents: set[Path] = set()
        try:
            current = self._current(t)
            if current is not None:
                snap = Snapshot.from_json(t.root, current[1])
                roots |= {t.root / r for r in snap.source_roots}
                for place in snap.places:
                    if place.endswith(PARENT_MARK):
                        parents.add(t.root / place[:-len(PARENT_MARK)])
                    else:
                        places.add(t.root / place)
        except Exception:  # no generation readable: the model alone decides
            log.debug("no generation for %s", t.root, exc_info=True)
        try:
            if t.system is None:
                t.system = _system_of(t.root, t.state, t.build_tool)
            modules = t.system.load(t.root, state_dir=t.state).modules if t.system is not None else ()
            for module in modules:
                for scope in module.scopes.values():
                    roots |= {Path(r) for r in scope.roots}
                candidates = candidate_roots(module)
                places |= set(candidates.folders)
                parents |= set(candidates.parents)
        except Exception:  # a broken POM: keep what the generation says
            log.debug("workspace model of %s unreadable", t.root, exc_info=True)
        t.scope.set_source_roots(roots)
        t.scope.set_places(places, parents)


def _system_of(root: Path, state: Path, build_tool: str) -> BuildSystem | None:
    """The build system of a served root: the one named, else the one its current generation was read with,
    else the one that owns the root (None: none does yet)."""
    try:
        if build_tool != AUTO:
            return by_name(build_tool)
        location = store_location(state)
        if location.path.exists():
            store = Store.open(location.path, readonly=True, checkout=location.checkout)
            try:
                info = store.current_generation()
            finally:
                store.close()
            recorded = GenerationMeta.of(info).build_tool if info is not None else None
            if recorded:
                return by_name(recorded)
        return select(root)
    except (WorkspaceError, PybridgeError):
        log.debug("no build system for %s yet", root, exc_info=True)
        return None
