"""`check_edit`: compile a proposed change in memory and diff its facts against the current generation.

(Implementation follows; the signature is stable.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pybridge.errors import PybridgeError
from pybridge.store import Reader
from pybridge.worker import Worker

from .model import STALE_BASE, EditCheck, FileChange


class StaleBaseError(PybridgeError):
    """A file's bytes on disk are not the ones the agent read (`base`): nothing was compiled."""

    code = STALE_BASE

    def __init__(self, changed: list[str]) -> None:
        shown = ", ".join(changed[:10]) + (" …" if len(changed) > 10 else "")
        super().__init__(f"These files changed on disk since you read them ({shown}): nothing was checked. "
                         "Read them again and redo the change against their current text.", changed=changed)
        self.changed = changed


@dataclass
class EditSession:
    """What a check needs: the workspace root, a reader pinned to the generation compared against
    (its facts and its recorded classpaths), a worker (started or not; the live index's warm one
    under `serve`), and how answers name symbols: `symbol_key(symbol id, binding key)` makes a
    symbolKey, `scip(descriptor, module)` a full SCIP symbol (`pybridge.query.view.View` has both)."""

    root: Path
    reader: Reader
    worker: Worker
    symbol_key: Callable[[int, str], str]
    scip: Callable[[str | None, str | None], str | None]


def verify_base(root: Path, base: dict[str, str] | None) -> None:
    """Raise `StaleBaseError` naming every path of `base` whose SHA-256 on disk differs (a missing
    file differs from any digest)."""
    raise NotImplementedError


def check_edit(session: EditSession, changes: list[FileChange], base: dict[str, str] | None = None) -> EditCheck:
    """The binding diff of `changes` (see `pybridge.edits.model`). `base`: path -> SHA-256 of the
    bytes the agent read; any that differs on disk raises `StaleBaseError` before anything is
    compiled. Nothing is written to the workspace and nothing is staged or published."""
    raise NotImplementedError
