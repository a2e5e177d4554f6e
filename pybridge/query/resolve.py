"""Names to symbols: the one resolver of the name tools and `find_symbol` (DESIGN section 7).

Forms, tried in this order:

- a full SCIP symbol, `scip-java maven <groupId>/<artifactId> <version> <descriptor>`
  (`.` for an unknown package; the version is not compared), or a bare
  descriptor such as `com/acme/Greeter#greet().`;
- a path form, `src/main/java/com/acme/Greeter.java#greet` (the path may be
  shortened to its last segments, `Greeter.java#greet`; the member part takes
  every form below; empty, it names the file's primary type);
- one overload, `greet(String)`, `Greeter.greet(String, int)`, `Box(T)`,
  `sum(int...)`: the parameter list is compared with the declaration's
  display, ignoring spaces, packages (`java.lang.String` = `String`), type
  arguments, and `...` versus `[]`;
- a qualified name, `Greeter.greet` or `com.acme.Greeter.greet` (`$` and a
  Javadoc-style `#` are read as `.`), matched at segment boundaries, an
  exact dotted path winning over longer ones that end with it;
- a simple name.

Names resolve among types, methods, constructors, fields, enum constants and
record components. A type's name does not also name its constructors (they
are `Circle(double)` or `Circle.Circle`). One symbol may have several
declaration rows (a class declared in two modules with one binding key).

Library and JDK symbols that the generation refers or relates to (`java.util.List`,
`List.add(E)`, `StringUtils.isEmpty(CharSequence)`, `java/util/List#add().`) resolve by the same
forms but the path form, when nothing of the workspace matches: a name the workspace declares
keeps meaning the workspace's declaration (`add` is not also every library `add`), and a
qualified name reaches the library's (`List.add`). They carry no declaration row
(`Resolved.external`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pybridge.store import DeclRow, SymbolInfo
from pybridge.store.library import used_externals

from .errors import QueryError, invalid, show
from .library import display_of
from .source import workspace_path
from .view import CALLABLE_KINDS, TYPE_KINDS, View, qualified

SHOWN_CANDIDATES = 20
_SEGMENT = re.compile(r"[^\W\d][\w$]*", re.UNICODE)
_OVERLOAD = re.compile(r"^(?P<name>[^()]*?)\s*\((?P<params>[^()]*)\)\s*$")


@dataclass
class Resolved:
    symbol_id: int
    decls: list[DeclRow]          # every declaration row of the symbol (one, nearly always; none: external)
    external: SymbolInfo | None = None   # a library or JDK symbol (no declaration here)

    @property
    def decl(self) -> DeclRow | None:
        return self.decls[0] if self.decls else None


def _strip_generics(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"<[^<>]*>", "", text)
    return text


def _param(text: str) -> str:
    text = _strip_generics(text).replace(" ", "").replace("...", "[]")
    base = text.split("[", 1)
    simple = base[0].rsplit(".", 1)[-1]
    return simple + ("[" + base[1] if len(base) > 1 else "")


def params_match(display: str, params: str) -> bool:
    m = _OVERLOAD.match(display or "")
    if m is None:
        return False
    want = [_param(p) for p in params.split(",")] if params.strip() else []
    have = [_param(p) for p in m.group("params").split(",")] if m.group("params").strip() else []
    return want == have


def _name(text: str) -> str:
    """A qualified or simple Java name, `$`/`#` read as `.`; invalid_argument otherwise."""
    name = _strip_generics(text).replace("$", ".").replace("#", ".").strip()
    parts = name.split(".")
    if not name or not all(_SEGMENT.fullmatch(p) for p in parts):
        raise invalid(f"{show(text)} is not a Java name. Use a simple name (`greet`), a qualified "
                      f"name (`Greeter.greet`), an overload (`greet(String)`), a path form "
                      f"(`src/main/java/com/acme/Greeter.java#greet`) or a SCIP symbol.",
                      field="symbol")
    return name


def _name_and_params(text: str) -> tuple[str, str | None]:
    """The name (as `_name` reads it) and, for an overload such as `greet(String)`, its parameter
    list's text (None when the text names no parameters)."""
    m = _OVERLOAD.match(text)
    if m is None:
        return _name(text), None
    return _name(m.group("name")), m.group("params")


def _by_name(view: View, text: str) -> list[DeclRow]:
    name, params = _name_and_params(text)
    rows = view.r.declarations(dotted=name) if "." in name else view.r.declarations(name=name)
    if params is not None:
        rows = [d for d in rows if d.kind in CALLABLE_KINDS and params_match(d.display, params)]
    if "." in name:
        exact = [d for d in rows if d.dotted == name]
        rows = exact or rows
    return rows


def _by_scip(view: View, text: str) -> list[DeclRow]:
    parts = text.split(" ", 4)
    if parts[0] in ("scip-java", "semanticdb") and len(parts) == 5:
        package, descriptor = parts[2], parts[4]
    elif parts[0] in ("scip-java", "semanticdb"):
        raise invalid(f"{show(text)} is not a full SCIP symbol: expected `scip-java maven "
                      f"<groupId>/<artifactId> <version> <descriptor>`.", field="symbol")
    else:
        package, descriptor = ".", text
    rows = view.r.declarations(scip=descriptor)
    if package != ".":
        rows = [d for d in rows if d.module.replace(":", "/", 1) == package]
    return rows


def _by_path(view: View, text: str) -> list[DeclRow]:
    path_text, member = text.split("#", 1)
    rel = workspace_path(view.ws.spellings, path_text.strip())
    if not member.strip():
        stem = rel.rsplit("/", 1)[-1][:-len(".java")]
        rows = [d for d in view.r.declarations(name=stem) if d.kind in TYPE_KINDS]
    else:
        rows = _by_name(view, member.strip())
    return [d for d in rows if d.path == rel or d.path.endswith("/" + rel)]


def _looks_scip(text: str) -> bool:
    if text.startswith(("scip-java ", "semanticdb ")):
        return True
    if ".java#" in text or text.endswith(".java"):
        return False
    return (text.endswith(("#", ").")) or "`" in text or ("/" in text and "#" in text)
            or (text.endswith(".") and "#" in text))


def lookup(view: View, text: str) -> list[DeclRow]:
    """Every declaration row the text names, in store order (path, position)."""
    text = text.strip()
    if not text:
        raise invalid("The name is empty; pass a symbol name such as `Greeter.greet`.", field="symbol")
    if text.startswith("local "):
        raise QueryError("not_found", f"{show(text)} names a local or parameter, and names resolve "
                         f"among types, methods, constructors, fields, enum constants and record "
                         f"components; reach locals with symbol_at on their name.")
    if _looks_scip(text):
        return _by_scip(view, text)
    head, sep, _ = text.partition("#")
    if sep and head.strip().endswith(".java"):
        return _by_path(view, text)
    if text.endswith(".java") and "/" in text:
        return _by_path(view, text + "#")
    return _by_name(view, text)


def _external_by_name(view: View, text: str) -> list[SymbolInfo]:
    name, params = _name_and_params(text)
    last = name.rsplit(".", 1)[-1]
    found = used_externals(view.r, name=last)
    if "." in name:
        found = [s for s in found if s.dotted and (s.dotted == name or s.dotted.endswith("." + name))]
        exact = [s for s in found if s.dotted == name]
        found = exact or found
    if params is not None:
        found = [s for s in found if s.kind in CALLABLE_KINDS and params_match(display_of(s) or "", params)]
    return found


def _external_by_scip(view: View, text: str) -> list[SymbolInfo]:
    parts = text.split(" ", 4)
    if parts[0] in ("scip-java", "semanticdb"):
        if len(parts) != 5 or parts[2] != ".":      # a library symbol's SCIP names no package
            return []
        text = parts[4]
    return used_externals(view.r, scip=text)


def lookup_external(view: View, text: str) -> list[SymbolInfo]:
    """Library and JDK symbols the text names (see the module doc), minus the constructors of a
    type that is itself named; by id."""
    text = text.strip()
    if not text or text.startswith("local "):
        return []
    if _looks_scip(text):
        found = _external_by_scip(view, text)
    else:
        head, sep, _ = text.partition("#")
        if (sep and head.strip().endswith(".java")) or text.endswith(".java"):
            return []
        found = _external_by_name(view, text)
    types = {s.dotted for s in found if s.kind in TYPE_KINDS}
    return [s for s in found if not (s.kind == "CONSTRUCTOR" and s.dotted
                                     and s.dotted.rsplit(".", 1)[0] in types)]


def external_candidate(view: View, s: SymbolInfo) -> dict[str, Any]:
    """One candidate of an `ambiguous` error for a library or JDK symbol."""
    return {"symbol": view.scip(s.scip, None), "dottedPath": s.dotted, "kind": s.kind,
            "display": qualified(s.dotted, display_of(s), s.kind), "path": None, "line": None,
            "repo": view.ws.slug}


def group(rows: list[DeclRow]) -> dict[int, list[DeclRow]]:
    """Rows by symbol, minus the constructors of a type that is itself named."""
    types = {d.key for d in rows if d.kind in TYPE_KINDS}
    kept = [d for d in rows if not (d.kind == "CONSTRUCTOR" and d.container_key in types)]
    out: dict[int, list[DeclRow]] = {}
    for d in kept:
        out.setdefault(d.symbol_id, []).append(d)
    return out


def candidate(view: View, d: DeclRow) -> dict[str, Any]:
    """One candidate of an `ambiguous` error; `line` is 1-based (a flat line, DESIGN 7)."""
    return {"symbol": view.scip(d.scip, d.module), "dottedPath": d.dotted, "kind": d.kind,
            "display": qualified(d.dotted, d.display, d.kind), "path": d.path,
            "line": d.name_span.start_line + 1, "repo": view.ws.slug}


def resolved_candidate(view: View, res: Resolved) -> dict[str, Any]:
    return external_candidate(view, res.external) if res.external is not None else candidate(view, res.decls[0])


def resolve(view: View, text: str) -> Resolved | None:
    """The one symbol `text` names in this workspace; None when it names nothing here.
    Several symbols raise `ambiguous` with candidates."""
    groups = group(lookup(view, text))
    if not groups:
        library = lookup_external(view, text)
        if len(library) > 1:
            raise ambiguous(text, [external_candidate(view, s) for s in library])
        return Resolved(library[0].id, [], library[0]) if library else None
    if len(groups) > 1:
        raise ambiguous(text, [candidate(view, rows[0]) for rows in groups.values()])
    sid, rows = next(iter(groups.items()))
    return Resolved(sid, rows)


def ambiguous(text: str, candidates: list[dict[str, Any]], total: int | None = None) -> QueryError:
    example = next((c["display"] for c in candidates if c.get("display")), None)
    hint = f", e.g. `{example}`" if example else ""
    return QueryError(
        "ambiguous",
        f"{show(text)} names {total or len(candidates)} declarations; ask again with one "
        f"candidate's qualified name and parameter list{hint}, or its full `symbol`.",
        candidates=candidates[:SHOWN_CANDIDATES], candidateTotal=total or len(candidates),
    )


def not_found(text: str, where: str) -> QueryError:
    return QueryError(
        "not_found",
        f"Nothing named {show(text)} is declared in {where}. Names are exact and case-sensitive "
        f"and resolve among types, methods, constructors, fields, enum constants and record "
        f"components: check the spelling, search with find_symbol, or reach parameters and "
        f"locals with symbol_at.",
    )
