"""Which files a check compiles after its first round: the sync planner's rounds, narrowed to what
`check_edit` answers (DESIGN section 10; the argument is in docs/design.md, "check_edit's plan").

A sync must equal a fresh sync, so its planner (`pybridge.sync.planner.Propagation`) re-indexes
every file that mentions a name an edit declared or changed. A check answers only the bindings,
diagnostics, relations and declarations that can change. For a member named N declared or
changed in type T (a method, constructor, field, enum constant or record component; a type's own
name, header or supertypes keep the sync's plan), a file can bind differently only if:

1. it holds a reference to a member (or member type) named N whose owner is a supertype of a
   subtype of T (T's subtypes, transitively, then all their supertypes, library ones included,
   and java.lang.Object): an access `e.N` that binds now binds to a member of e's static type R,
   and the new member can only be a candidate if R is T or below it; and the new member may
   capture it (`may_capture`: methods and fields apart, a call's arity, an overload taking Object
   against reference parameters);
2. it declares a subtype of T (unqualified names in its bodies, nested classes included: hiding,
   overriding; the sync planner's subtype files, kept; for a T whose only changes are fields, those
   that mention one of their names: `CheckPropagation.subtype_users`);
3. it has a compiler problem or a blocked name named N (an access that does not bind now);
4. it imports a member of T or of a subtype of T (a static import, single or on demand) and
   mentions N (name by name: `imports_by_name_enabled`), unless every reference of it named N but
   its imports binds to a member whose owner is within rule 1's types (`import_uses_enabled`: rule 1
   judges those, and a reference inside an import only gains the new member);
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
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pybridge import switches
from pybridge.facts import REF_IN_IMPORT, REF_IN_JAVADOC
from pybridge.sync.planner import Propagation
from pybridge.sync.summary import DECLARING, KIND, MODIFIERS, Signature

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


@dataclass(frozen=True)
class MemberShape:
    """What a member's binding key says of it: a method or constructor with `arity` parameters
    (`spread`: its last one is an array, so it may be varargs), else a field (`arity` None);
    `known` False: a member key that does not parse (anything may hold of it)."""

    arity: int | None
    spread: bool = False
    known: bool = True
    params: tuple[str, ...] = ()      # the parameters' types as the key spells them (`I`, `Ljava/lang/Object;`)

    @property
    def callable(self) -> bool:
        return self.arity is not None


_PRIMITIVES = frozenset("BCDFIJSZV")


UNKNOWN = MemberShape(None, known=False)


def member_shape(key: str) -> MemberShape | None:
    """The shape of the member `key` (`Lp/T;.m(ILjava/lang/String;)V` a method of arity 2,
    `Lp/T;.f)I` a field), None for a key that is not a member's (a type's), `UNKNOWN` for a
    member key that does not parse."""
    depth = 0
    i = 0
    n = len(key)
    while i < n:                          # the owner: up to `;.` outside type arguments
        c = key[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0 and key.startswith(";.", i):
            break
        i += 1
    else:
        return None
    i += 2
    while i < n and key[i] not in "<()":   # the name
        i += 1
    if i < n and key[i] == "<":              # a generic method's type parameters
        depth = 0
        while i < n:
            depth += {"<": 1, ">": -1}.get(key[i], 0)
            i += 1
            if depth == 0:
                break
    if i >= n:
        return UNKNOWN
    if key[i] == ")":
        return MemberShape(None)
    if key[i] != "(":
        return UNKNOWN
    i += 1
    arity = 0
    last_array = False
    params = []
    while i < n and key[i] != ")":
        begin = i
        array = False
        while i < n and key[i] == "[":
            array = True
            i += 1
        if i >= n:
            return UNKNOWN
        if key[i] in _PRIMITIVES:
            i += 1
        elif key[i] in "LT":
            depth = 0
            while i < n and not (key[i] == ";" and depth == 0):
                depth += {"<": 1, ">": -1}.get(key[i], 0)
                i += 1
            i += 1
        else:
            return UNKNOWN
        arity += 1
        last_array = array
        params.append(key[begin:i])
    if i >= n:
        return UNKNOWN
    return MemberShape(arity, last_array, params=tuple(params))


def may_capture(new: MemberShape | None, target: MemberShape | None, kind: str, flags: int) -> bool:
    """Whether a member of shape `new`, found by the lookup of a reference (of `kind`, `flags`)
    that binds now to a member of shape `target` (None: a type, or a key that does not parse),
    can change what it binds to or make it ambiguous. Methods and fields are apart (a new method
    is no candidate for a field access); a new field can obscure a member type. A call binds to a
    method whose arity is the call's, unless that one may be varargs; a new method is potentially
    applicable only with the call's arity, or as varargs with at most one parameter more (JLS
    15.12.2.1). A method reference and a Javadoc link do not say their arity: kept whatever it is."""
    if new is None or not new.known or (target is not None and not target.known):
        return True
    if not new.callable:
        return target is None or not target.callable
    if target is None or not target.callable:
        return False
    if kind == "method_reference" or flags & REF_IN_JAVADOC or target.spread:
        return True
    assert new.arity is not None and target.arity is not None
    if new.arity == target.arity and not new.spread and _more_specific(target, new) and object_overload_enabled():
        return False
    return new.arity == target.arity or (new.spread and target.arity >= new.arity - 1)


def _more_specific(target: MemberShape, new: MemberShape) -> bool:
    """Whether a call of `target`'s arity that binds to `target` now keeps it against `new`, whatever its
    arguments: `new` takes `java.lang.Object` for every parameter, and every parameter of `target`
    is a class, interface or array type other than Object (no type variable, no primitive).

    The call was resolved in phase 1 or 2 of JLS 15.12.2 (`target` is not varargs: its last parameter
    is no array). In phase 1 (strict) each argument's type is a subtype of `target`'s reference
    parameter, hence of Object: `new` is applicable too; in phase 2 (loose) an argument boxed for
    `target` is boxed for `new` too, so `new` was not applicable in phase 1 either. Both applicable in
    the same phase, `target` is strictly more specific (15.12.2.5: each of its parameter types is a
    subtype of Object, and Object of none of them), so it stays the choice. Not override-equivalent
    to `new`: no parameter of `target` erases to Object (a type variable may: left out). A primitive
    parameter is left out: a `Boolean` argument bound to `m(boolean)` by unboxing (phase 2) would
    take `m(Object)` in phase 1."""
    return (bool(new.params) and all(t == OBJECT for t in new.params)
            and all(t[:1] in ("L", "[") and t != OBJECT and "T" != t.lstrip("[")[:1] for t in target.params)
            and len(target.params) == len(new.params))


IMPORTS_BY_NAME_ENV = "PYBRIDGE_CHECK_IMPORTS_BY_NAME"


def imports_by_name_enabled() -> bool:
    """Whether rule 4 (a static import) is taken name by name (PYBRIDGE_CHECK_IMPORTS_BY_NAME, default 1):
    the files that statically import from a type that has the new member N (T or a subtype) and
    mention N. Off: the files that import from any such type of any name of the round and mention
    any of the names (on guava, a field added to `Preconditions` beside an `append` added elsewhere
    sent every file with `import static ...Preconditions.checkNotNull` that says `append`)."""
    return switches.enabled(IMPORTS_BY_NAME_ENV, "take the static importers of every changed type that mention "
                                                 "any changed name")


STATIC_IMPORT_TEXT_ENV = "PYBRIDGE_CHECK_STATIC_IMPORT_TEXT"
_STATIC_IMPORT = re.compile(r"\bimport\s+static\b([^;]*);")
_SPACE = re.compile(r"\s+")


def static_import_text_enabled() -> bool:
    """Whether rule 4 keeps only the files whose text statically imports the name (or `*`) from one of the
    types (PYBRIDGE_CHECK_STATIC_IMPORT_TEXT, default 1): the store's import references do not tell a
    plain `import p.T;` from `import static p.T.*;`, and only the second imports T's members."""
    return switches.enabled(STATIC_IMPORT_TEXT_ENV, "take every file that imports a type of rule 4 in any way")


IMPLICIT_ARITY_ENV = "PYBRIDGE_CHECK_IMPLICIT_ARITY"


def implicit_arity_enabled() -> bool:
    """Whether a `close` or `iterator` method that no call of arity 0 can choose leaves the files that
    can see it alone (PYBRIDGE_CHECK_IMPLICIT_ARITY, default 1; `CheckPropagation.may_be_called_implicitly`)."""
    return switches.enabled(IMPLICIT_ARITY_ENV, "compile every file that can see a changed close or iterator "
                                                "method, whatever its parameters")


FIELD_SUBTYPES_ENV = "PYBRIDGE_CHECK_FIELD_SUBTYPES"


def field_subtypes_enabled() -> bool:
    """Whether rule 2 sends, for a type whose only changes are fields, only the subtype files that
    mention one of their names (PYBRIDGE_CHECK_FIELD_SUBTYPES, default 1)."""
    return switches.enabled(FIELD_SUBTYPES_ENV, "compile every file declaring a subtype of a type that gained "
                                                "or changed a field")


IMPORT_USES_ENV = "PYBRIDGE_CHECK_IMPORT_USES"


def import_uses_enabled() -> bool:
    """Whether a file that statically imports N from T (or a subtype) and uses N is sent on its uses,
    not on its import (PYBRIDGE_CHECK_IMPORT_USES, default 1; see `CheckPropagation.name_users`)."""
    return switches.enabled(IMPORT_USES_ENV, "compile every file that statically imports a name from a type "
                                             "that declares a new member of that name and mentions it")


OBJECT_OVERLOAD_ENV = "PYBRIDGE_CHECK_OBJECT_OVERLOAD"


def object_overload_enabled() -> bool:
    """Whether a new method taking Object for every parameter is no candidate for a call bound to a
    method of its arity with reference parameters only (`_more_specific`; PYBRIDGE_CHECK_OBJECT_OVERLOAD,
    default 1)."""
    return switches.enabled(OBJECT_OVERLOAD_ENV, "compile every call of an added Object overload's arity")


class CheckPropagation(Propagation):
    """`Propagation` with the name round narrowed for a check (see the module doc)."""

    def name_users(self, names: set[str], members: dict[str, dict[str, Signature]], owners: dict[str, Signature]
                   ) -> set[str]:
        r = self.r
        out = r.paths_mentioning(names) if names else set()
        if members:
            edges = self.edges()
            subs: dict[str, set[str]] = {}
            sups: dict[str, set[str]] = {}
            for _path, sub, sup in edges:
                subs.setdefault(sup, set()).add(sub)
                sups.setdefault(type_key(sub), set()).add(type_key(sup))
            # Per name and member declared or changed: its shape, and the supertypes of its declaring
            # type's subtypes (`within`).
            below: dict[str, set[str]] = {}           # member name -> T and its subtypes (keys as stored)
            shaped: dict[str, list[tuple[MemberShape | None, set[str]]]] = {}
            for name, declared in members.items():
                below[name] = set()
                for key, entry in declared.items():
                    down = _closure({entry[DECLARING]}, subs)
                    below[name] |= down
                    # A record component brings an accessor and a field: no shape, every reference.
                    shape = None if entry[KIND] == "RECORD_COMPONENT" else member_shape(key)
                    shaped.setdefault(name, []).append(
                        (shape, _closure({type_key(t) for t in down}, sups) | {OBJECT}))
            import_uses = import_uses_enabled()
            # (path, name) -> whether the file has a reference named N, not in an import, bound to a member
            # outside T's hierarchy (of every T declaring N): a static import of the new N may capture it.
            elsewhere: dict[tuple[str, str], bool] = {}
            for path, name, key, kind, flags in r.references_named(members):
                declaring = owner_of(key)
                if not flags & REF_IN_IMPORT:
                    outside = not all(declaring in within for _shape, within in shaped.get(name, ()))
                    elsewhere[(path, name)] = elsewhere.get((path, name), False) or outside
                if path in out or (import_uses and flags & REF_IN_IMPORT):
                    continue
                target = member_shape(key)
                if any(declaring in within and may_capture(shape, target, kind, flags)
                       for shape, within in shaped.get(name, ())):
                    out.add(path)
            out |= r.paths_with_problems_named(members) | r.blocked_paths(members)
            importers = r.import_references(set().union(*below.values()))
            if importers and imports_by_name_enabled():
                # Rule 4 for each name: a static import of a type that has the new N as a member, and N.
                for name in sorted(members):
                    mine = r.import_references(below[name]) if len(below) > 1 else importers
                    if mine - out:
                        users = (mine - out) & r.paths_mentioning({name})
                        if import_uses:
                            users = {path for path in users if elsewhere.get((path, name), True)}
                        if users and static_import_text_enabled():
                            users = {path for path in users if self._imports_statically(path, below[name], name)}
                        out |= users
            elif importers:
                out |= importers & r.paths_mentioning(members)
        annotations = [key for key, owner in owners.items() if owner[KIND] == "ANNOTATION"]
        if annotations:
            out |= r.paths_referencing(annotations)
        return out

    def subtype_users(self, types: set[str], fields: dict[str, set[str]]) -> set[str]:
        """Rule 2, except for a type whose only changes are fields (`field_subtypes_enabled`): the files
        declaring its subtypes that mention one of those fields' names. A field is no candidate for an
        override, an implicit `super()` or an abstract method to implement, and an ambiguous or hidden
        field is an error or a rebind only where its name is used: a file without the name has no
        binding, diagnostic, relation or declaration the new field can change."""
        if not fields or not field_subtypes_enabled():
            return super().subtype_users(types, fields)
        out = super().subtype_users(types - set(fields), {})
        for owner, names in sorted(fields.items()):
            below = super().subtype_users({owner}, {}) - out
            if below:
                out |= below & self.r.paths_mentioning(names)
        return out

    def _imports_statically(self, path: str, types: set[str], name: str) -> bool:
        """Whether the file may statically import `name` from one of `types` (`import static X.name;` or
        `import static X.*;`, X one of them by its canonical or binary name): its import references
        name the type of any import, a plain `import p.T;` too. True when its text cannot be read, or an
        `import static` of it holds a comment (not parsed: kept)."""
        entry = self.files.get(path)
        try:
            text = Path(entry.abs_path).read_bytes().decode("utf-8", errors="replace") if entry else None
        except OSError:
            text = None
        if text is None or "import" not in text:      # unreadable, or not in an ASCII-compatible encoding
            return True
        wanted = set()
        for key in types:
            flat = type_key(key)
            if flat.startswith("L") and flat.endswith(";"):
                binary = flat[1:-1].replace("/", ".")
                wanted |= {binary, binary.replace("$", ".")}
        for m in _STATIC_IMPORT.finditer(text):
            body = m.group(1)
            if "/" in body or "\\" in body:              # a comment, a Unicode escape: not parsed here
                return True
            target = _SPACE.sub("", body)
            owner, _, member = target.rpartition(".")
            if owner in wanted and member in ("*", name):
                return True
        return False

    def may_be_called_implicitly(self, key: str) -> bool:
        """try-with-resources calls `close()` and a for-each `iterator()`, with no argument (JLS 14.20.3,
        14.14.2): only a method that a call of arity 0 can choose (no parameter, or one varargs
        parameter) can be that call's (`implicit_arity_enabled`); an `iterator(Object)` cannot."""
        if not implicit_arity_enabled():
            return True
        shape = member_shape(key)
        return shape is None or not shape.known or shape.arity == 0 or (shape.spread and shape.arity == 1)

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
