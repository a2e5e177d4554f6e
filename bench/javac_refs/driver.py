"""Runs the javac reference extractor (JavacRefs.java) on one compile job.

The extractor is compiled at run time with the JDK's own `javac` into a work
folder (keyed by the source's hash, so an edit rebuilds it); the main Gradle
build is not involved. A job is one (module, scope) as `bench/measure.py`'s
`compile_jobs` gives it: files, sourcepath, classpath, Java level, encoding,
taken from pybridge's own workspace model and Maven resolution.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "JavacRefs.java"
SOURCES = (SOURCE, HERE / "JavacSupertypes.java")     # compiled together: JavacSupertypes uses JavacRefs.analyze
JAVAC_PACKAGES = ("code", "tree", "util", "api", "comp")
EXPORTS = [arg for p in JAVAC_PACKAGES
           for arg in ("--add-exports", f"jdk.compiler/com.sun.tools.javac.{p}=ALL-UNNAMED")]

sys.path.insert(0, str(HERE.parent))
import measure  # noqa: E402 - bench/ is not a package


class Ref(NamedTuple):
    path: str
    line: int
    char: int
    end_char: int
    kind: str
    target: str   # src|path|line|char or bin|owner|member|params
    name: str
    alternatives: tuple[str, ...] = ()   # other override-equivalent declarations of the same method


def build(work: Path) -> Path:
    """Compile the extractors (JavacRefs and JavacSupertypes, once per source version) into `work`;
    returns their classes folder."""
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in SOURCES)).hexdigest()[:12]
    classes = work / f"javac_refs-{digest}"
    if not all((classes / f"{p.stem}.class").exists() for p in SOURCES):
        classes.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", *EXPORTS, "-d", str(classes), *map(str, SOURCES)],
                       check=True, capture_output=True, text=True)
    return classes


def run_main(main: str, job: dict, root: Path, out: Path, work: Path, heap: str = "3g") -> str:
    """Run one of the extractors (`main`: JavacRefs or JavacSupertypes) on one compile job, writing
    `out`; returns its stderr summary."""
    classes = build(work)
    argfile = out.with_suffix(".args")
    argfile.write_text("\n".join(f'"{a}"' for a in [*measure.javac_args(job), *job["files"]]))
    cmd = ["java", f"-Xmx{heap}", *EXPORTS, "-cp", str(classes), main, str(out), str(root), f"@{argfile}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
    if proc.returncode != 0:
        raise RuntimeError(f"{main} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stderr.strip()


def extract(job: dict, root: Path, out: Path, work: Path, heap: str = "3g") -> tuple[list[Ref], str]:
    """Run the extractor on one compile job; returns its references and its stderr summary."""
    summary = run_main("JavacRefs", job, root, out, work, heap)
    return read(out), summary


class Warm:
    """One `JavacRefs --serve` process: many runs in one warm JVM (bench/mass_rename.py). Close it."""

    def __init__(self, work: Path, heap: str = "3g") -> None:
        classes = build(work)
        self.proc = subprocess.Popen(
            ["java", f"-Xmx{heap}", *EXPORTS, "-cp", str(classes), "JavacRefs", "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
            env={**os.environ, "LC_ALL": "C.UTF-8"})

    def extract(self, job: dict, root: Path, out: Path, javadoc: bool = False,
                options: tuple[str, ...] = ()) -> tuple[list[Ref], str]:
        """As `extract`, in the warm JVM; `javadoc`: the Javadoc references too (kind `javadoc`);
        `options`: more javac options, after the job's."""
        argfile = out.with_suffix(".args")
        first = ["--javadoc"] if javadoc else []
        argfile.write_text("\n".join(f'"{a}"' for a in [*first, str(out), str(root), *measure.javac_args(job),
                                                          *options, *job["files"]]))
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"@{argfile}\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("javac_refs --serve ended: " + " | ".join(lines[-5:]))
            if line.startswith("done "):
                break
            lines.append(line.rstrip("\n"))
        return read(out), "\n".join(lines)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def read(out: Path) -> list[Ref]:
    """The references of an extractor's output (the lines of generated code's references left out:
    `read_generated`)."""
    refs = []
    with out.open(encoding="utf-8") as f:
        for line in f:
            p, ln, ch, end, kind, target, name, alts = line.rstrip("\n").split("\t")
            if kind == GENERATED:
                continue
            refs.append(Ref(p, int(ln), int(ch), int(end), kind, target, name, tuple(alts.split(",")) if alts else ()))
    return refs


GENERATED = "generated"


def read_generated(out: Path) -> Counter[str]:
    """Per path: the references made by processor-generated code (Lombok's members) that the
    extractor left out (JavacRefs' class comment)."""
    counts: Counter[str] = Counter()
    with out.open(encoding="utf-8") as f:
        for line in f:
            fields = line.split("\t", 5)
            if fields[4] == GENERATED:
                counts[fields[0]] += 1
    return counts


_ERROR = re.compile(r"^javac: (.+?\.java):(\d+): error: (.*)")


class Run(NamedTuple):
    """javac's view of some files: their references, its errors as (path, 1-based line), and the same
    errors with their messages, (path, line, message), in the same order."""
    refs: list[Ref]
    errors: list[tuple[str, int]]
    log: str
    messages: tuple[tuple[str, int, str], ...] = ()


class Subset:
    """javac on the files a change can affect, against the original's class output (issue 24's benches).

    Each compile job of the workspace at `root` is compiled once (whole, with its sourcepath) into a
    class folder under `work` (kept while the job's files and classpath are the same). A run then gives
    javac only the files asked, with that folder ahead of the job's classpath and an empty sourcepath:
    a file on the command line wins over its class file, every other type is read from the original's
    class file. A job whose sourcepath holds another job's sources (app on lib) gets the asked files
    of that job on its command line too, so that it sees them as changed; each file's references are
    taken from its own job's run. `whole()` gives every file of the jobs instead (the `--full` check
    of the subset rule). `options`: more javac options for the runs (not for the original's classes)."""

    def __init__(self, root: Path, state: Path, work: Path, warm: Warm, say=print,
                 options: tuple[str, ...] = ()) -> None:
        self.root, self.work, self.warm, self.options = root, work, warm, options
        self.jobs = measure.compile_jobs(root, state)
        self.job_of = {Path(f).relative_to(root).as_posix(): i for i, job in enumerate(self.jobs) for f in job["files"]}
        self.upstream = {i: [k for k, other in enumerate(self.jobs)
                             if any(Path(other["files"][0]).is_relative_to(sp) for sp in job["sourcepath"])] or [i]
                         for i, job in enumerate(self.jobs)}
        self.empty = work / "empty-sourcepath"
        self.empty.mkdir(parents=True, exist_ok=True)
        self.classes = [self._compile(i, job, say) for i, job in enumerate(self.jobs)]
        self._hierarchy: Hierarchy | None = None

    def _compile(self, i: int, job: dict, say) -> Path:
        classes = self.work / f"classes-{i}"
        stamp = self.work / f"classes-{i}.done"
        key = json.dumps([str(self.root), job["files"], job["classpath"], job["sourcepath"]])
        if stamp.exists() and stamp.read_text(encoding="utf-8") == key:
            return classes
        shutil.rmtree(classes, ignore_errors=True)
        classes.mkdir(parents=True)
        argfile = self.work / f"classes-{i}.args"
        argfile.write_text("\n".join(f'"{f}"' for f in job["files"]), encoding="utf-8")
        t = time.monotonic()
        proc = subprocess.run([*measure.javac_cmd(job, str(classes)), f"@{argfile}"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"javac could not compile the original's job {job['module']}:{job['scope']} into "
                               f"{classes} (a subset needs its class files): {proc.stderr[-2000:]}")
        stamp.write_text(key, encoding="utf-8")
        say(f"javac: the original's {job['module']}:{job['scope']} compiled to {classes} "
            f"({time.monotonic() - t:.1f} s)")
        return classes

    def run(self, base: Path, paths: dict[str, str], name: str = "run", javadoc: bool = False) -> Run:
        """javac on `base`'s files `paths` (path under base -> the original's path, which names its job);
        `javadoc`: the Javadoc references too."""
        by_job: dict[int, dict[str, str]] = {}
        for new, old in paths.items():
            if old in self.job_of:
                by_job.setdefault(self.job_of[old], {})[new] = old
        refs: list[Ref] = []
        errors: list[tuple[str, int]] = []
        messages: list[tuple[str, int, str]] = []
        logs = []
        for i, own in sorted(by_job.items()):
            job = dict(self.jobs[i])
            files = {new for k in self.upstream[i] for new in by_job.get(k, {})} | set(own)
            job["files"] = sorted(str(base / f) for f in files)
            job["sourcepath"] = [str(self.empty)]
            job["classpath"] = [str(self.classes[i]), *job["classpath"]]
            found, log = self.warm.extract(job, base, self.work / f"{name}-{i}.tsv", javadoc, self.options)
            refs += [r for r in found if r.path in own]
            for line in log.splitlines():
                m = _ERROR.match(line)
                if m and Path(m.group(1)).resolve().is_relative_to(base):
                    rel = Path(m.group(1)).resolve().relative_to(base).as_posix()
                    if rel in own:
                        errors.append((rel, int(m.group(2))))
                        messages.append((rel, int(m.group(2)), m.group(3)))
                elif line.startswith("javac: ") and not m:
                    errors.append(("", 0))        # an error of no file (a class file javac cannot read)
                    messages.append(("", 0, line))
            logs.append(log)
        return Run(refs, errors, "\n".join(logs), tuple(messages))

    def hierarchy(self) -> Hierarchy:
        """The types of the original's class output with their files (read once, then kept)."""
        if self._hierarchy is None:
            self._hierarchy = Hierarchy(self.classes, self.job_of)
        return self._hierarchy

    def whole(self, base: Path, new_path=lambda p: p, name: str = "whole") -> Run:
        """javac on every file of every job (the original's paths through `new_path`)."""
        return self.run(base, {new_path(p): p for p in self.job_of}, name)


class ClassInfo(NamedTuple):
    """What a class file of the original's javac output says of its class: binary name (`p.A$B`),
    direct supertypes (superclass and interfaces, binary names), access flags, the methods it declares
    by name, and its source file's name (the SourceFile attribute)."""
    name: str
    supers: tuple[str, ...]
    flags: int
    methods: frozenset[str]
    source: str


ACC_INTERFACE, ACC_ABSTRACT = 0x0200, 0x0400


def read_class(data: bytes) -> ClassInfo:
    """The class file `data` read as far as `ClassInfo` needs (JVMS 4.1: constant pool, this, super,
    interfaces, methods' names, the SourceFile attribute)."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    count = struct.unpack_from(">H", data, 8)[0]
    utf8: dict[int, str] = {}
    classes: dict[int, int] = {}
    at, i = 10, 1
    sizes = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}
    while i < count:
        tag = data[at]
        if tag == 1:
            length = struct.unpack_from(">H", data, at + 1)[0]
            utf8[i] = data[at + 3:at + 3 + length].decode("utf-8", errors="replace")
            at += 3 + length
        else:
            if tag == 7:
                classes[i] = struct.unpack_from(">H", data, at + 1)[0]
            at += 1 + sizes[tag]
        i += 2 if tag in (5, 6) else 1

    def cls(index: int) -> str:
        return utf8[classes[index]].replace("/", ".")

    flags, this, sup, n = struct.unpack_from(">HHHH", data, at)
    at += 8
    supers = [cls(sup)] if sup else []
    for k in range(n):
        supers.append(cls(struct.unpack_from(">H", data, at + 2 * k)[0]))
    at += 2 * n
    names = set()
    for member in range(2):                       # fields, then methods
        n = struct.unpack_from(">H", data, at)[0]
        at += 2
        for _ in range(n):
            _, name, _, attrs = struct.unpack_from(">HHHH", data, at)
            at += 8
            if member == 1:
                names.add(utf8[name])
            for _ in range(attrs):
                at += 6 + struct.unpack_from(">I", data, at + 2)[0]
    source = ""
    n = struct.unpack_from(">H", data, at)[0]
    at += 2
    for _ in range(n):
        name, length = struct.unpack_from(">HI", data, at)
        if utf8.get(name) == "SourceFile":
            source = utf8[struct.unpack_from(">H", data, at + 6)[0]]
        at += 6 + length
    return ClassInfo(cls(this), tuple(supers), flags, frozenset(names), source)


class Hierarchy:
    """The workspace's types as javac compiled them (the original's class output of every job, anonymous
    and local classes included), each with the workspace file it came from: for the subset rule, the
    files declaring a subtype of a changed type (`subtype_files`). javac's own view, not pybridge's."""

    def __init__(self, folders: list[Path], paths) -> None:
        by_name: dict[str, list[str]] = {}
        for p in paths:
            by_name.setdefault(p.rsplit("/", 1)[-1], []).append(p)
        self.types: dict[str, ClassInfo] = {}
        self.file_of: dict[str, str] = {}
        self.subtypes: dict[str, set[str]] = {}
        for folder in folders:
            for f in sorted(folder.rglob("*.class")):
                info = read_class(f.read_bytes())
                package = f.parent.relative_to(folder).as_posix()
                want = f"{package}/{info.source}" if package != "." else info.source
                found = [p for p in by_name.get(info.source, []) if p == want or p.endswith("/" + want)]
                if len(found) != 1:
                    continue                      # not a workspace source (or not one file): no file to add
                self.types[info.name] = info
                self.file_of[info.name] = found[0]
                for s in info.supers:
                    self.subtypes.setdefault(s, set()).add(info.name)
        self.display = {n.replace("$", "."): n for n in self.types}     # as javac's messages name types

    def named(self, name: str) -> ClassInfo | None:
        """The type javac's messages name `name` (`p.A.B`, or a binary name `p.A$1` for an anonymous one)."""
        return self.types.get(name) or self.types.get(self.display.get(name, ""))

    def superclasses(self, info: ClassInfo) -> list[ClassInfo]:
        """The workspace superclasses of the class `info`, nearest first (an interface has none)."""
        out = []
        while info.supers and not info.flags & ACC_INTERFACE and info.supers[0] in self.types:
            info = self.types[info.supers[0]]
            out.append(info)
        return out

    def declaring(self, path: str, method: str) -> list[ClassInfo]:
        """The classes compiled from `path` that declare a method named `method` (every overload's)."""
        return [t for n, t in self.types.items() if self.file_of[n] == path and method in t.methods]

    def below(self, names) -> set[str]:
        """The transitive subtypes of the types `names` in the workspace (binary names)."""
        out: set[str] = set()
        todo = list(names)
        while todo:
            for s in self.subtypes.get(todo.pop(), ()):
                if s not in out:
                    out.add(s)
                    todo.append(s)
        return out

    def subtype_files(self, names) -> set[str]:
        return {self.file_of[n] for n in self.below(names)}



_LEXEME = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*"'
                     r"|'(?:\\.|[^'\\\n])*'|[A-Za-z_$][\w$]*", re.S)


def identifiers(text: str) -> set[str]:
    """The identifier tokens of Java source `text` (comments, strings and character literals skipped)."""
    return {m.group() for m in _LEXEME.finditer(text) if m.group()[0] not in "/\"'"}


class Mentions:
    """Which files of a workspace hold an identifier as a code token (comments and strings aside),
    read once from the original's text: the files whose bindings a change of that name can move."""

    def __init__(self, root: Path, paths) -> None:
        self.by_name: dict[str, set[str]] = {}
        for p in paths:
            for name in identifiers((root / p).read_text(encoding="utf-8", errors="replace")):
                self.by_name.setdefault(name, set()).add(p)

    def paths(self, names) -> set[str]:
        return {p for n in names for p in self.by_name.get(n, ())}
