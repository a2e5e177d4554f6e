"""Runs the javac reference extractor (JavacRefs.java) on one compile job.

The extractor is compiled at run time with the JDK's own `javac` into a work
folder (keyed by the source's hash, so an edit rebuilds it); the main Gradle
build is not involved. A job is one (module, scope) as `bench/measure.py`'s
`compile_jobs` gives it: files, sourcepath, classpath, Java level, encoding,
taken from pybridge's own workspace model and Maven resolution.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
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
    argfile.write_text("\n".join(f'"{a}"' for a in [*measure._common(job), *job["files"]]))
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

    def extract(self, job: dict, root: Path, out: Path) -> tuple[list[Ref], str]:
        """As `extract`, in the warm JVM."""
        argfile = out.with_suffix(".args")
        argfile.write_text("\n".join(f'"{a}"' for a in [str(out), str(root), *measure._common(job), *job["files"]]))
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
    refs = []
    with out.open(encoding="utf-8") as f:
        for line in f:
            p, ln, ch, end, kind, target, name, alts = line.rstrip("\n").split("\t")
            refs.append(Ref(p, int(ln), int(ch), int(end), kind, target, name, tuple(alts.split(",")) if alts else ()))
    return refs
