"""The writer lock: one staging at a time per store, across processes.

An advisory `flock` on `<store>.lock`. The kernel drops it when the holder
exits, however it exits (SIGKILL included), so a crashed sync never leaves
the store locked, and anyone who can take the lock knows that no staging is
under way and that unpublished generations are debris to collect.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pybridge.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no cross-process lock
    fcntl = None  # type: ignore[assignment]


class WriterLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lock if free; False when another staging holds it."""
        if self._fd is not None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(
                f"The lock file {self.path} cannot be opened ({exc}); pass a writable "
                f"--state-dir.", path=str(self.path),
            ) from exc
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def acquire(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the lock (for short holders: migrations, GC)."""
        deadline = time.monotonic() + timeout
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
