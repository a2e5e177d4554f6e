"""What a declaration says about itself, read from its source text.

The store keeps each declaration's full range (Javadoc and annotations
included, as JDT reports a body declaration's extent) and its name's range.
The structure tools read the rest from the source file inside that range,
as written: the Javadoc comment, the annotations, the modifier keywords and
the signature (the header up to the body, with comments, annotations and
line breaks taken out and white space collapsed).

A small scanner suffices: it skips comments, string, text-block and char
literals, and tracks bracket depth, so a `{` or `;` inside an annotation's
arguments or a string never ends a header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pybridge.facts import Span, codepoints, utf16_len

from .source import Lines

MODIFIER_WORDS = ("public", "protected", "private", "abstract", "static", "final", "sealed",
                  "non-sealed", "default", "synchronized", "native", "transient", "volatile",
                  "strictfp")
_WORD = re.compile(r"[A-Za-z_$][\w$]*(?:-[a-z]+)?")
SIGNATURE_MAX = 400
JAVADOC_MAX = 8000
HEADER_LINES = 30          # a signature spans at most this many lines after its name


@dataclass(frozen=True, slots=True)
class Header:
    javadoc: str | None          # the Javadoc comment as written (`/** … */`), or None
    annotations: list[str]       # `@Override`, `@SuppressWarnings("unchecked")`, as written
    modifiers: list[str]         # the modifier keywords as written, in order
    signature: str               # the header without Javadoc, comments and annotations
    span: Span | None = None     # the declaration's whole range (a field's from its modifiers on)


def span_text(lines: Lines, span: Span) -> str | None:
    """The text a span covers (UTF-16 columns, as stored); None when out of the file."""
    if not 0 <= span.start_line <= span.end_line < len(lines):
        return None
    first = lines[span.start_line]
    a = codepoints(first, span.start_char)
    if span.start_line == span.end_line:
        return first[a:codepoints(first, span.end_char)]
    last = lines[span.end_line]
    middle = lines[span.start_line + 1:span.end_line]
    return "\n".join([first[a:], *middle, last[:codepoints(last, span.end_char)]])


def _skip(text: str, i: int) -> int:
    """The index after the comment or literal starting at i (i itself when none starts there)."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text.startswith('"""', i):
        end = text.find('"""', i + 3)
        return len(text) if end < 0 else end + 3
    ch = text[i] if i < len(text) else ""
    if ch in "\"'":
        j = i + 1
        while j < len(text) and text[j] != ch and text[j] != "\n":
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, len(text))
    return i


_QUALIFIED = re.compile(r"[\w$.]+")


def _annotation_end(text: str, i: int) -> int:
    """`text[i]` is `@`: the index after the annotation (name and any arguments)."""
    j = i + 1
    while j < len(text) and (text[j].isspace()):
        j += 1
    m = _QUALIFIED.match(text, j)
    j = m.end() if m else j
    k = j
    while k < len(text) and text[k].isspace():
        k += 1
    if k < len(text) and text[k] == "(":
        depth = 0
        while k < len(text):
            n = _skip(text, k)
            if n != k:
                k = n
                continue
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    return k + 1
            k += 1
        return k
    return j


_SPECIAL = re.compile(r"""[/"'@{};=,(\[<)\]>]""")
_OPEN_SPACE = re.compile(r"([(\[<])\s+")
_SPACE_CLOSE = re.compile(r"\s+([,)\]>])")
_FIELD_LIKE = ("FIELD", "ENUM_CONSTANT", "LOCAL")


def header(text: str, kind: str, name_offset: int | None) -> Header:
    """Read a declaration's full text. `name_offset`: where its name starts in `text`
    (the header of a method runs past it to the body; a field's stops at `=`).

    The scanner jumps from one character that can matter (a comment or literal start, `@`, a
    bracket, `{ ; = ,`) to the next; the text between is copied as it is."""
    javadoc = None
    annotations: list[str] = []
    out: list[str] = []
    depth = 0
    i = 0
    n = len(text)
    field_like = kind in _FIELD_LIKE
    search = _SPECIAL.search
    while i < n:
        m = search(text, i)
        if m is None:
            out.append(text[i:])
            break
        k = m.start()
        if k > i:
            out.append(text[i:k])
            i = k
        ch = text[i]
        if ch in "/\"'":            # a comment or a literal may start here
            if text.startswith("/**", i) and not text.startswith("/**/", i) and javadoc is None and not out:
                end = _skip(text, i)
                javadoc = text[i:end]
                i = end
                continue
            j = _skip(text, i)
            if j != i:
                out.append(text[i:j] if ch in "\"'" else " ")
                i = j
                continue
        if ch == "@" and depth == 0 and not text.startswith("@interface", i):
            end = _annotation_end(text, i)
            annotations.append(" ".join(text[i:end].split()))
            out.append(" ")
            i = end
            continue
        past_name = name_offset is None or i >= name_offset
        if depth == 0 and past_name and (ch == "{" or ch == ";"):
            break
        if depth == 0 and past_name and (ch == "=" or ch == ",") and field_like:
            break
        if ch in "([<":
            depth += 1
        elif ch in ")]>" and depth > 0:
            depth -= 1
        out.append(ch)
        i += 1
    signature = " ".join("".join(out).split())
    signature = _SPACE_CLOSE.sub(r"\1", _OPEN_SPACE.sub(r"\1", signature))
    if len(signature) > SIGNATURE_MAX:
        signature = signature[:SIGNATURE_MAX] + "…"
    modifiers = []
    for m in _WORD.finditer(signature):
        word = m.group(0)
        if word in MODIFIER_WORDS:
            modifiers.append(word)
        else:
            break
    if javadoc is not None and len(javadoc) > JAVADOC_MAX:
        javadoc = javadoc[:JAVADOC_MAX] + "…"
    return Header(javadoc, annotations, modifiers, signature)


def _field_start(lines: Lines, name_span: Span) -> tuple[int, int] | None:
    """Where a field's declaration starts when its stored range is only its fragment (`x = 1`
    of `private int x = 1;`): scanning back from the name over the type, modifiers,
    annotations and Javadoc to the `;`, `{` or `}` that ends what comes before."""
    first = max(0, name_span.start_line - 60)
    head = lines[name_span.start_line]
    chunk = [*lines[first:name_span.start_line], head[:codepoints(head, name_span.start_char)]]
    text = "\n".join(chunk)
    i = len(text)
    start = 0
    while i > 0:
        # the previous character that can matter (the others are the type, modifiers, annotations)
        i = max(text.rfind("/", 0, i), text.rfind(")", 0, i), text.rfind(";", 0, i),
                text.rfind("{", 0, i), text.rfind("}", 0, i))
        if i < 0:
            break
        c = text[i]
        if c == "/" and i > 0 and text[i - 1] == "*":
            open_at = text.rfind("/*", 0, i - 1)
            if open_at < 0:
                break
            if text.startswith("/**", open_at):
                start = open_at
                break
            i = open_at
            continue
        if c == ")":
            depth = 1
            while i > 0 and depth:
                i -= 1
                depth += {")": 1, "(": -1}.get(text[i], 0)
            continue
        if c in ";{}":
            line_start = text.rfind("\n", 0, i) + 1
            comment = text.find("//", line_start, i)
            if comment >= 0:
                i = comment
                continue
            start = i + 1
            break
    while start < len(text) and text[start].isspace():
        start += 1
    line = first + text.count("\n", 0, start)
    col_cp = start - (text.rfind("\n", 0, start) + 1)
    line_text = lines[line]
    return line, utf16_len(line_text[:col_cp])


def declaration_header(lines: Lines | None, span: Span, name_span: Span, kind: str) -> Header | None:
    """The header of a declaration from its file's lines; None when the text is unavailable."""
    if lines is None:
        return None
    if kind == "FIELD" and (span.start_line, span.start_char) == (name_span.start_line,
                                                                  name_span.start_char):
        begin = _field_start(lines, name_span)
        if begin is not None:
            span = Span(begin[0], begin[1], span.end_line, span.end_char)
    whole = span
    if span.end_line > name_span.end_line + HEADER_LINES:      # a header ends before the body: read less
        last = min(name_span.end_line + HEADER_LINES, len(lines) - 1)
        span = Span(span.start_line, span.start_char, last, utf16_len(lines[last]))
    text = span_text(lines, span)
    if text is None:
        return None
    name_offset = None
    before = span_text(lines, Span(span.start_line, span.start_char, name_span.start_line,
                                   name_span.start_char))
    if before is not None and (name_span.start_line, name_span.start_char) >= (span.start_line,
                                                                              span.start_char):
        name_offset = len(before)
    h = header(text, kind, name_offset)
    return Header(h.javadoc, h.annotations, h.modifiers, h.signature, whole)
