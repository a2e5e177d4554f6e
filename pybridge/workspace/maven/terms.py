"""Maven's names, in one leaf module: the build file, the `.mvn` configuration, the scopes, the wording."""

from __future__ import annotations

from pathlib import Path

from ..buildsystem import Wording
from ..model import Module

NAME = "maven"              # BuildSystem.name, Workspace.build_tool
POM = "pom.xml"
# The files of a `.mvn` folder that change how mvn runs (`mvnconfig.py`; the classpath cache keys on them).
MVN_CONFIG_FILES = ("maven.config", "jvm.config", "extensions.xml")

# Maven dependency scopes on the compile classpath of main code.
MAIN_DEP_SCOPES = frozenset({"compile", "provided", "system"})

WORDING = Wording(
    tool="Maven", build_files="POMs", generate_sources="run `mvn generate-sources` or a build",
    generated_folder="target/generated-sources",
    refetch_jar="delete it from the local repository and sync again to have Maven fetch it", root_files=POM)


def pom_of(module: Module) -> Path:
    """A Maven module's pom.xml (its first build file)."""
    return module.build_files[0]
