"""Maven as a `BuildSystem`: the seam's methods, each a call into this package.

- owns: the root holds a pom.xml;
- load: `discovery.load_workspace` (the POMs, no Maven run);
- resolve: `classpath.resolve_classpaths` (Maven's runs, or its cache);
- inputs: what the classpath cache keys on (`cachekey.input_files`): every
  module's pom.xml, `.mvn/maven.config`, `.mvn/jvm.config`,
  `.mvn/extensions.xml`, and the settings files Maven reads;
- is_input: a `pom.xml` anywhere, or one of those `.mvn` files;
- agent_hint: the declared Lombok version's jar in the local repository.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..buildsystem import Key, Progress, Wording
from ..library import coordinates, local_sources_jar
from ..lombok import LOMBOK, newest
from ..model import ClasspathResult, Workspace
from .cachekey import input_files
from .classpath import resolve_classpaths
from .discovery import load_workspace
from .mvnconfig import local_repository
from .runner import MavenRunner
from .terms import MVN_CONFIG_FILES, NAME, POM, WORDING
from .xmlread import is_file


def agent_hint(workspace: Workspace) -> list[Path]:
    """A guess made before Maven runs: the declared Lombok version's jar in the local repository."""
    jars = []
    for module in workspace.modules:
        for dep in module.dependencies:
            if dep.ga == LOMBOK and dep.version and "${" not in dep.version:
                jar = local_repository(workspace.root) / "org" / "projectlombok" / "lombok" / dep.version / \
                    f"lombok-{dep.version}.jar"
                if jar.is_file():
                    jars.append(jar)
    return newest(jars)


class MavenBuildSystem:
    """The `BuildSystem` for workspaces with a pom.xml at the root."""

    @property
    def name(self) -> str:
        return NAME

    @property
    def wording(self) -> Wording:
        return WORDING

    def owns(self, root: Path) -> bool:
        return is_file(root / POM)

    def load(self, root: Path, *, state_dir: Path | None = None, allow_online: bool = True, timeout: float = 300,
             progress: Progress | None = None, env: Mapping[str, str] | None = None) -> Workspace:
        return load_workspace(root)     # the POMs, without running Maven: the run's options do not apply

    def resolve(self, workspace: Workspace, state_dir: Path, *, allow_online: bool = True, timeout: float = 300,
                progress: Progress | None = None, env: Mapping[str, str] | None = None,
                use_cache: bool = True) -> dict[Key, ClasspathResult]:
        return resolve_classpaths(workspace, state_dir, allow_online=allow_online, timeout=timeout,
                                  progress=progress, env=env, use_cache=use_cache)

    def inputs(self, workspace: Workspace, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
        env = os.environ if env is None else env
        poms, others = input_files(workspace, MavenRunner(env=env).find(), env)
        return tuple(dict.fromkeys([*poms, *others]))

    def is_input(self, root: Path, path: Path) -> bool:
        return path.name == POM or (path.parent.name == ".mvn" and path.name in MVN_CONFIG_FILES)

    def agent_hint(self, workspace: Workspace) -> list[Path]:
        return agent_hint(workspace)

    def sources_jar(self, jar: Path, state_dir: Path, *, allow_online: bool, timeout: float = 120) -> Path | None:
        """Beside the jar in the local repository, else (online allowed, once per jar and state folder)
        `mvn dependency:get` of its `sources` classifier, as `dependency:sources` would fetch it."""
        return fetch_sources(jar, state_dir, allow_online=allow_online, timeout=timeout)


MAVEN = MavenBuildSystem()


def fetch_sources(jar: Path, state_dir: Path, *, allow_online: bool, timeout: float) -> Path | None:
    found = local_sources_jar(jar)
    coords = coordinates(jar)
    if found is not None or not allow_online or coords is None or "repository" not in jar.parts:
        return found
    tried = state_dir / "library-sources" / "fetched" / (coords.replace(":", "_") + ".log")
    if tried.exists():          # fetched or refused before: Maven is not asked twice
        return local_sources_jar(jar)
    group = coords.split(":", 1)[0].split(".")
    repository = jar.parents[len(group) + 2]       # <repository>/g/r/o/u/p/artifact/version/x.jar
    run = MavenRunner(timeout=timeout).run(
        "sources", ["dependency:get", f"-Dartifact={coords}:jar:sources", "-Dtransitive=false",
                    f"-Dmaven.repo.local={repository}"], state_dir, offline=False)
    tried.parent.mkdir(parents=True, exist_ok=True)
    tried.write_text(f"$ {' '.join(run.command)}\n# exit {run.returncode}\n{run.output[-4000:]}")
    return local_sources_jar(jar)
