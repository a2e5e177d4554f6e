"""Text edits at LSP positions (0-based line, UTF-16 character; DESIGN section 6).

Lines are split where the compiler splits them (`\\r\\n`, `\\r`, `\\n`), so a position read from the
facts lands on the same character as the indexer saw it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from pybridge.facts import Span, codepoints

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Edit(NamedTuple):
    """Replace the text of `span` (on one line) with `new_text`."""

    span: Span
    new_text: str


def line_starts(text: str) -> list[int]:
    """The offset (code points) where each line of `text` starts."""
    return [0, *(m.end() for m in _LINE_BREAK.finditer(text))]


def lines(text: str) -> list[str]:
    """The lines of `text` without their line breaks."""
    return _LINE_BREAK.split(text)


def offset(text: str, starts: list[int], line: int, character: int) -> int:
    """The code point offset of an LSP position in `text` (ValueError past the end)."""
    if line < 0 or line >= len(starts):
        raise ValueError(f"line {line} is past the end of the text ({len(starts)} lines)")
    start = starts[line]
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    return start + codepoints(text[start:end], character)


def text_at(text: str, starts: list[int], span: Span) -> str:
    return text[offset(text, starts, span.start_line, span.start_char):
                offset(text, starts, span.end_line, span.end_char)]


def apply(text: str, edits: Iterable[Edit]) -> str:
    """`text` with every edit applied (edits must not overlap)."""
    starts = line_starts(text)
    placed = sorted(((offset(text, starts, e.span.start_line, e.span.start_char),
                      offset(text, starts, e.span.end_line, e.span.end_char), e.new_text) for e in edits),
                    reverse=True)
    for earlier, later in zip(placed[1:], placed[:-1], strict=True):
        if earlier[1] > later[0]:
            raise ValueError("edits overlap")
    for start, end, new in placed:
        text = text[:start] + new + text[end:]
    return text
