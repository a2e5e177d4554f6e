"""The writer lock: one staging at a time per store, across processes.

An advisory `flock` on `<store>.lock`. The kernel drops it when the holder
exits, however it exits (SIGKILL included), so a crashed sync never leaves
the store locked, and anyone who can take the lock knows that no staging is
under way and that unpublished generations are debris to collect.

Lock files are opened with `O_NOFOLLOW` and created 0600: a symlink planted
in the state folder is refused, never followed (the holder writes its PID
into the lock file, which would otherwise overwrite the link's target).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from pybridge.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no cross-process lock
    fcntl = None  # type: ignore[assignment]  # off POSIX the module is None; every use checks


def open_lock_file(path: Path) -> int:
    """Open (creating 0600) a lock file; a symlink there is an OSError (ELOOP), never followed."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise OSError(exc.errno, f"{path} is a symbolic link; a lock file must be a plain file "
                          f"(remove the link)") from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, f"{path} is not a regular file; remove it")
        os.fchmod(fd, 0o600)
    except OSError:
        os.close(fd)
        raise
    return fd


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
            fd = open_lock_file(self.path)
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
