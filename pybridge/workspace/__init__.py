"""The workspace model, behind one seam for build systems (DESIGN sections 1 and 4).

Public entry points:

- `select(root, build_tool="auto") -> BuildSystem`: which build system builds
  the workspace (`registry.py`; Maven, in `maven/`, is the first).
- `load_workspace(root, build_tool="auto") -> Workspace`: modules, scopes,
  release, encoding, annotation processing and sibling dependencies, as the
  build system reads them (Maven: from the POMs, without running Maven).
  Malformed input raises `WorkspaceError` (`ModuleCycleError`, Maven's
  `PomError`) naming the file and the fix.
- `resolve_classpaths(workspace, state_dir, ...) -> {(module_id, scope): ClasspathResult}`:
  classpaths from the build tool, sourcepaths from the model; build problems
  become `classpath_unresolved` limitations, never exceptions.

Everything else sees the records of `model.py` only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .buildsystem import BuildSystem, Key, Progress, SiblingCheckout, Wording
from .model import (
    SCOPES,
    CandidateRoots,
    ClasspathResult,
    Dependency,
    Limitation,
    Module,
    ModuleCycleError,
    Scope,
    SiblingDep,
    Workspace,
    candidate_roots,
)
from .registry import AUTO, BUILD_SYSTEMS, by_name, ignored, names, select


def load_workspace(root: Path | str, build_tool: str = AUTO, *, state_dir: Path | None = None) -> Workspace:
    """The workspace at `root`, read by its build system (`select`; Gradle runs the build, or reads its
    cached model, writing into `state_dir`)."""
    return select(root, build_tool).load(Path(root), state_dir=state_dir)


def resolve_classpaths(workspace: Workspace, state_dir: Path | str, *, allow_online: bool = True,
                       timeout: float = 300, progress: Progress | None = None,
                       env: Mapping[str, str] | None = None, use_cache: bool = True) -> dict[Key, ClasspathResult]:
    """Classpath, sourcepath, limitations and release for every (module id, scope) of every module
    with sources, from the build system that read `workspace` (see `BuildSystem.resolve`)."""
    return by_name(workspace.build_tool).resolve(workspace, Path(state_dir), allow_online=allow_online,
                                                 timeout=timeout, progress=progress, env=env, use_cache=use_cache)


__all__ = [
    "SiblingCheckout",
    "AUTO", "BUILD_SYSTEMS", "SCOPES",
    "BuildSystem", "CandidateRoots", "ClasspathResult", "Dependency", "Key", "Limitation",
    "Module", "ModuleCycleError", "Progress", "Scope", "SiblingDep", "Wording", "Workspace", "by_name",
    "candidate_roots", "ignored", "load_workspace", "names", "resolve_classpaths", "select",
]
