"""The sync lock: two syncs of one workspace never interleave.

An advisory `flock` on `<state>/sync.lock`, held for the whole sync (Maven,
indexing, staging, publish). The kernel drops it when the holder exits,
however it exits, so a killed sync never leaves the workspace locked. A
second sync waits (saying so once) or, asked not to wait, fails at once with
a clear error. The lock file is opened with `O_NOFOLLOW`, created 0600.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Callable

from pybridge.errors import PybridgeError
from pybridge.store.lock import open_lock_file


class SyncBusyError(PybridgeError):
    code = "sync_failed"


class SyncLock:
    def __init__(self, state: Path, what: str = "another sync of this workspace") -> None:
        self.path = state / "sync.lock"
        self.what = what          # who holds it when busy, for the messages
        self._fd: int | None = None

    def acquire(self, wait: bool = True, say: Callable[[str], None] | None = None,
                timeout: float | None = None) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = open_lock_file(self.path)
        except OSError as exc:
            raise SyncBusyError(f"The sync lock {self.path} cannot be opened ({exc.strerror or exc}); "
                                f"fix the state folder or pass another --state-dir.") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            if not wait:
                os.close(fd)
                raise SyncBusyError(
                    f"{self._what()} is running{holder}. Wait for it to finish, or run "
                    "sync again without --no-wait to queue behind it.") from None
            if say:
                say(f"{self._what()} is running{holder}; waiting for it to finish")
            deadline = None if timeout is None else time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if deadline is not None and time.monotonic() > deadline:
                        os.close(fd)
                        raise SyncBusyError(f"{self._what()} is still running{holder} "
                                            f"after {timeout:.0f} s; try again later.") from None
                    time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def _what(self) -> str:
        return self.what[:1].upper() + self.what[1:]

    def release(self) -> None:
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> "SyncLock":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode().strip()
        return f" (process {pid})" if pid else ""
    except OSError:
        return ""
