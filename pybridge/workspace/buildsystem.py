"""The seam between pybridge and a build system (DESIGN sections 1 and 4).

A build system owns a workspace root and is the authority on what it holds:
it answers, in the typed records of `model.py`,

- `owns(root)`: whether it builds this root (detection; `registry.py` asks
  each build system in turn);
- `load(root, ...)`: the workspace model: modules, their source and generated
  roots per scope, release, encoding, sibling dependencies (Maven reads its
  POMs; Gradle needs a run of the build, so `load` takes the state folder and
  the run's options too, and keeps the run for `resolve`);
- `resolve(workspace, state_dir, ...)`: per module and scope, the classpath
  and the sourcepath in the compiler's order, the release, the processor
  path and the named limitations (a build problem is a limitation, never an
  exception);
- `inputs(workspace)`: the files whose change invalidates the model or a
  classpath (what its classpath cache keys on), and `is_input(root, path)`:
  whether a file, listed or new, is one of them by its name and place
  (watchers ask it for files they have not seen listed);
- where a source root of a module can appear (its configured or
  conventional source folders, existing or not, and the folder of its
  generated ones) is part of the model: `Scope.places`, `Module.root_places`;
- `agent_hint(workspace)`: the Java agents (Lombok's) the indexer JVM will
  likely need, guessed before `resolve` runs, so the JVM can start meanwhile;
- `agent_hint_before_load(root)`: None when `load` only reads files
  (Maven); when it runs the build tool (Gradle), the Java agents guessed from
  the build files alone, so a first sync can start the JVM before `load`;
- `wording`: how its users are told to act, for the messages of neutral
  code (limitations);
- optionally (`SourcesFetcher`), `sources_jar(jar, ...)`: the sources jar of a
  library jar on a classpath, offline first (where the build tool keeps it),
  then fetched through the build tool when online is allowed (Maven's
  `dependency:get`, a one-task Gradle build of the `sources` artifact).

Nothing outside `pybridge.workspace` names a build file or asks a build tool:
sync calls these methods, and query and live read what sync recorded
(`pybridge.sync.meta.GenerationMeta`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from .model import ClasspathResult, Workspace

Key = tuple[str, str]
"""(module id, scope)."""

Progress = Callable[[str], None]
"""Receives one sentence per step of a resolution."""


@dataclass(frozen=True)
class SiblingCheckout:
    """Another checkout of the same repository (a git worktree), whose cached resolution may serve
    this one when every build input but the checkout's place is the same."""

    root: Path
    state_dir: Path | None      # its state folder (where its resolution is cached), when known


@dataclass(frozen=True)
class Wording:
    """How a build system's users are told to act, in the messages neutral code writes."""

    tool: str                  # "Maven"
    build_files: str           # what its build files are called in a sentence: "POMs"
    generate_sources: str      # how generated sources come to exist: "run `mvn generate-sources` or a build"
    generated_folder: str      # where they appear: "target/generated-sources"
    refetch_jar: str           # how a damaged jar is fetched again
    root_files: str = ""       # the files at a workspace root that make it this build system's: "pom.xml"


class BuildSystem(Protocol):
    """One build system; `maven.MAVEN` is the first. See the module docstring for each member."""

    @property
    def name(self) -> str:
        """Its name in `--build-tool` and in the generation's metadata: `maven`."""
        ...

    @property
    def wording(self) -> Wording:
        ...

    def owns(self, root: Path) -> bool:
        """Whether this build system builds the workspace at `root` (by the files there, no run)."""
        ...

    def load(self, root: Path, *, state_dir: Path | None = None, allow_online: bool = True, timeout: float = 300,
             progress: Progress | None = None, env: Mapping[str, str] | None = None) -> Workspace:
        """The workspace model; raises WorkspaceError naming the file and the fix for malformed input. A
        build system that must run the build to know its modules (Gradle) writes into `state_dir` (its
        own folder when None) and runs it as `resolve` would; one that reads files (Maven) ignores them."""
        ...

    def resolve(self, workspace: Workspace, state_dir: Path, *, allow_online: bool = True, timeout: float = 300,
                progress: Progress | None = None, env: Mapping[str, str] | None = None,
                use_cache: bool = True, sibling: SiblingCheckout | None = None) -> dict[Key, ClasspathResult]:
        """Every (module id, scope) of every module with sources: classpath, sourcepath, release,
        processor path, limitations. Build problems are limitations; only an unwritable state
        folder raises (WorkspaceError). `sibling`: another checkout of the same repository whose
        cached resolution may serve, moved to this root, when every input but the checkout's
        place is the same (a build system may ignore it)."""
        ...

    def inputs(self, workspace: Workspace, env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
        """The files, existing or not, whose change can change the model or a classpath, in and
        outside the workspace (user settings)."""
        ...

    def is_input(self, root: Path, path: Path) -> bool:
        """Whether `path` (a file under `root`) is or would be one of `inputs` by its name and place."""
        ...

    def agent_hint(self, workspace: Workspace) -> list[Path]:
        """The Java agent jars the indexer JVM likely needs, guessed without resolving."""
        ...

    def agent_hint_before_load(self, root: Path, env: Mapping[str, str] | None = None) -> list[Path] | None:
        """None when `load` reads build files only (the JVM starts after it, with `agent_hint`); else
        (`load` runs the build tool, for seconds) the agent jars guessed from the build files' text."""
        ...


@runtime_checkable
class SourcesFetcher(Protocol):
    """The optional capability of a build system that can fetch a library jar's sources jar."""

    def sources_jar(self, jar: Path, state_dir: Path, *, allow_online: bool, timeout: float = 120) -> Path | None:
        """The `-sources.jar` of a classpath jar: where the build tool keeps it, else (online allowed)
        fetched through the build tool into its usual place; None when there is none (no coordinates,
        not published, offline and never fetched). Never raises for a build problem."""
        ...
