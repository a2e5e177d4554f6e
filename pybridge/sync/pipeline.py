"""One sync: discover modules -> fingerprint -> resolve classpaths -> plan
-> index in the worker JVM and stage the facts as a new generation -> check
the fingerprint again -> publish (DESIGN sections 2 and 5). `sync()` reads
top to bottom as these phases, one function each.

Every failure ends in a `PybridgeError` and leaves the last published
generation current: nothing is visible until the one publish transaction.
A sync whose inputs changed while it ran publishes nothing and raises
`StaleSnapshotError` with the changed paths.
"""

from __future__ import annotations

import codecs
import gc
import hashlib
import logging
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from pybridge import switches
from pybridge.errors import PybridgeError
from pybridge.facts import FileFacts
from pybridge.store import GenerationInfo, Reader, Staging, Store
from pybridge.store.store import Sibling, configured_keep
from pybridge.sync import agents, faults
from pybridge.sync import snapshot as snapshots
from pybridge.sync.diskfull import names_full_disk
from pybridge.sync.lock import SyncLock
from pybridge.sync.meta import (
    REFLECTION_NOT_TRACKED,
    Counts,
    GenerationMeta,
    MetaLimitation,
    ModuleMeta,
    ScopeMeta,
    relative,
)
from pybridge.sync.oversized import has_oversized, stage_oversized
from pybridge.sync.planner import FileEntry, Job, Plan, Propagation, Units, environment, placement, plan, visibility
from pybridge.sync.release import settle_api
from pybridge.sync.state import StoreLocation, state_dir_for
from pybridge.sync.state import prepare as prepare_state
from pybridge.sync.summary import Signatures, summarize
from pybridge.worker import INDEXER_VERSION, IndexRequest, IndexTask, Worker
from pybridge.worker.client import CHUNK_FILES
from pybridge.worker.jdk import JdkNotFoundError
from pybridge.workspace import (
    AUTO,
    BuildSystem,
    ClasspathResult,
    Limitation,
    Module,
    SiblingCheckout,
    Workspace,
    ignored,
    select,
)
from pybridge.workspace.generated import generated_roots, is_generated, mark_generated

log = logging.getLogger("pybridge.sync")

Progress = Callable[[dict[str, Any]], None]
Epoch = Callable[[snapshots.Snapshot], "int | None"]   # input events counted (see `sync`), None: no proof


class StaleSnapshotError(PybridgeError):
    """The workspace changed while the sync ran: nothing was published."""

    code = "stale_snapshot"

    def __init__(self, changed: list[str]) -> None:
        shown = ", ".join(changed[:10]) + (" …" if len(changed) > 10 else "")
        super().__init__(
            f"The workspace changed while the sync ran ({shown}); nothing was published and the previous "
            "generation is still served. Run sync again once the edits are done.", changed=changed)
        self.changed = changed


@dataclass
class SyncResult:
    generation: int
    root: str
    state_dir: str
    duration_s: float
    counts: dict[str, int]
    modules: list[dict[str, Any]]
    limitations: list[dict[str, Any]]
    reused_files: int
    timings: dict[str, float] = field(default_factory=dict)
    published: bool = True          # False: no input changed, the current generation stays current
    reindexed_files: int = 0        # files the JVM indexed (the rest were reused as stored)
    incremental: bool = False       # planned from the previous generation (else a full index)
    rounds: int = 0                 # indexing rounds (the edited files, then what they affect …)
    full_reason: str = ""           # why a full index: no previous generation, forced, …
    epoch: int | None = None        # the `epoch` counter as of which the files matched the published snapshot

    @property
    def unchanged(self) -> bool:
        return not self.published

    def to_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation, "root": self.root, "stateDir": self.state_dir,
            "durationSeconds": round(self.duration_s, 3), "counts": self.counts, "modules": self.modules,
            "limitations": self.limitations, "reusedFiles": self.reused_files,
            "reindexedFiles": self.reindexed_files, "published": self.published, "unchanged": self.unchanged,
            "incremental": self.incremental, "rounds": self.rounds, "fullReason": self.full_reason or None,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def _keep_default() -> int:
    return configured_keep()


class _Starter(threading.Thread):
    """Starts the worker's JVM and, for a first (full) index, warms JDT up while Maven resolves
    classpaths (a second or two each). An incremental sync indexes a few files: it skips the warm-up."""

    def __init__(self, worker: Worker, warm: bool) -> None:
        super().__init__(name="pybridge-worker-start", daemon=True)
        self.worker = worker
        self.warm = warm
        self.error: BaseException | None = None
        self.timings: dict[str, float] = {}     # jvm_start, warmup: seconds (for the sync's timings)
        # Set once the classpaths are known: a warm-up only pays while it overlaps Maven, so a
        # resolution that needed no Maven run (or a cached one) finds the JVM started, not warming.
        self.resolved = threading.Event()

    def run(self) -> None:
        try:
            t = time.perf_counter()
            self.worker.start()
            self.timings["jvm_start"] = time.perf_counter() - t
            if self.warm and not self.resolved.is_set():
                t = time.perf_counter()
                self.worker.warmup()
                self.timings["warmup"] = time.perf_counter() - t
        except BaseException as exc:  # noqa: BLE001 - re-raised on the sync's thread
            self.error = exc


STAGING_GC_THRESHOLD = (100_000, 50, 100)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Indexing and staging make millions of short-lived objects (facts, rows), freed by reference
    counting, while the staging's symbol cache holds hundreds of thousands of lists that every
    full collection walks again. With CPython's default thresholds (700, 10, 10) the cyclic
    collector took 10-15% of a guava staging's CPU (`bench`-style replay of its facts); a young
    collection every 100,000 allocations instead removes nearly all of it. The thresholds are
    the process's: restored when the phase ends (a live index's concurrent syncs, or the MCP
    server's GC pacer, which turns automatic collection off, only see a different pace)."""
    before = gc.get_threshold()
    gc.set_threshold(*STAGING_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def git_head(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


@names_full_disk
def sync(root: Path | str, *, state_dir: Path | str | None = None, allow_online: bool = True,
         wait: bool = True, progress: Progress | None = None, worker: Worker | None = None,
         heap: str | None = None, maven_timeout: float = 300, keep: int | None = None,
         force: bool = False, build_tool: str = AUTO, collect: bool = True,
         epoch: Epoch | None = None, rehearse: bool = False) -> SyncResult:
    """Index what changed in the workspace at `root` and publish a new generation.

    Phases, in order: read the build files (the build system `build_tool`
    names, by default the one that owns `root`: `pybridge.workspace.select`)
    and fingerprint the sources (`snapshot`); resolve classpaths with the
    build tool while the worker JVM starts (`maven_timeout` bounds each of its
    runs; a build tool that runs to read the workspace, Gradle, runs while the
    JVM of a first or forced sync starts: `_early_start`); plan (which
    files the edits since the current generation can affect, `planner`);
    index those files in rounds and stage their facts; check that no input
    changed meanwhile; publish. When no input changed, nothing is published
    and the result says `published=False` (the current generation, its keys
    and its cursors stay valid). `force=True` re-indexes every file.
    `worker`: a started worker to reuse (the live index keeps one warm);
    otherwise one is started and closed here. `keep`: how many published
    generations to retain (default 3, or PYBRIDGE_KEEP_GENERATIONS). `collect=False`: the
    publish leaves the generations beyond those to the next writer (the live index collects once
    the catch-up's waiters are woken; any writer's open or stage collects).
    `epoch`: a counter of the input events since some start (the live index's inotify barrier,
    `pybridge.live.barrier`), None where it proves nothing; taken before the files are
    fingerprinted and again before publishing, an unchanged count stands for the end-of-run sweep
    (no input changed meanwhile), and the result's `epoch` is the count as of which the files
    matched the published snapshot (the first query on it need not sweep again).
    `rehearse=True`: when no input changed, one unchanged file is indexed again all the way (plan,
    placement, the worker with the workspace's classpath, staging) and nothing is published, so that
    the next catch-up finds its caches filled (`_rehearse`; the live index does it once per workspace).
    """
    run = _Run(Path(root).resolve(), progress or (lambda _event: None), time.perf_counter())
    run.state = state_dir_for(run.root, state_dir)
    # 0700, bound to this root (refuses another), its key secret; its store: its own, or the one
    # its repository's checkouts share (pybridge.sync.state)
    location = prepare_state(run.state, run.root)
    lock = SyncLock(run.state)
    lock.acquire(wait=wait, say=lambda msg: run.say({"phase": "lock", "message": msg}))
    own_worker = worker is None
    starter: _Starter | None = None
    try:
        system = select(run.root, build_tool)
        with _repository_lock(run, location, wait), \
                Store.open(location.path, keep=_keep_default() if keep is None else keep,
                           checkout=location.checkout, state_dir=run.state) as store:
            # We hold the sync lock: the current generation cannot change until we publish.
            previous = store.current_generation()
            if worker is None:
                worker = Worker(heap) if heap else Worker()
            starter = _early_start(worker, system, run.root, previous, force)
            before = snapshots.Snapshot.from_json(run.root, previous.snapshot) if previous is not None else None
            if epoch is not None and before is not None:
                run.epoch = epoch, epoch(before)    # before any input is read (the build files included)
            run.say({"phase": "workspace", "message": f"reading the {system.wording.build_files} under {run.root}"})
            t_load = time.perf_counter()
            workspace = system.load(run.root, state_dir=run.state, allow_online=allow_online, timeout=maven_timeout,
                                    progress=lambda message: run.say({"phase": "build", "message": message}))
            run.timings["load"] = time.perf_counter() - t_load   # Maven: the POMs; Gradle: its run (in `fingerprint`)
            snap = snapshots.take(workspace, indexer_version=INDEXER_VERSION, build_files=system.inputs(workspace),
                                  previous=before)
            run.timings["fingerprint"] = time.perf_counter() - run.t0
            if location.shared:     # a removed worktree's generations hold nothing another uses
                store.forget([s.checkout for s in store.siblings() if not Path(s.checkout).is_dir()])
            # A checkout's first sync starts from the nearest sibling checkout's generation.
            origin = _nearest_sibling(store, snap) if previous is None and not force else None
            if origin is not None:
                previous = origin.generation
                run.say({"phase": "plan", "message": f"starting from generation {previous.number} of the "
                                                     f"checkout {origin.checkout} (same repository)"})
            sibling_root = _root_of(origin)
            sibling = None
            if origin is not None and sibling_root is not None:
                sibling = SiblingCheckout(sibling_root, Path(origin.state_dir) if origin.state_dir else None)
            classpaths = _resolve(run, system, workspace, snap, previous, worker, allow_online, maven_timeout,
                                  starter, sibling)
            inputs = _inputs(run, system, workspace, snap, classpaths, previous)
            reader = None
            if previous is not None:
                reader = store.reader(previous.number, origin.checkout) if origin is not None else store.reader()
            try:
                todo = _plan(run, inputs, previous, reader, force, origin)
                if todo.unchanged and origin is None:
                    if rehearse and reader is not None:
                        _rehearse(run, worker, store, snap, inputs, classpaths, todo, reader)
                    return _unchanged(run, store, previous, snap, inputs)
                _settle_agents(worker, inputs, classpaths)
                meta = _begun(run, inputs)
                with store.stage(snap.to_json(), meta.to_json(), collect=collect) as staging:
                    with _fewer_collections():
                        staged = _index(run, worker, staging, inputs, todo, reader)
                    if reader is not None:
                        reader.close()
                    number = _publish(run, staging, snap, _meta(meta, inputs, staged))
            finally:
                if reader is not None:
                    reader.close()
            return _result(run, store, number, inputs, staged, todo)
    finally:
        if starter is not None:
            starter.resolved.set()
            starter.join()      # never close the worker while its start is under way
        if own_worker and worker is not None:
            worker.close()
        lock.release()


def _early_start(worker: Worker, system: BuildSystem, root: Path, previous: GenerationInfo | None,
                 force: bool) -> _Starter | None:
    """A sync that will index every file (a first one, or forced) starts a worker not running yet (its
    own, or one handed to it) before a build system whose `load` runs the build tool (Gradle) reads the
    workspace, so that the JVM's start and JDT's warm-up overlap that run. Its Java agents are the ones
    the last generation needed, or on a first sync the build system's guess from the build files
    (`agent_hint_before_load`: Lombok's jar); when its hint after `load` names others,
    `_resolve` replaces the JVM. Any other sync starts it only once it knows that an input changed
    (`_resolve`): a sync that publishes nothing starts no JVM; and Maven's `load` reads POMs in a
    moment, after which the JVM starts with its agent hint."""
    if worker.pid is not None or (previous is not None and not force):
        return None
    guess = system.agent_hint_before_load(root)
    if guess is None:
        return None
    worker.use_agents(GenerationMeta.of(previous).agents if previous is not None else guess)
    starter = _Starter(worker, warm=True)
    starter.start()
    return starter


@dataclass
class _Run:
    """What every phase of one sync shares."""

    root: Path
    say: Progress
    t0: float
    state: Path = Path()
    timings: dict[str, float] = field(default_factory=dict)
    epoch: tuple[Epoch, int | None] | None = None   # the `epoch` function and its count before the fingerprint
    proven: int | None = None                       # the count as of which the files matched the published snapshot


@dataclass
class _Inputs:
    """The sync's inputs, as the planner and the indexer see them."""

    system: BuildSystem
    workspace: Workspace
    snap: snapshots.Snapshot
    jobs: dict[Job, tuple[Module, ClasspathResult]]   # module and scope -> how to index it, in order
    files: dict[str, FileEntry]                       # relpath -> where it is indexed
    envs: dict[Job, str]                              # job -> environment fingerprint
    visible: dict[Job, set[Job]]                      # job -> the jobs that see its sources
    build_changed: set[str]                           # module ids whose build files changed
    generated: tuple[Path, ...] = ()                  # generated source folders (their facts are marked)
    roots: dict[Job, list[Path]] = field(default_factory=dict)   # job -> its source roots
    agents: tuple[str, ...] = ()                      # the Java agent jars the classpaths call for


@dataclass
class _Staged:
    """What the index phase staged: per file (job, binding complete, references, problems)."""

    per_file: dict[str, tuple[Job, bool, int, int]] = field(default_factory=dict)
    reindexed: int = 0
    reused: int = 0
    rounds: int = 0


def _resolve(run: _Run, system: BuildSystem, workspace: Workspace, snap: snapshots.Snapshot,
             previous: GenerationInfo | None, worker: Worker, allow_online: bool,
             maven_timeout: float, starter: _Starter | None,
             sibling: SiblingCheckout | None = None) -> dict[Job, ClasspathResult]:
    """Classpaths from the build tool (or a sibling checkout's, when its build files are the same);
    meanwhile a JVM starts and warms up when sources or build files changed (`starter`: one that
    `_early_start` started already)."""
    t = time.perf_counter()
    if starter is not None:         # started before `load`, which is over
        starter.resolved.set()
        starter.join()
        run.timings.update({f"early_{k}": v for k, v in starter.timings.items()})
        if starter.error is not None:
            raise starter.error
        run.timings["early_wait"] = time.perf_counter() - t
        # After `load`, the hint of a build system that runs its tool to load is what the classpaths call
        # for: a JVM started on a wrong guess is replaced now, while nothing waits on it.
        starter = None
        worker.use_agents(system.agent_hint(workspace))
    if starter is None and worker.pid is None and (
            previous is None or previous.snapshot.get("inputs") != snap.inputs_fingerprint()):
        agents.prepare(worker, system, workspace)    # Lombok's agent, when the build files name it
        starter = _Starter(worker, warm=previous is None)
        starter.start()

    def maven_progress(message: str) -> None:
        faults.hit("sync.maven")
        run.say({"phase": "build", "message": message})

    try:
        classpaths = system.resolve(workspace, run.state, allow_online=allow_online, timeout=maven_timeout,
                                    progress=maven_progress, sibling=sibling)
    finally:
        resolved = time.perf_counter()
        if starter is not None:
            starter.resolved.set()
            starter.join()    # never close the worker while its start is under way
    # `maven`: until both the classpaths and the JVM are ready; `classpaths`: resolution alone
    # (Maven's runs, or none), `jvm_wait`: what the JVM's start and warm-up added after it.
    run.timings["maven"] = time.perf_counter() - t
    run.timings["classpaths"] = resolved - t
    run.timings["jvm_wait"] = time.perf_counter() - resolved
    if starter is not None:
        run.timings.update(starter.timings)
        if starter.error is not None:
            raise starter.error
    for cp in classpaths.values():
        snapshots.add_classpath(snap, cp.classpath)
    try:
        libjvm = worker.jvm_path
    except JdkNotFoundError:
        return classpaths           # no JDK: nothing to index with (the worker's start says so, if needed)
    return settle_api(classpaths, libjvm)


def _inputs(run: _Run, system: BuildSystem, workspace: Workspace, snap: snapshots.Snapshot,
            classpaths: dict[Job, ClasspathResult], previous: GenerationInfo | None) -> _Inputs:
    jobs: dict[Job, tuple[Module, ClasspathResult]] = {}
    files: dict[str, FileEntry] = {}
    roots: dict[Job, list[Path]] = {}
    for module in workspace.modules:
        for scope_name, scope in module.scopes.items():
            cp = classpaths.get((module.id, scope_name))
            listed = snap.scope_files.get((module.id, scope_name), {})
            roots[(module.id, scope_name)] = list(scope.roots)
            if (listed or has_oversized(snap, module.id, scope_name)) and cp is not None:
                jobs[(module.id, scope_name)] = (module, cp)
                for abs_path, rel in listed.items():
                    files[rel] = FileEntry(rel, module.id, scope_name, abs_path)
    envs = {job: environment(cp, module.encoding, snap.classpath) for job, (module, cp) in jobs.items()}
    # The snapshot's table of build files (DESIGN section 5) by relpath -> [..., sha256].
    old_builds = snapshots.stored_build_files(previous.snapshot) if previous is not None else {}
    build_changed = set()
    for module in workspace.modules:
        for build_file in module.build_files:
            rel = _relpath(run.root, build_file)
            if (old_builds.get(rel) or [None])[-1] != snap.build_files.get(rel, [None])[-1]:
                build_changed.add(module.id)
    return _Inputs(system, workspace, snap, jobs, files, envs,
                   visibility({job: cp for job, (_m, cp) in jobs.items()}, roots), build_changed,
                   generated_roots(workspace), roots, agents.needed(classpaths))


def _settle_agents(worker: Worker, inputs: _Inputs, classpaths: dict[Job, ClasspathResult]) -> None:
    """A JVM is needed: give it the agents the classpaths call for (Lombok's), and let each job's
    limitations say what really loaded."""
    settled = agents.settle(worker, inputs.system, inputs.workspace, classpaths)
    inputs.jobs = {job: (module, settled.get(job, cp)) for job, (module, cp) in inputs.jobs.items()}


def _relpath(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path.resolve())


def _plan(run: _Run, inputs: _Inputs, previous: GenerationInfo | None, reader: Reader | None,
          force: bool, origin: Sibling | None = None) -> Plan:
    """Which files the first indexing round takes (the planner's module doc says why). From a
    sibling checkout's generation (`origin`), the environments are compared as if this checkout's
    paths were the sibling's: what differs then is what differs in content."""
    t = time.perf_counter()
    envs_now = inputs.envs
    if origin is not None:
        sibling_root = _root_of(origin)
        envs_now = _envs_moved(inputs, run.root, sibling_root) if sibling_root is not None else {}
    sha = {rel: inputs.snap.files[rel][2] for rel in inputs.files}
    indexer_changed = previous is not None and previous.snapshot.get("indexer_version") != INDEXER_VERSION
    envs = GenerationMeta.of(previous).environments if previous is not None else None
    previous_envs = dict(envs) if envs is not None else None
    oversized = {rel: inputs.snap.files[rel][2] for rel in inputs.snap.oversized}
    todo = plan(inputs.files, sha, envs_now, inputs.build_changed, reader, previous_envs, force=force,
                indexer_changed=indexer_changed, oversized=oversized,
                was_oversized=previous.snapshot.get("oversized") or {} if previous is not None else ())
    faults.hit("sync.planned")
    run.timings["plan"] = time.perf_counter() - t
    return todo


def _envs_moved(inputs: _Inputs, root: Path, other: Path) -> dict[Job, str]:
    """Each job's environment fingerprint with every path under `root` spelled under `other` (a
    sibling checkout's root). A classpath entry inside the root keeps this checkout's stats, so
    it matches the sibling's only when its size and mtime do too."""
    def move(path: Path | str) -> Path:
        try:
            return other / Path(path).relative_to(root)
        except ValueError:
            return Path(path)

    stats = {str(move(key)): value for key, value in inputs.snap.classpath.items()}
    return {job: environment(replace(cp, classpath=tuple(map(move, cp.classpath)),
                                     sourcepath=tuple(map(move, cp.sourcepath))), module.encoding, stats)
            for job, (module, cp) in inputs.jobs.items()}


def _root_of(origin: Sibling | None) -> Path | None:
    root = GenerationMeta.of(origin.generation).root if origin is not None else None
    return Path(root) if root else None


def _nearest_sibling(store: Store, snap: snapshots.Snapshot) -> Sibling | None:
    """The sibling checkout (same repository, same store) whose current generation differs from
    this checkout's sources in the fewest files, among those of this indexer version; None when
    there is none. Files are compared by path (relative to each root) and content hash."""
    best: tuple[int, Sibling] | None = None
    for sibling in store.siblings():
        if sibling.generation.snapshot.get("indexer_version") != INDEXER_VERSION:
            continue
        theirs = sibling.generation.snapshot.get("files") or {}
        differ = sum(1 for rel, entry in snap.files.items()
                     if (theirs.get(rel) or [None])[-1] != entry[-1]) + len(theirs.keys() - snap.files.keys())
        if best is None or differ < best[0]:
            best = (differ, sibling)
    return best[1] if best is not None else None


@contextmanager
def _repository_lock(run: _Run, location: StoreLocation, wait: bool) -> Iterator[None]:
    """Checkouts sharing a store sync one at a time (the store has one writer): the repository's
    sync lock, held from planning to publishing (after the checkout's own lock: one order)."""
    if location.repository is None:
        yield
        return
    lock = SyncLock(location.repository, what="a sync of another checkout of this repository")
    lock.acquire(wait=wait, say=lambda msg: run.say({"phase": "lock", "message": msg}))
    try:
        yield
    finally:
        lock.release()


def _rehearse(run: _Run, worker: Worker, store: Store, snap: snapshots.Snapshot, inputs: _Inputs,
              classpaths: dict[Job, ClasspathResult], todo: Plan, reader: Reader) -> None:
    """Index one unchanged file of the largest module and scope again, as a catch-up of an edit to it
    would, and discard what was staged. The first catch-up in a process otherwise pays for what
    the ones after it find ready: the placement's per-file packages (`planner.placement`), the
    reader's and the snapshot's first reads, the worker's first request with this classpath (its
    jars opened, JDT's code for this workload compiled). Measured on hibernate-core: bench/RESULTS.md,
    "The first edit after serve starts". Best effort: a failure is logged and changes nothing."""
    t = time.perf_counter()
    try:
        by_job: dict[Job, list[str]] = {}
        for rel, entry in inputs.files.items():
            by_job.setdefault((entry.module, entry.scope), []).append(rel)
        if not by_job:
            return
        rels = max(by_job.values(), key=len)
        rels.sort(key=lambda rel: (inputs.snap.files[rel][0], rel))
        rel = rels[len(rels) // 2]          # a file of the median size: a typical edit's
        _settle_agents(worker, inputs, classpaths)
        one = Plan(full=False, why="", first={rel},
                   reusable={r: fv for r, fv in todo.reusable.items() if r != rel})
        meta = _begun(run, inputs)
        with store.stage(snap.to_json(), meta.to_json(), collect=False) as staging:
            _index(run, worker, staging, inputs, one, reader)
            # left unpublished: leaving the block discards it
    except Exception:  # a rehearsal only saves time: the sync's answer stands without it
        log.warning("the rehearsal of a catch-up of %s failed", run.root, exc_info=True)
    finally:
        run.timings["rehearse"] = time.perf_counter() - t


def _unchanged(run: _Run, store: Store, previous: GenerationInfo | None, snap: snapshots.Snapshot,
               inputs: _Inputs) -> SyncResult:
    """No input changed: publish nothing. Only the stats (mtimes of touched files) and the commit
    are brought up to date on the current generation, so that it reads as fresh."""
    assert previous is not None
    changed = snapshots.changes(snap)
    if changed:
        raise StaleSnapshotError(changed)
    now = snap.to_json()
    old = GenerationMeta.of(previous)
    # Kept up to date: the commit; and a record an older pybridge wrote gets this one's shape.
    meta = replace(old, commit=git_head(run.root), build_tool=inputs.system.name,
                   modules=_module_metas(run.root, inputs.workspace), agents=inputs.agents)
    tables = ("files", "build_files", "classpath", "source_roots", "places", "ctimes", "inodes")
    # A racy record (see `snapshot`) is hashed by every sync until a newer snapshot's time is recorded.
    racy = snapshots.Snapshot.from_json(run.root, previous.snapshot).any_racy()
    if any(previous.snapshot.get(k) != now[k] for k in tables) or meta != old or racy:
        store.refresh_generation(previous.number, now, meta.to_json())
    run.say({"phase": "index", "module": "(unchanged)", "scope": "", "done": len(inputs.files),
             "total": len(inputs.files)})
    counts = _counts(old.counts, inputs, old.limitations)
    return SyncResult(previous.number, str(run.root), str(run.state), time.perf_counter() - run.t0, counts,
                      [s.to_json() for s in old.scopes], [lim.to_json() for lim in old.limitations],
                      counts["files"], run.timings, published=False, incremental=True)


MANIFEST_COPY_ENV = "PYBRIDGE_MANIFEST_COPY"


def manifest_copy() -> bool:
    """Whether an incremental generation copies its unchanged files' manifest rows from the
    generation it planned from in SQLite (PYBRIDGE_MANIFEST_COPY, on by default)."""
    return switches.enabled(MANIFEST_COPY_ENV, "bind one manifest row per unchanged file from Python")


def _index(run: _Run, worker: Worker, staging: Staging, inputs: _Inputs, todo: Plan,
           reader: Reader | None) -> _Staged:
    """Index in rounds until nothing more is affected, staging each file's facts as they stream
    in; then list the files no edit affects with their stored versions."""
    staged = _Staged()
    propagation = None if todo.full or reader is None else Propagation(reader, inputs.files, inputs.visible)
    encodings = {job: module.encoding for job, (module, _cp) in inputs.jobs.items()}
    t = time.perf_counter()
    digests = {rel: inputs.snap.files[rel][2] for rel in inputs.files}
    units = None if propagation is None else Units(inputs.files, inputs.roots, inputs.visible, encodings, digests)
    run.timings["placement"] = time.perf_counter() - t
    done: set[str] = set()
    batch = set(todo.first)
    deleted = set(todo.deleted)    # a deletion alone affects other files too
    while batch or deleted:
        staged.rounds += 1
        if staged.rounds > 1:
            faults.hit("sync.next_round")
        along: set[str] = set()
        if units is not None:
            batch, along = units.round(batch, done)   # what must be compiled with it (misplaced files)
        signatures, edges = _index_round(run, worker, staging, inputs, batch, staged, len(done), along)
        done |= batch
        if propagation is None:
            break
        batch = propagation.after_round(signatures, edges, deleted, done)
        deleted = set()
    if reader is not None:
        old = reader.files_by_path()
        kept = [(rel, fv) for rel, fv in todo.reusable.items() if rel not in done]
        # The unchanged files' rows copied from the manifest of the generation planned from, in
        # SQLite (PYBRIDGE_MANIFEST_COPY=0: one row per file bound from Python).
        staging.reuse_versions(kept, reader.generation.id if manifest_copy() else None)
        for rel, _fv in kept:
            f = old[rel]
            staged.per_file[rel] = ((f.module, f.scope), f.binding_complete, f.references, f.problems)
        staged.reused += len(kept)
    for job in inputs.jobs:
        # Files too large to index: staged without facts, each a named limitation (see `snapshot`).
        for rel, facts, was_reused in stage_oversized(staging, inputs.snap, job[0], job[1]):
            staged.reused += was_reused
            staged.per_file[rel] = (job, False, 0, len(facts.problems))
    return staged


def _index_round(run: _Run, worker: Worker, staging: Staging, inputs: _Inputs, batch: set[str],
                 staged: _Staged, done_before: int, along: set[str]
                 ) -> tuple[dict[str, Signatures], list[tuple[str, str, str]]]:
    """Index `batch` (relpaths), one worker request per module and scope, with the whole
    sourcepath and classpath (so one file alone is indexed exactly as in a full run), and
    compile `along` with it (files an earlier round staged: their facts are not staged again).
    The requests go to the worker back to back (`Worker.index_all`): the JVM starts on the next
    module and scope while the last chunks of the previous one are staged."""
    signatures: dict[str, Signatures] = {}
    edges: list[tuple[str, str, str]] = []
    total = done_before + len(batch) + len(along)
    stage_time = [0.0]
    staged_here = [0]                      # files of `batch` staged so far
    # A first sync's indexes, built once this many of its files are staged (`EARLY_INDEXES_AT`).
    early_at = max(1, int(len(batch) * EARLY_INDEXES_AT)) if staging.bulk and early_indexes() else None
    tasks: list[IndexTask] = []
    first_job: Job | None = None
    skip = {inputs.files[rel].abs_path for rel in along}
    done_round = done_before
    progress: list[int] = []                 # files done, by task
    for job, (module, cp) in inputs.jobs.items():
        paths = sorted(inputs.files[rel].abs_path for rel in batch | along if
                       (inputs.files[rel].module, inputs.files[rel].scope) == job)
        if not paths:
            continue

        def stage_files(chunk: list[FileFacts], _job: Job = job, _encoding: str = module.encoding) -> None:
            # Runs while the JVM indexes the next chunk (the worker streams its facts).
            ts = time.perf_counter()
            for ff in chunk:
                if ff.path in skip:
                    continue
                rel = _stage_one(inputs, staging, _job, _encoding, ff, staged, signatures, edges)
                faults.hit("sync.staging")
                staged.per_file[rel] = (_job, ff.binding_complete, len(ff.references), len(ff.problems))
                staged_here[0] += 1
                if staged_here[0] == early_at:
                    staging.build_indexes()
            stage_time[0] += time.perf_counter() - ts

        for part in _batches(inputs, job, paths, along):
            def part_progress(done: int, of: int, _task: int = len(tasks), _job: Job = job) -> None:
                # The requests' chunks may come interleaved (two indexing threads): the files done
                # are those of the rounds before plus each request's own count.
                faults.hit("sync.indexing")
                progress[_task] = done
                run.say({"phase": "index", "module": _job[0], "scope": _job[1],
                         "done": done_round + sum(progress), "total": total})

            tasks.append(IndexTask(IndexRequest(files=part, sourcepath=[str(p) for p in cp.sourcepath],
                                                classpath=[str(p) for p in cp.classpath], release=str(cp.release),
                                                encoding=module.encoding, api=str(cp.api or "")),
                                   part_progress, stage_files))
            first_job = first_job or job
            progress.append(0)
            done_before += len(part)
    if first_job is None:
        return signatures, edges
    run.say({"phase": "index", "module": first_job[0], "scope": first_job[1], "done": done_round, "total": total})
    t = time.perf_counter()
    results = worker.index_all(tasks, chunk_files=chunk_files(sum(len(t.request.files) for t in tasks)))
    staged.reindexed += len(batch)
    # `index`: this thread waiting for the JVM's facts; `stage`: storing them (the two overlap with the
    # JVM's work, so `jvm`, the JVM's own time, is about index + stage when staging keeps up).
    run.timings["index"] = run.timings.get("index", 0.0) + time.perf_counter() - t - stage_time[0]
    run.timings["stage"] = run.timings.get("stage", 0.0) + stage_time[0]
    run.timings["jvm"] = run.timings.get("jvm", 0.0) + sum(r.elapsed_ms for r in results) / 1000
    return signatures, edges


EARLY_INDEXES_ENV = "PYBRIDGE_EARLY_INDEXES"
EARLY_INDEXES_AT = 0.75
"""The share of a first sync's files staged when its bulk staging builds the indexes (`Staging.build_indexes`),
with PYBRIDGE_EARLY_INDEXES on. The sorts (1.1-1.2 s on hibernate-core, one core) then run while the JVM
indexes the last quarter, instead of after its last file; the rest of the rows go into the indexes as they
are written, which costs more CPU than a sort of them. On hibernate-core: bench/RESULTS.md, "A shorter tail"."""


def early_indexes() -> bool:
    """Whether a first sync builds its indexes before its last files are staged (PYBRIDGE_EARLY_INDEXES)."""
    return switches.enabled(EARLY_INDEXES_ENV, "build a first sync's indexes at publish, after its last file")


def chunk_files(files: int) -> int:
    """Files per chunk the worker streams for a round of `files` files: its default `CHUNK_FILES`, but at least
    eight chunks in a smaller round, so that the parent stages the first files while the JVM indexes
    the next ones instead of waiting for all (a 20-file round as one chunk: its 0.09 s of staging
    came after the JVM's 0.3 s instead of during it)."""
    return max(1, min(CHUNK_FILES, -(-files // 8)))


BATCH_FILES_ENV = "PYBRIDGE_INDEX_BATCH_FILES"
DEFAULT_BATCH_FILES = 1000
"""Files per worker request by default: on hibernate-core (6,238 files) the worker's peak RSS with
batches of 1,000 is in bench/RESULTS.md ("Large module"); a module of at most this many files is
one request, as before."""


def batch_files() -> int:
    """At most how many files one worker request compiles (PYBRIDGE_INDEX_BATCH_FILES, default
    `DEFAULT_BATCH_FILES`; 0: a module and scope in one request)."""
    return switches.count(BATCH_FILES_ENV, DEFAULT_BATCH_FILES, "a module and scope in one request")


def _batches(inputs: _Inputs, job: Job, paths: list[str], along: set[str]) -> list[list[str]]:
    """A job's files in requests of at most `batch_files()`: JDT then holds the declarations of one
    batch (and what they resolve from the sourcepath), not the module's, so the worker's heap need
    not grow with the module. Each file is compiled against the whole sourcepath, as an
    incremental round compiles its files. A job with files compiled along (a round of an
    incremental sync) or whose placement finds a misplaced or twice-declared type stays whole:
    what those files declare depends on which files are compiled with them (planner, `Units`).
    The facts do not depend on the batches: keys that JDT numbers in the order a request resolves
    them (lambdas) are written from the source instead (jvm/ `Symbols`)."""
    size = batch_files()
    if not size or len(paths) <= size or along:
        return [paths]
    module = inputs.jobs[job][0]
    files = {rel: entry for rel, entry in inputs.files.items() if (entry.module, entry.scope) == job}
    digests = {rel: inputs.snap.files[rel][2] for rel in files}
    if placement(files, {job: inputs.roots.get(job, [])}, {job: module.encoding}, digests).along.get(job):
        return [paths]
    return [paths[i:i + size] for i in range(0, len(paths), size)]


def _stage_one(inputs: _Inputs, staging: Staging, job: Job, encoding: str, ff: FileFacts, staged: _Staged,
               signatures: dict[str, Signatures], edges: list[tuple[str, str, str]]) -> str:
    """Stage one indexed file with its summary (names and signatures, read from the same bytes
    that the snapshot hashed: a file edited since then fails the sync as stale)."""
    rel = inputs.snap.scope_files.get(job, {}).get(ff.path)  # the indexer hands back the path it was given
    entry = inputs.snap.files.get(rel) if rel is not None else None
    if rel is None or entry is None:
        raise StaleSnapshotError([rel or ff.path])
    try:
        data = Path(ff.path).read_bytes()
    except OSError:
        raise StaleSnapshotError([rel]) from None
    if hashlib.sha256(data).hexdigest() != entry[2]:
        raise StaleSnapshotError([rel])
    if inputs.generated and is_generated(ff.path, inputs.generated):
        ff = mark_generated(ff)    # under target/generated-sources: marked generated
    summary = summarize(data.decode(_codec(encoding), errors="replace"), ff)
    _fv, was_reused = staging.add_file(job[0], job[1], rel, entry[2], entry[0], ff, summary)
    staged.reused += was_reused
    signatures[rel] = summary.signatures
    edges.extend((rel, r.from_key, r.to_key) for r in ff.relations if r.kind in ("extends", "implements"))
    return rel


def _codec(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return "utf-8"


def _publish(run: _Run, staging: Staging, snap: snapshots.Snapshot, meta: GenerationMeta) -> int:
    """Check that no input changed while the sync ran, then publish in one transaction."""
    run.say({"phase": "check", "message": "checking that no input changed during the sync"})
    t = time.perf_counter()
    count = run.epoch[0](snap) if run.epoch is not None else None
    if count is not None and run.epoch is not None and count == run.epoch[1]:
        changed: list[str] = []     # no input event since before the fingerprint: nothing to sweep
    else:
        changed = snapshots.changes(snap)   # a sweep that began after `count` was taken
    run.timings["sweep"] = time.perf_counter() - t
    run.proven = count
    if changed:
        raise StaleSnapshotError(changed)
    faults.hit("sync.before_publish")
    run.say({"phase": "publish", "message": "publishing"})
    t = time.perf_counter()
    number = staging.publish(replace(meta, generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                     duration=round(time.perf_counter() - run.t0, 3)).to_json())
    run.timings["publish"] = time.perf_counter() - t
    return number


def _ignored(root: Path, system: BuildSystem) -> tuple[Limitation, ...]:
    """`build_files_ignored` for each other build system whose files are at the root too."""
    return tuple(Limitation("build_files_ignored", None, (
        f"{root} also holds {other.wording.tool} build files ({other.wording.root_files}); they were ignored: "
        f"this workspace was read with {system.wording.tool}. Sync with --build-tool {other.name} to read it "
        f"with {other.wording.tool} instead.")) for other in ignored(root, system))


def _module_metas(root: Path, workspace: Workspace) -> tuple[ModuleMeta, ...]:
    return tuple(ModuleMeta(m.id, m.version, m.kind, relative(root, [m.root])[0], relative(root, m.build_files),
                            m.has_sources, m.release, m.encoding) for m in workspace.modules)


def _begun(run: _Run, inputs: _Inputs) -> GenerationMeta:
    """The generation's metadata as staging starts: what it is built from (`_meta` completes it)."""
    return GenerationMeta(commit=git_head(run.root), root=str(run.root), build_tool=inputs.system.name,
                          modules=_module_metas(run.root, inputs.workspace), agents=inputs.agents)


def _meta(begun: GenerationMeta, inputs: _Inputs, staged: _Staged) -> GenerationMeta:
    """The generation's metadata: per module and scope counts, paths and limitations; environments."""
    per_job: dict[Job, list[int]] = {job: [0, 0, 0, 0] for job in inputs.jobs}   # files, complete, refs, problems
    for job, complete, references, problems in staged.per_file.values():
        c = per_job[job]
        c[0] += 1
        c[1] += bool(complete)
        c[2] += references
        c[3] += problems
    scopes: list[ScopeMeta] = []
    limitations: list[MetaLimitation] = []
    root = inputs.workspace.root
    for job, (module, cp) in inputs.jobs.items():
        lims = [MetaLimitation(lim.kind, lim.message, lim.module, lim.scope) for lim in cp.limitations]
        limitations += lims
        n_files, n_complete, n_references, n_problems = per_job[job]
        scopes.append(ScopeMeta(job[0], job[1], cp.release, module.encoding, n_files, n_complete, n_references,
                                n_problems,
                                tuple(lim.kind for lim in lims), tuple(map(str, cp.classpath)),
                                tuple(map(str, cp.processor_path)), relative(root, cp.sourcepath), cp.api))
    limitations += [MetaLimitation(lim.kind, lim.message, lim.module, lim.scope)
                    for lim in (*inputs.workspace.limitations, *_ignored(root, inputs.system))]
    limitations += [x for e in snapshots.limitations(inputs.snap) if (x := MetaLimitation.from_json(e))]
    limitations.append(REFLECTION_NOT_TRACKED)
    return replace(begun, scopes=tuple(scopes), limitations=tuple(limitations),
                   environments={f"{job[0]} {job[1]}": env for job, env in inputs.envs.items()},
                   reindexed_files=staged.reindexed)


def _counts(published: Counts, inputs: _Inputs, limitations: tuple[MetaLimitation, ...]) -> dict[str, int]:
    return {"files": published.files, "declarations": published.declarations,
            "references": published.references, "problems": published.problems,
            "files_not_binding_complete": published.files - published.binding_complete_files,
            "modules": len(inputs.workspace.modules), "symbols": published.declarations,
            "limitations": len(limitations)}


def _result(run: _Run, store: Store, number: int, inputs: _Inputs, staged: _Staged, todo: Plan) -> SyncResult:
    """The summary of a published generation; its counts are the ones the store computed at publish."""
    info = store.current_generation()
    meta = GenerationMeta.of(info) if info else GenerationMeta()
    counts = _counts(meta.counts, inputs, meta.limitations)
    return SyncResult(number, str(run.root), str(run.state), time.perf_counter() - run.t0, counts,
                      [s.to_json() for s in meta.scopes], [lim.to_json() for lim in meta.limitations],
                      staged.reused, run.timings, published=True,
                      reindexed_files=staged.reindexed, incremental=not todo.full, rounds=staged.rounds,
                      full_reason=todo.why, epoch=run.proven)
