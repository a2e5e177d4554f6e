"""pybridge's cache folder in the user's home, shared by every state folder and workspace."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CACHE_DIR_ENV = "PYBRIDGE_CACHE_DIR"


def cache_home(env: Mapping[str, str] | None = None) -> Path | None:
    """PYBRIDGE_CACHE_DIR (empty or `off`: None, pybridge writes no shared cache), else
    `$XDG_CACHE_HOME/pybridge` (an absolute XDG_CACHE_HOME only), else `~/.cache/pybridge`.
    Holds the shared classpath cache (`workspace/cache.py`) and Maven's class-data archives (`maven/mavencds.py`)."""
    env = os.environ if env is None else env
    value = env.get(CACHE_DIR_ENV)
    if value is not None:
        return None if value.strip() in ("", "off") else Path(value).expanduser()
    xdg = env.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache") / "pybridge"
