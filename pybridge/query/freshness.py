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
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pybridge.store import GenerationInfo
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


class Freshness:
    """The cached stat check of one workspace."""

    def __init__(self, root: Path, ttl: float = TTL_SECONDS) -> None:
        self.root = root
        self.ttl = ttl
        self._lock = threading.Lock()
        self._last: Check | None = None

    def check(self, generation: GenerationInfo) -> Check:
        with self._lock:
            last = self._last
            if (last is not None and last.generation == generation.number
                    and time.monotonic() - last.at < self.ttl):
                return last
            failed = False
            try:
                changed = tuple(changes(Snapshot.from_json(self.root, generation.snapshot)))
            except Exception:  # noqa: BLE001 - a malformed snapshot or an unreadable tree: say stale
                changed, failed = (), True
            self._last = Check(generation.number, changed, now_iso(), time.monotonic(), failed)
            return self._last

    def invalidate(self) -> None:
        with self._lock:
            self._last = None


def envelope(generation: GenerationInfo | None, check: Check | None) -> dict:
    """The freshness envelope of an answer (a never-synced workspace is stale)."""
    meta = generation.meta if generation is not None else {}
    stale = check is None or check.failed or bool(check.changed)
    out = {
        "commit": meta.get("commit"),
        "generated_at": meta.get("generated_at") or (generation.published_at if generation else None),
        "stale": stale,
        "freshness": "stale" if stale else "fresh",
        "checked_at": check.checked_at if check is not None else now_iso(),
    }
    if check is not None and check.changed:
        out["changed"] = list(check.changed[:SHOWN_CHANGES])
    return out


def combine(envelopes: list[dict]) -> dict:
    """One envelope for an answer drawn from several workspaces (each keeps its own too)."""
    if len(envelopes) == 1:
        return {k: v for k, v in envelopes[0].items() if k in _ENVELOPE_KEYS}
    stale = any(e["stale"] for e in envelopes)
    return {"commit": None, "generated_at": None, "stale": stale,
            "freshness": "stale" if stale else "fresh",
            "checked_at": min(e["checked_at"] for e in envelopes)}


_ENVELOPE_KEYS = ("commit", "generated_at", "stale", "freshness", "checked_at", "changed")


def require_fresh(slug: str, check: Check) -> None:
    """Exact tools: fail with stale_snapshot when files changed since the sync."""
    if not check.changed and not check.failed:
        return
    changed = list(check.changed)
    shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
    what = f"files changed since the last sync ({shown})" if changed else \
        "the workspace could not be compared with the last sync"
    raise QueryError(
        "stale_snapshot",
        f"The index of {slug} no longer matches the files: {what}. Call sync (repo {slug}), then "
        f"repeat the query; positions and keys refer to the synced code.",
        changed=changed, hint="call sync, then repeat discovery and this query",
    )
