"""The Maven workspace model (DESIGN section 4).

Public entry points:

- `load_workspace(root) -> Workspace`: modules, scopes, release, encoding,
  annotation processing and sibling dependencies, read from the POMs without
  running Maven. Malformed input raises `WorkspaceError` (`PomError`,
  `ModuleCycleError`) naming the file and the fix.
- `resolve_classpaths(workspace, state_dir, ...) -> {(module_id, scope): ClasspathResult}`:
  classpaths from Maven, sourcepaths from the model; Maven problems become
  `classpath_unresolved` limitations, never exceptions.
"""

from .classpath import resolve_classpaths, sourcepath
from .discovery import load_workspace
from .model import (
    SCOPES,
    CandidateRoots,
    ClasspathResult,
    Dependency,
    Limitation,
    Module,
    ModuleCycleError,
    PomError,
    Scope,
    SiblingDep,
    Workspace,
    candidate_roots,
)

__all__ = [
    "SCOPES", "CandidateRoots", "ClasspathResult", "Dependency", "Limitation", "Module", "ModuleCycleError",
    "PomError", "Scope", "SiblingDep", "Workspace", "candidate_roots", "load_workspace", "resolve_classpaths",
    "sourcepath",
]
