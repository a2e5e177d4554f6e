"""What other files can depend on in one source file: its names and its declarations' signatures.

Incremental sync (see `planner`) keeps, per file version:

- `names`: every identifier token of the file's text, comments and string
  literals included (a superset of the simple names the file can mention),
  but Java's reserved keywords and literals, which name nothing;
- `signatures`: binding key -> `[kind, name, declaring key, supertypes, digest, modifiers]`
  for each declaration that code in other files can see: types, methods,
  constructors, fields, enum constants and record components that are not
  inside a body (local and anonymous classes, whose keys hold source offsets,
  are left out, and so are parameters, locals and type parameters, which
  belong to their declaration's signature). `digest` covers the kind, names,
  display, SCIP symbol (its overload index changes when overloads move),
  modifiers, the declaring key, a type's supertypes, and the source text of
  the declaration's signature: for a method or constructor the text from its
  Javadoc to its body (annotations, parameters and throws included, so a
  `@Deprecated` or a renamed parameter type counts), for a type its header,
  for a field or enum constant its whole text (a constant's value can matter
  elsewhere: switch labels, constant folding). An edit inside a method body
  changes no signature.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pybridge.facts import JAVA_KEYWORDS, JAVA_LITERALS, Declaration, FileFacts, codepoints
from pybridge.store.staging import FileSummary

IDENTIFIER = re.compile(r"(?:[^\W\d]|\$)[\w$]*")
# The same tokens in an ASCII text, matched from a character set instead of Unicode categories (on
# hibernate-core's sources 0.21 s instead of 0.30 s for 3,000 files).
_ASCII_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")
_BODY_STOPS = re.compile(r"""[/"'()\[\]{;]""")   # the characters `body_start` acts on
# One encoder for every digest (json.dumps builds a new one per call when an option is set).
_JSON = json.JSONEncoder(ensure_ascii=False)

TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"})
CALLABLE_KINDS = frozenset({"METHOD", "CONSTRUCTOR"})
MEMBER_KINDS = TYPE_KINDS | CALLABLE_KINDS | {"FIELD", "ENUM_CONSTANT", "RECORD_COMPONENT"}
# A declaration inside one of these is local to its file's bodies.
_BODY_KINDS = frozenset({"METHOD", "CONSTRUCTOR", "INITIALIZER", "FIELD", "ENUM_CONSTANT", "LOCAL",
                         "PARAMETER"})

Signature = list[Any]            # [kind, name, declaring key, supertypes digest, digest, modifiers]
Signatures = dict[str, Signature]  # binding key -> signature

# Positions of a signature entry.
KIND, NAME, DECLARING, SUPERS, DIGEST, MODIFIERS = range(6)


# Java's keywords and literals name no declaration, so no lookup asks for them (`_` is kept: before
# Java 9 it was an identifier; so are the contextual keywords, `var`, `record`, `yield`...). Left out
# of `names`, they were about a tenth of the entries of a module's name lists (hibernate-core's
# 765,288 -> 682,489).
RESERVED = (JAVA_KEYWORDS | JAVA_LITERALS) - {"_"}


def names(text: str) -> frozenset[str]:
    """Every identifier token of a Java source text (comments and literals included), but the
    reserved keywords and literals (`RESERVED`)."""
    pattern = _ASCII_IDENTIFIER if text.isascii() else IDENTIFIER
    return frozenset(pattern.findall(text)).difference(RESERVED)


class SourceText:
    """Offsets into a source text from LSP positions (0-based line, UTF-16 character)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        # Without characters beyond the BMP, a UTF-16 unit is a code point: no walk per position.
        self.bmp = _ASTRAL.search(text) is None

    def offset(self, line: int, char: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        if self.bmp:
            return start + max(min(char, end - start), 0)
        return start + codepoints(self.text[start:end], char)


def body_start(text: str, pos: int, end: int) -> int:
    """The offset of the first `{` or `;` at bracket depth 0 in text[pos:end], skipping
    comments and literals; `end` when there is none. Jumps from one character that can matter
    (`_BODY_STOPS`) to the next: every other character leaves the walk as it is."""
    depth = 0
    search = _BODY_STOPS.search
    i = pos
    while i < end:
        found = search(text, i, end)
        if found is None:
            return end
        i = found.start()
        c = text[i]
        if c == "/":
            if text.startswith("//", i):
                nl = text.find("\n", i)
                i = end if nl < 0 else nl + 1
                continue
            if text.startswith("/*", i):
                close = text.find("*/", i + 2)
                i = end if close < 0 else close + 2
                continue
        elif c in "\"'":
            quote = '"""' if text.startswith('"""', i) else c
            j = i + len(quote)
            while j < end and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            i = j + len(quote)
            continue
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth <= 0:         # { or ;
            return i
        i += 1
    return end


def _signature_text(src: SourceText, d: Declaration, in_annotation: bool) -> str:
    start = src.offset(d.span.start_line, d.span.start_char)
    end = src.offset(d.span.end_line, d.span.end_char)
    if d.kind in TYPE_KINDS or d.kind == "ENUM_CONSTANT" or (d.kind in CALLABLE_KINDS and not in_annotation):
        name_end = src.offset(d.name_span.end_line, d.name_span.end_char)
        end = body_start(src.text, max(name_end, start), end)
    return src.text[start:end]


def signatures(text: str, facts: FileFacts, scip: Mapping[str, str] | None = None) -> Signatures:
    """binding key -> [kind, name, declaring key, supertypes digest, digest] (see the module doc).
    `scip`: binding key -> the SCIP symbol to digest for that declaration instead of its own (a
    check digests the generation's symbol of a declaration that kept its key, so that an overload
    index moved by an added or removed overload does not count as a change: `pybridge.edits.check`)."""
    by_key = {d.key: d for d in facts.declarations}
    supers: dict[str, list[str]] = {}
    for rel in facts.relations:
        if rel.kind in ("extends", "implements"):
            supers.setdefault(rel.from_key, []).append(f"{rel.kind} {rel.to_key}")

    in_body: dict[str, bool] = {}     # declaring key -> a body encloses it (the same walk for its members)

    def visible(d: Declaration) -> bool:
        if d.kind not in MEMBER_KINDS:
            return False
        known = in_body.get(d.declaring_key)
        if known is not None:
            return not known
        parent = by_key.get(d.declaring_key)
        seen = 0
        inside = False
        while parent is not None and seen < 64:
            if parent.kind in _BODY_KINDS:
                inside = True
                break
            parent = by_key.get(parent.declaring_key)
            seen += 1
        in_body[d.declaring_key] = inside
        return not inside

    src = SourceText(text)
    out: Signatures = {}
    for d in facts.declarations:
        if d.key in out or not visible(d):
            continue
        parent = by_key.get(d.declaring_key)
        sig = _signature_text(src, d, parent is not None and parent.kind == "ANNOTATION")
        sup = hashlib.sha256("\n".join(sorted(supers.get(d.key, []))).encode()).hexdigest()[:16] \
            if d.kind in TYPE_KINDS else ""
        symbol = d.scip if scip is None else scip.get(d.key, d.scip)
        payload = _JSON.encode([d.kind, d.name, d.display, d.dotted, symbol, d.modifiers, d.declaring_key,
                                sup, sig])
        digest = hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        out[d.key] = [d.kind, d.name, d.declaring_key, sup, digest, d.modifiers]
    return out


def summarize(text: str, facts: FileFacts) -> FileSummary:
    """The names of `text`, and the signatures the indexer computed from the same bytes
    (`facts.signatures`), or, when it left them to Python, `signatures`."""
    return FileSummary(names(text), facts.signatures if facts.signatures is not None else signatures(text, facts))


def changed_entries(old: Signatures, new: Signatures) -> Iterable[tuple[str, Signature | None, Signature | None]]:
    """(key, old entry or None, new entry or None) for every declaration added, removed or changed."""
    for key in old.keys() | new.keys():
        a, b = old.get(key), new.get(key)
        if a is None or b is None or a[DIGEST] != b[DIGEST]:
            yield key, a, b
