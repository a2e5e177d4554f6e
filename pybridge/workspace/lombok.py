"""Lombok: which agent jar the indexer JVM runs with, and what that changes in the limitations.

Lombok generates members (getters, setters, builders, `log` fields, ...) by
patching the compiler. pybridge runs JDT in a JVM it starts, so it can do what
jdtls and Eclipse do: start that JVM with `-javaagent:<lombok.jar>`. The
agent then adds the generated members to every compilation unit; the indexer
marks them as generated and places them at the generating annotation.

Choices where DESIGN is silent:

- The agent is the Lombok jar that the build put on a module's processor
  path or classpath (an artifact named `lombok-<version>.jar`), never a jar
  pybridge brings: the members are those the project's own Lombok version
  generates.
- One JVM indexes the whole workspace, and an agent patches the compiler for
  the whole JVM: when modules use different Lombok versions, the newest is
  the agent (Lombok's handlers read the annotations by name, so one version
  serves all modules unless their behaviour changed between versions).
- Before the build system has resolved anything, its `agent_hint` guesses the
  jar (Maven: from the declared Lombok dependency in the local repository), so
  the worker can start (and warm up) while the build tool runs; when the
  resolved classpath says otherwise, the worker is started again with the
  right jar.
- A module whose classpath holds Lombok no longer gets
  `annotation_processing_not_run` for Lombok once the agent loaded (other
  processors of the module are still named). When the agent could not be
  loaded, those modules keep that limitation and get `lombok_agent_not_loaded`
  with the JVM's message; the sync goes on without the agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from .buildsystem import Key, Wording
from .model import ClasspathResult, Limitation, Workspace
from .processing import processing_limitations

LOMBOK = "org.projectlombok:lombok"
_JAR = re.compile(r"^lombok-(\d+(?:\.\d+)*)(?:[-.][\w.\-]*)?\.jar$")


def version(jar: Path) -> tuple[int, ...]:
    """The version in a Lombok jar's name, as numbers (empty when the name has none)."""
    m = _JAR.match(jar.name)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def newest(jars: Iterable[Path]) -> list[Path]:
    """The newest of these Lombok jars, as a list of at most one."""
    found = set(jars)
    return [max(found, key=lambda j: (version(j), str(j)))] if found else []


def lombok_jar(classpath: Iterable[Path]) -> Path | None:
    """The Lombok jar on a classpath (an entry named `lombok-<version>.jar`), or None."""
    for entry in classpath:
        if _JAR.match(entry.name) and entry.suffix == ".jar":
            return entry
    return None


def _lombok_of(cp: ClasspathResult) -> Path | None:
    """The Lombok jar of one classpath result: on its processor path first, else on its classpath."""
    return lombok_jar(cp.processor_path) or lombok_jar(cp.classpath)


def agents_for(classpaths: Mapping[Key, ClasspathResult]) -> list[Path]:
    """The Java agents the indexer JVM needs for these classpaths: the newest Lombok jar, if any."""
    return newest(jar for cp in classpaths.values() if (jar := _lombok_of(cp)) is not None)


def apply_agents(workspace: Workspace, wording: Wording, classpaths: Mapping[Key, ClasspathResult],
                 loaded: Iterable[str | Path], error: str | None) -> dict[Key, ClasspathResult]:
    """The classpaths with their limitations adjusted to the agents the worker really runs:
    `loaded` (jar paths), or `error` when the Lombok agent failed to load. `wording`: the build
    system's (`BuildSystem.wording`), for the messages."""
    running = bool(list(loaded))
    out: dict[Key, ClasspathResult] = {}
    for key, cp in classpaths.items():
        jar = _lombok_of(cp)
        if jar is None:
            out[key] = cp
            continue
        if running:
            kept = [lim for lim in cp.limitations
                    if lim.kind not in ("annotation_processing_not_run", "generated_sources_absent")]
            module = workspace.module(key[0])
            kept += processing_limitations(module, key[1], wording, indexed=frozenset({LOMBOK}))
            out[key] = replace(cp, limitations=tuple(kept))
            continue
        reason = error or "the indexer worker runs without Java agents"
        out[key] = replace(cp, limitations=(*cp.limitations, Limitation(
            "lombok_agent_not_loaded", key[0],
            f"Lombok ({jar.name}) is on the {key[1]} classpath of {key[0]}, but its agent could not be loaded "
            f"into the indexer JVM ({reason}); members Lombok generates are invisible here. Check that the "
            f"jar is intact ({wording.refetch_jar}).",
            key[1])))
    return out
