"""Freshness: does the workspace still match the published snapshot? (DESIGN sections 5, 7)

The check is `pybridge.sync.snapshot.changes()` on the generation's
snapshot: a `stat` per source file and POM and a walk of the source roots,
no file contents. Its result is cached for about a second per workspace and
generation, so a burst of queries pays for one check.

Every successful answer carries the envelope::

    {"commit": <git HEAD at sync or null>, "generated_at": <ISO 8601>,
     "stale": bool, "freshness": "fresh" | "stale", "checked_at": <ISO 8601>,
     "changed": [...first 20 changed paths; only when stale]}

Exact tools (`find_references`, `symbol_at`) refuse a stale workspace with
`stale_snapshot`; every other tool answers and marks the envelope stale.

The live index (`pybridge serve`, see `pybridge.live`) plugs in through
`LiveHook`, set on a workspace's `Freshness` by `Facade.attach_live`:
`answer_fresh` runs an exact tool, and when it finds the workspace changed,
waits for the live index's catch-up (bounded) and runs it again; it says
`stale_snapshot` only when the bound passes (`catchUp.waitedSeconds`) or the
catch-up sync failed (`syncError`: the sync's error object). A cached check
is not reused past an edit the live index saw. Without a hook (the CLI, or
`serve --no-watch`) nothing changes.

A never-synced workspace whose first sync the live index runs in the
background (`LiveHook.first_sync`) is not `not_synced` while that sync runs:
`answer_fresh` waits for it (within the same bound) and runs the tool on the
new generation, or answers `indexing` with `filesDone`, `filesTotal` and
`etaSeconds` (null until known). After a failed first sync it says
`not_synced` with the sync's error in `syncError`.

Under the live index a cached check is reused only with a proof: the hook's
`epoch` (an inotify event counter, `pybridge.live.barrier`) taken before the
sweep and unchanged since, which costs one non-blocking `read` instead of a
`stat` per file. Where the hook has no proof (polling, not Linux, a symbolic
link among the inputs) every exact query sweeps.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from pybridge.store import GenerationInfo
from pybridge.sync.meta import GenerationMeta
from pybridge.sync.snapshot import Snapshot, changes

from .errors import QueryError


def _ttl() -> float:
    try:
        return max(float(os.environ.get("PYBRIDGE_FRESHNESS_TTL", "1.0")), 0.0)
    except ValueError:
        return 1.0


TTL_SECONDS = _ttl()
"""How long a freshness check is reused (PYBRIDGE_FRESHNESS_TTL overrides; 0 checks on every call)."""
SHOWN_CHANGES = 20


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Check:
    generation: int
    changed: tuple[str, ...]
    checked_at: str
    at: float                 # time.monotonic() of the check
    failed: bool = False      # the check itself could not run: treated as stale
    source: "Freshness | None" = field(default=None, compare=False, repr=False)
    reused: bool = False      # served from the cache (not computed for this call)
    epoch: int | None = None  # the live hook's event counter taken before the sweep (None: no proof)
    proven: bool = False      # reused because that counter did not move: as good as a new sweep
    proof: object | None = field(default=None, compare=False, repr=False)
    """A sweep that found nothing changed with the live hook's counter taken before it: one token per
    such sweep, carried by every check that reuses it with a proof (the counter has not moved, so no
    input changed since that sweep). What was read from a file and checked by `stat` under a token
    holds while the token is current (`Sources.lines`); None: no proof."""


class CatchUp(Protocol):
    """What waiting for the live index came to."""

    @property
    def state(self) -> str: ...          # fresh | failed | timeout | off

    @property
    def error(self) -> dict[str, Any] | None: ...   # the failed sync's error object


class FirstSync(Protocol):
    """How far a never-synced workspace's background first sync got (`pybridge.live.FirstSync`)."""

    @property
    def state(self) -> str: ...          # indexing | failed | done

    @property
    def phase(self) -> str: ...          # the sync's current step: queued, lock, workspace, build, index, ...

    @property
    def files_done(self) -> int: ...

    @property
    def files_total(self) -> int | None: ...

    @property
    def eta_seconds(self) -> float | None: ...

    @property
    def error(self) -> dict[str, Any] | None: ...   # the failed sync's error object


def indexing_fields(first: FirstSync) -> dict[str, Any]:
    """The fields an `indexing` error and `status` carry."""
    return {"filesDone": first.files_done, "filesTotal": first.files_total, "etaSeconds": first.eta_seconds,
            "phase": first.phase}


class LiveHook(Protocol):
    """The live index as the query layer sees it (implemented by `pybridge.live.LiveIndex`)."""

    def bound(self) -> float: ...

    def wait_fresh(self, root: Path, timeout: float | None = None) -> CatchUp: ...

    def notice(self, root: Path) -> None: ...

    def changed_since(self, root: Path, at: float) -> bool: ...

    def describe(self, root: Path) -> dict[str, Any] | None: ...

    def epoch(self, root: Path, snapshot: Snapshot) -> int | None: ...

    def proven(self, root: Path) -> tuple[int, int] | None: ...

    def first_sync(self, root: Path) -> FirstSync | None: ...

    def wait_first_sync(self, root: Path, timeout: float) -> FirstSync | None: ...


class Freshness:
    """The cached stat check of one workspace."""

    def __init__(self, root: Path, ttl: float = TTL_SECONDS) -> None:
        self.root = root
        self.ttl = ttl
        self.live: LiveHook | None = None
        self._lock = threading.Lock()
        self._last: Check | None = None
        self._generation: GenerationInfo | None = None
        self._snap: Snapshot | None = None

    def check(self, generation: GenerationInfo) -> Check:
        live = self.live
        with self._lock:
            last = self._last
            snap = self._snapshot(generation)
            epoch = live.epoch(self.root, snap) if live is not None and snap is not None else None
            if last is not None and last.generation == generation.number:
                if epoch is not None and last.epoch == epoch:
                    return replace(last, reused=True, proven=True)   # no input event since that sweep
                if (epoch is None and time.monotonic() - last.at < self.ttl
                        and not (live is not None and live.changed_since(self.root, last.at))):
                    return replace(last, reused=True, proof=None)
            elif epoch is not None and live is not None and live.proven(self.root) == (generation.number, epoch):
                # the catch-up that published this generation found its files matching as of this count
                # (its sweep began after it was taken, or none was needed), and no input event came since
                result = self._last = Check(generation.number, (), now_iso(), time.monotonic(), False, self,
                                            reused=True, epoch=epoch, proven=True, proof=object())
                return result
            failed = False
            at = time.monotonic()
            try:
                if snap is None:
                    raise ValueError("no snapshot")
                changed = tuple(changes(snap))
            except Exception:  # noqa: BLE001 - a malformed snapshot or an unreadable tree: say stale
                changed, failed = (), True
            # this call's own result: once the lock is released, another query may invalidate `_last`
            proof = object() if epoch is not None and not changed and not failed else None
            result = self._last = Check(generation.number, changed, now_iso(), at, failed, self, epoch=epoch,
                                        proof=proof)
        if live is not None and (changed or failed):
            live.notice(self.root)
        return result

    def _snapshot(self, generation: GenerationInfo) -> Snapshot | None:
        """The generation's snapshot, parsed once per snapshot object (None when it cannot be read).
        The store hands back the same dict while a generation's snapshot is unchanged, and a new one
        when a no-op sync refreshed it in place."""
        if self._generation is None or self._generation.snapshot is not generation.snapshot:
            self._generation = generation
            try:
                self._snap = Snapshot.from_json(self.root, generation.snapshot)
            except Exception:  # noqa: BLE001 - a malformed snapshot: the check says stale
                self._snap = None
        return self._snap

    def recheck(self, check: Check) -> Check:
        """`check` again by `stat` if it came from the cache without a proof: under a live index an
        exact tool never trusts a cached "fresh" (an edit's event may still be on its way)."""
        generation = self._generation
        if not check.reused or check.proven or generation is None or generation.number != check.generation:
            return check
        self.invalidate()
        return self.check(generation)

    def live_fields(self) -> dict[str, Any] | None:
        """The live index's fields for `status`, or None when no live index serves this workspace."""
        return self.live.describe(self.root) if self.live is not None else None

    def invalidate(self) -> None:
        with self._lock:
            self._last = None


def envelope(generation: GenerationInfo | None, check: Check | None) -> dict[str, Any]:
    """The freshness envelope of an answer (a never-synced workspace is stale)."""
    meta = GenerationMeta.of(generation) if generation is not None else GenerationMeta()
    stale = check is None or check.failed or bool(check.changed)
    out: dict[str, Any] = {
        "commit": meta.commit,
        "generated_at": meta.generated_at or (generation.published_at if generation else None),
        "stale": stale,
        "freshness": "stale" if stale else "fresh",
        "checked_at": check.checked_at if check is not None else now_iso(),
    }
    if check is not None and check.changed:
        out["changed"] = list(check.changed[:SHOWN_CHANGES])
    return out


def combine(envelopes: list[dict[str, Any]]) -> dict[str, Any]:
    """One envelope for an answer drawn from several workspaces (each keeps its own too)."""
    if len(envelopes) == 1:
        return {k: v for k, v in envelopes[0].items() if k in _ENVELOPE_KEYS}
    stale = any(e["stale"] for e in envelopes)
    return {"commit": None, "generated_at": None, "stale": stale,
            "freshness": "stale" if stale else "fresh",
            "checked_at": min(e["checked_at"] for e in envelopes)}


_ENVELOPE_KEYS = ("commit", "generated_at", "stale", "freshness", "checked_at", "changed")


class StaleSnapshot(QueryError):
    """`stale_snapshot` from an exact tool, knowing whose freshness check said so."""

    def __init__(self, message: str, freshness: Freshness | None, **extra: Any) -> None:
        super().__init__("stale_snapshot", message, **extra)
        self.freshness = freshness


class NotSynced(QueryError):
    """`not_synced` from a tool, knowing whose workspace (its live index may be running its first sync)."""

    def __init__(self, message: str, freshness: Freshness, slug: str, **extra: Any) -> None:
        super().__init__("not_synced", message, **extra)
        self.freshness = freshness
        self.slug = slug


class WouldWait(Exception):
    """An impatient `answer_fresh` would have waited for the live index (see `Facade.try_call`)."""


def answer_fresh(run: Callable[[], dict[str, Any]], patient: bool = True) -> dict[str, Any]:
    """Run a tool. When it is an exact tool that found its workspace changed, and a live index
    watches that workspace, wait for the catch-up (within the live index's bound, however many
    catch-ups that takes) and run the tool again on the new generation; when not `patient`, raise
    WouldWait instead of waiting."""
    deadline: float | None = None
    reruns = 0
    while True:
        try:
            return run()
        except NotSynced as exc:
            deadline = _await_first_sync(exc, patient, deadline, reruns)
            reruns += 1
        except StaleSnapshot as exc:
            fresh = exc.freshness
            live = fresh.live if fresh is not None else None
            if fresh is None or live is None:
                raise
            if not patient:
                raise WouldWait() from exc
            now = time.monotonic()
            if deadline is None:
                deadline = now + live.bound()
            outcome = live.wait_fresh(fresh.root, deadline - now) if deadline > now else None
            state = outcome.state if outcome is not None else "timeout"
            if state == "fresh":
                fresh.invalidate()
                continue
            if state == "failed" and outcome is not None:
                error = outcome.error or {}
                raise QueryError(
                    "stale_snapshot", f"{exc.message} The live index tried to catch up, and its sync "
                    f"failed: {error.get('error', 'no reason given')}",
                    **exc.extra, syncError=error) from exc
            if state == "timeout":
                raise QueryError(
                    "stale_snapshot", f"{exc.message} The live index did not catch up within "
                    f"{live.bound():g} s (a long sync, or edits still arriving); repeat the query shortly.",
                    **exc.extra, catchUp={"waitedSeconds": round(live.bound(), 3)}) from exc
            raise


def _await_first_sync(exc: NotSynced, patient: bool, deadline: float | None, reruns: int) -> float:
    """A tool found its workspace never synced. Returns (the deadline) when the live index's first sync
    of it has published, so that the tool runs again; raises `indexing` while that sync runs past the
    bound, `not_synced` with its error when it failed, and `exc` itself when there is none."""
    live = exc.freshness.live
    first = live.first_sync(exc.freshness.root) if live is not None else None
    if live is None or first is None or (first.state == "done" and reruns > 1):
        raise exc
    if first.state == "indexing":
        if not patient:
            raise WouldWait() from exc
        now = time.monotonic()
        deadline = now + live.bound() if deadline is None else deadline
        if deadline > now:
            first = live.wait_first_sync(exc.freshness.root, deadline - now) or first
    if first.state == "done":
        return deadline if deadline is not None else time.monotonic()
    if first.state == "failed":
        error = first.error or {}
        raise QueryError("not_synced", f"{exc.message} Its first sync failed: "
                         f"{error.get('error', 'no reason given')}", syncError=error) from exc
    total = f"{first.files_done} of {first.files_total} files indexed" if first.files_total is not None \
        else f"step: {first.phase}"
    eta = f", about {first.eta_seconds:g} s left" if first.eta_seconds is not None else ""
    raise QueryError("indexing", f"{exc.slug} is being indexed for the first time ({total}{eta}); repeat "
                     f"the query shortly (status shows the progress).", **indexing_fields(first)) from exc


def require_fresh(slug: str, check: Check) -> None:
    """Exact tools: fail with stale_snapshot when files changed since the sync."""
    if check.source is not None and check.source.live is not None:
        check = check.source.recheck(check)
    if not check.changed and not check.failed:
        return
    changed = list(check.changed)
    shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
    what = f"files changed since the last sync ({shown})" if changed else \
        "the workspace could not be compared with the last sync"
    raise StaleSnapshot(
        f"The index of {slug} no longer matches the files: {what}. Call sync (repo {slug}), then "
        f"repeat the query; positions and keys refer to the synced code.", check.source,
        changed=changed, hint="call sync, then repeat discovery and this query",
    )
