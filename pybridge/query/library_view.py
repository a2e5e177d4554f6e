"""goToDefinition's answer for a library or JDK symbol (`library_source` finds the file)."""

from __future__ import annotations

import os
from typing import Any

from pybridge.facts import Span
from pybridge.store import SymbolInfo
from pybridge.sync.meta import GenerationMeta

from .errors import QueryError
from .library import jdk_library
from .library_source import LibrarySource, library_source
from .source import snippet
from .structure_source import Header, declaration_header
from .view import View, rng

JAVADOC_MAX = 4000      # characters of Javadoc in an answer; the file holds the rest
FETCH_ENV = "PYBRIDGE_FETCH_SOURCES"
"""`0`: never ask the build tool to download a sources jar (only those already fetched are read)."""


def _source(v: View, info: SymbolInfo, allow_online: bool) -> LibrarySource | None:
    origin = v.origin(info)
    if origin is None:
        return None
    jdk = jdk_library()
    allow_online = allow_online and os.environ.get(FETCH_ENV, "1") != "0"
    return library_source(info, origin, GenerationMeta.of(v.gen), v.ws.state, allow_online=allow_online,
                          java_home=jdk.home if jdk is not None else None)


def library_header(v: View, info: SymbolInfo, *, allow_online: bool) -> Header | None:
    """describe's signature, modifiers, annotations and Javadoc of a library symbol, read from its
    sources (or its class-file view: no Javadoc there); None when neither can be read."""
    found = _source(v, info, allow_online)
    if found is None or found.span is None or found.name_span is None or info.kind is None:
        return None
    try:
        lines = found.path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return declaration_header(lines, found.span, found.name_span, info.kind)


def library_definitions(v: View, info: SymbolInfo, *, allow_online: bool) -> dict[str, Any]:
    """`definitions`: one entry, the symbol's declaration in a file of the state folder (absolute
    path) with `view` (sources or class_file), its Javadoc when the sources have it, and a `note`
    when the view is the class file's or the declaration could not be placed."""
    origin = v.origin(info)
    if origin is None:
        raise QueryError("not_found", f"{info.dotted or info.name} is a library symbol, but no jar on the "
                         f"generation's classpath and no JDK module holds its class (an unresolved "
                         f"dependency?); run status to see the classpath limitations, then sync again.")
    found = _source(v, info, allow_online)
    if found is None:
        raise QueryError("not_found", f"Neither sources nor the class file of {info.dotted or info.name} could "
                         f"be read from {origin.label}; check that the jar exists (sync again if it moved).")
    top = Span(0, 0, 0, 0)
    name, whole = found.name_span or top, found.span or top
    line = None
    try:
        lines = found.path.read_text(encoding="utf-8", errors="replace").splitlines()
        line = lines[name.start_line] if name.start_line < len(lines) else None
    except OSError:
        pass
    javadoc = found.javadoc
    if javadoc is not None and len(javadoc) > JAVADOC_MAX:
        javadoc = javadoc[:JAVADOC_MAX] + " …(cut; the file has the rest)"
    entry: dict[str, Any] = {"path": str(found.path), "range": rng(name), "fullRange": rng(whole),
                             "module": None, "scope": None, "context": snippet(line, name.start_char),
                             "view": found.view, "javadoc": javadoc}
    if found.note:
        entry["note"] = found.note
    return {"definitions": [entry]}
