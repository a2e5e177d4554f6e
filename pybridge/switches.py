"""On/off switches read from the environment (each listed in docs/configuration.md).

A switch is on when unset or `1`, off when `0`; any other value is an error that says what the
switch does when off, so that a typo never silently picks one side.
"""

from __future__ import annotations

import os

from pybridge.errors import PybridgeError


def enabled(name: str, off_means: str) -> bool:
    """Whether the switch `name` is on; `off_means` completes "set 0 to ..." in the error."""
    raw = os.environ.get(name, "").strip()
    if raw in ("", "1"):
        return True
    if raw == "0":
        return False
    raise PybridgeError(f"{name}={raw!r} is neither 0 nor 1; set 0 to {off_means}, or unset it.")
