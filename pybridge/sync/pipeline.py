"""One sync: discover modules -> resolve classpaths -> fingerprint -> index
in the worker JVM -> stage the facts as a new generation -> check the
fingerprint again -> publish (DESIGN section 2).

Every failure ends in a `PybridgeError` and leaves the last published
generation current: nothing is visible until the one publish transaction.
A sync whose inputs changed while it ran publishes nothing and raises
`StaleSnapshotError` with the changed paths.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from pybridge.errors import PybridgeError
from pybridge.store import Store
from pybridge.sync import agents, faults
from pybridge.sync import snapshot as snapshots
from pybridge.sync.lock import SyncLock
from pybridge.sync.state import state_dir_for, store_path
from pybridge.worker import INDEXER_VERSION, IndexRequest, Worker
from pybridge.workspace import load_workspace, resolve_classpaths
from pybridge.workspace.generated import generated_roots, is_generated, mark_generated

Progress = Callable[[dict], None]

ALWAYS_LIMITATIONS = [{
    "kind": "reflection_not_tracked", "module": None, "scope": None,
    "message": "Uses through reflection (Class.forName, method handles, frameworks that wire by name) "
               "are not references the compiler sees.",
}]


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
    modules: list[dict]
    limitations: list[dict]
    reused_files: int
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation, "root": self.root, "stateDir": self.state_dir,
            "durationSeconds": round(self.duration_s, 3), "counts": self.counts, "modules": self.modules,
            "limitations": self.limitations, "reusedFiles": self.reused_files,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def _publish(staging, snap, t0: float, timings: dict, meta: dict) -> int:
    """Check that no input changed while the sync ran, then publish (both paths of a sync end here)."""
    changed = snapshots.changes(snap)
    if changed:
        raise StaleSnapshotError(changed)
    faults.hit("sync.before_publish")
    t = time.perf_counter()
    number = staging.publish({"generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                              "duration": round(time.perf_counter() - t0, 3), **meta})
    timings["publish"] = time.perf_counter() - t
    return number


def _result(store: Store, number: int, root: Path, state: Path, workspace, t0: float, modules: list[dict],
            limitations: list[dict], reused: int, timings: dict) -> SyncResult:
    """The summary of a published generation; its counts are the ones the store computed at publish."""
    info = store.current_generation()
    published = dict(info.meta.get("counts", {})) if info else {}
    counts = {"files": published.get("files", 0), "declarations": published.get("declarations", 0),
              "references": published.get("references", 0), "problems": published.get("problems", 0),
              "files_not_binding_complete": published.get("files", 0) - published.get("binding_complete_files", 0),
              "modules": len(workspace.modules), "symbols": published.get("declarations", 0),
              "limitations": len(limitations)}
    return SyncResult(number, str(root), str(state), time.perf_counter() - t0, counts, modules, limitations,
                      reused, timings)


def _republish(store: Store, previous, snap, meta: dict, say: Progress, t0: float, timings: dict, root: Path,
               state: Path, workspace) -> SyncResult:
    """The no-change resync: a new generation with the previous one's file versions."""
    say({"phase": "index", "module": "(unchanged)", "scope": "", "done": len(snap.files), "total": len(snap.files)})
    old = previous.meta
    with store.stage(snap.to_json(), meta) as staging:
        t = time.perf_counter()
        reused = staging.reuse_generation(previous.number)
        timings["stage"] = time.perf_counter() - t
        number = _publish(staging, snap, t0, timings, {
            "modules": old.get("modules", []), "limitations": old.get("limitations", []),
            "module_ids": old.get("module_ids", []), "reused_generation": previous.number})
    return _result(store, number, root, state, workspace, t0, old.get("modules", []),
                   old.get("limitations", []), reused, timings)


def _keep_default() -> int:
    try:
        return max(int(os.environ.get("PYBRIDGE_KEEP_GENERATIONS", "3")), 1)
    except ValueError:
        return 3


class _Starter(threading.Thread):
    """Starts the worker's JVM and warms JDT up while Maven resolves classpaths (a second or two each)."""

    def __init__(self, worker: Worker) -> None:
        super().__init__(name="pybridge-worker-start", daemon=True)
        self.worker = worker
        self.error: BaseException | None = None
        # Set once the classpaths are known: a warm-up only pays while it overlaps Maven, so a
        # resolution that needed no Maven run (or a cached one) finds the JVM started, not warming.
        self.resolved = threading.Event()

    def run(self) -> None:
        try:
            self.worker.start()
            if not self.resolved.is_set():
                self.worker.warmup()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the sync's thread
            self.error = exc


def git_head(root: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def sync(root: Path | str, *, state_dir: Path | str | None = None, allow_online: bool = True,
         wait: bool = True, progress: Progress | None = None, worker: Worker | None = None,
         heap: str | None = None, maven_timeout: float = 300, keep: int | None = None,
         force: bool = False) -> SyncResult:
    """Index the workspace at `root` and publish a new generation.

    When every input (sources, POMs, classpath, releases, indexer version)
    has the fingerprint of the current generation, nothing is re-indexed: the
    new generation lists the same file versions (`force=True` re-indexes).
    `keep`: how many published generations to retain (default 3, or
    PYBRIDGE_KEEP_GENERATIONS).
    """
    if keep is None:
        keep = _keep_default()
    say = progress or (lambda _event: None)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    root = Path(root).resolve()
    state = state_dir_for(root, state_dir)

    lock = SyncLock(state)
    lock.acquire(wait=wait, say=lambda msg: say({"phase": "lock", "message": msg}))
    own_worker = worker is None
    try:
        say({"phase": "workspace", "message": f"reading the POMs under {root}"})
        workspace = load_workspace(root)
        if own_worker:
            worker = Worker(**({"heap": heap} if heap else {}))
        snap = snapshots.take(workspace, indexer_version=INDEXER_VERSION)
        timings["fingerprint"] = time.perf_counter() - t0

        store = Store.open(store_path(state), keep=keep)
        try:
            # We hold the sync lock: the current generation cannot change until we publish.
            previous = store.current_generation()
            t = time.perf_counter()
            starter = None
            if previous is None or previous.snapshot.get("inputs") != snap.inputs_fingerprint():
                agents.prepare(worker, workspace)    # Lombok's agent, when the POMs name it
                starter = _Starter(worker)    # sources or POMs changed: a JVM will be needed
                starter.start()

            def maven_progress(message: str) -> None:
                faults.hit("sync.maven")
                say({"phase": "maven", "message": message})

            try:
                classpaths = resolve_classpaths(workspace, state, allow_online=allow_online,
                                                timeout=maven_timeout, progress=maven_progress)
            finally:
                if starter is not None:
                    starter.resolved.set()
                    starter.join()    # never close the worker while its start is under way
            timings["maven"] = time.perf_counter() - t
            if starter is not None and starter.error is not None:
                raise starter.error
            for cp in classpaths.values():
                snapshots.add_classpath(snap, cp.classpath)

            jobs = []
            for module in workspace.modules:
                for scope_name in module.scopes:
                    cp = classpaths.get((module.id, scope_name))
                    files = snap.scope_files.get((module.id, scope_name), {})
                    if files and cp is not None:
                        jobs.append((module, scope_name, files, cp))
            total = sum(len(j[2]) for j in jobs)

            meta = {"commit": git_head(root), "root": str(root)}
            if not force and previous is not None and \
                    previous.snapshot.get("fingerprint") == snap.fingerprint():
                return _republish(store, previous, snap, meta, say, t0, timings, root, state, workspace)
            settled = agents.settle(worker, workspace, classpaths)    # the agents the classpaths call for
            gen_roots = generated_roots(workspace)
            with store.stage(snap.to_json(), meta) as staging:
                done_before = 0
                reused = 0
                modules_meta: list[dict] = []
                limitations: list[dict] = []
                t_index = t_stage = 0.0
                for module, scope_name, files, cp in jobs:
                    t = time.perf_counter()

                    def index_progress(done: int, of: int, _base=done_before, _m=module.id, _s=scope_name) -> None:
                        faults.hit("sync.indexing")
                        say({"phase": "index", "module": _m, "scope": _s, "done": _base + done, "total": total})

                    say({"phase": "index", "module": module.id, "scope": scope_name, "done": done_before,
                         "total": total})
                    scope_counts = {"files": 0, "bindingComplete": 0, "references": 0, "problems": 0}
                    staged = [0.0, 0]

                    def stage_files(chunk, _m=module.id, _s=scope_name, _files=files, _counts=scope_counts) -> None:
                        # Runs while the JVM indexes the next chunk (the worker streams its facts).
                        ts = time.perf_counter()
                        for ff in chunk:
                            rel = _files.get(ff.path)    # the indexer hands back the path it was given
                            entry = snap.files.get(rel) if rel is not None else None
                            if entry is None:
                                raise StaleSnapshotError([rel or ff.path])
                            if gen_roots and is_generated(ff.path, gen_roots):
                                ff = mark_generated(ff)    # under target/generated-sources: marked generated
                            _fv, was_reused = staging.add_file(_m, _s, rel, entry[2], entry[0], ff)
                            faults.hit("sync.staging")
                            staged[1] += was_reused
                            _counts["files"] += 1
                            _counts["bindingComplete"] += ff.binding_complete
                            _counts["references"] += len(ff.references)
                            _counts["problems"] += len(ff.problems)
                        staged[0] += time.perf_counter() - ts

                    worker.index(IndexRequest(
                        files=list(files), sourcepath=[str(p) for p in cp.sourcepath],
                        classpath=[str(p) for p in cp.classpath], release=str(cp.release),
                        encoding=module.encoding), progress=index_progress, on_files=stage_files)
                    reused += staged[1]
                    t_index += time.perf_counter() - t - staged[0]
                    t_stage += staged[0]
                    done_before += len(files)
                    lims = [{"kind": lim.kind, "module": lim.module, "scope": lim.scope, "message": lim.message}
                            for lim in settled[(module.id, scope_name)].limitations]
                    limitations += lims
                    modules_meta.append({"module": module.id, "scope": scope_name, "release": cp.release,
                                         "encoding": module.encoding, **scope_counts,
                                         "limitations": [lim["kind"] for lim in lims]})
                timings["index"] = t_index
                timings["stage"] = t_stage

                say({"phase": "check", "message": "checking that no input changed during the sync"})
                limitations += ALWAYS_LIMITATIONS
                say({"phase": "publish", "message": "publishing"})
                number = _publish(staging, snap, t0, timings, {
                    "modules": modules_meta, "limitations": limitations,
                    "module_ids": [m.id for m in workspace.modules]})
            return _result(store, number, root, state, workspace, t0, modules_meta, limitations, reused, timings)
        finally:
            store.close()
    finally:
        if own_worker and worker is not None:
            worker.close()
        lock.release()
