"""Which files and facts a Gradle model depends on: the cache key, and what the live index watches.

`owns(root)`: a Gradle workspace has `settings.gradle(.kts)` or
`build.gradle(.kts)` at its root (the caller lets Maven win when there is a
pom.xml too).

`inputs(root, ...)` lists, without running Gradle:

- every `*.gradle` and `*.gradle.kts` in the tree (settings, build scripts,
  and script plugins applied with `apply from`), outside `build/`, `.gradle/`,
  `.git/` and other output or hidden folders;
- `gradle.properties` in the root and in every folder holding a build script,
  and in the Gradle user home; `init.gradle(.kts)` and `init.d/*` in the
  Gradle user home;
- `gradle/*.versions.toml` (version catalogs; also those of included builds);
- `gradle/wrapper/gradle-wrapper.properties` (the Gradle version);
- every file of `buildSrc/` (outside its `build/` and `.gradle/`);
- dependency locks (`gradle.lockfile`, `*.lockfile`, `gradle/dependency-locks/*`)
  and `gradle/verification-metadata.xml`;

and the facts (`Facts`): the Gradle that runs (the wrapper's distribution URL,
or the `gradle` executable's real path and its lib/ folder's jar names, which
carry its version), the JDK (its home and `release` file), GRADLE_OPTS,
JAVA_OPTS, GRADLE_USER_HOME, every ORG_GRADLE_PROJECT_* variable,
`allow_online`, and the init script's sha256. `cache_key` hashes both, with
file contents. A build file that the model names but this walk did not find
(a custom `buildFileName` elsewhere) is checked from the model
(`model_files`) when a cached model is used.

Not covered, as for Maven: dynamic and changing versions (`1.+`, SNAPSHOT),
and files a build script reads by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from .runner import WRAPPER_PROPERTIES, Launcher, gradle_user_home
from .script import ProjectJson, script_sha256

BUILD_FILES = ("settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts")
SKIP_DIRS = frozenset({"build", ".gradle", ".git", ".hg", ".svn", "node_modules", "target", "out", ".idea",
                       ".venv", "__pycache__"})
ENV_NAMES = ("GRADLE_OPTS", "JAVA_OPTS", "GRADLE_USER_HOME")


def owns(root: Path) -> bool:
    """Whether `root` is a Gradle workspace (settings or build script at its root)."""
    return any((root / name).is_file() for name in BUILD_FILES)


@dataclass(frozen=True)
class Facts:
    """What the model depends on besides files."""

    root: str
    gradle: str                 # the wrapper's distribution URL, or the executable and its jars
    java_home: str | None
    java_release: str | None    # the JDK's `release` file
    env: tuple[tuple[str, str | None], ...]
    allow_online: bool
    script_sha256: str


def _walk(root: Path) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            yield Path(folder) / name


def inputs(root: Path, env: Mapping[str, str]) -> list[Path]:
    """Every file whose change can change the model (existing or not: a file that appears counts too)."""
    root = root.resolve()
    files: list[Path] = [root / n for n in BUILD_FILES]
    files += [root / "gradle.properties", root / WRAPPER_PROPERTIES, root / "gradle" / "verification-metadata.xml"]
    script_dirs = {root}
    for path in _walk(root):
        rel = path.relative_to(root)
        if rel.parts[0] == "buildSrc":
            files.append(path)
        elif path.name.endswith((".gradle", ".gradle.kts")):
            files.append(path)
            script_dirs.add(path.parent)
        elif path.name.endswith(".versions.toml") and path.parent.name == "gradle":
            files.append(path)
        elif path.name.endswith(".lockfile") or "dependency-locks" in rel.parts:
            files.append(path)
    files += [d / "gradle.properties" for d in sorted(script_dirs)]
    home = gradle_user_home(env)
    files += [home / "gradle.properties", home / "init.gradle", home / "init.gradle.kts"]
    try:
        files += sorted((home / "init.d").iterdir())
    except OSError:
        pass
    return list(dict.fromkeys(files))


def model_files(projects: Iterable[ProjectJson]) -> list[Path]:
    """The build files the model itself names (every project's, and each build's settings)."""
    out: list[Path] = []
    for p in projects:
        out.append(p.build_file)
        out += [p.build.root_dir / n for n in BUILD_FILES[:2]]
    return list(dict.fromkeys(out))


def facts(root: Path, launcher: Launcher, env: Mapping[str, str], allow_online: bool) -> Facts:
    if launcher.kind == "wrapper":
        gradle = f"wrapper {launcher.distribution_url}"
    else:
        exe = Path(os.path.realpath(launcher.command[0]))
        try:
            jars = sorted(p.name for p in (exe.parent.parent / "lib").glob("gradle-*.jar"))
        except OSError:
            jars = []
        gradle = f"{exe} {' '.join(jars)}"
    release = None
    if launcher.java_home is not None:
        try:
            release = (launcher.java_home / "release").read_text(encoding="utf-8", errors="replace")
        except OSError:
            release = None
    names = [*ENV_NAMES, *sorted(k for k in env if k.startswith("ORG_GRADLE_PROJECT_"))]
    return Facts(str(root.resolve()), gradle, None if launcher.java_home is None else str(launcher.java_home),
                 release, tuple((k, env.get(k)) for k in names), allow_online, script_sha256())


def digest(paths: Iterable[Path]) -> dict[str, str]:
    """sha256 of each file's bytes (`-` for a file that does not exist)."""
    out: dict[str, str] = {}
    for p in paths:
        try:
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            out[str(p)] = "-"
    return out


def cache_key(files: Iterable[Path], fact: Facts) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(asdict(fact), sort_keys=True).encode())
    for path, sha in sorted(digest(files).items()):
        h.update(f"{path}\0{sha}\0".encode())
    return h.hexdigest()
