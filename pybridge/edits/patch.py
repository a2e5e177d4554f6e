"""A unified diff (`git diff`, `diff -u`) read into whole-file changes (`FileChange`)."""

from __future__ import annotations

from pathlib import Path

from pybridge.errors import PybridgeError

from .model import FileChange


class PatchError(PybridgeError):
    """The patch cannot be read or does not apply to the files on disk."""


def changes_from_patch(root: Path, patch: str) -> list[FileChange]:
    """The files `patch` changes, with their whole new text (None: deleted), applied to the files
    under `root` as they are on disk. Raises `PatchError` naming the file and hunk that does not apply."""
    raise NotImplementedError
