"""A unified diff (`git diff`, `diff -u`) read into whole-file changes (`FileChange`).

Each file's hunks are applied to its text on disk: context and removed lines must match, at the
line the hunk names or, as `patch` does, at the nearest place where they all match (an offset). A
hunk that matches nowhere refuses the whole patch, naming the file and the hunk. `/dev/null` as the
old file adds a file, as the new file deletes one; `a/` and `b/` prefixes are dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from pybridge.errors import PybridgeError

from .model import FileChange

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NULL = "/dev/null"


class PatchError(PybridgeError):
    """The patch cannot be read or does not apply to the files on disk."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="patch")


def _name(header: str) -> str:
    name = header[4:].split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    if name != _NULL and name[:2] in ("a/", "b/"):
        name = name[2:]
    return name


def changes_from_patch(root: Path, patch: str) -> list[FileChange]:
    """The files `patch` changes, with their whole new text (None: deleted), applied to the files
    under `root` as they are on disk. Raises `PatchError` naming the file and hunk that does not apply."""
    lines = patch.splitlines(keepends=True)
    out: list[FileChange] = []
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        old, new = _name(lines[i]), _name(lines[i + 1])
        i += 2
        hunks: list[tuple[int, list[str]]] = []
        while i < len(lines) and lines[i].startswith("@@"):
            m = _HUNK.match(lines[i])
            if m is None:
                raise PatchError(f"The patch has a malformed hunk header {lines[i].strip()!r}; give a unified diff "
                                 "(git diff, diff -u).")
            old_len = int(m.group(2)) if m.group(2) is not None else 1
            new_len = int(m.group(4)) if m.group(4) is not None else 1
            i += 1
            body: list[str] = []
            seen_old = seen_new = 0
            while i < len(lines) and (seen_old < old_len or seen_new < new_len or lines[i].startswith("\\")):
                line = lines[i]
                if line.startswith("\\"):          # "\ No newline at end of file": the line before has none
                    if body:
                        body[-1] = body[-1][0] + body[-1][1:].rstrip("\r\n")
                    i += 1
                    continue
                tag = line[:1] if line[:1] in (" ", "-", "+") else (" " if line.strip() == "" else "")
                if not tag:
                    raise PatchError(f"The hunk of {new if new != _NULL else old} at {m.group(0)} ends early; "
                                     "the patch is cut or not a unified diff.")
                body.append(tag + (line[1:] if line[:1] in (" ", "-", "+") else "\n"))
                seen_old += tag in (" ", "-")
                seen_new += tag in (" ", "+")
                i += 1
            hunks.append((int(m.group(1)), body))
        out.append(_apply(root, old, new, hunks))
    if not out:
        raise PatchError("The patch names no file (no ---/+++ lines); give a unified diff (git diff, diff -u).")
    return out


def _apply(root: Path, old: str, new: str, hunks: list[tuple[int, list[str]]]) -> FileChange:
    for name in (old, new):
        if name != _NULL and not (root / name).resolve().is_relative_to(root.resolve()):
            raise PatchError(f"The patch names {name}, outside the workspace {root}; patch files inside it only.")
    if old == _NULL:
        text: list[str] = []
    else:
        try:
            text = (root / old).read_text(encoding="utf-8").splitlines(keepends=True)
        except OSError as exc:
            raise PatchError(f"The patch changes {old}, which cannot be read ({exc.strerror}); make the patch "
                             "against the workspace's files.") from None
    if new == _NULL:
        removed = [line[1:] for _start, body in hunks for line in body if line[0] == "-"]
        if [x.rstrip("\r\n") for x in removed] != [x.rstrip("\r\n") for x in text]:
            raise PatchError(f"The patch deletes {old} but its removed lines are not that file's text on disk. "
                             "Make the patch against the current text.")
        return FileChange(path=old, text=None)
    result: list[str] = []
    at = 0
    for n, (start, body) in enumerate(hunks, 1):
        before = [line[1:] for line in body if line[0] in (" ", "-")]
        after = [line[1:] for line in body if line[0] in (" ", "+")]
        place = _find(text, before, max(start - 1, 0), at)
        if place is None:
            raise PatchError(f"Hunk {n} of the patch for {old} (at line {start}) does not apply: its context and "
                             "removed lines are not in the file on disk. Make the patch against the current text.")
        result += text[at:place] + after
        at = place + len(before)
    result += text[at:]
    return FileChange(path=new, text="".join(result))


def _find(text: list[str], block: list[str], near: int, lowest: int) -> int | None:
    """Where `block` matches `text` (at `near` or the closest offset at or after `lowest`)."""
    def fits(at: int) -> bool:
        return text[at:at + len(block)] == block or [x.rstrip("\r\n") for x in text[at:at + len(block)]] == \
            [x.rstrip("\r\n") for x in block]

    limit = len(text) - len(block)
    for delta in range(0, len(text) + 1):
        for at in (near - delta, near + delta) if delta else (near,):
            if lowest <= at <= limit and fits(at):
                return at
    return None
