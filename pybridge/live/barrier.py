"""A cheap, exact proof that a workspace's inputs did not change: an inotify event counter (Linux).

Under `serve`'s live index every exact query must answer from a generation
that matches the files, even when the edit happened a millisecond before the
query. The plain proof is a `stat` sweep of every source file and build file
(`pybridge.sync.snapshot.changes`): a few milliseconds per call on guava, the
largest part of a query's cost. This module gives the same guarantee for the
price of one non-blocking `read`:

- the kernel queues an inotify event *inside* the `write`, `rename`,
  `unlink` or `utimes` call that changes a file, so once an editor's write has
  returned, its event is waiting in the queue;
- `Barrier.epoch(snapshot)` drains the queue (under a lock) and returns a
  counter that every relevant event increments;
- the freshness check takes the epoch *before* its `stat` sweep and keeps it
  with the result; a later query whose epoch is still the same knows that no
  input changed since the sweep began, so the result still holds.

What is watched:

- every directory under the snapshot's source roots (events on `*.java`
  names and on directories count);
- each source file and build file itself, by its inode: a write through a hard link
  made outside the workspace raises no event in the folder being watched
  (inotify reports it to the folder of the name that was opened), but it
  does on the file's own watch, as does the link's creation;
- each directory on the way from the workspace root to a source root, a
  build file, or a place where a source root can appear (`Snapshot.places`: a
  module's `src/test/java` before it exists, the generated-source folders'
  parents); events on a name that a listed build file has (the build system's
  input names: Maven's POMs, Gradle's scripts), on directories, and on any entry at such a
  place (a folder made there, or replaced by a symbolic link) count.

A new directory is watched as soon as its creation is drained, and a new
source file as soon as its name's event is; files made in a new directory
before that are found by the sweep that the increment forces. An overflowed
queue, a removed watch or an inotify limit counts as a change (a sweep
follows) or, when watching cannot go on, turns the barrier off: `epoch` then
returns None and every query sweeps, as without it. A symbolic link among
the inputs gives no proof either (an edit of its target raises no event
here): `epoch` returns None while it is there.

Only Linux has inotify; elsewhere `Barrier.create()` returns None.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import struct
import sys
import threading
from collections.abc import Iterable

from pybridge.sync.snapshot import PARENT_MARK

log = logging.getLogger("pybridge.live")

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

_CONTENT = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE
_ENTRIES = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
MASK = _CONTENT | _ENTRIES | IN_ONLYDIR | IN_DONT_FOLLOW
FILE_MASK = _CONTENT | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW
_HEADER = struct.Struct("iIII")       # wd, mask, cookie, len; then len bytes of NUL-padded name
TREE, CHAIN, FILE = 1, 2, 4           # a directory under a source root; one on the way to a root, build
                                      # file or place; a source file or build file itself


class Barrier:
    """An inotify event counter over one workspace's inputs (see the module docstring)."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._lock = threading.Lock()
        self._epoch = 0
        self._roles: dict[int, tuple[str, int]] = {}      # wd -> (path, TREE | CHAIN bits, or FILE)
        self._config: tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
        self._places: set[str] = set()                    # folders where a root can appear
        self._parents: set[str] = set()                   # folders whose every folder is a root
        self._dirs: set[str] = set()                      # the watched directories
        self._build_names: set[bytes] = set()             # the names of the listed build files (pom.xml)
        self._rescan = False
        self._unprovable: str | None = None               # why these inputs cannot be proven (a symlink)
        self.off: str | None = None                       # why the proof is unavailable, once it is

    @classmethod
    def create(cls) -> Barrier | None:
        """A barrier, or None where inotify is unavailable (not Linux, or no instance left)."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            log.info("inotify unavailable (%s): exact queries check freshness by stat",
                     os.strerror(ctypes.get_errno()))
            return None
        return cls(libc, fd)

    @property
    def proving(self) -> bool:
        """Whether the last `epoch` gave a proof (watching, no symbolic link among the inputs)."""
        return self.off is None and self._unprovable is None and self._config is not None

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
            self.off = self.off or "closed"

    def epoch(self, root: str, source_roots: Iterable[str], build_inputs: Iterable[str],
              places: Iterable[str] = ()) -> int | None:
        """The event counter after draining every queued event, watching these inputs (workspace-
        relative source roots, build file paths and places where a root can appear, under `root`); None
        when no proof can be given."""
        config = (os.path.join(root, ""), tuple(sorted(source_roots)), tuple(sorted(build_inputs)),
                  tuple(sorted(places)))
        with self._lock:
            if self.off is not None:
                return None
            if config != self._config:
                self._config = config
                self._epoch += 1
                self._watch_all()
            self._drain()
            if self._rescan:
                self._rescan = False
                self._watch_all()
                self._drain()
            return None if self.off is not None or self._unprovable is not None else self._epoch

    # ------------------------------------------------------------------------------------ internals

    def _watch_all(self) -> None:
        assert self._config is not None
        prefix, roots, build_inputs, places = self._config
        self._build_names = {os.fsencode(os.path.basename(rel)) for rel in build_inputs}
        self._unprovable = None
        wanted: dict[str, int] = {}
        files: list[str] = []
        top = os.path.normpath(prefix)
        for rel in roots:
            start = os.path.normpath(prefix + rel)
            self._chain(top, os.path.dirname(start), wanted)
            wanted[start] = wanted.get(start, 0) | TREE
            if os.path.islink(start):
                self._unprovable = f"the source root {rel} is a symbolic link"
            for dirpath, _dirnames, names in os.walk(start):
                wanted[dirpath] = wanted.get(dirpath, 0) | TREE
                for name in names:
                    if name.endswith(".java"):
                        path = os.path.join(dirpath, name)
                        if os.path.islink(path):
                            # an edit of a link's target raises no event in the watched folder
                            self._unprovable = f"a source file under {dirpath} is a symbolic link"
                        else:
                            files.append(path)
        for rel in build_inputs:
            build_file = os.path.normpath(prefix + rel)
            self._chain(top, os.path.dirname(build_file), wanted)
            if os.path.islink(build_file):
                self._unprovable = f"{rel} is a symbolic link"
            else:
                files.append(build_file)
        self._places, self._parents = set(), set()
        for rel in places:
            if rel.endswith(PARENT_MARK):
                parent = os.path.normpath(prefix + rel[:-len(PARENT_MARK)])
                self._chain(top, parent, wanted)
                self._parents.add(parent)
            else:
                folder = os.path.normpath(prefix + rel)
                self._chain(top, os.path.dirname(folder), wanted)
                self._places.add(folder)
        self._dirs = set(wanted)
        old, self._roles = self._roles, {}
        for path, role in wanted.items():
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), MASK)
            if wd < 0:
                err = ctypes.get_errno()
                if err == errno.ENOENT and path != top:
                    continue        # not there (yet): its parent's watch reports its creation
                if err in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP):
                    self._unprovable = f"{path} cannot be watched ({os.strerror(err)})"
                    continue
                self._turn_off(f"inotify_add_watch {path}: {os.strerror(err)}")
                return
            self._roles[wd] = (path, role)
        for path in files:
            if not self._watch_file(path):
                return
        for wd in old.keys() - self._roles.keys():
            self._libc.inotify_rm_watch(self._fd, wd)       # its IN_IGNORED finds no role: no count

    def _watch_file(self, path: str) -> bool:
        """Watch one source file or build file by its inode (see the module docstring); False when the barrier
        had to turn off."""
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), FILE_MASK)
        if wd >= 0:
            self._roles[wd] = (path, FILE)
            return True
        err = ctypes.get_errno()
        if err == errno.ENOENT:
            return True             # gone meanwhile: its folder's event says so
        if err in (errno.EACCES, errno.ELOOP, errno.ENOTDIR):
            self._unprovable = f"{path} cannot be watched ({os.strerror(err)})"
            return True
        self._turn_off(f"inotify_add_watch {path}: {os.strerror(err)}")
        return False

    @staticmethod
    def _chain(top: str, folder: str, wanted: dict[str, int]) -> None:
        """The directories from the workspace root down to `folder`, each a CHAIN directory."""
        path = os.path.normpath(folder)
        while True:
            wanted[path] = wanted.get(path, 0) | CHAIN
            if path == top or len(path) <= len(top):
                return
            path = os.path.dirname(path)

    def _drain(self) -> None:
        while self._fd >= 0:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError as exc:
                self._turn_off(f"reading inotify events: {exc}")
                return
            offset = 0
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, offset)
                name = data[offset + _HEADER.size: offset + _HEADER.size + size].rstrip(b"\0")
                offset += _HEADER.size + size
                self._event(wd, mask, name)

    def _event(self, wd: int, mask: int, name: bytes) -> None:
        if mask & IN_Q_OVERFLOW:
            self._epoch += 1          # events were lost: whatever they were, the sweep must look
            self._rescan = True
            return
        role = self._roles.get(wd)
        if role is None:
            return                    # a watch let go of (its IN_IGNORED included)
        path, bits = role
        if mask & IN_IGNORED:
            self._roles.pop(wd, None)
            self._epoch += 1
            self._rescan = self._rescan or bits != FILE   # a file's name, if any is left, has its folder's event
            return
        if bits == FILE:
            self._epoch += 1          # written, truncated, touched or linked, through whichever name
            return
        is_dir = bool(mask & IN_ISDIR) or bool(mask & (IN_DELETE_SELF | IN_MOVE_SELF))
        if is_dir:
            self._epoch += 1
            if mask & (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF):
                self._rescan = True
            return
        full = os.path.join(path, os.fsdecode(name))
        if (bits & TREE and name.endswith(b".java")) or (bits & CHAIN and name in self._build_names):
            self._epoch += 1
            if mask & (IN_CREATE | IN_MOVED_TO):
                if os.path.islink(full):
                    self._rescan = True     # no proof while it is there (the rescan says why)
                else:
                    self._watch_file(full)
            elif self._unprovable and mask & (IN_DELETE | IN_MOVED_FROM):
                self._rescan = True   # a gone name may restore the proof
            return
        if bits & CHAIN and mask & _ENTRIES and (full in self._places or full in self._dirs or path in self._parents):
            self._epoch += 1          # e.g. a source folder replaced by a symbolic link: where do roots lie now?
            self._rescan = True

    def _turn_off(self, why: str) -> None:
        log.warning("freshness by inotify is off (%s): exact queries check freshness by stat", why)
        self.off = why
