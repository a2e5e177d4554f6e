"""Library and JDK symbols by name, and where they come from (DESIGN section 7).

The store keeps, for every library or JDK declaration the workspace refers to, its JDT binding key,
kind, simple name, dotted path and SCIP descriptor (`symbols.external`). Names resolve among those
the published generation still refers or relates to (`pybridge.store.library`); a class that is
on the classpath but never used has no key to give, and is not found by name (its uses would be
none anyway).

What the store does not keep is read from the key and the generation's record:

- `display`: `add(E)`, `isEmpty(CharSequence)`, `ArrayList()`, from the key's parameter
  descriptors (`Ljava/util/List;.add(TE;)Z`), so that `List.add(E)` and
  `StringUtils.isEmpty(CharSequence)` pick one overload as they do for the workspace's own;
- `origin`: `groupId:artifactId:version` of the jar on the generation's classpath that holds its
  class file (the first, in the compiler's order), that jar's path when it has no coordinates, or
  `jdk:<module>` for the JDK's classes (`jdk:java.base`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pybridge.store import SymbolInfo
from pybridge.sync.meta import GenerationMeta
from pybridge.worker.jdk import JdkNotFoundError, find_jdk
from pybridge.workspace.library import JdkLibrary, coordinates, find_class

_PRIMITIVES = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long",
               "S": "short", "Z": "boolean", "V": "void"}


def owner_of(key: str) -> str | None:
    """The internal name of the class a library key belongs to: `java/util/Map$Entry` for
    `Ljava/util/Map$Entry<TK;TV;>;` and for its members' keys."""
    if not key.startswith("L"):
        return None
    end = len(key)
    for stop in (";", "<"):
        i = key.find(stop)
        if i != -1:
            end = min(end, i)
    return key[1:end] or None


def top_level(internal: str) -> str:
    """`java/util/Map` for `java/util/Map$Entry`: the class whose source file declares it."""
    return internal.split("$", 1)[0]


def _type(sig: str, i: int) -> tuple[str, int]:
    """One type signature at sig[i:] as Java spells its erasure's simple name, and where it ends."""
    dims = 0
    while i < len(sig) and sig[i] == "[":
        dims, i = dims + 1, i + 1
    if i >= len(sig):
        return "?", i
    c = sig[i]
    if c in _PRIMITIVES:
        name, i = _PRIMITIVES[c], i + 1
    elif c in "LT":
        j, depth, name_end = i + 1, 0, -1
        while j < len(sig):
            if sig[j] == "<":
                if depth == 0 and name_end < 0:
                    name_end = j
                depth += 1
            elif sig[j] == ">":
                depth -= 1
            elif sig[j] == ";" and depth == 0:
                break
            j += 1
        body = sig[i + 1:name_end if name_end >= 0 else j]
        name = body.rsplit("/", 1)[-1].replace("$", ".").rsplit(".", 1)[-1] if c == "L" else body
        i = j + 1
    else:
        name, i = "?", i + 1
    return name + "[]" * dims, i


def params_of(key: str) -> list[str] | None:
    """The parameter types (simple names of their erasures or type variables) of a method key."""
    dot = key.find(";.")
    if dot == -1:
        return None
    open_ = key.find("(", dot)
    close = key.find(")", open_)
    if open_ == -1 or close == -1:
        return None
    sig, i, out = key[open_ + 1:close], 0, []
    while i < len(sig):
        name, i = _type(sig, i)
        out.append(name)
    return out


def implicit(info: SymbolInfo) -> bool:
    """A member the language declares implicitly: an array's `length` (JLS 10.7), a source enum's
    `values()` and `valueOf(String)` (JLS 8.9.3). Referenced, but declared by no source and described
    by no class file, so its row has no kind. Its key answers like a library member's: while the
    generation refers or relates to it (`paging.check_generation`)."""
    return info.kind is None and not info.external


def described(info: SymbolInfo) -> SymbolInfo:
    """An implicit member's row as its binding key describes it: its name, METHOD or FIELD, its
    type's dotted path before its name (an array's `length` has no type: its dotted path is null),
    and no SCIP symbol where the indexer gave it a document-local one (`local N`)."""
    owner, sep, member = info.key.partition(";.")
    if not sep and info.key.startswith("."):
        owner, member = "", info.key[1:]
    elif not sep:
        return info
    name = member.split("(", 1)[0].split(")", 1)[0]
    kind = "METHOD" if member[len(name):].startswith("(") else "FIELD"
    dotted = owner[1:].replace("/", ".").replace("$", ".") + "." + name if owner.startswith("L") else None
    scip = None if info.scip is None or info.scip.startswith("local ") else info.scip
    return info._replace(kind=kind, name=name or None, dotted=dotted, scip=scip)


def display_of(info: SymbolInfo) -> str | None:
    """`add(E)` for a library method, `ArrayList()` for a constructor, the name otherwise."""
    if info.display:
        return info.display
    if info.kind in ("METHOD", "CONSTRUCTOR"):
        params = params_of(info.key)
        if params is not None and info.name:
            return f"{info.name}({', '.join(params)})"
    return info.name


@dataclass(frozen=True)
class Origin:
    """Where a library or JDK class comes from."""

    label: str                  # `g:a:v`, a jar path, or `jdk:<module>`
    jar: Path | None = None     # the classpath entry holding it (None: the JDK)
    jdk: JdkLibrary | None = None


_JDK: list[JdkLibrary | None] = []


def jdk_library() -> JdkLibrary | None:
    """The JDK the indexer runs on (`pybridge.worker.jdk.find_jdk`), found once per process."""
    if not _JDK:
        try:
            _JDK.append(JdkLibrary(find_jdk().home))
        except JdkNotFoundError:
            _JDK.append(None)
    return _JDK[0]


Memo = Callable[[Hashable, Callable[[], Any]], Any]


def classpath(meta: GenerationMeta) -> list[Path]:
    """Every classpath entry of the generation, each once, main scopes first, in the compiler's order."""
    ordered = sorted(meta.scopes, key=lambda s: (s.scope != "main", s.module, s.scope))
    return [Path(p) for p in dict.fromkeys(p for s in ordered for p in s.classpath)]


def origin(meta: GenerationMeta, key: str, memo: Memo) -> Origin | None:
    """Where the class of a library key is: the first classpath jar holding its class file, else
    the JDK module whose sources name it; None when neither does (an unresolved dependency)."""
    internal = owner_of(key)
    if internal is None:
        return None

    def compute() -> Origin | None:
        entries: list[Path] = memo(("library-classpath",), lambda: classpath(meta))
        jar = find_class(entries, internal + ".class")
        if jar is not None:
            return Origin(coordinates(jar) or str(jar), jar=jar)
        jdk = jdk_library()
        module = jdk.module_of(top_level(internal)) if jdk is not None else None
        if module is not None:
            return Origin(f"jdk:{module}", jdk=jdk)
        return None

    found: Origin | None = memo(("library-origin", internal), compute)
    return found


def unused_class(meta: GenerationMeta, dotted: str, memo: Memo) -> str | None:
    """The origin label of a class named by its qualified name (`java.util.Deque`,
    `java.util.Map.Entry`) that is on the generation's classpath or in the JDK, for a name that
    resolved to nothing (no file uses it); None when neither holds it."""
    parts = dotted.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return None
    entries: list[Path] = memo(("library-classpath",), lambda: classpath(meta))
    jdk = jdk_library()
    for cut in range(len(parts) - 1, 0, -1):      # the package is parts[:cut], the rest nested classes
        internal = "/".join(parts[:cut]) + "/" + "$".join(parts[cut:])
        jar = find_class(entries, internal + ".class")
        if jar is not None:
            return coordinates(jar) or str(jar)
        module = jdk.module_of(top_level(internal)) if jdk is not None and cut == len(parts) - 1 else None
        if module is not None:
            return f"jdk:{module}"
    return None
