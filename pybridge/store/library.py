"""Read queries for library and JDK symbols by name (DESIGN section 7: they are symbols like any other).

The symbol table outlives generations and keeps a row for every library or JDK declaration that
project code ever referred to (`symbols.external = 1`: binding key, kind, simple name, dotted path,
SCIP descriptor). A generation knows the ones its files still refer to or relate to (a reference's
target, a supertype, an overridden method), so each row found through the name indexes
(`symbols_by_name`, `symbols_by_dotted`, `symbols_by_scip`) is checked against the generation's
refs (`refs_by_target`) and relations (`relations_by_to`).
"""

from __future__ import annotations

from .reader import Reader
from .rows import SymbolInfo
from .schema import NAMED_KIND_MAX

_USED = (
    " AND s.external = 1 AND (EXISTS (SELECT 1 FROM refs x CROSS JOIN manifest m"
    " ON m.generation_id = :g AND m.file_version_id = x.file_version_id WHERE x.target_id = s.id)"
    " OR EXISTS (SELECT 1 FROM relations y CROSS JOIN manifest n"
    " ON n.generation_id = :g AND n.file_version_id = y.file_version_id WHERE y.to_id = s.id))"
)
_COLUMNS = {"name": "s.name", "dotted": "s.dotted", "scip": "s.scip"}


def used_externals(r: Reader, *, name: str | None = None, dotted: str | None = None,
                   scip: str | None = None, limit: int = 1000) -> list[SymbolInfo]:
    """Library and JDK symbols of the named kinds (types, methods, constructors, fields, enum
    constants, record components) that the generation refers or relates to, found by exactly one
    of their simple name, exact dotted path or SCIP descriptor; by id."""
    given = [(column, value) for column, value in (("name", name), ("dotted", dotted), ("scip", scip))
             if value is not None]
    if len(given) != 1:
        raise ValueError("Look library symbols up by exactly one of name, dotted or scip.")
    column, value = given[0]
    rows = r._rows(
        f"SELECT s.id FROM symbols s WHERE {_COLUMNS[column]} = :v AND s.kind <= {NAMED_KIND_MAX}"
        + _USED + " ORDER BY s.id LIMIT :n",
        {"v": value, "g": r.generation.id, "n": limit})
    found = r.symbols(row[0] for row in rows)
    return [found[row[0]] for row in rows if row[0] in found]
