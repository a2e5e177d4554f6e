"""Positions matched through an edit: which spans of the old text survive unchanged, and where.

A line diff (difflib) finds the unchanged lines; inside each block of replaced lines a character
diff finds the unchanged runs. A span of the old text maps to the new text only when it lies
inside one unchanged run and its token is whole on both sides (not `foo` of `foo` -> `foo2`):
what maps is outside the edited text; what does not is part of the edit.
"""

from __future__ import annotations

import bisect
import difflib
import re

from pybridge.facts import Span, codepoints, utf16_len

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CHAR_DIFF_MAX = 20_000      # a replaced block longer than this (either side) is edited whole
_WORD = re.compile(r"[\w$]")


class _Lines:
    """Offsets (code points) from LSP positions (0-based line, UTF-16 character) and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def offset(self, line: int, char: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return start + codepoints(self.text[start:end], char)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, utf16_len(self.text[self.starts[line]:offset])


class TextMap:
    """Maps spans of `old` to `new` through the edit between them (identity when equal)."""

    def __init__(self, old: str, new: str) -> None:
        self.same = old == new
        self.old, self.new = _Lines(old), _Lines(new)
        self.runs: list[tuple[int, int, int]] = []     # (old start, new start, length), by old start
        if not self.same:
            self._diff(old, new)
        self._starts = [r[0] for r in self.runs]

    def _diff(self, old: str, new: str) -> None:
        a = old.splitlines(keepends=True)
        b = new.splitlines(keepends=True)
        oa = [0]
        for line in a:
            oa.append(oa[-1] + len(line))
        ob = [0]
        for line in b:
            ob.append(ob[-1] + len(line))
        # The common head and tail first: an edit is local, and the diff of the middle alone stays
        # cheap (difflib without autojunk is quadratic on a long file's many `}` and blank lines).
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
            tail += 1
        opcodes: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail],
                                                           autojunk=False).get_opcodes():
            opcodes.append((op, i1 + head, i2 + head, j1 + head, j2 + head))
        if tail:
            opcodes.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
        for tag, i1, i2, j1, j2 in opcodes:
            if tag == "equal":
                self.runs.append((oa[i1], ob[j1], oa[i2] - oa[i1]))
            elif tag == "replace":
                x, y = old[oa[i1]:oa[i2]], new[ob[j1]:ob[j2]]
                if len(x) <= _CHAR_DIFF_MAX and len(y) <= _CHAR_DIFF_MAX:
                    for blk in difflib.SequenceMatcher(None, x, y, autojunk=False).get_matching_blocks():
                        if blk.size:
                            self.runs.append((oa[i1] + blk.a, ob[j1] + blk.b, blk.size))

    @classmethod
    def opaque(cls) -> "TextMap":
        """A map for a file whose old text is gone (a catch-up after the write): nothing maps."""
        out = cls("", "")
        out.same = False
        return out

    def map(self, span: Span) -> Span | None:
        """The span of the same text in `new`, or None when the edit touched it."""
        if self.same:
            return span
        if not self.runs:
            return None
        start = self.old.offset(span.start_line, span.start_char)
        end = self.old.offset(span.end_line, span.end_char)
        i = bisect.bisect_right(self._starts, start) - 1
        if i < 0:
            return None
        a, b, size = self.runs[i]
        if end > a + size:
            return None
        ns, ne = b + (start - a), b + (end - a)
        if not self._whole(self.old.text, start, end) or not self._whole(self.new.text, ns, ne):
            return None
        line, char = self.new.position(ns)
        eline, echar = self.new.position(ne)
        return Span(line, char, eline, echar)

    @staticmethod
    def _whole(text: str, start: int, end: int) -> bool:
        """No identifier character runs on past either end of text[start:end] when it is a word."""
        if start >= end or not _WORD.match(text, start) or not _WORD.match(text, end - 1):
            return True
        before = start > 0 and _WORD.match(text, start - 1) is not None
        after = end < len(text) and _WORD.match(text, end) is not None
        return not before and not after
