"""What every build system says about Java the same way: release numbers and the defaults.

`parse_release` reads the spellings builds use for a Java version (`1.8`, `8`,
`11`, `17.0.2`) as the release number the compiler takes. When a build says
nothing, a module compiles for `DEFAULT_RELEASE` (the JDK pybridge runs on) in
`DEFAULT_ENCODING`.
"""

from __future__ import annotations

import re

DEFAULT_RELEASE = 17
DEFAULT_ENCODING = "UTF-8"

_RELEASE = re.compile(r"^(?:1\.)?(\d+)(?:\.\d+)*$")


def parse_release(value: str | None) -> int | None:
    """The release number a version spelling names (`1.8` -> 8, `11` -> 11); None when it names none."""
    if not value:
        return None
    m = _RELEASE.match(value.strip())
    return int(m.group(1)) if m else None


BINDING_SOURCES = frozenset({
    "compiler plugin <release>", "maven.compiler.release",          # Maven: javac --release N
    "options.release", "compilerArgs --release",                    # Gradle: javac --release N
    "toolchain", "java.toolchain",                                  # Gradle: javac of JDK N itself
})
"""The `release_source`s whose release is also the API javac binds against. The others
(`-source`/`-target`, `sourceCompatibility`, `default`) only set the language level: javac then
binds against the library of the JDK it runs on, and so does pybridge (the running JDK's)."""


def api_release(release: int, source: str) -> int | None:
    """The release whose API (`ct.sym`) javac binds against for a module that compiles for `release`,
    read from where that release came from (`source`); None: the running JDK's own library."""
    return release if source in BINDING_SOURCES else None
