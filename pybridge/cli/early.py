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

_pending: tuple[Any, threading.Thread] | None = None


def start_if_syncing(argv: Sequence[str]) -> None:
    global _pending
    argv = list(argv)
    if len(argv) > 2 and argv[1] == "--java":          # `pybridge --java DIR sync`: that JDK, early too
        os.environ["PYBRIDGE_JAVA_HOME"] = os.path.abspath(argv[2])
        argv = argv[:1] + argv[3:]
    elif len(argv) > 1 and argv[1].startswith("--java="):
        os.environ["PYBRIDGE_JAVA_HOME"] = os.path.abspath(argv[1].split("=", 1)[1])
        argv = argv[:1] + argv[2:]
    rest = list(argv[2:])
    if (len(argv) < 2 or argv[1] != "sync" or os.environ.get("PYBRIDGE_EARLY_WORKER", "1") == "0"
            or any(a in ("--help", "-h") or a == "--heap" or a.startswith("--heap=") for a in rest)):
        return
    from pybridge.worker import Worker

    worker = Worker()

    def run() -> None:
        try:
            worker.start()
        except BaseException:  # noqa: BLE001 - the sync's own start of this worker tries again and reports why
            pass

    thread = threading.Thread(target=run, name="pybridge-early-worker", daemon=True)
    thread.start()
    _pending = (worker, thread)


def take() -> Any:
    """The worker being started early (its `start` waits for that start rather than repeating
    it), or None when none was started."""
    return _pending[0] if _pending is not None else None


def release(worker: Any) -> None:
    """Close the early worker, unless its start is still under way (a sync that needed no JVM):
    then this process's exit closes the child's stdin, and the child ends on that."""
    global _pending
    if _pending is None or worker is None:
        return
    thread = _pending[1]
    _pending = None
    if not thread.is_alive():
        worker.close()
