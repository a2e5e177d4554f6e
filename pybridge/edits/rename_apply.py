"""rename, step three: write a checked plan, all or nothing.

Every file is first written beside its target as a temporary file; then each file's bytes on disk are
compared with the SHA-256 the plan read (`base`), and only when all still match are the temporary
files moved over their targets (`os.replace`, atomic per file) and the moved files' old paths
removed. A file that changed meanwhile is `StaleBaseError`, and nothing is written.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from .check import StaleBaseError
from .rename import RenamePlan


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def stale(root: Path, base: dict[str, str]) -> list[str]:
    """The paths of `base` whose bytes on disk are not the ones read (a missing file is stale)."""
    return sorted(path for path, sha in base.items() if digest(root / path) != sha)


def write(root: Path, plan: RenamePlan, base: dict[str, str]) -> list[str]:
    """Write the plan's new texts (and moves) under `root` when every file of `base` is unchanged;
    the paths written. StaleBaseError (nothing written) otherwise."""
    changed = stale(root, base)
    if changed:
        raise StaleBaseError(changed)
    moved = {m.source: m.target for m in plan.moves}
    encodings = {moved.get(p, p): src.encoding for p, src in plan.sources.items()}
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in sorted(plan.new_texts().items()):
            target = root / path
            if path not in encodings or (path in moved.values() and target.exists()):
                raise StaleBaseError([path])      # a move onto a file that appeared meanwhile
            fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".pybridge-rename", dir=target.parent)
            with os.fdopen(fd, "wb") as out:
                out.write(text.encode(encodings[path]))
                out.flush()
                os.fsync(out.fileno())
            staged.append((path, Path(tmp_name)))
        changed = stale(root, base)              # once more, right before the first replace
        if changed:
            raise StaleBaseError(changed)
        for path, tmp in staged:
            original = root / next((s for s, t in moved.items() if t == path), path)
            if original.exists():
                os.chmod(tmp, original.stat().st_mode & 0o7777)
            os.replace(tmp, root / path)
        staged = []
        for source in moved:
            (root / source).unlink(missing_ok=True)
        return sorted({*plan.new_texts(), *moved})
    finally:
        for _, leftover in staged:
            leftover.unlink(missing_ok=True)
