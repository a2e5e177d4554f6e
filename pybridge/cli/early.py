"""`pybridge sync` starts its indexer JVM while Python is still importing the CLI.

A one-file incremental sync from the CLI is mostly fixed cost: about 0.6 s of
Python imports, then 0.6 to 0.75 s of JVM start, then the indexing. Started
here, on a thread, when the command line asks for `sync` (and no `--heap`,
which would give the JVM another heap), the JVM's start overlaps the imports;
the sync command takes the worker with `take()` and `release()`s it when done. A
sync that finds nothing changed never uses it and does not wait for its start
(the child ends when this process exits and closes its stdin). `PYBRIDGE_EARLY_WORKER=0` turns it off.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

_pending: tuple[Any, threading.Thread, list[BaseException]] | None = None


def start_if_syncing(argv: Sequence[str]) -> None:
    global _pending
    rest = list(argv[2:])
    if (len(argv) < 2 or argv[1] != "sync" or os.environ.get("PYBRIDGE_EARLY_WORKER", "1") == "0"
            or any(a in ("--help", "-h") or a == "--heap" or a.startswith("--heap=") for a in rest)):
        return
    from pybridge.worker import Worker

    worker = Worker()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            worker.start()
        except BaseException as exc:  # noqa: BLE001 - the sync starts its own worker and reports the cause
            failed.append(exc)

    thread = threading.Thread(target=run, name="pybridge-early-worker", daemon=True)
    thread.start()
    _pending = (worker, thread, failed)


def take() -> Any:
    """The worker being started early (its `start` waits for that start rather than repeating
    it), or None when none was started."""
    global _pending
    if _pending is None:
        return None
    worker = _pending[0]
    return worker


def release(worker: Any) -> None:
    """Close the early worker, unless its start is still under way (a sync that needed no JVM):
    then this process's exit closes the child's stdin, and the child ends on that."""
    global _pending
    if _pending is None or worker is None:
        return
    _w, thread, _failed = _pending
    _pending = None
    if not thread.is_alive():
        worker.close()
