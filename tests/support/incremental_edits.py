"""Random but realistic edits of a Java workspace, and the fact-for-fact comparison of two stores.

Edits are chosen with a seeded RNG from the declarations of the current
generation (so they land on real methods, parameters, fields and types):
rename a method (its declaration alone, or with every reference), add an
overload, change a parameter's or a field's type, delete a file and later
re-add it, move a class to another package, move a file to another folder
without changing its `package` line, add a new source root (a module's
first `src/test/java`, a generated-sources folder) with a class that uses
main code, edit a file in place through a hard link made outside the
workspace, rename a method keeping the file's size and mtime, add a
subclass that overrides a method, edit a method body (test files
included), break a file's syntax and later repair it. Most edits are undone
later (`restore`).
"""

from __future__ import annotations

import os
import random
import re
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from pybridge.facts import DECL_KINDS
from pybridge.sync.summary import SourceText, body_start


@dataclass
class Decl:
    path: str
    key: str
    kind: str
    name: str
    declaring: str
    name_span: tuple[int, int, int, int]
    span: tuple[int, int, int, int]
    modifiers: int


def _top_level(d: Decl) -> bool:
    """A type's container is itself when it is top-level (the enclosing type when nested)."""
    return d.declaring in ("", d.key)


def current_decls(store_file: Path, checkout: str = "") -> list[Decl]:
    conn = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, s.binding_key, d.kind, coalesce(d.name_x, s.name), c.binding_key,"
            " d.line, d.col, d.line + d.dline, d.end_col, d.full_line, d.full_col, d.full_line + d.full_dline,"
            " d.full_end_col, d.modifiers"
            " FROM checkouts cur JOIN manifest m ON m.generation_id = cur.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " JOIN symbols s ON s.id = d.symbol_id LEFT JOIN symbols c ON c.id = d.container_id"
            " WHERE cur.name = ? ORDER BY f.path, d.ord", (checkout,)).fetchall()
    finally:
        conn.close()
    return [Decl(r[0], r[1], DECL_KINDS[r[2]], r[3] or "", r[4] or "", tuple(r[5:9]), tuple(r[9:13]), r[13])
            for r in rows]


def current_refs(store_file: Path, key: str, checkout: str = "") -> list[tuple[str, tuple[int, int, int, int]]]:
    conn = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, r.line, r.col, r.line + r.dline, r.end_col"
            " FROM checkouts cur JOIN manifest m ON m.generation_id = cur.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN refs r ON r.file_version_id = f.id"
            " JOIN symbols s ON s.id = r.target_id WHERE cur.name = ? AND s.binding_key = ? AND r.kind <> 4",
            (checkout, key)).fetchall()
    finally:
        conn.close()
    return [(r[0], tuple(r[1:])) for r in rows]


def generation_digests(store_file: Path, checkout: str = "") -> dict[str, bytes]:
    """path -> the file version digest: sha256 of (module, scope, path, content, every fact, by binding keys)."""
    conn = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        return dict(conn.execute(
            "SELECT f.path, f.digest FROM checkouts cur JOIN manifest m ON m.generation_id = cur.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id WHERE cur.name = ?", (checkout,)).fetchall())
    finally:
        conn.close()


def file_facts(store_file: Path, path: str, checkout: str = "") -> dict[str, set]:
    """One file's facts in the current generation as sets of tuples named by binding keys."""
    conn = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        (fv, complete), = conn.execute(
            "SELECT f.id, f.binding_complete FROM checkouts cur JOIN manifest m ON m.generation_id = cur.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id WHERE cur.name = ? AND f.path = ?",
            (checkout, path)).fetchall()
        k = "(SELECT binding_key FROM symbols WHERE id = {})"
        return {
            "complete": {complete},
            "declarations": set(conn.execute(
                f"SELECT {k.format('symbol_id')}, kind, line, col, full_line, full_dline, modifiers,"
                f" {k.format('container_id')} FROM declarations WHERE file_version_id = ?", (fv,))),
            "references": set(conn.execute(
                f"SELECT {k.format('target_id')}, {k.format('container_id')}, line, col, kind, flags FROM refs"
                " WHERE file_version_id = ?", (fv,))),
            "relations": set(conn.execute(
                f"SELECT kind, {k.format('from_id')}, {k.format('to_id')} FROM relations WHERE file_version_id = ?",
                (fv,))),
            "problems": set(conn.execute(
                "SELECT kind, name, message, line, col, is_error FROM problems WHERE file_version_id = ?", (fv,))),
        }
    finally:
        conn.close()


def differences(incremental: Path, fresh: Path, incremental_checkout: str = "",
                fresh_checkout: str = "") -> list[str]:
    """What differs between the current generations of two stores (of the checkouts named, in
    shared stores), fact by fact; empty when equal."""
    a = generation_digests(incremental, incremental_checkout)
    b = generation_digests(fresh, fresh_checkout)
    out = [f"only in the incremental generation: {p}" for p in sorted(a.keys() - b.keys())]
    out += [f"only in the fresh generation: {p}" for p in sorted(b.keys() - a.keys())]
    for path in sorted(a.keys() & b.keys()):
        if a[path] == b[path]:
            continue
        fa, fb = file_facts(incremental, path, incremental_checkout), file_facts(fresh, path, fresh_checkout)
        for what in fa:
            extra, missing = sorted(fa[what] - fb[what], key=str), sorted(fb[what] - fa[what], key=str)
            if extra or missing:
                out.append(f"{path}: {what}: incremental has {extra[:5]}, fresh has {missing[:5]}")
        if all(fa[w] == fb[w] for w in fa):
            out.append(f"{path}: digests differ (names, displays or SCIP symbols)")
    return out


@dataclass
class Editor:
    root: Path
    store_file: Path
    rng: random.Random
    # Restores to do: (path, its old bytes or None to delete it, a file or folder to remove first).
    pending: list[tuple[str, bytes | None, str | None]] = field(default_factory=list)
    counter: int = 0
    kind: str = ""          # the kind of the last edit ("restore" for an undo)

    KINDS = ("rename_method", "rename_method_everywhere", "add_overload", "change_parameter_type",
             "change_field_type", "delete_file", "move_class", "add_subclass", "edit_body", "edit_test_body",
             "break_syntax", "move_keeping_package", "new_source_root", "hard_linked_edit", "size_and_mtime_kept")

    def _text(self, path: str) -> str:
        return (self.root / path).read_text(encoding="utf-8")

    def _write(self, path: str, text: str) -> None:
        (self.root / path).parent.mkdir(parents=True, exist_ok=True)
        (self.root / path).write_text(text, encoding="utf-8")

    def _offset(self, text: str, pos: tuple[int, int]) -> int:
        return SourceText(text).offset(*pos)

    def edit(self, kind: str | None = None) -> str:
        """Apply one edit (of `kind`, one of KINDS, when given); returns what it did."""
        if kind is None and self.pending and self.rng.random() < 0.5:
            return self.restore()
        decls = current_decls(self.store_file)
        for _ in range(50):
            chosen = kind or self.rng.choice(self.KINDS)
            done = getattr(self, "_" + chosen)(decls)
            if done:
                self.counter += 1
                self.kind = chosen
                return done
        if kind is not None:
            raise AssertionError(f"no {kind} edit applies to {self.root}")
        self.kind = "edit_body"
        return self._edit_body(decls) or "nothing"

    def restore(self) -> str:
        """Undo one pending edit, picked at random."""
        path, data, extra = self.pending.pop(self.rng.randrange(len(self.pending)))
        self.kind = "restore"
        if extra is not None and (self.root / extra).is_dir():
            shutil.rmtree(self.root / extra)
        elif extra is not None and (self.root / extra).exists():
            (self.root / extra).unlink()
        if data is None:
            (self.root / path).unlink(missing_ok=True)
        else:
            (self.root / path).parent.mkdir(parents=True, exist_ok=True)
            (self.root / path).write_bytes(data)
        return f"restore {path}" + (f" (removing {extra})" if extra else "")

    def _pick(self, decls: list[Decl], kinds: set[str], test: bool | None = None) -> Decl | None:
        pool = [d for d in decls if d.kind in kinds and d.name and (self.root / d.path).exists()
                and (test is None or ("/src/test/" in "/" + d.path) == test)]
        return self.rng.choice(pool) if pool else None

    def _methods(self, decls: list[Decl]) -> list[Decl]:
        types = {d.key: d for d in decls if d.kind in ("CLASS", "INTERFACE", "ENUM", "RECORD")}
        return [d for d in decls if d.kind == "METHOD" and d.declaring in types]

    def _replace(self, path: str, span: tuple[int, int, int, int], new: str) -> str:
        text = self._text(path)
        a, b = self._offset(text, span[:2]), self._offset(text, span[2:])
        self._write(path, text[:a] + new + text[b:])
        return text[a:b]

    def _rename_method(self, decls: list[Decl]) -> str | None:
        methods = self._methods(decls)
        if not methods:
            return None
        d = self.rng.choice(methods)
        new = d.name + "Zz"
        self._replace(d.path, d.name_span, new)
        return f"rename method {d.name} -> {new} in {d.path} (declaration only)"

    def _rename_method_everywhere(self, decls: list[Decl]) -> str | None:
        methods = self._methods(decls)
        if not methods:
            return None
        d = self.rng.choice(methods)
        new = d.name + "Yy"
        spots = [(d.path, d.name_span)] + [r for r in current_refs(self.store_file, d.key)]
        for path, span in sorted(set(spots), key=lambda s: (s[0], s[1]), reverse=True):
            text = self._text(path)
            a, b = self._offset(text, span[:2]), self._offset(text, span[2:])
            if text[a:b] == d.name:
                self._write(path, text[:a] + new + text[b:])
        return f"rename method {d.name} -> {new} in {d.path} and its {len(spots) - 1} references"

    def _add_overload(self, decls: list[Decl]) -> str | None:
        methods = [m for m in self._methods(decls)]
        if not methods:
            return None
        d = self.rng.choice(methods)
        text = self._text(d.path)
        end = self._offset(text, d.span[2:])
        param = self.rng.choice(["long[] zz", "String zz, int yy", "Object zz", "int zz"])
        add = f"\n    static void {d.name}({param}) {{ }}\n"
        self._write(d.path, text[:end] + add + text[end:])
        return f"add overload {d.name}({param}) in {d.path}"

    def _change_parameter_type(self, decls: list[Decl]) -> str | None:
        params = [p for p in decls if p.kind == "PARAMETER"]
        by_key = {d.key: d for d in decls}
        params = [p for p in params if by_key.get(p.declaring) is not None
                  and by_key[p.declaring].kind in ("METHOD", "CONSTRUCTOR")]
        if not params:
            return None
        p = self.rng.choice(params)
        new_type = self.rng.choice(["Object", "long", "CharSequence", "java.util.List<String>"])
        old = self._replace(p.path, p.span, f"{new_type} {p.name}")
        return f"change parameter `{old}` -> `{new_type} {p.name}` in {p.path}"

    def _change_field_type(self, decls: list[Decl]) -> str | None:
        d = self._pick(decls, {"FIELD"})
        if d is None:
            return None
        text = self._text(d.path)
        start = self._offset(text, d.name_span[:2])
        m = re.search(r"([\w.$]+)(\s+)$", text[max(0, start - 200):start])
        if not m or m.group(1) in ("final", "static", "private", "public", "protected", "volatile", "transient"):
            return None
        a = start - len(m.group(0))
        new = self.rng.choice(["Object", "long", "String", "CharSequence"])
        self._write(d.path, text[:a] + new + m.group(2) + text[start:])
        return f"change field {d.name}'s type {m.group(1)} -> {new} in {d.path}"

    def _delete_file(self, decls: list[Decl]) -> str | None:
        d = self._pick(decls, {"CLASS", "INTERFACE", "ENUM", "RECORD"})
        if d is None:
            return None
        data = (self.root / d.path).read_bytes()
        (self.root / d.path).unlink()
        self.pending.append((d.path, data, None))
        return f"delete {d.path}"

    def _move_class(self, decls: list[Decl]) -> str | None:
        d = self._pick(decls, {"CLASS", "INTERFACE", "ENUM", "RECORD"})
        if d is None or not _top_level(d):
            return None
        text = self._text(d.path)
        m = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
        if not m:
            return None
        src = Path(d.path)
        target = (src.parent / "moved" / src.name).as_posix()
        if (self.root / target).exists():
            return None
        new_text = text[:m.start(1)] + m.group(1) + ".moved" + text[m.end(1):]
        data = (self.root / d.path).read_bytes()
        self._write(target, new_text)
        (self.root / d.path).unlink()
        self.pending.append((d.path, data, target))
        return f"move {d.path} -> {target}"

    def _add_subclass(self, decls: list[Decl]) -> str | None:
        d = self._pick(decls, {"CLASS"})
        if d is None or not _top_level(d) or d.modifiers & 0x10:   # final
            return None
        text = self._text(d.path)
        m = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
        if not m:
            return None
        methods = [x for x in self._methods(decls) if x.declaring == d.key and not x.modifiers & (0x2 | 0x8 | 0x10)]
        body = ""
        if methods:
            x = self.rng.choice(methods)
            t = SourceText(text)
            start, name_end = t.offset(*x.span[:2]), t.offset(*x.name_span[2:])
            end = body_start(text, name_end, t.offset(*x.span[2:]))
            header = re.sub(r"/\*\*.*?\*/", "", text[start:end], flags=re.S).replace("abstract ", "")
            header = re.sub(r"@Override\s*", "", header)
            body = f"    @Override\n    {header.strip()} {{ throw new UnsupportedOperationException(); }}\n"
        self.counter += 1
        name = f"ZzSub{self.counter}"
        path = (Path(d.path).parent / f"{name}.java").as_posix()
        self._write(path, f"package {m.group(1)};\n\npublic class {name} extends {d.name} {{\n{body}}}\n")
        self.pending.append((path, None, None))
        return f"add subclass {name} of {d.name} at {path}" + (" with an override" if body else "")

    def _edit_body(self, decls: list[Decl], test: bool | None = None) -> str | None:
        d = self._pick(decls, {"METHOD", "CONSTRUCTOR"}, test)
        if d is None:
            return None
        text = self._text(d.path)
        t = SourceText(text)
        name_end, end = t.offset(*d.name_span[2:]), t.offset(*d.span[2:])
        brace = body_start(text, name_end, end)
        if brace >= end or text[brace] != "{":
            return None
        stmt = self.rng.choice(["int zzLocal = 1;", "// touched", "Object zzO = null; zzO = \"x\";",
                                "String zzS = String.valueOf(42);"])
        self._write(d.path, text[:brace + 1] + " " + stmt + text[brace + 1:])
        return f"edit the body of {d.name} in {d.path}: {stmt}"

    def _edit_test_body(self, decls: list[Decl]) -> str | None:
        return self._edit_body(decls, test=True)

    def _break_syntax(self, decls: list[Decl]) -> str | None:
        d = self._pick(decls, {"METHOD", "CLASS", "FIELD"})
        if d is None:
            return None
        data = (self.root / d.path).read_bytes()
        text = data.decode("utf-8")
        at = self._offset(text, d.span[:2]) if self.rng.random() < 0.5 else \
            self._offset(text, d.span[2:])
        junk = self.rng.choice(["{{ (", "int int;", "}", "void (", "\"unterminated"])
        self._write(d.path, text[:at] + junk + text[at:])
        self.pending.append((d.path, data, None))
        return f"break the syntax of {d.path} with {junk!r}"

    def _package_root(self, path: str) -> tuple[str, Path] | None:
        """The package a file declares and the source root it lies in (None when its folder is
        not its package's)."""
        m = re.search(r"^package\s+([\w.]+)\s*;", self._text(path), re.M)
        if not m:
            return None
        folder = Path(path).parent
        tail = Path(*m.group(1).split("."))
        if folder.parts[-len(tail.parts):] != tail.parts:
            return None
        return m.group(1), Path(*folder.parts[:-len(tail.parts)])

    def _move_keeping_package(self, decls: list[Decl]) -> str | None:
        """Move a file to another folder of its source root (another package's, or a new one),
        its `package` line unchanged: the sourcepath no longer finds its types by folder."""
        d = self._pick(decls, {"CLASS", "INTERFACE", "ENUM", "RECORD"})
        if d is None or not _top_level(d):
            return None
        where = self._package_root(d.path)
        if where is None:
            return None
        src = Path(d.path)
        folders = sorted({p.parent.relative_to(self.root) for p in (self.root / where[1]).rglob("*.java")}
                         - {src.parent})
        folder = self.rng.choice(folders + [src.parent / "zzelsewhere"])
        target = (folder / src.name).as_posix()
        if (self.root / target).exists():
            return None
        data = (self.root / d.path).read_bytes()
        (self.root / target).parent.mkdir(parents=True, exist_ok=True)
        (self.root / d.path).rename(self.root / target)
        self.pending.append((d.path, data, target))
        return f"move {d.path} -> {target} keeping `package {where[0]};`"

    def _new_source_root(self, decls: list[Decl]) -> str | None:
        """A source root that was not there: a module's first src/test/java (or src/main/java),
        or a generated-sources folder, holding a class that uses a main class of the module."""
        modules = sorted(p.parent.relative_to(self.root) for p in self.root.rglob("pom.xml")
                         if "target" not in p.relative_to(self.root).parts)
        self.rng.shuffle(modules)
        for module in modules:
            prefix = "" if module == Path(".") else module.as_posix() + "/"
            mains = [d for d in decls if d.kind in ("CLASS", "INTERFACE") and _top_level(d)
                     and d.path.startswith(prefix + "src/main/java/") and (self.root / d.path).exists()
                     and self._package_root(d.path) is not None]
            if not mains:
                continue
            roots = [r for r in ("src/test/java", "src/main/java") if not (self.root / prefix / r).exists()]
            self.counter += 1
            roots += [f"target/generated-sources/zzgen{self.counter}",
                      f"target/generated-test-sources/zzgen{self.counter}"]
            new_root = self.rng.choice(roots)
            used = self.rng.choice(mains)
            package, _root = self._package_root(used.path) or ("", Path())
            test = "test" in new_root
            name = f"ZzRoot{self.counter}" + ("Test" if test else "")
            path = f"{prefix}{new_root}/{package.replace('.', '/')}/{name}.java"
            top = Path(path).parent
            while not (self.root / top.parent).exists():
                top = top.parent
            self._write(path, f"package {package};\n\npublic class {name} {{\n    {used.name} used;\n\n"
                              f"    String use() {{\n        return String.valueOf(used);\n    }}\n}}\n")
            self.pending.append((path, None, top.as_posix()))
            return f"new source root {prefix}{new_root} with {path} using {used.name}"
        return None

    def _hard_linked_edit(self, decls: list[Decl]) -> str | None:
        """Edit a file in place through a hard link made outside the workspace (the link stays)."""
        d = self._pick(decls, {"METHOD", "CONSTRUCTOR"})
        if d is None:
            return None
        text = self._text(d.path)
        if self.rng.random() < 0.5:
            t = SourceText(text)
            brace = body_start(text, t.offset(*d.name_span[2:]), t.offset(*d.span[2:]))
            if brace >= len(text) or text[brace] != "{":
                return None
            new, what = text[:brace + 1] + " int zzLinked = 2;" + text[brace + 1:], "a statement in the body of"
        else:
            end = self._offset(text, d.span[2:])
            new = text[:end] + f"\n    static void {d.name}(short zzLinked) {{ }}\n" + text[end:]
            what = "an overload of"
        links = self.root.parent / f"{self.root.name}-links"
        links.mkdir(exist_ok=True)
        self.counter += 1
        link = links / f"{self.counter}-{Path(d.path).name}"
        os.link(self.root / d.path, link)
        with open(link, "r+b") as f:       # in place: the same inode, no event in the workspace's folders
            f.write(new.encode("utf-8"))
            f.truncate()
        return f"add {what} {d.name} in {d.path} through the hard link {link.name}"

    def _size_and_mtime_kept(self, decls: list[Decl]) -> str | None:
        """Rename a method's declaration to a name of the same length and put the file's mtime
        back (`touch -r`, `cp -p`): only its content says it changed."""
        methods = [m for m in self._methods(decls) if m.name.isascii()]
        if not methods:
            return None
        d = self.rng.choice(methods)
        new = d.name[:-1] + ("Q" if d.name[-1] != "Q" else "W")
        path = self.root / d.path
        before = path.stat()
        self._replace(d.path, d.name_span, new)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = path.stat()
        assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
        return f"rename method {d.name} -> {new} in {d.path} keeping its size and mtime"
