"""Reading the sources while the JVM has no facts for them yet.

A first index spends its first seconds in the JVM alone (guava: 2-3 s of parsing and resolving
every file before the first facts come), with the sync's thread waiting and a core partly idle.
`Prefetch` uses that time: on a thread of its own it reads each file the round will index, in the
order the requests list them, checks its bytes against the snapshot's hash, decodes it and makes
what its summary needs of the text alone (`summary.Prepared`: the identifier tokens and the line
index). Staging then takes the prepared file instead of reading it again (`take`); a file not yet
prepared, or beyond the byte budget, is read as before. The thread stops at the budget, at the end
of the list, or at `stop`; a file changed since the snapshot is remembered as stale, and staging
fails the sync with `stale_snapshot` as it would have on reading it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path

from pybridge.sync.summary import Prepared

STALE = object()
DEFAULT_BUDGET = 64 << 20     # bytes of source read ahead, at most


class Prefetch:
    def __init__(self, files: Sequence[tuple[str, str, str]], budget: int = DEFAULT_BUDGET) -> None:
        """`files`: (absolute path, expected sha256 hex, codec name), in the order they will be staged."""
        self._files = list(files)
        self._budget = budget
        self._ready: dict[str, Prepared | object] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pybridge-prefetch", daemon=True)

    def start(self) -> Prefetch:
        self._thread.start()
        return self

    def _run(self) -> None:
        used = 0
        for path, sha, codec in self._files:
            if self._stopping.is_set() or used >= self._budget:
                return
            try:
                data = Path(path).read_bytes()
            except OSError:
                continue        # staging reads it again and says what is wrong
            used += len(data)
            if hashlib.sha256(data).hexdigest() != sha:
                entry: Prepared | object = STALE
            else:
                entry = Prepared(data.decode(codec, errors="replace"))
            with self._lock:
                self._ready[path] = entry

    def take(self, path: str) -> Prepared | object | None:
        """The prepared file (and forget it), `STALE`, or None when it was not read ahead."""
        with self._lock:
            return self._ready.pop(path, None)

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join()
        with self._lock:
            self._ready.clear()
