"""What the benches that edit a synced workspace share (incremental.py, worktrees.py; check_edit.py
has a variant of its own): the methods of a store's current generation, a statement added at the
start of a method's body, and `pybridge sync --json` run as a process (a cold JVM, as a user runs it).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from pybridge.sync.summary import SourceText, body_start

ROOT = Path(__file__).resolve().parent.parent
METHOD = 5   # DECL_KINDS index of METHOD


@dataclass(frozen=True)
class Method:
    path: str                          # relative to the workspace root
    span: tuple[int, int, int, int]    # the whole declaration: line, column, end line, end column
    name_end: tuple[int, int]          # the end of its name (line, column): its body's brace follows


def methods(store_file: Path, checkout: str = "") -> list[Method]:
    """Every method of the checkout's current generation (the store's default checkout: ""), in source
    order (by path, then place): a seed draws the same methods from any sync of the same workspace."""
    conn = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, d.full_line, d.full_col, d.full_line + d.full_dline, d.full_end_col,"
            " d.line + d.dline, d.end_col FROM checkouts c JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " WHERE c.name = ? AND d.kind = ? ORDER BY f.path, d.full_line, d.full_col", (checkout, METHOD)).fetchall()
    finally:
        conn.close()
    return [Method(r[0], (r[1], r[2], r[3], r[4]), (r[5], r[6])) for r in rows]


def add_statement(root: Path, method: Method, statement: str) -> bool:
    """Write `statement` at the start of the method's body (after the brace, one space before it) in
    its file under `root`. False, and nothing written, when the method has no body."""
    file = root / method.path
    text = file.read_text(encoding="utf-8")
    t = SourceText(text)
    end = t.offset(*method.span[2:])
    brace = body_start(text, t.offset(*method.name_end), end)
    if brace >= end or text[brace] != "{":
        return False
    file.write_text(text[:brace + 1] + " " + statement + text[brace + 1:], encoding="utf-8")
    return True


def cli_sync(root: Path, state: Path | None = None, offline: bool = False) -> tuple[float, dict]:
    """`pybridge sync ROOT --json` as a process (into `state` when given, else the default state
    folder; `--offline` with `offline`): (wall seconds, its JSON). Exits naming the output on failure."""
    args = [str(ROOT / ".venv/bin/pybridge"), "sync", str(root), "--json"]
    args += ["--offline"] if offline else []
    args += ["--state-dir", str(state)] if state is not None else []
    t = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"sync failed: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    return wall, json.loads(out.stdout)
