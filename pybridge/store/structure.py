"""Read queries of the structure tools (DESIGN section 7, "Structure tools").

Functions over a `Reader` (pinned to one generation), in the style of its
methods: each is one or two index lookups joined to the generation's
manifest. Kept apart from `reader.py` so the structure tools stay one unit.
"""

from __future__ import annotations

from collections.abc import Iterable

from pybridge.facts import REF_IN_IMPORT, REF_IN_JAVADOC

from .reader import _DECL_SELECT, _DECLS_FIRST, Reader, _ids
from .rows import DeclRow, ProblemRow, SymbolInfo
from .schema import CALL_KIND_SQL, DECL_KIND_CODES


def file_declarations(r: Reader, path: str, *, members_only: bool = False) -> list[DeclRow]:
    """Every declaration of one file of the generation, in source order (the primary key
    `(file_version_id, ord)` of `declarations`); `members_only` leaves out parameters,
    locals and type parameters (which contain nothing)."""
    fv = r._file_row(path)
    if fv is None:
        return []
    where = "d.file_version_id = :fv"
    if members_only:
        skip = ", ".join(str(DECL_KIND_CODES[k]) for k in ("PARAMETER", "LOCAL", "TYPE_PARAMETER"))
        where += f" AND d.kind NOT IN ({skip})"
    rows = r._rows(_DECL_SELECT.format(source=_DECLS_FIRST, where=where)
                   + " ORDER BY d.ord", {"g": r.generation.id, "fv": fv[10]})
    return [r._decl(row) for row in rows]


def count_calls(r: Reader, symbol: int | Iterable[int]) -> int:
    """How many call sites (invocation, construction, method_reference; not in Javadoc or
    imports) name the symbol(s)."""
    ids = _ids(symbol)
    params: dict[str, int] = {"g": r.generation.id}
    marks = []
    for i, sid in enumerate(ids):
        params[f"s{i}"] = sid
        marks.append(f":s{i}")
    return int(r._rows(
        "SELECT count(*) FROM refs r CROSS JOIN manifest m"
        " ON m.generation_id = :g AND m.file_version_id = r.file_version_id"
        f" WHERE r.target_id IN ({', '.join(marks)}) AND r.kind IN {CALL_KIND_SQL}"
        f" AND r.flags & {REF_IN_JAVADOC | REF_IN_IMPORT} = 0",
        params)[0][0])


def hierarchy_blockers(r: Reader, limit: int = 20) -> tuple[int, list[ProblemRow]]:
    """Problems that can hide a subtype or an override: syntax errors and unresolved
    types or names (an unresolved supertype cuts the chain). Returns (count, first rows)."""
    kinds = ["syntax", "unresolved_type", "unresolved_name", "unresolved_import"]
    return (r.count_problems(kinds=kinds, errors_only=True),
            r.problems(kinds=kinds, errors_only=True, limit=limit))



def external_symbols(r: Reader, dotted: str, limit: int = 20) -> list[SymbolInfo]:
    """Library and JDK symbols with this exact dotted path that the generation refers to
    (the symbol table outlives generations, so each is checked against the generation's refs)."""
    rows = r._rows(
        "SELECT s.id FROM symbols s WHERE s.dotted = :d AND s.kind <= 9 AND s.external = 1"
        " AND EXISTS (SELECT 1 FROM refs x CROSS JOIN manifest m ON m.generation_id = :g"
        " AND m.file_version_id = x.file_version_id WHERE x.target_id = s.id)"
        " ORDER BY s.id LIMIT :n",
        {"d": dotted, "g": r.generation.id, "n": limit})
    found = r.symbols([row[0] for row in rows])
    return [found[row[0]] for row in rows if row[0] in found]
