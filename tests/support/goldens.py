"""Comparing rendered text with golden files (`pytest --update-goldens` rewrites them)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def mismatched_goldens(golden_dir: Path, rendered: Mapping[str, str], update: bool) -> list[str]:
    """The names whose `<golden_dir>/<name>.golden` differs from (or lacks) the rendered text;
    with `update`, each golden is written instead and nothing is reported."""
    mismatched = []
    for name, text in sorted(rendered.items()):
        path = golden_dir / (name + ".golden")
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            mismatched.append(name)
    return mismatched
