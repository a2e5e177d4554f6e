"""The Java agents of the indexer JVM during a sync (Lombok's, see `pybridge.workspace.lombok`).

`prepare` runs before the build tool resolves: a worker that is not running
yet gets the agent the build system guesses from the build files
(`BuildSystem.agent_hint`), so that it can start and warm up while the build
tool resolves. `needed` is the set the classpaths call for; the generation
records it (`GenerationMeta.agents`), and a server's warm worker starts with
the published generation's set. `settle` runs once the classpaths are known and a JVM is
needed: the worker gets exactly the agents the classpaths call for (a running
child with another set is replaced), is started, and the limitations say what
really loaded.
"""

from __future__ import annotations

from collections.abc import Mapping

from pybridge.worker import Worker
from pybridge.workspace import BuildSystem, ClasspathResult, Key, Workspace
from pybridge.workspace.lombok import agents_for, apply_agents


def prepare(worker: Worker | None, system: BuildSystem, workspace: Workspace) -> None:
    if worker is not None and worker.pid is None:
        worker.use_agents(system.agent_hint(workspace))


def needed(classpaths: Mapping[Key, ClasspathResult]) -> tuple[str, ...]:
    """The Java agent jars the classpaths call for (Lombok's, the newest), as the generation records them."""
    return tuple(str(jar) for jar in agents_for(classpaths))


def settle(worker: Worker | None, system: BuildSystem, workspace: Workspace,
           classpaths: Mapping[Key, ClasspathResult]) -> dict[Key, ClasspathResult]:
    if worker is None:      # the pipeline always has one; typed optional as the pipeline holds it
        return apply_agents(workspace, system.wording, classpaths, (), "no indexer worker")
    agents = needed(classpaths)
    worker.use_agents(agents)
    if agents:
        worker.start()
    return apply_agents(workspace, system.wording, classpaths, worker.loaded_agents, worker.agent_error)
