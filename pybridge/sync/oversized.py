"""Staging the files a sync does not index because they are too large (see `snapshot`)."""

from __future__ import annotations

from pybridge.facts import FileFacts
from pybridge.store import Staging

from .snapshot import Snapshot, oversized_facts
from .summary import summarize


def has_oversized(snap: Snapshot, module: str, scope: str) -> bool:
    return any((m, s) == (module, scope) for m, s, _size in snap.oversized.values())


def stage_oversized(staging: Staging, snap: Snapshot, module: str, scope: str) -> list[tuple[str, FileFacts, bool]]:
    """Stage each oversized file of `module` and `scope` without facts (an empty summary: it
    declares nothing); returns (relpath, facts, reused) for each."""
    out = []
    for rel, facts in oversized_facts(snap, module, scope):
        size, _mtime, digest = snap.files[rel]
        _fv, was_reused = staging.add_file(module, scope, rel, digest, size, facts, summarize("", facts))
        out.append((rel, facts, was_reused))
    return out
