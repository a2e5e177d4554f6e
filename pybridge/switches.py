"""Switches read from the environment (each listed in docs/configuration.md).

An on/off switch is on when `1`, off when `0`, and its default when unset (on, but for a switch
still being proven, such as PYBRIDGE_CLASS_CACHE); any other value is an error that says what
the switch does when off, so that a typo never silently picks one side. A count (`count`) is a
whole number, its default when unset; anything else is an error that says what 0 means.
"""

from __future__ import annotations

import os

from pybridge.errors import PybridgeError


def enabled(name: str, off_means: str, default: bool = True) -> bool:
    """Whether the switch `name` is on (`default` when unset); `off_means` completes "set 0 to ..." in
    the error."""
    raw = os.environ.get(name, "").strip()
    if raw == "":
        return default
    if raw == "1":
        return True
    if raw == "0":
        return False
    raise PybridgeError(f"{name}={raw!r} is neither 0 nor 1; set 0 to {off_means}, or unset it.")


def count(name: str, default: int, zero_means: str) -> int:
    """The whole number the variable `name` holds (`default` when unset or blank); `zero_means`
    completes "0: ..." in the error for a value that is not a whole number."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise PybridgeError(f"{name}={raw!r} is not a whole number; set one (0: {zero_means}), "
                            f"or unset it for the default, {default}.")
    return value
