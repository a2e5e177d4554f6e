"""Gradle as a `BuildSystem`: the seam's methods, each a call into this package.

- owns: `settings.gradle(.kts)` or `build.gradle(.kts)` at the root
  (`fingerprint.owns`; the registry lists Maven first, so a root with a
  pom.xml too stays Maven's);
- load: the workspace model needs one Gradle run (`resolve.resolve_gradle`,
  cached by every input): unlike Maven's POMs, Gradle's modules, source sets
  and classpaths are only known by running the build. `load` runs it (or
  reads its cache) and keeps the model; `resolve` on the workspace that
  `load` returned hands back that run's classpaths, so a sync runs Gradle at
  most once (twice when going online helps). Query time never loads: it
  reads what sync recorded (`GenerationMeta`);
- inputs: what the model cache keys on (`fingerprint.inputs`) and the build
  files the model names (a custom `buildFileName`);
- is_input: a `*.gradle(.kts)` script, a `gradle.properties`, a version
  catalog, the wrapper's properties, a lock file, or anything in `buildSrc/`,
  outside output folders (`build/`, `.gradle/`);
- agent_hint: the Lombok jar of the kept model's processor paths;
  agent_hint_before_load: a Lombok version the build scripts or catalogs
  name, when a script of this build puts Lombok on a compile or processor
  configuration and Gradle's cache holds its jar (`lombok_guess`).

The model's workspace-level limitations (`gradle_unavailable`,
`android_unsupported`, a failed run, ...) are the Workspace's `limitations`.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ..buildsystem import Key, Progress, SiblingCheckout, Wording
from ..lombok import newest
from ..model import ClasspathResult, Workspace
from ..userdirs import cache_home
from .fingerprint import BUILD_FILES, SKIP_DIRS, digest, inputs, model_files, owns
from .mapping import GradleModel
from .resolve import resolve_gradle
from .runner import WRAPPER_PROPERTIES, gradle_user_home
from .sources import fetch_sources

NAME = "gradle"
WORDING = Wording(
    tool="Gradle", build_files="Gradle build scripts",
    generate_sources="run `gradle compileJava` (or a build)",
    generated_folder="build/generated (javac's -s folder)",
    refetch_jar="run `gradle --refresh-dependencies compileJava` to have Gradle fetch it again",
    root_files="settings.gradle(.kts) or build.gradle(.kts)")
_LOMBOK_VERSION = re.compile(r"^lombok-(\d+(?:\.\d+)+)\.jar$")
_LOMBOK_USE = re.compile(
    r"(?:^|[{;])\s*(?:test)?(?:compileOnly(?:Api)?|annotationProcessor|implementation|api|compile)\b.*lombok",
    re.MULTILINE | re.IGNORECASE)
INPUT_NAMES = frozenset({"gradle.properties", "gradle.lockfile", "verification-metadata.xml"})


@dataclass(frozen=True)
class _Kept:
    """The model of the last load of a root, and the digest of the inputs it was read from."""

    inputs: str
    model: GradleModel
    workspace: Workspace


def _inputs_digest(root: Path, env: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for path, sha in sorted(digest(inputs(root, env)).items()):
        h.update(f"{path}\0{sha}\n".encode())
    return h.hexdigest()


def _default_state(root: Path) -> Path:
    """Where a load without a state folder lets Gradle write (the init script, its output, logs)."""
    base = cache_home() or Path(os.environ.get("TMPDIR", "/tmp")) / f"pybridge-{os.getuid()}"
    return base / "gradle-load" / hashlib.sha256(str(root).encode()).hexdigest()[:16]


class GradleBuildSystem:
    """The `BuildSystem` for workspaces with Gradle build scripts at the root."""

    def __init__(self) -> None:
        self._kept: dict[Path, _Kept] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return NAME

    @property
    def wording(self) -> Wording:
        return WORDING

    def owns(self, root: Path) -> bool:
        return owns(root)

    def load(self, root: Path, *, state_dir: Path | None = None, allow_online: bool = True, timeout: float = 300,
             progress: Progress | None = None, env: Mapping[str, str] | None = None) -> Workspace:
        root = Path(root).resolve()
        env = dict(os.environ if env is None else env)
        now = _inputs_digest(root, env)
        with self._lock:
            kept = self._kept.get(root)
        if kept is not None and kept.inputs == now and not _gone(kept.model):
            return kept.workspace
        model = resolve_gradle(root, state_dir if state_dir is not None else _default_state(root),
                               allow_online=allow_online, timeout=timeout, env=env, progress=progress)
        workspace = replace(model.workspace, limitations=model.limitations)
        with self._lock:
            self._kept[root] = _Kept(now, model, workspace)
        return workspace

    def forget(self) -> None:
        """Drop the kept models: the next `load` reads the model cache, or runs Gradle (benchmarks of a
        first sync)."""
        with self._lock:
            self._kept.clear()

    def model(self, workspace: Workspace) -> GradleModel | None:
        """The Gradle model `load` read `workspace` from (None for a workspace it did not return)."""
        with self._lock:
            kept = self._kept.get(workspace.root)
        return kept.model if kept is not None and kept.workspace is workspace else None

    def resolve(self, workspace: Workspace, state_dir: Path, *, allow_online: bool = True, timeout: float = 300,
                progress: Progress | None = None, env: Mapping[str, str] | None = None,
                use_cache: bool = True, sibling: SiblingCheckout | None = None) -> dict[Key, ClasspathResult]:
        # `sibling` is not used: a Gradle model names the checkout's paths throughout; Gradle runs here.
        model = self.model(workspace) if use_cache else None
        if model is None:
            model = resolve_gradle(workspace.root, state_dir, allow_online=allow_online, timeout=timeout, env=env,
                                   use_cache=use_cache, progress=progress)
        return dict(model.classpaths)

    def inputs(self, workspace: Workspace, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
        env = os.environ if env is None else env
        model = self.model(workspace)
        named = model_files(model.projects) if model is not None else list(workspace.build_files)
        return tuple(dict.fromkeys([*inputs(workspace.root, env), *named]))

    def is_input(self, root: Path, path: Path) -> bool:
        try:
            rel = path.relative_to(root)
        except ValueError:
            return False
        parts = rel.parts
        if not parts or any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
            return False
        name = path.name
        return (parts[0] == "buildSrc" or name.endswith((".gradle", ".gradle.kts")) or name in INPUT_NAMES
                or name.endswith(".lockfile") or rel.as_posix() == WRAPPER_PROPERTIES.as_posix()
                or (name.endswith(".versions.toml") and path.parent.name == "gradle")
                or "dependency-locks" in parts)

    def sources_jar(self, jar: Path, state_dir: Path, *, allow_online: bool, timeout: float = 120) -> Path | None:
        """In Gradle's cache beside the jar's hash folder, else (online allowed, once per jar and state
        folder) resolved by a one-task Gradle build of the `sources` artifact (gradle/sources.py)."""
        return fetch_sources(jar, state_dir, allow_online=allow_online, timeout=timeout)

    def agent_hint(self, workspace: Workspace) -> list[Path]:
        model = self.model(workspace)
        return list(model.agents) if model is not None else []

    def agent_hint_before_load(self, root: Path, env: Mapping[str, str] | None = None) -> list[Path]:
        env = os.environ if env is None else env
        root = Path(root).resolve()
        return lombok_guess(root, inputs(root, env), gradle_user_home(env))


def lombok_guess(root: Path, build_files: Iterable[Path], user_home: Path) -> list[Path]:
    """A guess made before Gradle runs: the newest Lombok jar in Gradle's cache under `user_home` whose
    version a build file naming `org.projectlombok` names, when a build script of this build (not of
    another build below `root`, a folder with its own settings file) puts Lombok on a compile or
    processor configuration (`compileOnly 'org.projectlombok:lombok'`, `annotationProcessor libs.lombok`);
    else none."""
    cached = {jar: m.group(1) for jar in
              (user_home / "caches" / "modules-2" / "files-2.1" / "org.projectlombok" / "lombok").glob("*/*/*.jar")
              if (m := _LOMBOK_VERSION.match(jar.name))}
    if not cached:
        return []
    texts, used = [], False
    for path in build_files:
        if _in_other_build(root, path):
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        except OSError:
            continue
        if "org.projectlombok" in text:
            texts.append(text)
        used = used or _LOMBOK_USE.search(text) is not None
    named = [jar for jar, v in cached.items()
             if used and any(re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", t) for t in texts)]
    return newest(named)


def _in_other_build(root: Path, path: Path) -> bool:
    """Whether `path` lies in a folder below `root` (not `root`) that has a settings file of its own."""
    try:
        parts = path.relative_to(root).parts[:-1]
    except ValueError:
        return False
    return any(root.joinpath(*parts[:i], name).is_file() for i in range(1, len(parts) + 1)
               for name in BUILD_FILES[:2])


def _gone(model: GradleModel) -> bool:
    """Whether a jar of the kept model's classpaths was deleted (Gradle must run again)."""
    return any(not p.exists() for cp in model.classpaths.values() for p in (*cp.classpath, *cp.processor_path)
               if p.suffix == ".jar")


GRADLE = GradleBuildSystem()
