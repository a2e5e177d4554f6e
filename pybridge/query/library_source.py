"""A library or JDK symbol's source, as a file an agent can read (DESIGN section 7).

Where the text comes from, first found:

1. the jar's sources jar: where the build tool keeps it, else fetched through the build system
   (`SourcesFetcher`, Maven's `dependency:get` of the `sources` classifier) when the server may go
   online; `view` is `sources`;
2. the JDK's `lib/src.zip` for the JDK's classes; `view` is `sources`;
3. otherwise the class file's signatures, as `javap -protected` prints them (no bodies, no
   Javadoc), marked `view: "class_file"` with a note that says why.

The one source file (or signature listing) of the class is extracted into the state folder
(`<state>/library-sources/<origin>/<path>`), and the answer is that real path with the declaration's
ranges in it: any agent reads it with the tools it already has, and no MCP tool of ours has to carry
jar contents (a `read_source` tool would have cost tools/list room and a second call). The folder
holds at most `KEPT_FILES` files (the ones read last). The declaration is found in the text by a
small scanner (comments and literals masked; the name, the parameter count and simple type names
as in `resolve.params_match`); Javadoc is the `/** */` comment right before it, as written.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pybridge.facts import Span
from pybridge.store import SymbolInfo
from pybridge.sync.meta import GenerationMeta
from pybridge.workspace.buildsystem import SourcesFetcher
from pybridge.workspace.library import local_sources_jar, read_entry
from pybridge.workspace.registry import by_name

from .library import Origin, display_of, owner_of, top_level
from .resolve import params_match

KEPT_FILES = 512
FOLDER = "library-sources"
_MASK = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TYPE_WORDS = r"(?:class|interface|enum|record|@\s*interface)"
_NOT_TYPES = {"return", "new", "throw", "else", "case", "assert", "yield", "instanceof"}


@dataclass(frozen=True)
class LibrarySource:
    path: Path                  # the extracted file (absolute)
    view: str                   # "sources" or "class_file"
    name_span: Span | None      # the declaration's name in it (None: not found, the file's top)
    span: Span | None           # the whole declaration
    javadoc: str | None
    note: str | None            # why a class-file view, or why the declaration was not placed


def _mask(text: str) -> str:
    """Comments and literals replaced by spaces (newlines kept), so positions stay the same."""
    return _MASK.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _close(masked: str, i: int, open_: str, close: str) -> int:
    """The index after the bracket matching the one at `i`."""
    depth = 0
    for j in range(i, len(masked)):
        if masked[j] == open_:
            depth += 1
        elif masked[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(masked)


def _split_params(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if text.strip():
        out.append(text[start:])
    types = []
    for p in out:
        p = re.sub(r"@\w+(\.\w+)*(\([^)]*\))?", " ", p).replace("final ", " ").strip()
        types.append(p.rsplit(None, 1)[0] if " " in p.replace("...", "... ") and not p.endswith("...")
                     else p)
    return types


def _declares(masked: str, start: int) -> bool:
    """Whether a name at `start` stands where a declaration names itself: after a type (a word,
    `>` or `]`) that is not a keyword such as `return`, or after a modifier; not after `.`."""
    before = masked[:start].rstrip()
    if not before or before[-1] == ".":
        return False
    if before[-1] in ">]":
        return True
    word = re.search(r"([\w$]+)$", before)
    return word is not None and word.group(1) not in _NOT_TYPES


def _member(masked: str, info: SymbolInfo, name: str) -> tuple[int, int] | None:
    """(name start, declaration end) of the member in the masked text."""
    kind = info.kind
    if kind in ("METHOD", "CONSTRUCTOR"):
        display = display_of(info) or ""
        wanted = display[display.find("(") + 1:display.rfind(")")] if "(" in display else None
        for m in re.finditer(rf"(?<![\w$]){re.escape(name)}\s*\(", masked):
            first = m.start()
            if kind == "CONSTRUCTOR":       # javap qualifies them: `public java.util.ArrayList(int);`
                while first > 0 and (masked[first - 1].isalnum() or masked[first - 1] in "_$."):
                    first -= 1
            if not _declares(masked, first):
                continue
            open_ = m.end() - 1
            close = _close(masked, open_, "(", ")")
            tail = masked[close:close + 200].lstrip()
            if not tail.startswith(("{", ";", "throws", "default")):
                continue
            params = _split_params(masked[open_ + 1:close - 1])
            if wanted is not None and not params_match(f"{name}({', '.join(params)})", wanted):
                continue
            brace = masked.find("{", close)
            semi = masked.find(";", close)
            end = _close(masked, brace, "{", "}") if brace != -1 and (semi == -1 or brace < semi) else semi + 1
            return m.start(), end
        return None
    for m in re.finditer(rf"(?<![\w$.]){re.escape(name)}(?![\w$])\s*([=;,({{])", masked):
        if kind == "ENUM_CONSTANT" or _declares(masked, m.start()):
            semi = masked.find(";", m.end() - 1)
            return m.start(), (semi + 1 if semi != -1 else m.end())
    return None


def _type(masked: str, name: str) -> tuple[int, int] | None:
    m = re.search(rf"{_TYPE_WORDS}\s+(?:[\w$.]+[.$])?{re.escape(name)}(?![\w$])", masked)
    if m is None:
        return None
    start = m.end() - len(name)
    brace = masked.find("{", start)
    return start, (_close(masked, brace, "{", "}") if brace != -1 else m.end())


def _javadoc(text: str, masked: str, start: int) -> tuple[str | None, int]:
    """The `/** */` comment right before the declaration that names itself at `start` (only
    modifiers and annotations between), and where the declaration begins."""
    line_start = masked.rfind("\n", 0, start) + 1
    head = line_start
    while True:     # annotation lines above it belong to the declaration
        prev = masked.rfind("\n", 0, max(head - 1, 0)) + 1
        line = masked[prev:head].strip()
        if head == 0 or not line.startswith("@"):
            break
        head = prev
    comment_end = text.rfind("*/", 0, head)
    comment = text.rfind("/**", 0, head)
    if comment == -1 or comment_end == -1 or comment_end < comment or masked[comment_end + 2:head].strip():
        return None, head
    return text[comment:comment_end + 2], comment


def _span(text: str, start: int, end: int) -> Span:
    def at(i: int) -> tuple[int, int]:
        line = text.count("\n", 0, i)
        col_text = text[text.rfind("\n", 0, i) + 1:i]
        return line, len(col_text.encode("utf-16-le")) // 2

    (a, b), (c, d) = at(start), at(end)
    return Span(a, b, c, d)


def locate(text: str, info: SymbolInfo) -> tuple[Span, Span, str | None] | None:
    """The declaration of a library symbol in its class's source: name span, whole span (from its
    Javadoc), Javadoc."""
    masked = _mask(text)
    dotted = info.dotted or ""
    internal = owner_of(info.key) or ""
    simple_owner = internal.rsplit("/", 1)[-1].rsplit("$", 1)[-1]
    if info.kind in ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"):
        found = _type(masked, dotted.rsplit(".", 1)[-1] or simple_owner)
        name_len = len(dotted.rsplit(".", 1)[-1] or simple_owner)
    else:
        owner = _type(masked, simple_owner)
        name = simple_owner if info.kind == "CONSTRUCTOR" else (info.name or "")
        offset = owner[0] if owner is not None else 0
        hit = _member(masked[offset:], info, name)
        found = (hit[0] + offset, hit[1] + offset) if hit is not None else None
        name_len = len(name)
    if found is None:
        return None
    start, end = found
    javadoc, head = _javadoc(text, masked, start)
    return _span(text, start, start + name_len), _span(text, head, end), javadoc


def _cache_file(state: Path, origin: Origin, entry: str) -> Path:
    label = re.sub(r"[^\w.:-]+", "_", origin.label.rsplit("/", 1)[-1]).replace(":", "_")
    return state / FOLDER / label / entry


def _write(state: Path, path: Path, data: bytes) -> Path:
    if not path.is_file() or path.stat().st_size != len(data):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        _prune(state / FOLDER)
    else:
        os.utime(path)
    return path


def _prune(root: Path) -> None:
    """Keep the `KEPT_FILES` files read last (the fetch logs apart)."""
    files = sorted((p for p in root.rglob("*") if p.is_file() and p.parent.name != "fetched"),
                   key=lambda p: p.stat().st_mtime)
    for old in files[:max(len(files) - KEPT_FILES, 0)]:
        old.unlink(missing_ok=True)


def _sources_text(origin: Origin, internal: str, meta: GenerationMeta, state: Path,
                  allow_online: bool) -> tuple[bytes, str] | None:
    """The class's source file and its entry name, from a sources jar or the JDK's src.zip."""
    entry = top_level(internal) + ".java"
    if origin.jar is not None:
        sources = local_sources_jar(origin.jar)
        if sources is None and meta.build_tool:
            system = by_name(meta.build_tool)
            if isinstance(system, SourcesFetcher):
                sources = system.sources_jar(origin.jar, state, allow_online=allow_online)
        data = read_entry(sources, entry) if sources is not None else None
        return (data, entry) if data is not None else None
    if origin.jdk is not None and origin.jdk.src_zip is not None:
        found = origin.jdk.source_entry(top_level(internal))
        data = read_entry(origin.jdk.src_zip, found) if found else None
        return (data, found) if data is not None and found else None
    return None


def _javap(origin: Origin, internal: str, java_home: Path | None) -> bytes | None:
    javap = (java_home / "bin" / "javap") if java_home is not None else Path("javap")
    cmd = [str(javap), "-protected"]
    if origin.jar is not None:
        cmd += ["-cp", str(origin.jar)]
    cmd.append(internal.replace("/", "."))
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 and proc.stdout else None


def library_source(info: SymbolInfo, origin: Origin, meta: GenerationMeta, state: Path, *,
                   allow_online: bool, java_home: Path | None) -> LibrarySource | None:
    """The symbol's source file (or class-file view) in the state folder, with its declaration."""
    internal = owner_of(info.key)
    if internal is None:
        return None
    found = _sources_text(origin, internal, meta, state, allow_online)
    if found is not None:
        data, entry = found
        path = _write(state, _cache_file(state, origin, entry), data)
        where = locate(data.decode("utf-8", "replace"), info)
        if where is None:
            return LibrarySource(path, "sources", None, None, None,
                                 "The declaration was not placed in the source file; its top is given.")
        return LibrarySource(path, "sources", where[0], where[1], where[2], None)
    listing = _javap(origin, internal, java_home)
    if listing is None:
        return None
    path = _write(state, _cache_file(state, origin, internal + ".class-signatures.java"), listing)
    system = by_name(meta.build_tool) if meta.build_tool else None
    fetches = system is not None and isinstance(system, SourcesFetcher)
    why = ("No sources jar for this jar was found where the build tool keeps it"
           + ("" if not fetches else " (none is published, or the fetch failed)" if allow_online
              else " (fetching is off: the server is offline or PYBRIDGE_FETCH_SOURCES=0; it was never fetched)")
           + ("" if fetches or system is None else f" ({system.wording.tool} cannot fetch one through pybridge yet)")
           if origin.jar is not None else "The JDK has no lib/src.zip (install its sources package)")
    note = (f"{why}: this is the class file's signature view (javap -protected), without bodies or "
            f"Javadoc.")
    where = locate(listing.decode("utf-8", "replace"), info)
    return LibrarySource(path, "class_file", where[0] if where else None, where[1] if where else None, None, note)
