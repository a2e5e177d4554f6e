"""Coverage: when an empty (or short) answer proves absence (DESIGN section 8).

`referenceCoverage` for a module/scope filter is true when no source file in
the filter leaves the symbol's simple name (a constructor's: its class's
name) unaccounted for. The indexer records, per file, each token it leaves
unaccounted for (`dev.pybridge.indexer.NameBlocks`, the store's
`blocked_names`), with what it can name there and, for a call, its number
of arguments (`_discharge` masks each token by them; docs/design.md,
"Certificates when a dependency is missing"):

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
call through a supertype's declaration may dispatch here; a name looked up
in an incomplete hierarchy blocks it whatever type declares it, since the
missing member it may be bound to may be one this method overrides.

`coverageBlockers` is `{"count": N, "places": [...first 20: {path, line,
character, name, reason}]}` here, 0-based (`name`: the blocked simple name, or
null when the whole file blocks); one place per blocked token (a row stored
before tokens were recorded one by one: per file and name, at its first
token), and `count` counts every token. The tools answer each place
with flat, 1-based `line` and `column` (`view.View.flat_blockers`, DESIGN
section 7).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from pybridge.facts import (
    CAN_NAME_ALL,
    CAN_NAME_CONSTRUCTOR,
    CAN_NAME_FIELD,
    CAN_NAME_METHOD,
    CAN_NAME_TYPE,
    CAN_NAME_VARIABLE,
    CAN_NAME_VIA_INTERFACES,
)
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


# What a token must be able to name (pybridge.facts.CAN_NAME_*) to name a declaration of a kind;
# a record component (a field and its accessor) and a kind not listed: anything.
_CAN_NAME = {
    **dict.fromkeys(("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "TYPE_PARAMETER"), CAN_NAME_TYPE),
    "METHOD": CAN_NAME_METHOD, "CONSTRUCTOR": CAN_NAME_CONSTRUCTOR,
    "FIELD": CAN_NAME_FIELD, "ENUM_CONSTANT": CAN_NAME_FIELD,
    "PARAMETER": CAN_NAME_VARIABLE, "LOCAL": CAN_NAME_VARIABLE,
}
STATIC, FINAL = 0x0008, 0x0010      # JDT Modifier.STATIC, Modifier.FINAL
_MEMBER_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "METHOD", "FIELD",
                           "ENUM_CONSTANT", "RECORD_COMPONENT"})


def _parameters(decl: DeclRow | None) -> tuple[int, bool] | None:
    """A method's or constructor's number of parameters and whether it is varargs, from its
    display (`greet(String, int...)`: erasures, so no comma but between parameters)."""
    if decl is None or decl.kind not in CALLABLE_KINDS or not decl.display.endswith(")"):
        return None
    inside = decl.display[decl.display.index("(") + 1:-1].strip()
    if not inside:
        return 0, False
    params = inside.split(",")
    return len(params), params[-1].strip().endswith("...")


def _accepts(params: tuple[int, bool], arity: int) -> bool:
    n, varargs = params
    return arity == n or (varargs and arity >= n - 1)


def _inheritable(r: Reader, decl: DeclRow | None, via_interfaces: bool) -> bool:
    """Whether `decl` can be a member that a type inherits through a supertype that is missing
    (only interfaces when `via_interfaces`): it is a member (a constructor: of a member class)
    of a type the missing one can extend (an interface: of an interface), and not private (a
    static method of an interface is not inherited either). Anything else a lookup through
    the missing supertype cannot reach: what it finds is the compiler's binding, or a
    member of the missing code, which is no declaration of the workspace."""
    if decl is None:
        return True
    member = decl
    if decl.kind == "CONSTRUCTOR":
        if decl.container_id is None:
            return True
        found = r.declarations(symbol=decl.container_id, limit=1)
        if not found:
            return True
        member = found[0]
    if member.kind not in _MEMBER_KINDS:
        return False
    if member.modifiers & PRIVATE:
        return False
    if member.container_id in (None, member.symbol_id):
        return False                   # a top-level type (its own container): no member of any type
    owners = r.declarations(symbol=member.container_id, limit=1)
    if not owners:
        return True
    owner = owners[0]
    if (owner.scip or "").startswith("local ") or owner.modifiers & PRIVATE:
        return False                   # a local, anonymous or private class: no missing type extends it
    interface = owner.kind in ("INTERFACE", "ANNOTATION")
    if interface and member.kind == "METHOD" and member.modifiers & STATIC:
        return False
    if via_interfaces:
        return interface
    return interface or (owner.kind == "CLASS" and not owner.modifiers & FINAL)


def _discharge(r: Reader, info: SymbolInfo, decl: DeclRow | None, kind: str | None,
               callers: bool) -> Callable[[BlockedRow], bool]:
    """Whether a blocked token cannot hide a reference to this symbol: the per-token mask.

    A token stands only for the kinds of declaration it can name where it stands
    (`can_name`: a called name names a method, `expr.f` a field, …) and, when it names a
    call, only for methods and constructors that take that many arguments. A bound token
    already recorded as a reference to this very symbol hides nothing from its answer: an
    uncertain call bound to this overload, a name bound to this member of a type whose
    supertypes are not all resolved (code a syntax error damaged blocks whatever it was
    bound to). A name looked up in a type whose supertypes are not all resolved can only
    be bound otherwise to a member inherited through the missing supertype
    (`_inheritable`); for callers (`callers`) it stays blocked, since the missing member
    it may be bound to may be one this method overrides. A Javadoc reference (`@link`,
    `@see`) never names a parameter or local variable. A row stored before pybridge
    recorded tokens one by one stands for all its tokens, so only its first is known.
    """
    variable = kind in ("PARAMETER", "LOCAL")
    wants = _CAN_NAME.get(kind or "", CAN_NAME_ALL)
    params = _parameters(decl) if kind in CALLABLE_KINDS else None
    mine: set[tuple[str, int, int]] | None = None
    inheritable: dict[bool, bool] = {}

    def discharged(b: BlockedRow) -> bool:
        nonlocal mine
        if b.count != 1:
            return False
        if variable and b.reason == "javadoc":
            return True
        if not b.can_name & wants:
            return True
        if params is not None and b.arity >= 0 and not _accepts(params, b.arity):
            return True
        if b.reason not in BOUND_REASONS:
            return False
        if b.reason == "incomplete_hierarchy" and not callers:
            via = bool(b.can_name & CAN_NAME_VIA_INTERFACES)
            if via not in inheritable:
                inheritable[via] = _inheritable(r, decl, via)
            if not inheritable[via]:
                return True
        if mine is None:
            mine = {(x.path, x.span.start_line, x.span.start_char) for x in r.references(info.id)}
        return (b.path, b.span.start_line, b.span.start_char) in mine

    return discharged


def coverage(r: Reader, info: SymbolInfo, decl: DeclRow | None, module: str | None,
             scope: str | None, memo: Memo | None = None, callers: bool = True) -> dict[str, Any]:
    """The coverage part of `meta` for references to one symbol under a module/scope filter
    (`callers=False`: without `callerCoverage`, so the blockers shown are the references')."""
    name = decl.name if decl is not None else info.name
    names = {name} if name else set()
    path = _file_local(info, decl)
    in_filter = path is None or (decl is not None and module in (None, decl.module)
                                 and scope_matches(scope, decl.scope))
    memo = memo or (lambda _key, compute: compute())
    kind = decl.kind if decl is not None else info.kind
    caller = ref = None
    if kind in CALLABLE_KINDS and callers:
        over = _overridden(r, info.id)
        more = {s.name for s in r.symbols(over).values() if s.name} - names if over else set()
        caller = _Blockers(r, memo, names | more, module, scope, path, in_filter,
                           _discharge(r, info, decl, kind, True))
        if caller.count == 0 and not more:
            ref = caller     # the callers' check blocks at least what the references' does
    if ref is None:
        ref = _Blockers(r, memo, names, module, scope, path, in_filter, _discharge(r, info, decl, kind, False))
    shown = caller if caller is not None and caller.count > ref.count else ref
    return {
        "referenceCoverage": ref.count == 0,
        "callerCoverage": None if caller is None else caller.count == 0,
        "coverageBlockers": {"count": shown.count, "places": shown.places},
    }
