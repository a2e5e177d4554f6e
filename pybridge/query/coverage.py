"""Coverage: when an empty (or short) answer proves absence (DESIGN section 8).

`referenceCoverage` for a module/scope filter is true when no source file in
the filter leaves the symbol's simple name (a constructor's: its class's
name) unaccounted for. The indexer records, per file, the names it leaves
unaccounted for (`dev.pybridge.indexer.NameBlocks`, the store's
`blocked_names`):

- `unbound`: an identifier token the compiler could not bind (a member
  reached through an unresolved type, an unresolved name);
- `uncertain_call`: a call whose overload was chosen with an argument (or,
  for a method reference, target) type the compiler could not resolve;
- `incomplete_hierarchy`: a member or type name looked up in a type with an
  unresolved supertype, where a member of that supertype may be meant;
- `syntax`: every identifier token of a member declaration that a syntax
  error damaged, and every token the recovered tree lost;
- `javadoc`: a Javadoc reference (`@link`, `@see`) that did not resolve.

A file that misses some bindings therefore blocks only the names it leaves
unaccounted for, and one missing dependency no longer voids the certificates
of a whole module. A file blocks every name when the indexer failed on it
(its facts were dropped) or when it was stored by an older pybridge that did
not record names and it is not binding-complete.

Where references can only come from the declaring file, only that file
counts: parameters, locals, type parameters, local and anonymous classes
and their members (SCIP `local N`), and private members (Java lets only the
enclosing top-level type use them) except record components, whose private
field is read through a public accessor.

`callerCoverage` (methods and constructors; null otherwise) is the same
check for the method and every method it overrides, transitively, since a
call through a supertype's declaration may dispatch here.

`coverageBlockers` is `{"count": N, "places": [...first 20: {path, line,
character, name, reason}]}` here, 0-based (`name`: the blocked simple name, or
null when the whole file blocks); one place per file and name (its first
occurrence), and `count` counts every occurrence. The tools answer each place
with flat, 1-based `line` and `column` (`view.View.flat_blockers`, DESIGN
section 7).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from pybridge.store import BlockedRow, DeclRow, Reader, SymbolInfo, scope_matches

from .view import CALLABLE_KINDS

Memo = Callable[[Hashable, Callable[[], Any]], Any]   # a per-generation cache: (key, compute) -> value

SHOWN = 20
PRIVATE = 0x0002        # JDT Modifier.PRIVATE
FILE_LOCAL_KINDS = frozenset({"PARAMETER", "LOCAL", "TYPE_PARAMETER"})
BOUND_REASONS = frozenset({"uncertain_call", "incomplete_hierarchy"})   # the token may be bound and recorded
_WHY = {
    "unbound": "`{name}` here is a name the compiler could not bind{times}, so it may be a "
               "reference to this symbol",
    "uncertain_call": "the call of `{name}` here was bound with an argument type the compiler "
                      "could not resolve{times}, so another overload of that name may be the one "
                      "called",
    "incomplete_hierarchy": "`{name}` here was looked up in a type whose supertypes are not all "
                            "resolved{times}, so it may name a member they declare",
    "syntax": "`{name}` here is in code that a syntax error damaged{times}",
    "javadoc": "the Javadoc reference `{name}` here did not resolve{times}",
}


def _file_local(info: SymbolInfo, decl: DeclRow | None) -> str | None:
    """The declaring file when only it can refer to the symbol."""
    if decl is None:
        return None
    private = decl.modifiers & PRIVATE and decl.kind != "RECORD_COMPONENT"   # public accessor
    if decl.kind in FILE_LOCAL_KINDS or (decl.scip or "").startswith("local ") or private:
        return decl.path
    return None


def _overridden(r: Reader, symbol_id: int) -> set[int]:
    seen: set[int] = set()
    frontier = {symbol_id}
    while frontier and len(seen) < 1000:
        rows = r.relations(sorted(frontier), direction="from", kinds=["overrides"])
        frontier = {row.to_id for row in rows} - seen - {symbol_id}
        seen |= frontier
    return seen


class _Blockers:
    def __init__(self, r: Reader, memo: Memo, names: set[str], module: str | None,
                 scope: str | None, path: str | None, files_in_filter: bool,
                 discharged: Callable[[BlockedRow], bool]) -> None:
        self.count = 0
        self.places: list[dict[str, Any]] = []
        if not files_in_filter:
            return
        if path is None:   # what does not depend on the symbol is the same for the whole generation
            whole = memo(("unaccounted", module, scope),
                         lambda: r.unaccounted_files(module=module, scope=scope))
        else:
            whole = r.unaccounted_files(path=path)
        for f in whole:
            self.count += 1
            if len(self.places) < SHOWN:
                first = r.problems(path=f.path, errors_only=True, limit=1)
                why = (f.failure.splitlines()[0] if f.failure and f.failure.startswith("Not indexed")
                       else f"the indexer failed on this file ({f.failure.splitlines()[0]})" if f.failure
                       else "it was indexed by an older pybridge that did not record names")
                span = first[0].span if first else None
                self.places.append({
                    "path": f.path, "line": span.start_line if span else 0,
                    "character": span.start_char if span else 0, "name": None,
                    "reason": f"any name in this file may be a reference: {why}"})
        if not names:
            return
        for b in r.blocked(sorted(names), module=module, scope=scope, path=path):
            if discharged(b):
                continue
            self.count += b.count
            if len(self.places) < SHOWN:
                times = f" ({b.count} such places in this file)" if b.count > 1 else ""
                self.places.append({
                    "path": b.path, "line": b.span.start_line, "character": b.span.start_char,
                    "name": b.name, "reason": _WHY[b.reason].format(name=b.name, times=times)})


def _discharge(r: Reader, info: SymbolInfo, kind: str | None) -> Callable[[BlockedRow], bool]:
    """Whether a blocked row cannot hide a reference to this symbol: the per-token mask.

    Only a row of one occurrence is exact (a row keeps the reason and position of its first
    occurrence): that token is the only one it stands for. A bound token already recorded as
    a reference to this very symbol hides nothing from its answer: an uncertain call bound to
    this overload, a name bound to this member of a type whose supertypes are not all
    resolved (code a syntax error damaged blocks whatever it was bound to). And a Javadoc
    reference (`@link`, `@see`) names a type, member or package, never a parameter or local
    variable.
    """
    variable = kind in ("PARAMETER", "LOCAL")
    mine: set[tuple[str, int, int]] | None = None

    def discharged(b: BlockedRow) -> bool:
        nonlocal mine
        if b.count != 1:
            return False
        if variable and b.reason == "javadoc":
            return True
        if b.reason not in BOUND_REASONS:
            return False
        if mine is None:
            mine = {(x.path, x.span.start_line, x.span.start_char) for x in r.references(info.id)}
        return (b.path, b.span.start_line, b.span.start_char) in mine

    return discharged


def coverage(r: Reader, info: SymbolInfo, decl: DeclRow | None, module: str | None,
             scope: str | None, memo: Memo | None = None) -> dict[str, Any]:
    """The coverage part of `meta` for references to one symbol under a module/scope filter."""
    name = decl.name if decl is not None else info.name
    names = {name} if name else set()
    path = _file_local(info, decl)
    in_filter = path is None or (decl is not None and module in (None, decl.module)
                                 and scope_matches(scope, decl.scope))
    memo = memo or (lambda _key, compute: compute())
    kind = decl.kind if decl is not None else info.kind
    discharged = _discharge(r, info, kind)
    ref = _Blockers(r, memo, names, module, scope, path, in_filter, discharged)
    caller = None
    if kind in CALLABLE_KINDS:
        over = _overridden(r, info.id)
        more = {s.name for s in r.symbols(over).values() if s.name} - names if over else set()
        caller = ref if not more else _Blockers(r, memo, names | more, module, scope, path, in_filter, discharged)
    shown = caller if caller is not None and caller.count > ref.count else ref
    return {
        "referenceCoverage": ref.count == 0,
        "callerCoverage": None if caller is None else caller.count == 0,
        "coverageBlockers": {"count": shown.count, "places": shown.places},
    }
