"""Which files a check compiles after its first round: the sync planner's rounds, narrowed to what
`check_edit` answers (DESIGN section 10; the argument is in docs/design.md, "check_edit's plan").

A sync must equal a fresh sync, so its planner (`pybridge.sync.planner.Propagation`) re-indexes
every file that mentions a name an edit declared or changed. A check answers only the bindings,
diagnostics, relations and declarations that can change. For a member named N declared or
changed in type T (a method, constructor, field, enum constant or record component; a type's own
name, header or supertypes keep the sync's plan), a file can bind differently only if:

1. it holds a reference to a member (or member type) named N whose owner is a supertype of a
   subtype of T (`hierarchy`: T's subtypes, transitively, then all their supertypes, library ones
   included, and java.lang.Object): an access `e.N` that binds now binds to a member of e's
   static type R, and the new member can only be a candidate if R is T or below it;
2. it declares a subtype of T (unqualified names in its bodies, nested classes included: hiding,
   overriding; the sync planner's subtype files, kept);
3. it has a compiler problem or a blocked name named N (an access that does not bind now);
4. it imports a member of T or of a subtype of T (a static import, single or on demand) and
   mentions N;
5. for an annotation type T, it uses T (an element without a default makes `@T` an error).

What the sync planner adds besides names (stored references to a changed or removed declaration,
relations to it, problems naming it, subtype files, whole modules for a changed supertype or an
implicitly called method, constant users) is kept unchanged, except one escalation: a static or
private method of an interface cannot change which lambdas target it (only abstract methods
count), so it no longer recompiles every file that can see the interface.

`PYBRIDGE_CHECK_PLAN=broad` checks with the sync's plan instead (`plan_kind`).
"""

from __future__ import annotations

import os
from functools import lru_cache

from pybridge.sync.planner import Propagation
from pybridge.sync.summary import KIND, MODIFIERS, Signature

PLAN_ENV = "PYBRIDGE_CHECK_PLAN"
PLANS = ("narrow", "broad")
OBJECT = "Ljava/lang/Object;"
_STATIC_OR_PRIVATE = 0x8 | 0x2          # JDT Modifier.STATIC | Modifier.PRIVATE


class PlanError(ValueError):
    """An unknown plan named in the environment."""


def plan_kind(explicit: str | None = None) -> str:
    """`explicit`, else `PYBRIDGE_CHECK_PLAN`, else 'narrow'."""
    kind = (explicit or os.environ.get(PLAN_ENV) or "narrow").strip().lower()
    if kind not in PLANS:
        raise PlanError(f"{PLAN_ENV}={kind!r} is not a check plan; use one of {', '.join(PLANS)}.")
    return kind


@lru_cache(maxsize=65536)
def type_key(key: str) -> str:
    """A type's binding key without type arguments, inner types joined with `$`
    (`Lp/A<TE;>.B;` -> `Lp/A$B;`): the form a member key names its owner in."""
    out = []
    depth = 0
    for c in key:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
    flat = "".join(out)
    if flat.startswith("L") and flat.endswith(";"):
        flat = "L" + flat[1:-1].replace(".", "$") + ";"
    return flat


def owner_of(key: str) -> str | None:
    """The type that declares the member or member type `key` (normalized by `type_key`), None for
    a top-level type or a key of another shape."""
    depth = 0
    for i, c in enumerate(key):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0 and c == ";" and key.startswith(";.", i):
            return type_key(key[:i + 1])
    flat = type_key(key)
    if flat.startswith("L") and flat.endswith(";") and "$" in flat:
        return flat[:flat.rindex("$")] + ";"
    return None


class CheckPropagation(Propagation):
    """`Propagation` with the name round narrowed for a check (see the module doc)."""

    def name_users(self, names: set[str], members: dict[str, set[str]], owners: dict[str, Signature]) -> set[str]:
        r = self.r
        out = r.paths_mentioning(names) if names else set()
        if members:
            edges = self.edges()
            subs: dict[str, set[str]] = {}
            sups: dict[str, set[str]] = {}
            for _path, sub, sup in edges:
                subs.setdefault(sup, set()).add(sub)
                sups.setdefault(type_key(sub), set()).add(type_key(sup))
            below: dict[str, set[str]] = {}           # member name -> T and its subtypes (keys as stored)
            for name, types in members.items():
                below[name] = _closure(types, subs)
            within: dict[str, set[str]] = {name: _closure({type_key(t) for t in down}, sups) | {OBJECT}
                                           for name, down in below.items()}
            for path, name, key in r.references_named(members):
                if owner_of(key) in within.get(name, ()):
                    out.add(path)
            out |= r.paths_with_problems_named(members) | r.blocked_paths(members)
            importers = r.import_references(set().union(*below.values()))
            if importers:
                out |= importers & r.paths_mentioning(members)
        annotations = [key for key, owner in owners.items() if owner[KIND] == "ANNOTATION"]
        if annotations:
            out |= r.paths_referencing(annotations)
        return out

    def may_retarget_lambdas(self, before: Signature | None, after: Signature) -> bool:
        return not all(len(s) > MODIFIERS and s[MODIFIERS] & _STATIC_OR_PRIVATE
                       for s in (before, after) if s is not None)


def _closure(start: set[str], step: dict[str, set[str]]) -> set[str]:
    seen = set(start)
    todo = list(start)
    while todo:
        for nxt in step.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def propagation_class(kind: str) -> type[Propagation]:
    return CheckPropagation if kind == "narrow" else Propagation
