"""The Java agents of the indexer JVM during a sync (Lombok's, see `pybridge.workspace.lombok`).

`prepare` runs before Maven: a worker that is not running yet gets the agent
guessed from the POMs, so that it can start and warm up while Maven resolves.
`settle` runs once the classpaths are known and a JVM is needed: the worker
gets exactly the agents the classpaths call for (a running child with another
set is replaced), is started, and the limitations say what really loaded.
"""

from __future__ import annotations

from collections.abc import Mapping

from pybridge.worker import Worker
from pybridge.workspace import ClasspathResult, Workspace
from pybridge.workspace.lombok import agent_hint, agents_for, apply_agents

Key = tuple[str, str]


def prepare(worker: Worker | None, workspace: Workspace) -> None:
    if worker is not None and worker.pid is None:
        worker.use_agents(agent_hint(workspace))


def settle(worker: Worker | None, workspace: Workspace,
           classpaths: Mapping[Key, ClasspathResult]) -> dict[Key, ClasspathResult]:
    if worker is None:      # the pipeline always has one; typed optional as the pipeline holds it
        return apply_agents(workspace, classpaths, (), "no indexer worker")
    agents = agents_for(classpaths)
    worker.use_agents(agents)
    if agents:
        worker.start()
    return apply_agents(workspace, classpaths, worker.loaded_agents, worker.agent_error)
