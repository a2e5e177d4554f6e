"""The declarations of a library file as a tree: `outline` of a file that goToDefinition or
describe extracted into the state folder (`library_source`: a sources jar's or `src.zip`'s file,
or a class file's `javap` signature view).

The store holds no declarations of a library, so the file is read by a small scanner over its
text with comments and literals masked (`library_source._mask`): type bodies by their braces,
members by their `;` or body, enum constants before the first `;`. Initializers and record
components are not listed; an anonymous or local class inside a body is skipped with the body.
A declaration the workspace uses (an external symbol of the generation with its dotted path; a
member placed at the same name by `library_source.locate`, as goToDefinition places it) carries
its symbol key; any other has an empty `symbolKey`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pybridge.facts import Span
from pybridge.store.library import used_externals

from .errors import QueryError
from .library_source import FOLDER, _close, _javadoc, _mask, _span, locate
from .results import Position, Range
from .structure_models import OutlineItem, OutlineResult, dump
from .structure_source import declaration_header
from .view import View

_TYPE = re.compile(r"(?<![\w$])(class|interface|enum|record)\s+([\w$.]+)|@\s*interface\s+([\w$.]+)")
_KINDS = {"class": "CLASS", "interface": "INTERFACE", "enum": "ENUM", "record": "RECORD"}
_ANNOTATION = re.compile(r"@(?!\s*interface\b)\s*[\w$]+(?:\s*\.\s*[\w$]+)*")
_IDENT = re.compile(r"[\w$]+")
_SKIP_HEADERS = ("package", "import", "module", "open")
_MODIFIERS = {"public", "protected", "private", "static", "final", "abstract", "native", "synchronized",
              "transient", "volatile", "strictfp", "default", "sealed", "non-sealed"}


@dataclass
class ScannedDecl:
    kind: str
    name: str
    name_start: int
    start: int           # where its Javadoc or first annotation begins
    end: int
    children: list[ScannedDecl] = field(default_factory=list)


def _strip_annotations(m: str, start: int, end: int) -> str:
    """The masked header [start, end) with annotations (and their arguments) blanked, positions kept."""
    text = list(m[start:end])
    for a in _ANNOTATION.finditer(m, start, end):
        stop = a.end()
        rest = m[stop:end].lstrip()
        if rest.startswith("("):
            stop = min(_close(m, stop + (len(m[stop:end]) - len(rest)), "(", ")"), end)
        for i in range(a.start() - start, stop - start):
            text[i] = " "
    return "".join(text)


def _top_level(header: str) -> str:
    """The header with the insides of (), <>, [] and {} blanked."""
    out, depth = [], 0
    for c in header:
        if c in "(<[{":
            depth += 1
            out.append(c if depth == 1 else " ")
        elif c in ")>]}":
            depth = max(depth - 1, 0)
            out.append(c if depth == 0 else " ")
        else:
            out.append(c if depth == 0 else " ")
    return "".join(out)


def _simple(name: str) -> str:
    return re.split(r"[.$]", name)[-1]


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.m = _mask(text)

    def decl(self, kind: str, name: str, name_start: int, end: int) -> ScannedDecl:
        _, head = _javadoc(self.text, self.m, name_start)
        header_start = head
        return ScannedDecl(kind, name, name_start, min(header_start, name_start), end)

    def body(self, i: int, end: int, owner: str | None, enum: bool) -> list[ScannedDecl]:
        """The declarations between `i` and `end` (a type's body; the whole file when `owner` is None)."""
        m = self.m
        out: list[ScannedDecl] = []
        if enum:
            i = self.constants(i, end, out)
        hs = j = i
        while j < end:
            c = m[j]
            if c == "(":
                j = _close(m, j, "(", ")")
                continue
            if c == ";":
                if owner is not None:
                    out.extend(self.member(hs, j + 1, owner))
                hs = j = j + 1
                continue
            if c == "{":
                close = _close(m, j, "{", "}")
                clean = _strip_annotations(m, hs, j)
                top = _top_level(clean)
                t = _TYPE.search(clean)
                if t is not None and "=" not in top[:t.start()]:
                    word = t.group(1) or "@interface"
                    raw = t.group(2) or t.group(3)
                    name = _simple(raw)
                    name_start = hs + t.start(2 if t.group(2) else 3) + len(raw) - len(name)
                    d = self.decl(_KINDS.get(word, "ANNOTATION"), name, name_start, close)
                    d.children = self.body(j + 1, close - 1, name, word == "enum")
                    out.append(d)
                    hs = j = close
                    continue
                if "=" in top or "->" in top or owner is None:
                    j = close               # an initializer's braces: the member ends at its `;`
                    continue
                if "(" in top:
                    out.extend(self.member(hs, close, owner, body_at=j))
                hs = j = close              # a method's body, or an initializer block
                continue
            j += 1
        return out

    def constants(self, i: int, end: int, out: list[ScannedDecl]) -> int:
        """Enum constants from `i` up to the first `;` at this level; the index after it."""
        m = self.m
        j = i
        while j < end:
            while j < end and (m[j].isspace() or m[j] == ","):
                j += 1
            clean = _strip_annotations(m, j, min(end, j + 2000))
            k = 0
            while k < len(clean) and clean[k].isspace():
                k += 1
            j += k
            word = _IDENT.match(m, j)
            if j >= end or m[j] in ";}" or word is None:
                return j + 1 if j < end and m[j] == ";" else j
            stop = word.end()
            rest = stop
            while rest < end and m[rest].isspace():
                rest += 1
            if rest < end and m[rest] == "(":
                rest = _close(m, rest, "(", ")")
                while rest < end and m[rest].isspace():
                    rest += 1
            if rest < end and m[rest] == "{":
                rest = _close(m, rest, "{", "}")
            out.append(self.decl("ENUM_CONSTANT", word.group(0), word.start(), rest))
            j = rest
            if j < end and m[j] == ";":
                return j + 1
        return j

    def member(self, hs: int, end: int, owner: str, body_at: int | None = None) -> list[ScannedDecl]:
        m = self.m
        stop = body_at if body_at is not None else end - 1
        clean = _strip_annotations(m, hs, stop)
        if not clean.strip() or clean.strip().split(None, 1)[0] in _SKIP_HEADERS:
            return []
        top = _top_level(clean)
        paren = top.find("(")
        eq = top.find("=")
        if paren != -1 and (eq == -1 or paren < eq):
            before = clean[:paren].rstrip()
            w = re.search(r"([\w$.]+)$", before)
            if w is None:
                return []
            name = _simple(w.group(1))
            name_start = hs + w.end() - len(name)
            prev = re.search(r"(\S+)\s*[\w$.]+$", before[:len(before)])
            word = prev.group(1) if prev is not None and prev.end(1) < w.start() else None
            if name == owner and (word is None or word in _MODIFIERS or word.endswith(">")):
                kind = "CONSTRUCTOR"
            elif word is not None and word not in _MODIFIERS:
                kind = "METHOD"
            else:
                return []           # no result type: not a declaration this scanner knows
            return [self.decl(kind, name, name_start, end)]
        out = []
        offset = 0
        for n, part in enumerate(_split_top(top)):
            declarator = part.split("=", 1)[0].replace("[", " ").replace("]", " ").rstrip()
            w = re.search(r"([\w$]+)$", declarator)
            if w is not None and (n > 0 or re.search(r"[\w$>\]]\s+[\w$]+$", declarator)):
                out.append(self.decl("FIELD", w.group(1), hs + offset + w.start(), end))
            offset += len(part) + 1
        return out


def _split_top(top: str) -> list[str]:
    return top.split(",")


def scan(text: str) -> list[ScannedDecl]:
    """The declarations of a Java source file (or a javap listing), top-level types first, members nested."""
    s = _Scanner(text)
    return s.body(0, len(s.m), None, False)


def spans(text: str, d: ScannedDecl) -> tuple[Span, Span]:
    """(name span, whole span) of a scanned declaration."""
    return _span(text, d.name_start, d.name_start + len(d.name)), _span(text, d.start, d.end)


def library_file(state: Path, text: str) -> Path | None:
    """The file of the state folder's `library-sources` that `text` names (absolute), else None."""
    if "\0" in text or not os.path.isabs(text):
        return None
    folder = os.path.realpath(state / FOLDER)
    path = os.path.realpath(text)
    return Path(path) if path.startswith(folder + os.sep) and os.path.isfile(path) else None


def _package(path: Path, folder: Path) -> str:
    """The dotted package of an extracted file (`<label>/[java.base/]java/util/List.java` -> `java.util`)."""
    parts = list(path.relative_to(folder).parts[1:-1])
    if parts and "." in parts[0]:         # src.zip's module folder
        parts = parts[1:]
    return ".".join(parts)


_TYPE_KINDS = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")


class _Keys:
    """Symbol keys of the file's declarations that the generation uses, and the file's origin."""

    def __init__(self, v: View, text: str) -> None:
        self.v, self.text = v, text
        self.origin: str | None = None

    def key(self, dotted: str, d: ScannedDecl, name_span: Span) -> str:
        for info in used_externals(self.v.r, dotted=dotted, limit=50):
            if (info.kind in _TYPE_KINDS) != (d.kind in _TYPE_KINDS) or info.kind is None:
                continue
            if d.kind not in _TYPE_KINDS:
                where = locate(self.text, info)
                if where is None or where[0] != name_span:
                    continue
            if self.origin is None and (origin := self.v.origin(info)) is not None:
                self.origin = origin.label
            return self.v.key(info.id, info.key)
        return ""


def library_outline(v: View, path: Path, limit: int) -> OutlineResult:
    """outline of a library file of the state folder: module is its origin (`jdk:java.base`, a jar's
    coordinates) when the generation knows one of its types, else its cache folder's name; scope
    `library`; bindingComplete false (the file was not compiled)."""
    folder = Path(os.path.realpath(v.ws.state / FOLDER))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise QueryError("not_found", f"{path} could not be read ({e.strerror}); call goToDefinition on the "
                                      f"library symbol again to extract it anew.") from e
    lines = tuple(text.splitlines())
    keys = _Keys(v, text)
    package = _package(path, folder)
    count = 0
    total = 0

    def items(ds: list[ScannedDecl], dotted: str) -> list[OutlineItem]:
        nonlocal count, total
        out = []
        for d in ds:
            total += 1
            name = f"{dotted}.{d.name}" if dotted else d.name
            kids = d.children
            if count >= limit:
                items_of(kids, name)          # counted, not listed
                continue
            count += 1
            name_span, whole = spans(text, d)
            h = declaration_header(lines, whole, name_span, d.kind)
            item = OutlineItem(symbolKey=keys.key(f"{package}.{name}" if package else name, d, name_span),
                               kind=d.kind, name=d.name, range=_range(whole), line=name_span.start_line + 1)
            if h is not None:
                item.signature = h.signature
                if h.modifiers:
                    item.modifiers = h.modifiers
            item.children = [dump(c) for c in items(kids, name if d.kind in _TYPE_KINDS else dotted)]
            out.append(item)
        return out

    def items_of(ds: list[ScannedDecl], dotted: str) -> None:
        nonlocal total
        for d in ds:
            total += 1
            items_of(d.children, f"{dotted}.{d.name}")

    roots = items(scan(text), "")
    label = keys.origin or path.relative_to(folder).parts[0]    # else the cache folder's name
    return OutlineResult(path=str(path), module=label, scope="library", bindingComplete=False,
                         declarations=roots, total=total, truncated=count < total, **v.envelope())


def _range(s: Span) -> Range:
    return Range(start=Position(line=s.start_line, character=s.start_char),
                 end=Position(line=s.end_line, character=s.end_char))
