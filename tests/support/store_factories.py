"""Small factories of `FileFacts` for the store tests (no tests here).

Also imported by the child process of the crash tests, so it depends on
nothing but the standard library and `pybridge.facts`.
"""

from __future__ import annotations

import hashlib
import random

from pybridge.facts import Declaration, FileFacts, Problem, Reference, Relation, Span

SCIP_PREFIX = "scip-java maven com.acme:core 1.0.0 "


def span(line: int, char: int, length: int = 1) -> Span:
    return Span(line, char, line, char + length)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def decl(key: str, kind: str = "METHOD", name: str | None = None, *, at=(0, 0),
         dotted: str | None = None, scip: str | None = None, display: str | None = None,
         declaring: str = "", body_lines: int = 0, modifiers: int = 1) -> Declaration:
    name = name or key.rsplit(".", 1)[-1].split("(")[0].strip(";L").rsplit("/", 1)[-1]
    line, char = at
    return Declaration(
        key=key, kind=kind, name=name, display=display or name,
        dotted=dotted or f"com.acme.{name}", scip=scip or f"{SCIP_PREFIX}com/acme/{name}#",
        name_span=span(line, char, len(name)),
        span=Span(line, max(char - 7, 0), line + body_lines, char + len(name) + 2),
        modifiers=modifiers, declaring_key=declaring,
    )


def ref(target: str, kind: str = "read", *, at=(0, 0), length: int = 3, container: str = "",
        scip: str | None = None, flags: int = 0) -> Reference:
    return Reference(target_key=target, target_scip=scip or f"{SCIP_PREFIX}{target}",
                     span=span(at[0], at[1], length), kind=kind, container_key=container,
                     flags=flags)


def problem(kind: str = "unresolved_type", name: str = "Missing", *, at=(0, 0),
            is_error: bool = True, message: str | None = None) -> Problem:
    return Problem(kind=kind, name=name, message=message or f"{name} cannot be resolved",
                   span=span(at[0], at[1], max(len(name), 1)), is_error=is_error)


def facts(path: str = "/ws/A.java", *, decls=(), refs=(), rels=(), problems=(),
          external=None, binding_complete: bool = True, failure: str | None = None) -> FileFacts:
    return FileFacts(path=path, binding_complete=binding_complete, declarations=list(decls),
                     references=list(refs), relations=list(rels), problems=list(problems),
                     external=dict(external or {}), failure=failure)


def relation(kind: str, from_key: str, to_key: str) -> Relation:
    return Relation(kind, from_key, to_key)


# A synthetic, roughly Java-shaped workspace --------------------------------

METHODS_PER_CLASS = 6
LOCALS_PER_METHOD = 4     # 2 parameters, 2 locals
LIBRARY = [  # (key, kind, dotted, scip descriptor)
    (f"Ljava/lang/String;.m{i}(I)Ljava/lang/String;", "METHOD", f"java.lang.String.m{i}",
     f"semanticdb maven jdk 17 java/lang/String#m{i}().") for i in range(300)
] + [
    (f"Ljava/util/List{i};", "INTERFACE", f"java.util.List{i}",
     f"semanticdb maven jdk 17 java/util/List{i}#") for i in range(100)
]


def class_key(i: int) -> str:
    return f"Lcom/acme/p{i % 20}/Class{i};"


def method_key(i: int, m: int) -> str:
    return f"{class_key(i)}.method{m}(Ljava/lang/String;I)V"


def synthetic_file(i: int, n_files: int, refs_per_file: int = 200, *, variant: int = 0,
                   seed: int = 7) -> tuple[str, FileFacts]:
    """File `i` of a synthetic workspace: one class, 2 fields, 6 methods with 2
    parameters and 2 locals each (33 declarations), `refs_per_file`
    references to its own members, other files' classes and methods, and
    library declarations. `variant` changes the facts (not the path)."""
    rnd = random.Random(seed * 1_000_003 + i * 31 + variant)
    pkg = f"com.acme.p{i % 20}"
    cls = f"Class{i}"
    ck = class_key(i)
    path = f"core/src/main/java/com/acme/p{i % 20}/{cls}.java"
    scip_cls = f"{SCIP_PREFIX}com/acme/p{i % 20}/{cls}#"
    decls = [decl(ck, "CLASS", cls, at=(2, 13), dotted=f"{pkg}.{cls}", scip=scip_cls,
                  body_lines=400)]
    members: list[str] = []
    for f in range(2):
        key = f"{ck}.field{f})I"
        decls.append(decl(key, "FIELD", f"field{f}", at=(3 + f, 16), dotted=f"{pkg}.{cls}.field{f}",
                          scip=f"{scip_cls}field{f}.", declaring=ck))
        members.append(key)
    locals_: dict[str, list[str]] = {}
    for m in range(METHODS_PER_CLASS):
        mk = method_key(i, m)
        line = 10 + m * 60
        decls.append(decl(mk, "METHOD", f"method{m}", at=(line, 16),
                          dotted=f"{pkg}.{cls}.method{m}",
                          scip=f"{scip_cls}method{m}().", display=f"method{m}(String, int)",
                          declaring=ck, body_lines=55))
        members.append(mk)
        locals_[mk] = []
        for v in range(LOCALS_PER_METHOD):
            kind = "PARAMETER" if v < 2 else "LOCAL"
            lk = f"{mk}#v{v}#{variant}"
            decls.append(decl(lk, kind, f"v{v}", at=(line + (0 if v < 2 else v), 30 + v * 12),
                              dotted=f"{pkg}.{cls}.method{m}.v{v}",
                              scip=f"local {m * LOCALS_PER_METHOD + v}", declaring=mk))
            locals_[mk].append(lk)
    refs: list[Reference] = []
    external: dict[str, tuple[str, str, str]] = {}
    for r in range(refs_per_file):
        m = r % METHODS_PER_CLASS
        container = method_key(i, m)
        line = 10 + m * 60 + 5 + (r // METHODS_PER_CLASS) % 50
        char = 8 + (r * 7) % 70
        roll = rnd.random()
        if roll < 0.35:    # locals and parameters of the method
            target, kind = rnd.choice(locals_[container]), rnd.choice(("read", "read", "write"))
            scip = "local 0"
        elif roll < 0.55:  # another file's method
            j, mm = rnd.randrange(n_files), rnd.randrange(METHODS_PER_CLASS)
            target, kind = method_key(j, mm), "invocation"
            scip = f"{SCIP_PREFIX}com/acme/p{j % 20}/Class{j}#method{mm}()."
        elif roll < 0.70:  # another file's class
            j = rnd.randrange(n_files)
            target, kind = class_key(j), "type_use"
            scip = f"{SCIP_PREFIX}com/acme/p{j % 20}/Class{j}#"
        elif roll < 0.80:  # own fields
            target, kind = rnd.choice(members[:2]), rnd.choice(("read", "write", "read_write"))
            scip = f"{scip_cls}field0."
        else:              # library
            key, lkind, dotted, lscip = rnd.choice(LIBRARY)
            target, kind, scip = key, ("invocation" if lkind == "METHOD" else "type_use"), lscip
            external[key] = (lkind, dotted, lscip)
        refs.append(ref(target, kind, at=(line, char), length=5, container=container, scip=scip))
    rels = [relation("extends", ck, class_key((i + 1) % n_files))]
    return path, facts(f"/ws/{path}", decls=decls, refs=refs, rels=rels, external=external)


def stage_synthetic(store, n_files: int, refs_per_file: int = 200, *, variant_of=lambda i: 0,
                    on_file=None, meta=None, indexes_after: int | None = None) -> int:
    """Stage and publish a synthetic generation; returns its number. `indexes_after`: call
    `Staging.build_indexes` after that many files (as a first sync's pipeline does)."""
    with store.stage({"files": n_files}, meta or {"commit": None}) as staging:
        for i in range(n_files):
            path, ff = synthetic_file(i, n_files, refs_per_file, variant=variant_of(i))
            staging.add_file("com.acme:core", "main", path, sha(f"{path}:{variant_of(i)}"),
                             1000 + i, ff)
            if i + 1 == indexes_after:
                staging.build_indexes()
            if on_file is not None:
                on_file(i + 1)
        return staging.publish({"duration": 0.0})
