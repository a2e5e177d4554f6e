"""Differential test of incremental sync: after each random edit, the incremental generation
must equal a from-scratch sync fact for fact (DESIGN section 5).

The short variant (15 edits on samples/reactor) runs in the default suite. The long one runs
with `PYBRIDGE_DIFF_EDITS=N` (N edits, split between commons-lang3 main+test, built from Maven
Central by bench/workspaces.py, and the reactor sample); `PYBRIDGE_DIFF_SEED` picks the seed.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest

from pybridge.sync import store_path, sync

from .incremental_edits import Editor, differences

ROOT = Path(__file__).resolve().parent.parent
LONG = int(os.environ.get("PYBRIDGE_DIFF_EDITS", "0") or 0)
SEED = int(os.environ.get("PYBRIDGE_DIFF_SEED", "8") or 8)


def run_edits(root: Path, states: Path, worker, edits: int, seed: int, log: list[str]) -> int:
    """Apply `edits` random edits; after each, compare the incremental sync with a fresh one."""
    inc, fresh = states / "incremental", states / "fresh"
    sync(root, state_dir=inc, worker=worker)
    editor = Editor(root, store_path(inc), random.Random(seed))
    reindexed = []
    for i in range(edits):
        what = editor.edit()
        result = sync(root, state_dir=inc, worker=worker)
        sync(root, state_dir=fresh, worker=worker, force=True, keep=1)   # from scratch (Maven's answer cached)
        diff = differences(store_path(inc), store_path(fresh))
        log.append(f"{root.name} #{i + 1}: {what}: re-indexed {result.reindexed_files} in {result.rounds} rounds"
                   f"{'' if result.published else ' (nothing published)'}")
        assert not diff, f"after edit #{i + 1} ({what}) of {root.name} (seed {seed}):\n" + "\n".join(diff[:30])
        reindexed.append(result.reindexed_files)
    return len(reindexed)


def test_incremental_sync_equals_a_fresh_sync_after_random_edits_of_the_reactor(tmp_path, samples, worker):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    log: list[str] = []
    assert run_edits(root, tmp_path, worker, 15, SEED, log) == 15


@pytest.mark.skipif(not LONG, reason="the long differential run: set PYBRIDGE_DIFF_EDITS=300")
def test_incremental_sync_equals_a_fresh_sync_after_hundreds_of_random_edits(tmp_path, samples, worker):
    sys.path.insert(0, str(ROOT / "bench"))
    import workspaces  # noqa: PLC0415 - bench/ is not a package; only the long run needs it

    lang = tmp_path / "commons-lang3"
    shutil.copytree(workspaces.ensure(workspaces.ARTIFACTS["commons-lang3"], say=lambda _m: None), lang)
    reactor = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", reactor)
    log: list[str] = []
    on_lang = LONG // 3
    try:
        done = run_edits(lang, tmp_path / "lang-states", worker, on_lang, SEED, log)
        done += run_edits(reactor, tmp_path / "reactor-states", worker, LONG - on_lang, SEED + 1, log)
    finally:
        out = Path(os.environ.get("PYBRIDGE_DIFF_LOG", tmp_path / "diff.log"))
        out.write_text("\n".join(log) + "\n", encoding="utf-8")
    assert done == LONG
