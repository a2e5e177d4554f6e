"""Which workspace root a command run inside a workspace means (`pybridge serve` without `--repo`).

The rule, from the working directory upward:

1. the nearest folder that a build system owns (`registry.owners`: Maven's, a
   folder with its build file) is the first candidate;
2. above it, every folder a build system owns and whose workspace lists the
   candidate among its modules (a reactor that aggregates it, directly or
   through an aggregator between) becomes the candidate; a folder that is
   owned but does not list it (an unrelated project above, a parent POM
   that only inherits) is passed over, as is one whose build files cannot
   be read;
3. the walk stops at the top of the git repository (the folder that holds
   `.git`), or at the file system's root outside one: a workspace never
   spans two repositories, and nothing above the repository is read.

So from `reactor/core/src/main/java` the root is `reactor` when its build
lists `core`, and `core` alone when it does not (then `core` is a workspace
of its own). Only owned folders above the first are read, so starting at
the root costs one look per folder up to the repository's top.
"""

from __future__ import annotations

from pathlib import Path

from pybridge.errors import WorkspaceError

from .registry import BUILD_SYSTEMS, owners


def find_root(start: Path | str) -> Path:
    """The workspace root for `start` (see the module docstring); WorkspaceError saying what to do
    when no folder from `start` up is owned by a build system."""
    start = Path(start).expanduser().resolve()
    walk = [start, *start.parents]
    nearest = next((folder for folder in walk if owners(folder)), None)
    if nearest is None:
        tools = " or ".join(s.wording.tool for s in BUILD_SYSTEMS)
        raise WorkspaceError(f"No workspace found: neither {start} nor any folder above it holds the build files "
                             f"of a {tools} workspace. Run this from inside the workspace, or name its root "
                             "folder with --repo PATH.")
    root = nearest
    if (nearest / ".git").exists():
        return root
    for above in nearest.parents:
        if owners(above) and _lists(above, root):
            root = above
        if (above / ".git").exists():
            break
    return root


def _lists(folder: Path, module_root: Path) -> bool:
    """Whether the workspace at `folder` has a module rooted at `module_root`."""
    try:
        workspace = owners(folder)[0].load(folder)
    except Exception:  # noqa: BLE001 - build files that cannot be read aggregate nothing
        return False
    return any(m.root.resolve() == module_root for m in workspace.modules if m.root.resolve() != folder)
