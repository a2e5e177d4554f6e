"""The overlay a check compiles: the workspace's source roots as the change would leave them.

JDT's batch API (`ASTParser.createASTs` with a sourcepath) reads compilation units and sourcepath
lookups from files. An overlay therefore shows the compiler a shadow of each source root that holds
a changed path, in a temporary folder outside the workspace: the folders on the way to a changed
file are real folders, every other entry is a symbolic link to the workspace's own, a changed file
is a real file with its new text, and a deleted file is simply absent (so the sourcepath does not
find it either). Only the folders along the changed paths are listed; nothing in the workspace is
written. Compile `path(p)` instead of `p`, give `sourcepath(...)` to the compiler, and map the
paths it answers with back through `original`.

A shadow is kept for the next check of the same source root (`Mirror`, PYBRIDGE_CHECK_MIRRORS):
making one links every entry of every folder on the way (guava's collect package alone has about
200), and removing it unlinks them all again, which cost 0.3-0.5 s of a check's wall time on a loaded
machine. A kept shadow is brought up to date with its root before each check instead (each of its
real folders listed on both sides: links made for the entries that appeared, removed for those that
went), then gets the check's files, which are removed again after it; concurrent checks take
different shadows. Its paths also stay the same from one check to the next.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections import Counter
from pathlib import Path

from pybridge import switches

MIRRORS_ENV = "PYBRIDGE_CHECK_MIRRORS"
MIRRORS_KEPT = 4          # shadows kept per source root (more only while more checks run at once)


def mirrors_enabled() -> bool:
    """Whether a check reuses the shadow of a source root an earlier check made (`Mirror`)."""
    return switches.enabled(MIRRORS_ENV, "make each check's shadow source roots anew and remove them after it")


class Overlay:
    """Shadow source roots for `changes` (absolute path -> new text, None: deleted), written in
    `encoding(path)`. Use as a context manager: the temporary folder goes at exit."""

    def __init__(self, changes: dict[Path, str | None], roots: list[Path], encoding: dict[Path, str]) -> None:
        self.changes = changes
        self.encoding = encoding
        # The longest root that holds each changed path gets a shadow.
        self.roots: dict[Path, Path] = {}
        self._tmp: Path | None = None
        self._by_length = sorted(set(roots), key=lambda r: len(r.parts), reverse=True)
        self._wanted = sorted({r for p in changes if (r := self._root_of(p)) is not None}, key=str)
        self._taken: list[Mirror] = []
        # (root + "/", its shadow + "/" or None), longest root first
        self._prefixes: list[tuple[str, str | None]] = []
        self.counts: Counter[str] = Counter()               # links made and removed, files written

    def _root_of(self, path: Path) -> Path | None:
        return next((r for r in self._by_length if path.is_relative_to(r)), None)

    def __enter__(self) -> "Overlay":
        reuse = mirrors_enabled()
        try:
            for i, root in enumerate(self._wanted):
                mine = {p.relative_to(root): text for p, text in self.changes.items() if self._root_of(p) == root}
                encoding = self.encoding.get(root, "utf-8")
                if reuse:
                    mirror = _take(root)
                    self._taken.append(mirror)
                    mirror.apply(mine, encoding, self.counts)
                    self.roots[root] = mirror.dir
                else:
                    if self._tmp is None:
                        self._tmp = Path(tempfile.mkdtemp(prefix="pybridge-edit-"))
                    shadow = self._tmp / str(i)
                    _mirror(root, shadow, mine, encoding, self.counts)
                    self.roots[root] = shadow
        except BaseException:
            self.__exit__()
            raise
        self._prefixes = [(os.path.join(str(r), ""), os.path.join(str(self.roots[r]), "") if r in self.roots else None)
                          for r in self._by_length]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self.counts["removed"] += sum(len(files) + len(dirs) for _, dirs, files in os.walk(self._tmp))
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        for mirror in self._taken:
            _give(mirror, self.counts)
        self._taken = []

    def path(self, path: Path) -> Path:
        """Where the compiler finds `path` (its shadow when its root has one)."""
        root = self._root_of(path)
        if root is None or root not in self.roots:
            return path
        return self.roots[root] / path.relative_to(root)

    def shadow(self, path: str) -> str:
        """`path` (an absolute path's text) as `path` gives it, by text: for every file of a module."""
        for prefix, shadow in self._prefixes:
            if path.startswith(prefix):
                return path if shadow is None else shadow + path[len(prefix):]
        return path

    def sourcepath(self, entries: list[Path]) -> list[Path]:
        return [self.roots.get(e, e) for e in entries]

    def original(self, shadow: str) -> str:
        """The workspace path a compiled path stands for."""
        p = Path(shadow)
        for root, mirror in self.roots.items():
            if p.is_relative_to(mirror):
                return str(root / p.relative_to(mirror))
        return shadow


def _mirror(src: Path, dst: Path, changed: dict[Path, str | None], encoding: str, counts: Counter[str]) -> None:
    """`dst` as `src` with `changed` (relative paths) applied: links to the untouched entries."""
    dst.mkdir(parents=True, exist_ok=True)
    here: dict[str, dict[Path, str | None]] = {}
    files: dict[str, str | None] = {}
    for rel, text in changed.items():
        if len(rel.parts) == 1:
            files[rel.parts[0]] = text
        else:
            here.setdefault(rel.parts[0], {})[Path(*rel.parts[1:])] = text
    try:
        entries = os.listdir(src)
    except OSError:
        entries = []      # a folder the change adds
    for name in entries:
        if name in here or name in files:
            continue
        os.symlink(src / name, dst / name)
        counts["linked"] += 1
    for name, text in files.items():
        if text is not None:
            (dst / name).write_bytes(text.encode(encoding, errors="replace"))
            counts["written"] += 1
    for name, below in here.items():
        _mirror(src / name, dst / name, below, encoding, counts)


class Mirror:
    """A shadow of one source root that outlives a check (see the module doc). Its real folders
    (`real`, relative; the root's own always) hold a link to each entry of the source folder, or a
    real folder on the way to a file some check changed, or a file of the running check
    (`written`, removed by `release`); everything else is a link into the source root."""

    def __init__(self, src: Path) -> None:
        self.src = src
        self.dir = Path(tempfile.mkdtemp(prefix="pybridge-mirror-"))
        self.real: set[Path] = {Path(".")}
        self.written: list[Path] = []

    def apply(self, changed: dict[Path, str | None], encoding: str, counts: Counter[str]) -> None:
        """Bring the shadow up to date with the source root, then show `changed` (relative paths;
        None: deleted) in it."""
        self.refresh(counts)
        for rel, text in sorted(changed.items(), key=lambda c: str(c[0])):
            self._real_folder(rel.parent, counts)
            if rel in self.real:
                self._remove(rel, counts)
            dst = self.dir / rel
            if os.path.lexists(dst):
                os.unlink(dst)
                counts["removed"] += 1
            if text is not None:
                self.written.append(rel)
                dst.write_bytes(text.encode(encoding, errors="replace"))
                counts["written"] += 1

    def refresh(self, counts: Counter[str]) -> None:
        """Each real folder's links made and removed to match its source folder's entries now."""
        for rel in sorted(self.real, key=lambda p: len(p.parts)):     # a parent before its folders
            if rel not in self.real:
                continue                     # went with its parent
            try:
                want = set(os.listdir(self.src / rel))
            except OSError:
                want = set()
            have = set(os.listdir(self.dir / rel))
            for name in sorted(have - want):
                self._remove(rel / name, counts)
            for name in sorted(want - have):
                os.symlink(self.src / rel / name, self.dir / rel / name)
                counts["linked"] += 1

    def release(self, counts: Counter[str]) -> None:
        """Remove the files of the check that ran (the next `refresh` links their names again)."""
        written, self.written = self.written, []
        for rel in written:
            os.unlink(self.dir / rel)
            counts["removed"] += 1

    def _real_folder(self, rel: Path, counts: Counter[str]) -> None:
        if rel in self.real:
            return
        self._real_folder(rel.parent, counts)
        dst = self.dir / rel
        if os.path.lexists(dst):
            os.unlink(dst)
            counts["removed"] += 1
        os.mkdir(dst)
        self.real.add(rel)
        try:
            names = os.listdir(self.src / rel)
        except OSError:
            names = []          # a folder the change adds
        for name in names:
            os.symlink(self.src / rel / name, dst / name)
            counts["linked"] += 1

    def _remove(self, rel: Path, counts: Counter[str]) -> None:
        path = self.dir / rel
        if rel in self.real:
            counts["removed"] += sum(len(files) + len(dirs) for _, dirs, files in os.walk(path))
            shutil.rmtree(path)
            self.real = {r for r in self.real if r != rel and rel not in r.parents}
        else:
            os.unlink(path)
        counts["removed"] += 1

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


_KEPT: dict[Path, list[Mirror]] = {}        # source root -> its idle shadows
_KEPT_LOCK = threading.Lock()


def _take(src: Path) -> Mirror:
    with _KEPT_LOCK:
        idle = _KEPT.get(src)
        if idle:
            return idle.pop()
    return Mirror(src)


def _give(mirror: Mirror, counts: Counter[str]) -> None:
    """Back to the idle shadows once the check's files are gone; a shadow that cannot be cleaned
    (or one too many) is removed."""
    try:
        mirror.release(counts)
    except OSError:
        mirror.close()
        return
    with _KEPT_LOCK:
        idle = _KEPT.setdefault(mirror.src, [])
        if len(idle) < MIRRORS_KEPT:
            idle.append(mirror)
            return
    mirror.close()


def forget_mirrors() -> None:
    """Remove every idle shadow (at exit; tests)."""
    with _KEPT_LOCK:
        mirrors = [m for idle in _KEPT.values() for m in idle]
        _KEPT.clear()
    for mirror in mirrors:
        mirror.close()


atexit.register(forget_mirrors)
