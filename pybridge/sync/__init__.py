"""Sync: a workspace in (read by its build system), an immutable published generation out (DESIGN sections 2, 4, 5)."""

from pybridge.sync.lock import SyncBusyError
from pybridge.sync.pipeline import StaleSnapshotError, SyncResult, sync
from pybridge.sync.state import default_state_dir, state_dir_for, store_path

__all__ = ["StaleSnapshotError", "SyncBusyError", "SyncResult", "default_state_dir", "state_dir_for",
           "store_path", "sync"]
