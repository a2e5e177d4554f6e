"""The workspace model: plain, frozen data (DESIGN section 4).

Choices where DESIGN is silent:

- Paths are absolute and resolved (symlinks followed). Source and generated
  roots list only folders that exist when the workspace is loaded.
- Every module whose packaging is not `pom` has both scopes, `main` and
  `test`, even when a scope has no source folder; `pom` modules have none.
- `release` is an int: 8 for `1.8`, 17 for `17`. When no POM says anything,
  it is 17 (the JDK pybridge runs on), and `release_source` says `default`.
- Sibling dependencies match by `groupId:artifactId`; the version is not
  compared (a reactor is assumed to be built as one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pybridge.errors import WorkspaceError

SCOPES = ("main", "test")

# Maven dependency scopes on the compile classpath of main code.
MAIN_DEP_SCOPES = frozenset({"compile", "provided", "system"})


class PomError(WorkspaceError):
    """One pom.xml cannot be read: missing, not XML, refused XML, missing fields.

    `path` names the file.
    """

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message, path=str(path))
        self.path = path


class ModuleCycleError(WorkspaceError):
    """Modules list or depend on each other in a cycle. `paths` names the POMs."""

    def __init__(self, message: str, paths: list[Path]) -> None:
        super().__init__(message, paths=[str(p) for p in paths])
        self.paths = paths


@dataclass(frozen=True)
class Dependency:
    """One `<dependency>`, interpolated as far as the POMs allow."""

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
    return any(g in ("*", group_id) and a in ("*", artifact_id) for g, a in exclusions)


@dataclass(frozen=True)
class SiblingDep:
    """A dependency of a module on another module of the same workspace.

    `scope` is the Maven scope through which it reaches the module (scopes
    mediated along transitive paths as Maven does); `direct` says whether the
    module declares it itself; `test_jar` whether the module sees the
    sibling's test classes (a `test-jar` / `tests` dependency).
    """

    module: str
    scope: str
    direct: bool
    test_jar: bool = False


@dataclass(frozen=True)
class Scope:
    name: str                              # "main" or "test"
    source_roots: tuple[Path, ...]         # configured folders that exist
    generated_roots: tuple[Path, ...]      # target/generated-(test-)sources/* that exist
    # Where roots of this scope can appear, whether they exist or not (see `candidate_roots`):
    declared_roots: tuple[Path, ...] = ()  # the folders the build names (configured or conventional), not resolved
    generated_parent: Path | None = None   # target/generated-(test-)sources: each folder in it is a root

    @property
    def roots(self) -> tuple[Path, ...]:
        return self.source_roots + self.generated_roots


@dataclass(frozen=True)
class Module:
    id: str                                # groupId:artifactId
    group_id: str
    artifact_id: str
    version: str | None
    root: Path
    pom_path: Path
    packaging: str
    release: int
    release_source: str                    # where the release came from, e.g. "maven.compiler.release"
    encoding: str
    annotation_processing: bool
    annotation_processors: tuple[str, ...]  # what made annotation_processing true
    sibling_deps: tuple[SiblingDep, ...]
    dependencies: tuple[Dependency, ...]   # declared (inherited included), from our own POM reading
    scopes: dict[str, Scope] = field(default_factory=dict)

    @property
    def has_sources(self) -> bool:
        return self.packaging != "pom"


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
        tuple(dict.fromkeys(s.generated_parent for s in scopes if s.generated_parent is not None)))


@dataclass(frozen=True)
class Workspace:
    root: Path
    modules: tuple[Module, ...]

    def module(self, module_id: str) -> Module:
        """The module with this id; KeyError when there is none."""
        return self._by_id[module_id]

    @cached_property
    def _by_id(self) -> dict[str, Module]:
        return {m.id: m for m in self.modules}

    @property
    def pom_paths(self) -> tuple[Path, ...]:
        return tuple(m.pom_path for m in self.modules)


@dataclass(frozen=True)
class Limitation:
    """A named limitation (DESIGN section 8), e.g. `classpath_unresolved`."""

    kind: str
    module: str | None
    message: str
    scope: str | None = None


@dataclass(frozen=True)
class ClasspathResult:
    classpath: tuple[Path, ...]            # external jars/folders, Maven's order
    sourcepath: tuple[Path, ...]           # own roots first, then siblings' roots
    limitations: tuple[Limitation, ...]
    release: int                           # Java release to compile with
