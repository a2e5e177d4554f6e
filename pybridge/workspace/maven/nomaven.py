"""When the POMs alone prove every classpath empty, Maven need not run.

Maven costs a second JVM and its plugin loading: 1.6 to 2.7 s on an idle
machine (two runs: the effective POMs, then the throwaway reactor), even for
a workspace that declares no dependency at all. `maven_needed` answers, from
our own POM reading, whether Maven could find anything to put on a classpath;
when it could not, `resolve_classpaths` returns empty classpaths at once.

Maven stays the authority: the shortcut is taken only when nothing that
Maven evaluates and pybridge does not could add a dependency. Any one of
these sends the workspace to Maven:

- a module (its own POM or an ancestor) declares a dependency that is not a
  sibling module;
- a POM in a module's parent chain lies outside the workspace, or a declared
  parent was not found (Maven would read or fetch it; it may declare
  dependencies or activate profiles);
- any `<profiles>` element in those POMs (activation by JDK, OS, property or
  file is Maven's to evaluate), a `<dependencyManagement>` import (a BOM
  Maven would fetch), build extensions, or `.mvn/extensions.xml` (core
  extensions can rewrite the model).

With no external artifact to resolve, settings.xml mirrors, offline mode
and unreachable repositories change nothing, so they do not count.
"""

from __future__ import annotations

from pathlib import Path

from ..model import Workspace
from .pom import PomReader, RawPom
from .terms import pom_of
from .xmlread import is_file, text


def maven_needed(workspace: Workspace) -> str | None:
    """Why Maven must resolve this workspace's classpaths, or None when every classpath is empty."""
    root = workspace.root
    if is_file(root / ".mvn" / "extensions.xml"):
        return ".mvn/extensions.xml declares core extensions"
    ids = {m.id for m in workspace.modules}
    for m in workspace.modules:
        external = [d.ga for d in m.dependencies if d.ga not in ids]
        if external:
            return f"{m.id} depends on {external[0]}"
    reader = PomReader(root)
    for m in workspace.modules:
        chain = reader.chain(reader.read(pom_of(m)))
        last = chain[-1]
        if last.parent is not None and last.parent.artifact_id:
            return f"the parent {last.parent.group_id}:{last.parent.artifact_id} of {last.path} is not in the workspace"
        for raw in chain:
            reason = _pom_needs_maven(raw, root)
            if reason:
                return reason
    return None


def _pom_needs_maven(raw: RawPom, root: Path) -> str | None:
    if not raw.path.is_relative_to(root):
        return f"{raw.path} (a parent) is outside the workspace"
    if raw.xml.find("profiles") is not None:
        return f"{raw.path} has profiles"
    if any(text(el, "scope") == "import" for el in raw.managed):
        return f"{raw.path} imports a BOM"
    for build in raw.builds:
        if build.find("extensions") is not None or any(
                text(p, "extensions") == "true" for p in build.findall("plugins/plugin")):
            return f"{raw.path} has build extensions"
    return None
