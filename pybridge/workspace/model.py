"""The workspace model: plain, frozen data that every build system produces (DESIGN section 4).

A build system (`buildsystem.py`; Maven in `maven/`) reads a workspace into
these records; sync, query and live see only them, never a build file.

Choices where DESIGN is silent:

- Paths are absolute and resolved (symlinks followed). Source and generated
  roots list only folders that exist when the workspace is loaded;
  `Scope.declared_roots` and `Scope.generated_base` say where roots appear
  when they are created.
- Every module with sources has both scopes, `main` and `test`, even when a
  scope has no source folder; a module without sources (Maven's `pom`
  packaging) has none. A build system may add scopes of its own after them
  (Gradle: one per other source set, `integrationTest`, `testFixtures`, ...);
  `SCOPES` are the two every build system has.
- `release` is an int: 8 for `1.8`, 17 for `17`. When the build says
  nothing, it is 17 (the JDK pybridge runs on), and `release_source` says
  `default`.
- Sibling dependencies match by module id; the version is not compared (a
  workspace is assumed to be built as one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pybridge.errors import WorkspaceError

SCOPES = ("main", "test")


class ModuleCycleError(WorkspaceError):
    """Modules list or depend on each other in a cycle. `paths` names their build files."""

    def __init__(self, message: str, paths: list[Path]) -> None:
        super().__init__(message, paths=[str(p) for p in paths])
        self.paths = paths


@dataclass(frozen=True)
class Dependency:
    """One declared dependency, as the build files state it when the build system reads them without
    running (Maven's `<dependency>`, interpolated as far as the POMs allow). `scope` is in the build
    system's terms (Maven: compile, provided, runtime, test, system, import)."""

    group_id: str
    artifact_id: str
    version: str | None = None
    type: str = "jar"
    classifier: str | None = None
    scope: str = "compile"
    optional: bool = False
    exclusions: tuple[tuple[str, str], ...] = ()   # (groupId, artifactId), `*` allowed
    system_path: str | None = None

    @property
    def ga(self) -> str:
        return f"{self.group_id}:{self.artifact_id}"

    @property
    def is_test_jar(self) -> bool:
        return self.type == "test-jar" or self.classifier == "tests"

    def excludes(self, group_id: str, artifact_id: str) -> bool:
        return excluded(self.exclusions, group_id, artifact_id)


def excluded(exclusions: tuple[tuple[str, str], ...], group_id: str, artifact_id: str) -> bool:
    """Whether (group_id, artifact_id) is among `exclusions` (`*` matches anything)."""
    return any(g in ("*", group_id) and a in ("*", artifact_id) for g, a in exclusions)


@dataclass(frozen=True)
class SiblingDep:
    """A dependency of a module on another module of the same workspace.

    `scope` is the scope, in the build system's terms, through which it reaches
    the module (Maven: mediated along transitive paths as Maven does); `direct` says whether the
    module declares it itself; `test_jar` whether the module sees the
    sibling's test classes (a `test-jar` / `tests` dependency).
    """

    module: str
    scope: str
    direct: bool
    test_jar: bool = False


@dataclass(frozen=True)
class Scope:
    name: str                              # "main", "test", or another source set's name (Gradle)
    source_roots: tuple[Path, ...]         # configured folders that exist
    generated_roots: tuple[Path, ...]      # generated source folders that exist (Maven: target/generated-sources/*)
    # Where this scope's roots appear when they are created: the configured (else conventional)
    # source folders, existing or not, and the folder whose subfolders are generated roots.
    declared_roots: tuple[Path, ...] = ()
    generated_base: Path | None = None

    @property
    def roots(self) -> tuple[Path, ...]:
        return self.source_roots + self.generated_roots

    @property
    def places(self) -> tuple[Path, ...]:
        """The folders whose creation can add a root to this scope (`declared_roots`, `generated_base`)."""
        return self.declared_roots + ((self.generated_base,) if self.generated_base is not None else ())


@dataclass(frozen=True)
class Module:
    id: str                                # groupId:artifactId
    group_id: str
    artifact_id: str
    version: str | None
    root: Path
    build_files: tuple[Path, ...]          # the files that define the module, its own first (Maven: its pom.xml)
    kind: str                              # the build's name for what the module makes (Maven: its packaging)
    has_sources: bool                      # False: no scopes (Maven: `pom` packaging)
    release: int
    release_source: str                    # where the release came from, e.g. "maven.compiler.release"
    encoding: str
    annotation_processing: bool
    annotation_processors: tuple[str, ...]  # what made annotation_processing true
    sibling_deps: tuple[SiblingDep, ...]
    dependencies: tuple[Dependency, ...]   # declared (inherited included) when read without the build tool; else ()
    scopes: dict[str, Scope] = field(default_factory=dict)

    @property
    def root_places(self) -> tuple[Path, ...]:
        """The folders where a source root of this module appears when it is created (every scope's
        `Scope.places`): what a watcher watches for a root that is not there yet."""
        return tuple(dict.fromkeys(p for s in self.scopes.values() for p in s.places))


@dataclass(frozen=True)
class CandidateRoots:
    """Where a module's source roots can appear, as its build system defines them, existing or not:
    each of `folders` is a source root once it exists; each folder directly inside one of `parents`
    is one (generated sources). Paths are absolute and not resolved (a folder replaced by a symbolic
    link keeps its place)."""

    folders: tuple[Path, ...]
    parents: tuple[Path, ...]


def candidate_roots(module: Module) -> CandidateRoots:
    """The places where a source root of `module` can appear: the conventional and configured
    folders of every scope (Maven: `sourceDirectory`, default `src/main/java`; `testSourceDirectory`,
    default `src/test/java`) and the generated-source folders' parents. The live index watches and
    sweeps them, so a root that no build-file change announces (a module's first `src/test/java`)
    is seen. A `pom` module has none."""
    scopes = module.scopes.values()
    return CandidateRoots(
        tuple(dict.fromkeys(folder for s in scopes for folder in s.declared_roots)),
        tuple(dict.fromkeys(s.generated_base for s in scopes if s.generated_base is not None)))


@dataclass(frozen=True)
class Workspace:
    root: Path
    modules: tuple[Module, ...]
    build_tool: str                        # the `BuildSystem.name` that read it: "maven"
    # Named limitations of the whole model (Gradle: android_unsupported, gradle_unavailable, ...); the
    # per-scope ones are in each ClasspathResult.
    limitations: tuple[Limitation, ...] = ()

    def module(self, module_id: str) -> Module:
        """The module with this id; KeyError when there is none."""
        return self._by_id[module_id]

    @cached_property
    def _by_id(self) -> dict[str, Module]:
        return {m.id: m for m in self.modules}

    @property
    def build_files(self) -> tuple[Path, ...]:
        """Every module's build files, each once, in module order."""
        return tuple(dict.fromkeys(f for m in self.modules for f in m.build_files))


@dataclass(frozen=True)
class Limitation:
    """A named limitation (DESIGN section 8), e.g. `classpath_unresolved`."""

    kind: str
    module: str | None
    message: str
    scope: str | None = None


@dataclass(frozen=True)
class ClasspathResult:
    classpath: tuple[Path, ...]            # external jars/folders, in the compiler's order
    sourcepath: tuple[Path, ...]           # own roots first, then siblings' roots
    limitations: tuple[Limitation, ...]
    release: int                           # Java release to compile with
    # The annotation processor path, when the build names one apart from the classpath; empty when
    # processors are found on the classpath (Maven, as pybridge reads it today).
    processor_path: tuple[Path, ...] = ()
    # The release whose API javac binds against (`--release N`, a Gradle toolchain); None when javac
    # binds against the library of the JDK it runs on (`-source`/`-target` only, or nothing said).
    api: int | None = None
