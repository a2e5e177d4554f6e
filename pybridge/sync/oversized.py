"""Staging the files a sync does not index because they are too large (see `snapshot`)."""

from __future__ import annotations

from pybridge.store import Staging

from .snapshot import Snapshot, oversized_facts
from .summary import summarize


def has_oversized(snap: Snapshot, module: str, scope: str) -> bool:
    return any((m, s) == (module, scope) for m, s, _size in snap.oversized.values())


def stage_oversized(staging: Staging, snap: Snapshot, module: str, scope: str, counts: dict[str, int]) -> int:
    """Stage each oversized file of `module` and `scope` without facts; returns how many were reused."""
    reused = 0
    for rel, facts in oversized_facts(snap, module, scope):
        size, _mtime, digest = snap.files[rel]
        _fv, was_reused = staging.add_file(module, scope, rel, digest, size, facts, summarize("", facts))
        reused += was_reused
        counts["files"] += 1
        counts["problems"] += len(facts.problems)
    return reused
