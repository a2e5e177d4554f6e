"""Helpers of the query tests (no tests here): samples copied and synced once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

from pybridge.query import Facade
from pybridge.sync import sync

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLES = ROOT / "samples"
_SYNCED: dict[str, tuple[Path, Path]] = {}


def synced_sample(name: str, tmp_path_factory, worker) -> tuple[Path, Path]:
    """(root, state) of a copy of samples/NAME synced once per session (generation 1).

    Tests must not edit these copies; tests that edit make their own."""
    if name not in _SYNCED:
        base = tmp_path_factory.mktemp(f"q-{name}")
        root = base / name
        shutil.copytree(SAMPLES / name, root)
        state = base / "state"
        sync(root, state_dir=state, worker=worker)
        _SYNCED[name] = (root, state)
    return _SYNCED[name]


def facade_for(*pairs: tuple[Path, Path], worker=None) -> Facade:
    return Facade([root for root, _ in pairs], {root: state for root, state in pairs}, worker=worker)


def ok(facade: Facade, tool: str, args: dict) -> dict:
    result, is_error = facade.call(tool, args)
    assert not is_error, result
    return result


def err(facade: Facade, tool: str, args, code: str) -> dict:
    result, is_error = facade.call(tool, args)
    assert is_error, result
    assert result["code"] == code, result
    assert isinstance(result["error"], str) and result["error"].endswith((".", ")")), result
    return result


def key_of(facade: Facade, query: str, repo: str | None = None, kind: str | None = None) -> str:
    args = {"query": query, **({"repo": repo} if repo else {}), **({"kind": kind} if kind else {})}
    [symbol] = ok(facade, "find_symbol", args)["symbols"]
    return symbol["symbolKey"]


def start(ref: dict) -> tuple[int, int]:
    return ref["range"]["start"]["line"], ref["range"]["start"]["character"]


ENVELOPE = {"commit", "generated_at", "stale", "freshness", "checked_at"}
