"""The build systems pybridge knows, and which one builds a workspace root.

`BUILD_SYSTEMS` lists them in detection order: in `auto`, the first that owns
the root wins (Maven first, so a root with a pom.xml stays Maven's whatever
else it holds; DESIGN section 4). A build tool named explicitly
(`--build-tool maven`) must own the root too. A new build system is one
package under `pybridge/workspace/` plus its line here.
"""

from __future__ import annotations

from pathlib import Path

from pybridge.errors import WorkspaceError

from .buildsystem import BuildSystem
from .gradle import GRADLE
from .maven import MAVEN

AUTO = "auto"
BUILD_SYSTEMS: tuple[BuildSystem, ...] = (MAVEN, GRADLE)


def names() -> tuple[str, ...]:
    """The values `--build-tool` takes: `auto`, then each build system's name."""
    return (AUTO, *(s.name for s in BUILD_SYSTEMS))


def by_name(name: str) -> BuildSystem:
    """The build system called `name`; WorkspaceError naming the known ones otherwise."""
    for system in BUILD_SYSTEMS:
        if system.name == name:
            return system
    raise WorkspaceError(f"pybridge knows no build tool {name!r}; use one of: {', '.join(names())}.",
                         build_tool=name)


def owners(root: Path) -> tuple[BuildSystem, ...]:
    """Every build system that owns `root`, in detection order (several when a root holds the
    build files of more than one; the first is the one `auto` picks)."""
    return tuple(s for s in BUILD_SYSTEMS if s.owns(root))


def ignored(root: Path | str, system: BuildSystem) -> tuple[BuildSystem, ...]:
    """The build systems that own `root` too but were not chosen (a pom.xml and a build.gradle: Maven
    wins in `auto`, and `status` says the Gradle files were ignored)."""
    return tuple(s for s in owners(Path(root).expanduser()) if s is not system)


def select(root: Path | str, build_tool: str = AUTO) -> BuildSystem:
    """The build system of the workspace at `root`: the first owner in `auto`, else the one named.
    Raises WorkspaceError, saying what to do, when none owns it (or the named one does not)."""
    root = Path(root).expanduser()
    if build_tool != AUTO:
        system = by_name(build_tool)
        if not system.owns(root):
            raise WorkspaceError(f"{root} is not a {system.wording.tool} workspace (no {system.wording.tool} "
                                 f"build files at its root); point pybridge at the folder that holds them, "
                                 f"or choose another build tool ({', '.join(names())}).", build_tool=build_tool)
        return system
    found = owners(root)
    if found:
        return found[0]
    if not root.is_dir():
        raise WorkspaceError(f"{root} is not a folder; point pybridge at the root folder of the workspace.")
    files = ", nor ".join(s.wording.root_files for s in BUILD_SYSTEMS)
    tools = " and ".join(s.wording.tool for s in BUILD_SYSTEMS)
    raise WorkspaceError(f"{root} has no {files}; pybridge reads {tools} workspaces, so point it at the "
                         "workspace's root folder (or choose the build tool with --build-tool).")
