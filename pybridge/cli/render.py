"""Readable text for the short CLI commands (the JSON is the tools' own)."""

from __future__ import annotations

import json
from typing import Callable


def _pos(r: dict) -> str:
    rng = r.get("range") or {}
    start = rng.get("start", {})
    return f"{r.get('path', '?')}:{start.get('line', 0) + 1}:{start.get('character', 0) + 1}"


def _fallback(result: dict) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False)


RENDERERS: dict[str, Callable[[dict], str]] = {}
