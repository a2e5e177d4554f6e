"""rename, step one: the edits of a rename, read from the published generation's facts.

What is renamed (DESIGN section 10):
- the declaration, and with it: a type's constructors (whose name is the type's); a record
  component's explicit accessor and the canonical constructor's parameter of that name; a method's
  whole override family inside the workspace (every method connected to it by `overrides`
  relations: up to the topmost declarations, down to every override, anonymous classes and enum
  constant bodies included);
- every reference to those declarations whose token is the old name: code, imports, static
  imports, Javadoc `{@link}`, `@see` and `@param`, method references. A reference whose token is
  not the name (`this(…)`, `super(…)`, `Foo::new`, an enum constant calling its enum's
  constructor) keeps its text, and must still bind to the renamed declaration after the edit;
- a single static import that also imports a member keeping the old name (another overload, a
  field of that name: `import static p.U.m;` when only `m(int)` is renamed) stays, and a static
  import of the new name is added after it on the same line (`import static p.U.m; import static
  p.U.n;`, so no line moves); the import's references to the renamed declarations move to the
  added one (`AddedImport`);
- a top-level type declared in a file named after it moves to a file of the new name.

What is refused before anything is compiled (`RenameRefused`, reason and places):
- `invalid_name`: not a Java identifier, a keyword, a literal or a restricted identifier
  (`pybridge.edits.names`);
- `library_member`: the family holds a method declared in a library or the JDK (`toString`,
  `Runnable.run`): that one cannot be renamed, so the overrides cannot either;
- `generated_member`: the declaration was generated (Lombok: rename the member it is generated
  from, or change the annotation), or a field whose generated accessors are called (their names
  follow the field's, their calls would not);
- `collision`: a declaration of the new name already in the same scope (a member of the same
  kind, a method with the same parameter types, another type of the package, another parameter or
  type parameter of the same declaration).

Every other outcome is the compiler's to say (`pybridge.edits.rename_check`).
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pybridge.facts import DECL_GENERATED, REF_IN_IMPORT, Span, codepoints, utf16_len
from pybridge.store import DeclRow, Reader, RefRow

from . import spans
from .names import why_invalid
from .spans import Edit

TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"})
VALUE_MEMBERS = frozenset({"FIELD", "ENUM_CONSTANT", "RECORD_COMPONENT"})
REASONS = ("invalid_name", "collision", "capture", "library_member", "generated_member")


@dataclass(frozen=True)
class Place:
    """Where a refusal comes from: a file position and what is there."""

    path: str | None
    span: Span | None
    what: str


class RenameRefused(Exception):
    """The rename is refused: `reason` (one of REASONS), a sentence that says what to do, `places`."""

    def __init__(self, reason: str, message: str, places: Iterable[Place] = ()) -> None:
        assert reason in REASONS, reason
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.places = tuple(places)


@dataclass(frozen=True)
class FileEdits:
    path: str
    module: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Move:
    source: str
    target: str


@dataclass(frozen=True)
class SourceFile:
    """A file as the rename read it: its bytes' SHA-256 (the `base` of the apply) and its text."""

    path: str
    sha256: str
    text: str
    encoding: str


@dataclass(frozen=True)
class AddedImport:
    """A static import of the new name, inserted after one that stays (it also imports a member
    that keeps the old name): the kept import's references to renamed declarations move to it."""

    path: str
    token: Span           # the kept import's name token
    at: Span              # where the new import is inserted (zero width, after the kept one's `;`)
    head: int             # where the kept import starts on its line (`import`): the inserted text is
                          # a space and the kept import's text from there, the new name for the old

    def copied(self, char: int) -> int:
        """The offset within the inserted text of what stands at `char` in the kept import."""
        return 1 + char - self.head


@dataclass
class RenamePlan:
    target: DeclRow
    old_name: str
    new_name: str
    renamed: list[DeclRow]                 # every declaration that takes the new name
    references: list[RefRow]               # the references to them whose token is renamed
    kept: list[RefRow]                     # the references to them whose token is not the name
    files: list[FileEdits]
    moves: list[Move]
    sources: dict[str, SourceFile] = field(default_factory=dict)
    added_imports: list[AddedImport] = field(default_factory=list)

    def new_texts(self) -> dict[str, str]:
        """path (after the moves) -> the new content, for every file that changes."""
        moved = {m.source: m.target for m in self.moves}
        out = {}
        for f in self.files:
            out[moved.get(f.path, f.path)] = spans.apply(self.sources[f.path].text, f.edits)
        return out


Encoding = Callable[[str], str]     # module id -> the source encoding of its files


def resolve_target(reader: Reader, d: DeclRow) -> DeclRow:
    """The declaration a rename of `d` renames: a constructor's type; a record accessor's component."""
    if d.kind == "CONSTRUCTOR" and d.container_key:
        owners = reader.declarations(key=d.container_key)
        if owners and owners[0].kind in TYPE_KINDS:
            return owners[0]
    if d.kind == "METHOD" and d.container_key and f";.{d.name}()" in d.key:
        owners = reader.declarations(key=d.container_key)
        if owners and owners[0].kind == "RECORD":
            for c in reader.declarations_in(owners[0].path):
                if c.kind == "RECORD_COMPONENT" and c.container_key == d.container_key and c.name == d.name:
                    return c
    return d


def plan(reader: Reader, root: Path, target: DeclRow, new_name: str, encoding: Encoding, *,
         naive: bool = False) -> RenamePlan:
    """The edits that rename `target` to `new_name`, or RenameRefused. `naive`: skip the refusals
    before the compile (generated_member, collision; a family's library methods are left out
    instead of refused): the edits a naive rename would make (bench/mass_rename.py proves refusals
    real with them)."""
    target = resolve_target(reader, target)
    old = target.name
    why = why_invalid(new_name, target.kind)
    if why is not None:
        raise RenameRefused("invalid_name", why)
    if new_name == old:
        raise RenameRefused("invalid_name", f"`{target.dotted}` is already named `{old}`; pass another name.")
    if target.kind == "INITIALIZER" or not old:
        raise RenameRefused("invalid_name", "This declaration has no name to rename (an initializer or an "
                            "anonymous class); point at a named declaration.")
    if not naive:
        _refuse_generated(reader, target, root, encoding)
    renamed = _renamed(reader, target, naive)
    if not naive:
        _refuse_collisions(reader, target, renamed, new_name)
    ids = [d.symbol_id for d in renamed]
    refs = reader.references(ids)
    sources: dict[str, SourceFile] = {}
    modules = {d.path: d.module for d in renamed} | {r.path: r.module for r in refs}

    def source(path: str) -> SourceFile:
        if path not in sources:
            sources[path] = read_source(root, path, encoding(modules[path]))
        return sources[path]

    edits: dict[str, dict[Span, Edit]] = {}
    for d in renamed:
        if _token(source(d.path), d.name_span) == old:
            edits.setdefault(d.path, {})[d.name_span] = Edit(d.name_span, new_name)
    renamed_refs, kept = [], []
    shared = _shared_imports(reader, refs, set(ids)) if target.kind not in TYPE_KINDS else set()
    added: dict[tuple[str, Span], AddedImport] = {}
    for r in refs:
        if _token(source(r.path), r.span) != old:
            kept.append(r)
            continue
        if (r.path, r.span) in shared:
            if (r.path, r.span) not in added:
                insert = _added_import(source(r.path), r.span, new_name)
                if insert is not None:
                    edit, head = insert
                    added[(r.path, r.span)] = AddedImport(r.path, r.span, edit.span, head)
                    edits.setdefault(r.path, {})[edit.span] = edit
            if (r.path, r.span) in added:
                kept.append(r)
                continue
        edits.setdefault(r.path, {})[r.span] = Edit(r.span, new_name)
        renamed_refs.append(r)
    files = [FileEdits(path, modules[path], tuple(sorted(by_span.values())))
             for path, by_span in sorted(edits.items())]
    return RenamePlan(target, old, new_name, renamed, renamed_refs, kept, files,
                      _moves(target, new_name), sources, list(added.values()))


def _shared_imports(reader: Reader, refs: list[RefRow], ids: set[int]) -> set[tuple[str, Span]]:
    """The import tokens among `refs` that also import a declaration not renamed (`import static
    p.U.m;` of the overloads `m(int)`, renamed, and `m(String)`, not): (path, span). Asked for
    members only (a type's imports are many, and import nothing else of its name)."""
    tokens = {(r.path, r.span) for r in refs if r.flags & REF_IN_IMPORT}
    out: set[tuple[str, Span]] = set()
    for path in sorted({p for p, _ in tokens}):
        out |= {(path, row.span) for row in reader.file_references(path)
                if (path, row.span) in tokens and row.target_id not in ids}
    return out


def _added_import(src: SourceFile, token: Span, new_name: str) -> tuple[Edit, int] | None:
    """The insertion of `import static <the same type>.<new_name>;` after the single static import
    whose name token is `token` (on its line), and where that import starts (UTF-16); None when the
    import is not written on one line."""
    line = spans.lines(src.text)[token.start_line]
    begin, end = codepoints(line, token.start_char), codepoints(line, token.end_char)
    keyword = line.rfind("import", 0, begin)
    semi = line.find(";", end)
    if keyword < 0 or semi < 0 or line[end:semi].strip():
        return None
    head = line[keyword:begin]                   # `import static com.acme.lib.Texts.`
    if head.split()[1:2] != ["static"]:
        return None
    at = utf16_len(line[:semi + 1])
    text = f" {head}{new_name};"
    return Edit(Span(token.start_line, at, token.start_line, at), text), utf16_len(line[:keyword])


def read_source(root: Path, path: str, encoding: str) -> SourceFile:
    data = (root / path).read_bytes()
    return SourceFile(path, hashlib.sha256(data).hexdigest(), data.decode(encoding, errors="replace"), encoding)


def _token(src: SourceFile, span: Span) -> str | None:
    try:
        return spans.text_at(src.text, spans.line_starts(src.text), span)
    except ValueError:
        return None


# what is renamed --------------------------------------------------------------------------------


def family(reader: Reader, d: DeclRow) -> tuple[list[int], list[int]]:
    """The method's override family: every symbol connected to it by `overrides` relations,
    as (all ids, the ids of library or JDK methods among them)."""
    seen = {d.symbol_id}
    frontier = [d.symbol_id]
    while frontier:
        rows = reader.relations(frontier, kinds=["overrides"])
        frontier = []
        for row in rows:
            for sid in (row.from_id, row.to_id):
                if sid not in seen:
                    seen.add(sid)
                    frontier.append(sid)
    infos = reader.symbols(seen)
    external = sorted(sid for sid, info in infos.items() if info.external)
    return sorted(seen), external


def _renamed(reader: Reader, target: DeclRow, naive: bool = False) -> list[DeclRow]:
    if target.kind == "METHOD":
        ids, external = family(reader, target)
        if external and not naive:
            infos = reader.symbols(external)
            names = ", ".join(sorted(f"`{i.dotted or i.key}`" for i in infos.values()))
            raise RenameRefused(
                "library_member",
                f"`{target.dotted}` overrides or implements {names}, declared in a library or the JDK, "
                f"which cannot be renamed; the override keeps that name (rename a method of your own "
                f"instead).", [Place(None, None, f"{i.dotted} ({i.display or i.name})") for i in infos.values()])
        found = _first_decls(reader, ids)
        generated = [d for d in found if d.modifiers & DECL_GENERATED]
        if generated and not naive:
            raise RenameRefused("generated_member", f"The override family of `{target.dotted}` holds generated "
                                f"methods; change the code that generates them.",
                                [Place(d.path, d.name_span, d.dotted) for d in generated])
        return found
    out = [target]
    if target.kind in TYPE_KINDS:
        out += [d for d in reader.declarations_in(target.path)
                if d.kind == "CONSTRUCTOR" and d.container_key == target.key]
    if target.kind == "RECORD_COMPONENT":
        n_components = sum(1 for d in reader.declarations_in(target.path)
                           if d.kind == "RECORD_COMPONENT" and d.container_key == target.container_key)
        beside = reader.declarations_in(target.path)
        canonical = {d.key for d in beside if d.kind == "CONSTRUCTOR" and d.container_key == target.container_key
                     and _arity(d.key) == n_components}
        out += [d for d in beside if d.name == target.name and (
            (d.kind == "METHOD" and d.container_key == target.container_key and f";.{d.name}()" in d.key)
            or (d.kind == "PARAMETER" and d.container_key in canonical))]
    return out


def _first_decls(reader: Reader, ids: list[int]) -> list[DeclRow]:
    out: dict[int, DeclRow] = {}
    for d in reader.declarations(symbol=ids):
        out.setdefault(d.symbol_id, d)
    return [out[i] for i in ids if i in out]


_PARAMS = re.compile(r"\(([^)]*)\)")
_GENERIC = re.compile(r"<[^<>]*>")


def params(key: str) -> str:
    """The parameter descriptor of a method key, generic arguments erased (`(Ljava/util/List;I)`)."""
    member = key.partition(";.")[2] or key
    m = _PARAMS.search(member)
    text = m.group(1) if m else ""
    while True:
        erased = _GENERIC.sub("", text)
        if erased == text:
            return erased
        text = erased


def _arity(key: str) -> int:
    desc = params(key)
    n, i = 0, 0
    while i < len(desc):
        while desc[i] == "[":
            i += 1
        if desc[i] in "LT":
            i = desc.index(";", i)
        n += 1
        i += 1
    return n


def _moves(target: DeclRow, new_name: str) -> list[Move]:
    """A top-level type declared in a file named after it moves to a file of its new name."""
    if target.kind not in TYPE_KINDS or target.container_key not in (None, "", target.key):
        return []
    folder, file = posixpath.split(target.path)
    if file != f"{target.name}.java":
        return []
    return [Move(target.path, posixpath.join(folder, f"{new_name}.java"))]


# refusals before the compile --------------------------------------------------------------------


def _refuse_generated(reader: Reader, target: DeclRow, root: Path, encoding: Encoding) -> None:
    if target.modifiers & DECL_GENERATED:
        sources = [r.to_id for r in reader.relations(target.symbol_id, direction="from", kinds=["generated_from"])]
        origin = _first_decls(reader, sources)
        try:
            annotation = _token(read_source(root, target.path, encoding(target.module)), target.name_span)
        except OSError:
            annotation = None
        made_by = f"@{annotation.lstrip('@')}" if annotation else "an annotation"
        instead = (f"rename the {origin[0].kind.lower().replace('_', ' ')} `{origin[0].name}` it is generated "
                   f"from" if origin else f"change {made_by}")
        raise RenameRefused("generated_member", f"`{target.dotted}` is generated by {made_by} (Lombok), and has no "
                            f"name in the source to rename; {instead} instead.",
                            [Place(target.path, target.name_span, made_by)])
    if target.kind == "FIELD":
        accessors = [r.from_id for r in reader.relations(target.symbol_id, direction="to", kinds=["generated_from"])]
        calls = reader.references(accessors, limit=20) if accessors else []
        if calls:
            names = ", ".join(sorted({f"`{d.name}`" for d in _first_decls(reader, accessors)}))
            raise RenameRefused("generated_member", f"`{target.dotted}` has generated accessors ({names}) whose "
                                f"names follow the field's, and their calls would keep the old names; rename "
                                f"the accessors' callers too, or drop the accessor annotation first.",
                                [Place(r.path, r.span, "a call of a generated accessor") for r in calls])


def _refuse_collisions(reader: Reader, target: DeclRow, renamed: list[DeclRow], new_name: str) -> None:
    clashes: list[DeclRow] = []
    if target.kind in TYPE_KINDS:
        top = target.container_key in (None, "", target.key)
        package = target.dotted.rsplit(".", 1)[0] if "." in target.dotted else ""
        if top:
            clashes += [d for d in reader.declarations(dotted=f"{package}.{new_name}" if package else new_name,
                                                       kinds=list(TYPE_KINDS))
                        if d.container_key in (None, "", d.key) and d.dotted.rsplit(".", 1)[0] == package]
        else:
            beside = reader.declarations_in(target.path)
            clashes += [d for d in beside if d.kind in TYPE_KINDS and d.name == new_name
                        and d.container_key == target.container_key]
            enclosing = _enclosing_types(beside, target)
            clashes += [d for d in enclosing if d.name == new_name]
    elif target.kind == "METHOD":
        for member in renamed:
            for d in _members(reader, member):
                if d.kind == "METHOD" and d.name == new_name and params(d.key) == params(member.key):
                    clashes.append(d)
    elif target.kind in VALUE_MEMBERS:
        clashes += [d for d in _members(reader, target) if d.kind in VALUE_MEMBERS and d.name == new_name]
    elif target.kind in ("PARAMETER", "TYPE_PARAMETER"):
        clashes += [d for d in reader.declarations_in(target.path)
                    if d.kind == target.kind and d.container_key == target.container_key and d.name == new_name]
    if clashes:
        first = clashes[0]
        raise RenameRefused("collision", f"`{first.dotted}` ({first.kind.lower().replace('_', ' ')}) already "
                            f"has the name `{new_name}` in the same scope as `{target.dotted}`; pick another "
                            f"name, or rename that one first.",
                            [Place(d.path, d.name_span, d.dotted) for d in clashes])


def _members(reader: Reader, d: DeclRow) -> list[DeclRow]:
    """The declarations of the type that declares `d` (besides `d`)."""
    return [m for m in reader.declarations_in(d.path)
            if m.container_key == d.container_key and m.symbol_id != d.symbol_id]


def _enclosing_types(beside: list[DeclRow], d: DeclRow) -> list[DeclRow]:
    by_key = {x.key: x for x in beside}
    out, key = [], d.container_key
    while key and key in by_key and by_key[key].key != d.key:
        x = by_key[key]
        if x.kind in TYPE_KINDS:
            out.append(x)
        if x.container_key == x.key:
            break
        key = x.container_key
    return out
