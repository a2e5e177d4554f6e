"""Does a rename keep every binding? The facts of the compiled files after the edit, against the
generation's, matched through the rename.

A rename moves tokens only sideways on their lines (and a file to a new path), so every position
maps exactly between the old and the new text (`Shifts`). The binding keys of the renamed
declarations change, and with them the keys of what they enclose (a renamed method's parameters,
a renamed type's members); `key_map` pairs each declaration of a compiled file with the one at the
same place after the edit. A key that no compiled file declares but that embeds a renamed type's
binary name is mapped by substituting that name (`Rekey`): the members the language declares (an
enum's `values()` and `valueOf(String)`), and a library method's instantiation whose type
arguments name the type (`EnumSet.allOf` of `Lp/Old;`). The rename keeps every binding when, in every compiled file:
- each reference of the new facts is an old reference at the same (mapped) place, of the same
  kind, to the same (mapped) declaration, and none is missing (a kept static import's reference to
  a renamed declaration is expected at the import the rename adds); a renamed token that now binds to
  another overload, a reference captured by a new local, a call that now reaches an inherited
  member: all are a reference whose target differs;
- the relations (overrides, implements, extends) are the old ones, mapped;
- no compiler error is new.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pybridge.facts import FileFacts, Span, utf16_len
from pybridge.store import Reader

from .rename import TYPE_KINDS, AddedImport, Place, RenamePlan


class Shifts:
    """Positions through the rename's edits: old (path, line, character) <-> new. An edit replaces
    the old name on one line, or inserts an import at the end of one (`AddedImport`)."""

    def __init__(self, plan: RenamePlan) -> None:
        self.moved = {m.source: m.target for m in plan.moves}
        self.back = {m.target: m.source for m in plan.moves}
        # old path -> line -> (sorted old start characters of the edits on it, the sum of the
        # deltas of the edits before each: sums[i] for a position after i edits)
        self.starts: dict[str, dict[int, tuple[list[int], list[int]]]] = {}
        for f in plan.files:
            by_line: dict[int, list[tuple[int, int]]] = {}
            for e in f.edits:
                delta = utf16_len(e.new_text) - (e.span.end_char - e.span.start_char)
                by_line.setdefault(e.span.start_line, []).append((e.span.start_char, delta))
            lines = self.starts.setdefault(f.path, {})
            for line, edits in by_line.items():
                edits.sort()
                sums = [0]
                for _, delta in edits:
                    sums.append(sums[-1] + delta)
                lines[line] = ([c for c, _ in edits], sums)

    def new_path(self, old: str) -> str:
        return self.moved.get(old, old)

    def old_path(self, new: str) -> str:
        return self.back.get(new, new)

    def forward(self, old_path: str, line: int, char: int) -> tuple[int, int]:
        found = self.starts.get(old_path, {}).get(line)
        if not found:
            return line, char
        chars, sums = found
        return line, char + sums[bisect.bisect_left(chars, char)]

    def copied(self, added: AddedImport, char: int) -> tuple[int, int]:
        """Where what stands at `char` in a kept import stands in the import added after it."""
        line, at = self.forward(added.path, added.at.start_line, added.at.start_char)
        return line, at + added.copied(char)

    def forward_span(self, old_path: str, span: Span) -> tuple[int, int]:
        return self.forward(old_path, span.start_line, span.start_char)


@dataclass(frozen=True)
class Verdict:
    errors: list[Place]           # compiler errors the rename adds
    moved: list[Place]            # references whose binding the rename does not keep
    relations: list[Place]        # relations gained or lost
    key_map: dict[str, str]       # old binding key -> new, for every declaration of the compiled files

    @property
    def clean(self) -> bool:
        return not (self.errors or self.moved or self.relations)


def verify(plan: RenamePlan, reader: Reader, after: Mapping[str, FileFacts]) -> Verdict:
    """Compare `after` (workspace-relative new path -> the facts of that file compiled with the edit)
    with the generation's facts of the same files."""
    shifts = Shifts(plan)
    key_map: dict[str, str] = {}
    missing: list[Place] = []
    renamed = {d.key for d in plan.renamed}
    for path, facts in after.items():
        old = shifts.old_path(path)
        by_place = {(d.name_span.start_line, d.name_span.start_char, d.kind): d for d in facts.declarations}
        for d in reader.file_declarations(old):
            line, char = shifts.forward_span(old, d.name_span)
            new = by_place.get((line, char, d.kind))
            if new is not None:
                key_map[d.key] = new.key
            elif d.key in renamed:
                missing.append(Place(path, Span(line, char, line, char), f"{d.dotted} is not declared after the edit"))
    errors: list[Place] = []
    moved: list[Place] = list(missing)
    relations: list[Place] = []
    name = _Names(reader, after)

    mapped = Rekey(plan, key_map)
    relocated = {(a.path, a.token.start_line, a.token.start_char): a for a in plan.added_imports}
    kept_imports = {(a.path, a.token.start_line): a for a in plan.added_imports}

    for path, facts in sorted(after.items()):
        old = shifts.old_path(path)
        before: dict[tuple[int, int, str], Counter[str]] = {}
        for row in reader.file_references(old):
            added = relocated.get((old, row.span.start_line, row.span.start_char))
            if added is not None and row.target_key in renamed:     # moves to the added import
                line, char = shifts.copied(added, row.span.start_char)
            else:
                line, char = shifts.forward_span(old, row.span)
            kept = kept_imports.get((old, row.span.start_line))
            if kept is not None and kept.head <= row.span.start_char < kept.token.start_char:
                # the added import names the kept one's type again
                copy = (*shifts.copied(kept, row.span.start_char), row.kind)
                before.setdefault(copy, Counter())[mapped(row.target_key)] += 1
            before.setdefault((line, char, row.kind), Counter())[mapped(row.target_key)] += 1
        now: dict[tuple[int, int, str], Counter[str]] = {}
        ends: dict[tuple[int, int, str], Span] = {}
        for r in facts.references:
            place = (r.span.start_line, r.span.start_char, r.kind)
            now.setdefault(place, Counter())[r.target_key] += 1
            ends[place] = r.span
        for place in sorted(set(before) | set(now)):
            was, bound = before.get(place, Counter()), now.get(place, Counter())
            if was == bound:
                continue
            line, char, kind = place
            span = ends.get(place, Span(line, char, line, char))
            gone = ", ".join(name(k) for k in sorted((was - bound).elements())) or None
            gained = ", ".join(name(k) for k in sorted((bound - was).elements())) or None
            if gone and gained:
                what = f"this {kind} of {gone} would bind to {gained}"
            elif gained:
                what = f"a new {kind} of {gained}"
            else:
                what = f"this {kind} of {gone} would no longer resolve"
            moved.append(Place(path, span, what))
        old_rel = Counter((r.kind, mapped(r.from_key), mapped(r.to_key)) for r in reader.file_relations(old)
                          if r.kind != "generated_from")
        new_rel = Counter((r.kind, r.from_key, r.to_key) for r in facts.relations if r.kind != "generated_from")
        for kind, a, b in sorted((new_rel - old_rel).elements()):
            relations.append(Place(path, None, f"{name(a)} would gain {kind} {name(b)}"))
        for kind, a, b in sorted((old_rel - new_rel).elements()):
            relations.append(Place(path, None, f"{name(a)} would lose {kind} {name(b)}"))
        old_errors = Counter((*shifts.forward_span(old, p.span), p.kind)
                             for p in reader.problems(path=old, errors_only=True))
        for p in facts.problems:
            mark = (p.span.start_line, p.span.start_char, p.kind)
            if not p.is_error:
                continue
            if old_errors[mark] > 0:
                old_errors[mark] -= 1
                continue
            errors.append(Place(path, p.span, p.message))
    return Verdict(errors, moved, relations, key_map)


class Rekey:
    """Old binding key -> the key it should have after the rename: the declaration at the same place
    (`key_map`), else, for a renamed type, the key with the type's binary name substituted wherever
    it stands as a whole name (`Lp/Old;`, `Lp/Old<`, `Lp/Old$Inner`, in a member's owner, parameters,
    return type or type arguments): `Lp/Old;.values()[Lp/Old;` -> `Lp/New;.values()[Lp/New;`."""

    def __init__(self, plan: RenamePlan, key_map: Mapping[str, str]) -> None:
        self.key_map = key_map
        self.types: list[tuple[re.Pattern[str], str]] = []
        for d in plan.renamed:
            if d.kind in TYPE_KINDS and d.key in key_map:
                old, new = _type_name(d.key), _type_name(key_map[d.key])
                if old != new and old.startswith("L") and new.startswith("L"):
                    # a whole name: not inside a longer one (`Lq/XLp/Old`), not a prefix (`Lp/OldOne`)
                    self.types.append((re.compile(r"(?<![\w/$])" + re.escape(old) + r"(?=[;<$])"), new))

    def __call__(self, key: str) -> str:
        found = self.key_map.get(key)
        if found is not None:
            return found
        for pattern, new in self.types:
            key = pattern.sub(new, key)
        return key


def _type_name(key: str) -> str:
    """A type's key up to its type parameters or end: `Lp/Outer$Old<TT;>;` -> `Lp/Outer$Old`."""
    return re.split(r"[;<]", key, maxsplit=1)[0]


class _Names:
    """What a binding key names, as a reader knows it (`com.acme.Printer.bar(String)`): from the new
    facts' declarations, else the store's symbol table, else the key."""

    def __init__(self, reader: Reader, after: Mapping[str, FileFacts]) -> None:
        self.reader = reader
        self.new = {d.key: _shown(d.dotted, d.display, d.kind) for f in after.values() for d in f.declarations}

    def __call__(self, key: str) -> str:
        if key in self.new:
            return self.new[key]
        info = self.reader.symbol(key)
        if info is not None and info.dotted:
            return _shown(info.dotted, info.display, info.kind or "")
        return key


def _shown(dotted: str, display: str | None, kind: str) -> str:
    if kind in ("METHOD", "CONSTRUCTOR") and display and "(" in display:
        return f"{dotted.rsplit('.', 1)[0]}.{display}" if "." in dotted else display
    return dotted


def compiled_paths(facts: Iterable[FileFacts], relative: Mapping[str, str]) -> dict[str, FileFacts]:
    """The facts by workspace-relative path (`relative`: absolute path -> relative)."""
    return {relative[f.path]: f for f in facts if f.path in relative}
