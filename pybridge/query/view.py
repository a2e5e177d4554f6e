"""One tool call's view of one workspace: a pinned reader plus the JSON shapes.

Shapes (camelCase, ranges as in LSP)::

    range    {"start": {"line", "character"}, "end": {"line", "character"}}
    symbol   {"symbolKey", "symbol" (SCIP), "dottedPath", "name", "display", "kind",
              "module", "scope", "external", "origin"? (library and JDK symbols: `g:a:v`, a jar
              path or `jdk:<module>`, see `library`), "generated": true?,
              "declaration": {"path", "range" (the name), "fullRange"} | null}
    summary  {"symbolKey", "symbol", "dottedPath", "display", "kind"}
    reference {"path", "range", "kind", "module", "scope", "container": index | null,
               "context" (the source line, `source.snippet`), "javadoc": true?, "import": true?,
               "generated": true?, "via": summary? (only on a field's references through its
               generated accessor)}

The `javadoc`, `import` and `generated` flags appear only when true.

`references` names each row's container by index into a `containers` table
(each container once, as symbolKey and name, see `container`): on a
100-row page the repeated container objects were nearly half the answer. find_references
keeps the table; findReferences (a seed tool, whose rows carry no index) puts
each row's entry in its place.

`generated` (on symbols and references): the declaration or reference was
generated: a member Lombok's agent added (located at its annotation), code
inside one, or a file under a generated-sources folder. A field's references
include the calls of the getters and setters Lombok generated for it (relation
`generated_from`), each with `via` naming the accessor.

SCIP symbols follow scip-java: `scip-java maven <groupId>/<artifactId> <version>
<descriptor>` for declarations of the workspace (coordinates of the declaring
module), `scip-java maven . . <descriptor>` for library and JDK symbols, and
`local N` as is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from pybridge.facts import DECL_GENERATED, REF_IN_GENERATED, REF_IN_IMPORT, REF_IN_JAVADOC, Span, codepoints
from pybridge.store import DeclRow, Reader, RefRow, SymbolInfo, scope_matches
from pybridge.sync.meta import REFLECTION_NOT_TRACKED, GenerationMeta, scip_symbol

from . import keys
from .errors import invalid, show
from .freshness import Check, envelope, require_fresh
from .library import Origin, described, display_of, implicit, origin
from .source import Lines, snippet, trusted
from .workspace import Served

TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"})
CALLABLE_KINDS = frozenset({"METHOD", "CONSTRUCTOR"})


def rng(span: Span) -> dict[str, Any]:
    return {"start": {"line": span.start_line, "character": span.start_char},
            "end": {"line": span.end_line, "character": span.end_char}}


def qualified(dotted: str | None, display: str | None, kind: str | None) -> str | None:
    """`com.acme.Greeter.greet(String)` for methods and constructors, the dotted path otherwise."""
    if kind in CALLABLE_KINDS and dotted and display and "(" in display:
        parent = dotted.rsplit(".", 1)[0] if "." in dotted else ""
        return f"{parent}.{display}" if parent else display
    return dotted


def container(summary: dict[str, Any]) -> dict[str, Any]:
    """A reference's container as its rows name it (DESIGN section 7: its name and key): `symbolKey`
    and `name`, the declaring type's simple name and the member with its parameter types
    (`ArrayUtilsTest.testAdd()`, `Names.DEFAULT`), or a type's own simple name; the row's path says
    the package. Its dotted path, kind and SCIP symbol are one describe or find_symbol away: on a
    100-row page they made a third of the answer."""
    dotted, display, kind = summary.get("dottedPath") or "", summary.get("display") or "", summary.get("kind")
    parts = dotted.split(".")
    if kind in TYPE_KINDS or len(parts) < 2:
        name = parts[-1]
    else:
        name = f"{parts[-2]}.{display if kind in CALLABLE_KINDS and display else parts[-1]}"
    return {"symbolKey": summary["symbolKey"], "name": name}


ANSWER_BUDGET = 32 * 1024 - 256
"""Bytes of compact JSON a default answer stays under (DESIGN section 7: about 8k tokens); the
margin leaves room for what is added after the cut (clock fields of the envelope). Not
find_references: its pages hold their `limit` (seed 001), and its rows are small instead."""


def size(answer: Any) -> int:
    """The answer's size as the MCP text content carries it: compact JSON, UTF-8."""
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def fit(build: Callable[[int], dict[str, Any]], n: int, *, limit_given: bool) -> tuple[dict[str, Any], int]:
    """The answer `build(k)` for the largest k <= n (at least 1 when n >= 1) whose size is within
    ANSWER_BUDGET, and k. A default answer (no limit given) is cut by count first (the default
    limit), then by bytes: a page of long source lines or long paths holds fewer rows, and says so
    (`nextCursor` or `truncated`). A limit the caller gave is honoured as given (at most 500 rows,
    each bounded: a source line is cut at `source.SNIPPET_MAX` characters in reference and call
    rows, at `source.MAX_CONTEXT` elsewhere)."""
    budget = ANSWER_BUDGET
    answer = build(n)
    if limit_given or n <= 1 or size(answer) <= budget:
        return answer, n
    best, best_k = build(1), 1    # one row, however long, is always answered
    low, high = 2, n - 1
    while low <= high:
        mid = (low + high) // 2
        candidate = build(mid)
        if size(candidate) <= budget:
            best, best_k, low = candidate, mid, mid + 1
        else:
            high = mid - 1
    return best, best_k


class Table:
    """Summaries said once per answer; rows refer to them by index."""

    def __init__(self, summaries: dict[int, dict[str, Any]]) -> None:
        self._summaries = summaries
        self._index: dict[int, int] = {}
        self.rows: list[dict[str, Any]] = []

    def index(self, symbol_id: int | None) -> int | None:
        if symbol_id is None or symbol_id not in self._summaries:
            return None
        if symbol_id not in self._index:
            self._index[symbol_id] = len(self.rows)
            self.rows.append(self._summaries[symbol_id])
        return self._index[symbol_id]


class View:
    """A reader pinned to the current generation, and what answers are built from."""

    def __init__(self, ws: Served, reader: Reader) -> None:
        self.ws = ws
        self.r = reader
        self.gen = reader.generation
        self._check: Check | None = None
        self._coords: dict[str, tuple[str, str]] | None = None
        self._decls: dict[int, DeclRow | None] = {}
        self._lines: dict[tuple[str, str], Lines | None] = {}
        self._encodings: dict[str, str] = {}
        self._proof: object | None = False    # the freshness proof the line cache may use (False: not asked yet)

    # freshness ---------------------------------------------------------------

    def check(self) -> Check:
        if self._check is None:
            self._check = self.ws.freshness.check(self.gen)
        return self._check

    def envelope(self) -> dict[str, Any]:
        return envelope(self.gen, self.check())

    def require_fresh(self) -> None:
        require_fresh(self.ws.slug, self.check())

    # keys and SCIP -----------------------------------------------------------

    def key(self, symbol_id: int, binding_key: str) -> str:
        return keys.make_key(self.ws.secret(), symbol_id, binding_key)

    def scip(self, descriptor: str | None, module: str | None) -> str | None:
        if module is not None and self._coords is None:
            self._coords = self.ws.coordinates(self.gen)
        return scip_symbol(descriptor, module, self._coords or {})

    # symbols -----------------------------------------------------------------

    def first_decls(self, ids: Iterable[int]) -> dict[int, DeclRow | None]:
        """The first declaration of each symbol in this generation (None: not declared)."""
        missing = sorted({i for i in ids if i not in self._decls})
        for i in range(0, len(missing), 400):
            chunk = missing[i:i + 400]
            for d in self.r.declarations(symbol=chunk):
                self._decls.setdefault(d.symbol_id, d)
            for sid in chunk:
                self._decls.setdefault(sid, None)
        return {i: self._decls.get(i) for i in ids}

    def symbol(self, d: DeclRow) -> dict[str, Any]:
        """The full symbol object of a declaration."""
        return {
            "symbolKey": self.key(d.symbol_id, d.key),
            "symbol": self.scip(d.scip, d.module),
            "dottedPath": d.dotted,
            "name": d.name,
            "display": d.display or d.name,
            "kind": d.kind,
            "module": d.module,
            "scope": d.scope,
            "external": False,
            **({"generated": True} if d.modifiers & DECL_GENERATED else {}),
            "declaration": {"path": d.path, "range": rng(d.name_span), "fullRange": rng(d.span)},
        }

    def symbol_of(self, info: SymbolInfo) -> dict[str, Any]:
        """The full symbol object of a symbol row (declared here, or library/JDK)."""
        d = self.first_decls([info.id])[info.id]
        if d is not None:
            return self.symbol(d)
        if implicit(info):
            info = described(info)
        found = self.origin(info) if info.external else None
        return {
            "symbolKey": self.key(info.id, info.key),
            "symbol": self.scip(info.scip, None),
            "dottedPath": info.dotted,
            "name": info.name,
            "display": display_of(info),
            "kind": info.kind,
            "module": None,
            "scope": None,
            "external": info.external,
            **({"origin": found.label} if found is not None else {}),
            "declaration": None,
        }

    def origin(self, info: SymbolInfo) -> Origin | None:
        """Where a library or JDK symbol comes from (`library.origin`), memoized per generation."""
        return origin(GenerationMeta.of(self.gen), info.key, self.ws.memo(self.gen.number))

    def summaries(self, ids: Iterable[int], modules: dict[int, str] | None = None) -> dict[int, dict[str, Any]]:
        """Short symbol objects; `modules` gives the declaring module where known
        (a container is declared in its reference's module)."""
        ids = {i for i in ids if i is not None}
        modules = dict(modules or {})
        unknown = [i for i in ids if i not in modules]
        for sid, d in self.first_decls(unknown).items():
            if d is not None:
                modules[sid] = d.module
        infos = self.r.symbols(ids)
        out = {}
        for sid, info in infos.items():
            d = self._decls.get(sid)
            display = (d.display if d else None) or display_of(info)
            out[sid] = {
                "symbolKey": self.key(sid, info.key),
                "symbol": self.scip(d.scip if d else info.scip, modules.get(sid)),
                "dottedPath": d.dotted if d else info.dotted,
                "display": display,
                "kind": d.kind if d else info.kind,
            }
        return out

    # references --------------------------------------------------------------

    def line_text(self, path: str, module: str, line: int) -> str | None:
        """A source line; each file is read (or found in the source-line cache, which checks its
        stat unless this call's freshness check carries a proof, `Sources.lines`) once per call."""
        key = (path, module)
        if key in self._lines:
            lines = self._lines[key]
        else:
            encoding = self._encodings.get(module)
            if encoding is None:
                encoding = self._encodings[module] = self.ws.encoding(self.gen, module)
            if self._proof is False:
                self._proof = trusted(self._check.proof) if self._check is not None else None
            lines = self._lines[key] = self.ws.sources.lines(path, encoding, self._proof)
        return lines[line] if lines is not None and 0 <= line < len(lines) else None

    def generated_accessors(self, symbol_id: int) -> list[int]:
        """The generated getters and setters of a field (relation `generated_from`)."""
        return sorted({r.from_id for r in self.r.relations(symbol_id, direction="to", kinds=["generated_from"])})

    def references(self, rows: list[RefRow], symbol_id: int | None = None
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The reference rows and their `containers` table (rows point into it by index); with
        `symbol_id`, a row whose target is another symbol (a generated accessor of that field)
        carries `via`, the accessor's summary."""
        summaries = self.summaries({r.container_id for r in rows if r.container_id},
                                   {r.container_id: r.module for r in rows if r.container_id})
        table = Table({sid: container(c) for sid, c in summaries.items()})
        vias = self.summaries({r.target_id for r in rows if symbol_id is not None and r.target_id != symbol_id})
        items = [{
            "path": r.path,
            "range": rng(r.span),
            "kind": r.kind,
            "module": r.module,
            "scope": r.scope,
            "container": table.index(r.container_id),
            "context": snippet(self.line_text(r.path, r.module, r.span.start_line), r.span.start_char),
            **({"javadoc": True} if r.flags & REF_IN_JAVADOC else {}),
            **({"import": True} if r.flags & REF_IN_IMPORT else {}),
            **({"generated": True} if r.flags & REF_IN_GENERATED else {}),
            **({"via": vias[r.target_id]} if r.target_id in vias else {}),
        } for r in rows]
        return items, table.rows

    def column(self, path: str, module: str | None, line: int, character: int) -> int:
        """The 1-based editor column (code points) of a 0-based UTF-16 position."""
        text = self.line_text(path, module or "", line) if line >= 0 else None
        return (codepoints(text, character) if text is not None else character) + 1

    def flat_blockers(self, cov: dict[str, Any]) -> dict[str, Any]:
        """Coverage with its blockers' places in flat, 1-based `line` and `column` (DESIGN 7)."""
        blockers = cov["coverageBlockers"]
        places = []
        for p in blockers["places"]:
            info = self.r.file(p["path"])
            module = info.module if info is not None else None
            places.append({"path": p["path"], "line": p["line"] + 1,
                           "column": self.column(p["path"], module, p["line"], p["character"]),
                           "name": p.get("name"), "reason": p["reason"]})
        return {**cov, "coverageBlockers": {"count": blockers["count"], "places": places}}

    def definition(self, d: DeclRow) -> dict[str, Any]:
        """A declaration site shaped like a reference (kind `definition`)."""
        return {
            "path": d.path, "range": rng(d.name_span), "kind": "definition", "module": d.module,
            "scope": d.scope, "container": None,
            "context": snippet(self.line_text(d.path, d.module, d.name_span.start_line), d.name_span.start_char),
        }

    # modules and limitations -------------------------------------------------

    def modules(self) -> list[str]:
        ids = [m.module for m in self.r.module_scopes()]
        return list(dict.fromkeys(ids))

    def module_arg(self, text: str | None) -> str | None:
        """A module argument: an id, or an artifactId naming one module."""
        if text is None:
            return None
        known = self.modules()
        if text in known:
            return text
        by_artifact = [m for m in known if m.split(":", 1)[-1] == text]
        if len(by_artifact) == 1:
            return by_artifact[0]
        raise invalid(f"module {show(text)} has no sources in generation {self.gen.number} of "
                      f"{self.ws.slug}; use one of: {', '.join(known) or '(none)'}.", field="module")

    def limitations(self, module: str | None = None, scope: str | None = None) -> list[dict[str, Any]]:
        lims = [lim for lim in GenerationMeta.of(self.gen).limitations
                if (module is None or lim.module in (None, module))
                and (lim.scope is None or scope_matches(scope, lim.scope))]
        if not any(lim.kind == REFLECTION_NOT_TRACKED.kind for lim in lims):
            lims.append(REFLECTION_NOT_TRACKED)
        return [{"kind": lim.kind, "module": lim.module, "scope": lim.scope, "message": lim.message} for lim in lims]


@contextmanager
def viewing(ws: Served) -> Iterator[View]:
    """A view of the workspace's current generation for one call; the reader is closed after."""
    reader = ws.reader()
    try:
        yield View(ws, reader)
    finally:
        reader.close()
