"""Edits an agent can trust (DESIGN section 10): the binding diff of a change before it is written.

`model` holds the shapes (`FileChange`, `EditCheck`); `check.check_edit` compiles a change in memory
against the current generation and diffs the facts; `patch.changes_from_patch` reads a unified diff.
"""

from .check import EditSession, StaleBaseError, check_edit, verify_base
from .model import STALE_BASE, EditCheck, FileChange
from .patch import PatchError, changes_from_patch

__all__ = ["STALE_BASE", "EditCheck", "EditSession", "FileChange", "PatchError", "StaleBaseError",
           "changes_from_patch", "check_edit", "verify_base"]
