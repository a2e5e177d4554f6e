"""A cache of resolved classpaths, so that a sync whose build inputs did not change runs no Maven.

Stored in `<state_dir>/classpath-cache.json`. The key is a hash of what the
resolution depends on that pybridge can see: every module's pom.xml bytes,
the root's `.mvn/maven.config`, `.mvn/jvm.config` and `.mvn/extensions.xml`,
`~/.m2/settings.xml`, the mvn executable, JAVA_HOME/MAVEN_OPTS/MAVEN_ARGS,
`allow_online`, and the plugin versions. Only a fully resolved workspace
(no `classpath_unresolved` at all) is stored, and an entry is used only when
every classpath file it names still exists. Not covered: a parent POM outside
the workspace that changed in place, or a profile activated by an
environment variable other than those above; `use_cache=False` resolves
afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .maven import DEPENDENCY_PLUGIN, HELP_PLUGIN
from .model import Workspace

VERSION = 1
Key = tuple[str, str]


def cache_key(workspace: Workspace, allow_online: bool, mvn: str | None, env: dict[str, str]) -> str:
    h = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        h.update(f"{label}\0{len(data)}\0".encode())
        h.update(data)

    def add_file(path: Path) -> None:
        try:
            add(str(path), path.read_bytes())
        except OSError:
            add(str(path), b"<absent>")

    add("meta", json.dumps([VERSION, HELP_PLUGIN, DEPENDENCY_PLUGIN, str(workspace.root), allow_online, mvn,
                            [env.get(k) for k in ("JAVA_HOME", "MAVEN_OPTS", "MAVEN_ARGS")]]).encode())
    for pom in sorted(workspace.pom_paths):
        add_file(pom)
    for name in ("maven.config", "jvm.config", "extensions.xml"):
        add_file(workspace.root / ".mvn" / name)
    add_file(Path.home() / ".m2" / "settings.xml")
    return h.hexdigest()


def load(path: Path, key: str) -> tuple[dict[Key, list[Path]], dict[str, int]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        classpaths = {(e["module"], e["scope"]): [Path(p) for p in e["classpath"]] for e in data["entries"]}
        releases = {m: int(r) for m, r in data["releases"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(p.exists() for cp in classpaths.values() for p in cp):
        return None
    return classpaths, releases


def store(path: Path, key: str, classpaths: dict[Key, list[Path]], releases: dict[str, int]) -> None:
    data = {"key": key, "releases": releases,
            "entries": [{"module": m, "scope": s, "classpath": [str(p) for p in cp]}
                        for (m, s), cp in classpaths.items()]}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)
