"""Coverage: when an empty (or short) answer proves absence (DESIGN section 8).

`referenceCoverage` for a module/scope filter is true when

1. every source file in the filter was compiled with full bindings (the
   store's `binding_complete`: no syntax error, no unresolved type, method,
   field, variable, name or import, no visitor failure); and
2. none of those files has a problem that could hide a reference to the
   symbol: an unresolved name equal to its simple name (a constructor's is
   its type's name) or a syntax error.

(2) is implied by (1) as the store defines `binding_complete`; it is checked
on its own all the same, and its places are listed first, because they are
the likeliest hiding places. A file that is not binding-complete is a
blocker of its own even with no such problem: an unresolved type can hide
any member reference made through it (`ghost.helper().twice(1)` names no
`twice` in any problem).

Where references can only come from the declaring file, only that file
counts: parameters, locals, type parameters, local and anonymous classes
and their members (SCIP `local N`), and private members (Java lets only the
enclosing top-level type use them) except record components, whose private
field is read through a public accessor.

`callerCoverage` (methods and constructors; null otherwise) is the same
check for the method and every method it overrides, transitively, since a
call through a supertype's declaration may dispatch here.

`coverageBlockers` is `{"count": N, "places": [...first 20: {path, line,
character, reason}]}` here, 0-based; the tools answer each place with flat,
1-based `line` and `column` (`view.View.flat_blockers`, DESIGN section 7).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from pybridge.store import DeclRow, FileInfo, Reader, SymbolInfo

from .view import CALLABLE_KINDS

Memo = Callable[[Hashable, Callable[[], Any]], Any]   # a per-generation cache: (key, compute) -> value

SHOWN = 20
PRIVATE = 0x0002        # JDT Modifier.PRIVATE
FILE_LOCAL_KINDS = frozenset({"PARAMETER", "LOCAL", "TYPE_PARAMETER"})
_WORDS = {
    "unresolved_type": "type", "unresolved_method": "method", "unresolved_field": "field",
    "unresolved_variable": "variable", "unresolved_import": "import", "unresolved_name": "name",
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


def _incomplete(r: Reader, module: str | None, scope: str | None) -> list[FileInfo]:
    if all(ms.files == ms.binding_complete_files for ms in r.module_scopes()
           if module in (None, ms.module) and scope in (None, ms.scope)):
        return []
    return [f for f in r.files(module=module, scope=scope) if not f.binding_complete]


class _Blockers:
    def __init__(self, r: Reader, memo: Memo, names: set[str], module: str | None,
                 scope: str | None, path: str | None, files_in_filter: bool) -> None:
        self.count = 0
        self.places: list[dict] = []
        if not files_in_filter:
            return
        filters = {"module": module, "scope": scope, "path": path}
        named = r.problems(names=sorted(names), **filters) if names else []
        if path is None:   # what does not depend on the symbol is the same for the whole generation
            syntax = memo(("syntax", module, scope), lambda: r.problems(kinds=["syntax"], **filters))
            incomplete = memo(("incomplete", module, scope), lambda: _incomplete(r, module, scope))
        else:
            syntax = r.problems(kinds=["syntax"], **filters)
            info = r.file(path)
            incomplete = [info] if info is not None and not info.binding_complete else []
        blocked_files = {p.path for p in named} | {p.path for p in syntax}
        for p in named:
            self._add(p.path, p.span, f"unresolved {_WORDS.get(p.kind, 'name')} `{p.name}` could "
                                      f"hide a reference: {p.message}")
        for p in syntax:
            self._add(p.path, p.span, f"syntax error: {p.message}")
        for f in incomplete:
            if f.path in blocked_files:
                continue
            if len(self.places) >= SHOWN:
                self.count += 1
                continue
            first = r.problems(path=f.path, errors_only=True, limit=1)
            if f.failure:
                why = f"the indexer failed on this file ({f.failure})"
            elif first:
                why = f"its first error is: {first[0].message}"
            else:
                why = "the compiler could not bind every name in it"
            span = first[0].span if first else None
            self._add(f.path, span, f"not compiled with full bindings, so any reference in it "
                                    f"may be missing: {why}")

    def _add(self, path: str, span, reason: str) -> None:
        self.count += 1
        if len(self.places) < SHOWN:
            self.places.append({"path": path, "line": span.start_line if span else 0,
                                "character": span.start_char if span else 0, "reason": reason})


def coverage(r: Reader, info: SymbolInfo, decl: DeclRow | None, module: str | None,
             scope: str | None, memo: Memo | None = None) -> dict:
    """The coverage part of `meta` for references to one symbol under a module/scope filter."""
    name = decl.name if decl is not None else info.name
    names = {name} if name else set()
    path = _file_local(info, decl)
    in_filter = path is None or (module in (None, decl.module) and scope in (None, decl.scope))
    memo = memo or (lambda _key, compute: compute())
    ref = _Blockers(r, memo, names, module, scope, path, in_filter)
    kind = decl.kind if decl is not None else info.kind
    caller = None
    if kind in CALLABLE_KINDS:
        over = _overridden(r, info.id)
        more = {s.name for s in r.symbols(over).values() if s.name} - names if over else set()
        caller = ref if not more else _Blockers(r, memo, names | more, module, scope, path, in_filter)
    shown = caller if caller is not None and caller.count > ref.count else ref
    return {
        "referenceCoverage": ref.count == 0,
        "callerCoverage": None if caller is None else caller.count == 0,
        "coverageBlockers": {"count": shown.count, "places": shown.places},
    }
