"""Helpers that index a sample module directly through the worker (no store)."""

from __future__ import annotations

from pathlib import Path

from pybridge.worker import IndexRequest, Worker


def java_files(*roots: Path) -> list[str]:
    return sorted(str(p) for root in roots for p in root.rglob("*.java"))


def index_roots(worker: Worker, roots: list[Path], classpath: list[str] | None = None,
                sourcepath: list[Path] | None = None, release: str = "17"):
    request = IndexRequest(files=java_files(*roots),
                           sourcepath=[str(p) for p in (sourcepath or roots)],
                           classpath=classpath or [], release=release)
    return worker.index(request)
