"""Maven's key for the classpath cache (`pybridge.workspace.cache`), and the input files it covers.

The key is a hash of what the resolution depends on that pybridge can see:
the workspace root's path (a copy elsewhere misses); every module's pom.xml
bytes; `.mvn/maven.config`, `.mvn/jvm.config` and `.mvn/extensions.xml` of
the folder Maven takes them from (`maven_basedir`); the settings files Maven
reads: `~/.m2/settings.xml`, the installation's `conf/settings.xml`, and any
named with `-s`/`--settings`/`-gs`/`--global-settings` in
`.mvn/maven.config` or MAVEN_ARGS; the mvn executable; JAVA_HOME,
MAVEN_OPTS, MAVEN_ARGS and MAVEN_BASEDIR; every environment variable a POM
names as `env.NAME` (profile activation, interpolation); `allow_online`; and
the plugin versions. Not covered: a parent POM outside the workspace that
changed in place, an artifact that changed in place in the local
repository, or a newer version that a remote repository now offers to a
version range; `use_cache=False` resolves afresh.

`input_files` lists the same files (the POMs, then the others), so that the
key and `MavenBuildSystem.inputs` cannot disagree.

`cache_key(..., moved_to=OTHER)` is the key the same files would have if the
workspace were at the root OTHER (another checkout of the same repository):
the paths under the root are spelled under OTHER, every byte is read here. It
equals the key OTHER's own resolution was cached under exactly when every
input is the same but for where the checkout is, so OTHER's classpaths, moved
to this root, are this workspace's (`classpath.resolve_classpaths`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..cache import VERSION
from ..model import Workspace
from .mvnconfig import maven_basedir, settings_files
from .runner import DEPENDENCY_PLUGIN, HELP_PLUGIN
from .terms import MVN_CONFIG_FILES, pom_of

_ENV_NAME = re.compile(rb"\benv\.([A-Za-z_][A-Za-z0-9_]*)")


def input_files(workspace: Workspace, mvn: str | None, env: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """(every module's pom.xml, sorted; the `.mvn` configuration and settings files Maven reads,
    existing or not), as `cache_key` hashes them."""
    poms = sorted(pom_of(m) for m in workspace.modules)
    base = maven_basedir(workspace.root)
    others = [base / ".mvn" / name for name in MVN_CONFIG_FILES]
    others.append(Path.home() / ".m2" / "settings.xml")
    if mvn:
        others.append(Path(os.path.realpath(mvn)).parent.parent / "conf" / "settings.xml")
    others += settings_files(workspace.root, env)
    return poms, others


def cache_key(workspace: Workspace, allow_online: bool, mvn: str | None, env: Mapping[str, str],
              moved_to: Path | None = None) -> str:
    h = hashlib.sha256()

    def spelled(path: Path) -> Path:
        if moved_to is None:
            return path
        try:
            return moved_to / path.relative_to(workspace.root)
        except ValueError:
            return path

    def add(label: str, data: bytes) -> None:
        h.update(f"{label}\0{len(data)}\0".encode())
        h.update(data)

    def add_file(path: Path) -> None:
        try:
            add(str(spelled(path)), path.read_bytes())
        except OSError:
            add(str(spelled(path)), b"<absent>")

    add("meta", json.dumps([VERSION, HELP_PLUGIN, DEPENDENCY_PLUGIN, str(spelled(workspace.root)), allow_online, mvn,
                            [env.get(k) for k in ("JAVA_HOME", "MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_BASEDIR")]]).encode())
    poms, others = input_files(workspace, mvn, env)
    names: set[str] = set()
    for pom in poms:
        add_file(pom)
        try:
            names.update(m.decode() for m in _ENV_NAME.findall(pom.read_bytes()))
        except OSError:
            pass
    add("env", json.dumps([[n, env.get(n)] for n in sorted(names)]).encode())
    for path in others:
        add_file(path)
    return h.hexdigest()
