"""The overlay a check compiles: the workspace's source roots as the change would leave them.

JDT's batch API (`ASTParser.createASTs` with a sourcepath) reads compilation units and sourcepath
lookups from files. An overlay therefore shows the compiler a shadow of each source root that holds
a changed path, in a temporary folder outside the workspace: the folders on the way to a changed
file are real folders, every other entry is a symbolic link to the workspace's own, a changed file
is a real file with its new text, and a deleted file is simply absent (so the sourcepath does not
find it either). Only the folders along the changed paths are listed; nothing in the workspace is
written. Compile `path(p)` instead of `p`, give `sourcepath(...)` to the compiler, and map the
paths it answers with back through `original`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


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

    def _root_of(self, path: Path) -> Path | None:
        return next((r for r in self._by_length if path.is_relative_to(r)), None)

    def __enter__(self) -> "Overlay":
        self._tmp = Path(tempfile.mkdtemp(prefix="pybridge-edit-"))
        for i, root in enumerate(self._wanted):
            shadow = self._tmp / str(i)
            mine = {p.relative_to(root): text for p, text in self.changes.items() if self._root_of(p) == root}
            _mirror(root, shadow, mine, self.encoding.get(root, "utf-8"))
            self.roots[root] = shadow
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def path(self, path: Path) -> Path:
        """Where the compiler finds `path` (its shadow when its root has one)."""
        root = self._root_of(path)
        if root is None or root not in self.roots:
            return path
        return self.roots[root] / path.relative_to(root)

    def sourcepath(self, entries: list[Path]) -> list[Path]:
        return [self.roots.get(e, e) for e in entries]

    def original(self, shadow: str) -> str:
        """The workspace path a compiled path stands for."""
        p = Path(shadow)
        for root, mirror in self.roots.items():
            if p.is_relative_to(mirror):
                return str(root / p.relative_to(mirror))
        return shadow


def _mirror(src: Path, dst: Path, changed: dict[Path, str | None], encoding: str) -> None:
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
    for name, text in files.items():
        if text is not None:
            (dst / name).write_bytes(text.encode(encoding, errors="replace"))
    for name, below in here.items():
        _mirror(src / name, dst / name, below, encoding)
