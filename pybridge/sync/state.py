"""Where a workspace's state lives: its store, Maven scratch files, locks.

By default a per-workspace folder under the user cache directory
(`<cache>/pybridge/<folder-name>-<hash of the root path>`), so nothing is
written into the user's tree; every command takes `--state-dir DIR` to put
it elsewhere (`PYBRIDGE_STATE_DIR` sets a default).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import platformdirs


def default_state_dir(root: Path) -> Path:
    root = Path(root).resolve()
    base = os.environ.get("PYBRIDGE_STATE_HOME") or platformdirs.user_cache_dir("pybridge")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name) or "workspace"
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return Path(base) / f"{slug}-{digest}"


def state_dir_for(root: Path, state_dir: Path | str | None = None) -> Path:
    if state_dir:
        return Path(state_dir).resolve()
    if os.environ.get("PYBRIDGE_STATE_DIR"):
        return Path(os.environ["PYBRIDGE_STATE_DIR"]).resolve()
    return default_state_dir(root)


def store_path(state: Path) -> Path:
    return state / "store.sqlite"
