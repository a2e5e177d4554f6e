"""The live index's settings: CLI options of `serve` override these environment variables.

| setting | env var | default |
| --- | --- | --- |
| watch the workspaces | `PYBRIDGE_NO_WATCH=1` turns it off | on |
| force polling | `PYBRIDGE_WATCH_POLL=1` | off (OS events; polling where the OS gives none) |
| polling interval | `PYBRIDGE_WATCH_POLL_MS` | 300 ms |
| debounce (quiet time before a catch-up) | `PYBRIDGE_WATCH_DEBOUNCE_MS` | 50 ms |
| how long an exact tool waits for the catch-up | `PYBRIDGE_FRESH_WAIT` | 5 s |
| worker idle time before it is let go | `PYBRIDGE_WORKER_IDLE` | 600 s |
| worker memory (RSS) bound | `PYBRIDGE_WORKER_MAX_RSS` | 3072 MB |
| a never-synced workspace's first sync in the background | `PYBRIDGE_NO_AUTO_SYNC=1` turns it off | on |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from pybridge import switches


def _env_float(name: str, default: float, minimum: float = 0.0) -> float:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        return max(float(text), minimum)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number; set it to a number or unset it.") from None


REHEARSE_ENV = "PYBRIDGE_LIVE_REHEARSE"


def rehearse() -> bool:
    """Whether the first catch-up of a served workspace that finds nothing changed rehearses one edit
    (PYBRIDGE_LIVE_REHEARSE, default 1): `LiveIndex._rehearse`."""
    return switches.enabled(REHEARSE_ENV, "leave the first edit's catch-up to fill the caches it needs")


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class LiveConfig:
    watch: bool = True
    poll: bool = False
    poll_ms: int = 300
    debounce_s: float = 0.05
    fresh_wait_s: float = 5.0
    worker_idle_s: float = 600.0
    worker_max_rss_mb: float = 3072.0
    heap: str | None = None
    allow_online: bool = True
    prewarm: bool = True          # start and warm the worker when watching starts
    auto_sync: bool = True        # a never-synced workspace gets its first sync in the background
    rehearse: bool = True         # the first catch-up that finds nothing changed rehearses one edit

    @classmethod
    def from_env(cls, **overrides: Any) -> "LiveConfig":
        """The settings from the environment; `overrides` that are not None win."""
        config = cls(
            watch=not _env_flag("PYBRIDGE_NO_WATCH"),
            poll=_env_flag("PYBRIDGE_WATCH_POLL"),
            poll_ms=int(_env_float("PYBRIDGE_WATCH_POLL_MS", 300, 10)),
            debounce_s=_env_float("PYBRIDGE_WATCH_DEBOUNCE_MS", 50) / 1000,
            fresh_wait_s=_env_float("PYBRIDGE_FRESH_WAIT", 5.0),
            worker_idle_s=_env_float("PYBRIDGE_WORKER_IDLE", 600.0, 0.1),
            worker_max_rss_mb=_env_float("PYBRIDGE_WORKER_MAX_RSS", 3072.0, 1.0),
            heap=os.environ.get("PYBRIDGE_HEAP") or None,
            auto_sync=not _env_flag("PYBRIDGE_NO_AUTO_SYNC"),
            rehearse=rehearse(),
        )
        return replace(config, **{k: v for k, v in overrides.items() if v is not None})
