"""What javac gets from a Gradle compile task: release level and encoding, with where each came from.

Release, first that yields a number (`release_source` names it):

1. `options.release` (Gradle 6.6+);
2. `--release N` / `--release=N`, else `-source N` / `--source N` in `options.compilerArgs`
   (javac takes the last; Gradle puts compilerArgs after its own options);
3. the task's `sourceCompatibility` (`1.8`, `11`, `VERSION_11`, `VERSION_1_8`): Gradle 4.4 passes it
   as `-source` whenever it is set, and it defaults to the running JVM's version (capped by
   the Gradle version's JavaVersion enum: Debian's 4.4.1 on Java 17 says 12);
4. the toolchain's language version (task, then the project's `java.toolchain`; Gradle 6.7+);
5. 17 (`default`), as for Maven.

Encoding: `options.encoding`, else the last `-encoding X` in compilerArgs, else UTF-8 (`default`;
javac would use the Gradle JVM's file.encoding, which `jvm_encoding_note` reports when it differs).
"""

from __future__ import annotations

import re

from .script import ProjectJson, SourceSetJson

DEFAULT_RELEASE = 17
DEFAULT_ENCODING = "UTF-8"
_LEVEL = re.compile(r"^(?:VERSION_)?(?:1[._])?(\d+)(?:[._]\d+)*$")


def parse_level(value: str | int | None) -> int | None:
    """8 for `1.8`, `8`, `VERSION_1_8`; 11 for `11`, `VERSION_11`; None for anything else."""
    if value is None:
        return None
    m = _LEVEL.match(str(value).strip())
    return int(m.group(1)) if m else None


def _arg(args: tuple[str, ...], *names: str) -> str | None:
    """The value of the last of `names` in `args` (`-x v` or `-x=v`)."""
    found = None
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                found = args[i + 1]
            elif a.startswith(n + "="):
                found = a[len(n) + 1:]
    return found


def release_of(project: ProjectJson, ss: SourceSetJson) -> tuple[int, str]:
    """(release, where it came from)."""
    for value, source in ((ss.release, "options.release"),
                          (_arg(ss.compiler_args, "--release"), "compilerArgs --release"),
                          (_arg(ss.compiler_args, "-source", "--source"), "compilerArgs -source"),
                          (ss.source_compatibility, "sourceCompatibility"),
                          (ss.toolchain, "toolchain"),
                          (project.toolchain, "java.toolchain")):
        level = parse_level(value)
        if level is not None:
            return level, source
    return DEFAULT_RELEASE, "default"


def encoding_of(ss: SourceSetJson) -> tuple[str, str]:
    """(encoding, where it came from)."""
    if ss.encoding:
        return ss.encoding, "options.encoding"
    arg = _arg(ss.compiler_args, "-encoding")
    if arg:
        return arg, "compilerArgs -encoding"
    return DEFAULT_ENCODING, "default"


def jvm_encoding_note(project: ProjectJson, source: str) -> str | None:
    """When no encoding is set and Gradle's JVM would compile with another one than UTF-8."""
    enc = project.file_encoding
    if source != "default" or not enc or enc.replace("-", "").upper() == "UTF8":
        return None
    return (f"{project.path} sets no source encoding, so javac under Gradle reads sources as the JVM's "
            f"file.encoding ({enc}); pybridge reads them as UTF-8. Set options.encoding to make both agree.")
