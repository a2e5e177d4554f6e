"""Gradle workspaces end to end (issue 23's acceptance): sync, query and the live index, through the seam.

- Same facts from both build systems: samples/dual-build describes the same modules and dependencies in
  a Maven reactor and in a Gradle build; synced with `build_tool="maven"` and with `"gradle"`, every
  fact of every file is the same (the digest of each file's facts, `incremental_edits.differences`). In
  `auto` Maven wins, and the generation names the Gradle files as ignored. The Gradle sync, with a
  worker of its own, starts its JVM before Gradle runs; the build step's progress phase is `build`.
- Over MCP (`pybridge serve`, watching): on a copy of samples/gradle-reactor, `scope: "test"` finds the
  integrationTest source set's classes too; a `.java` edit is caught up (fresh, a newer generation) with
  no sync call; a build-file edit (a new source set) makes the live index read the build again.

Gradle runs: 1 (dual-build) + 2 (the reactor's sync, the re-read after the build-file edit), in the
session's Gradle user home (`gradle_support`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.store import Store
from pybridge.sync import default_state_dir, store_path, sync
from pybridge.sync.meta import GenerationMeta
from tests.live.test_live import ENV, ok
from tests.support.gradle_support import gradle_env, needs_gradle
from tests.support.incremental_edits import differences
from tests.support.mcp_session import serve

pytestmark = needs_gradle

LONG_WAIT = 900     # seconds: a bound for a Gradle run on a loaded machine, never a measured time


def _meta(state: Path) -> GenerationMeta:
    with Store.open(store_path(state)) as store:
        info = store.current_generation()
    assert info is not None
    return GenerationMeta.of(info)


def test_the_same_workspace_through_maven_and_through_gradle_gives_the_same_facts(
        samples, tmp_path, worker, gradle_home, monkeypatch):
    for name, value in gradle_env(gradle_home).items():
        monkeypatch.setenv(name, value)
    ws = tmp_path / "dual-build"
    shutil.copytree(samples / "dual-build", ws)
    states = {tool: tmp_path / f"state-{tool}" for tool in ("maven", "gradle")}
    phases: dict[str, set[str]] = {tool: set() for tool in states}
    timings = {}
    for tool, state in states.items():
        # Gradle's sync starts a worker of its own: its JVM starts before `load` runs Gradle
        result = sync(ws, state_dir=state, worker=worker if tool == "maven" else None, build_tool=tool,
                      progress=lambda event, tool=tool: phases[tool].add(event["phase"]))
        timings[tool] = result.timings
    assert "early_jvm_start" in timings["gradle"] and "early_jvm_start" not in timings["maven"]
    assert {"workspace", "build", "index"} <= phases["gradle"] and "build" in phases["maven"]
    assert "maven" not in phases["gradle"] | phases["maven"]        # the build step's phase is neutral
    maven, gradle = _meta(states["maven"]), _meta(states["gradle"])
    assert (maven.build_tool, gradle.build_tool) == ("maven", "gradle")
    assert sorted(m.id for m in maven.modules) == sorted(m.id for m in gradle.modules) == [
        "dev.pybridge.samples.dual:app", "dev.pybridge.samples.dual:core", "dev.pybridge.samples.dual:dual-build"]
    assert sorted((s.module, s.scope, s.files, s.binding_complete, s.release, s.encoding) for s in maven.scopes) == \
        sorted((s.module, s.scope, s.files, s.binding_complete, s.release, s.encoding) for s in gradle.scopes)
    assert maven.counts.references > 0 and maven.counts == gradle.counts
    assert differences(store_path(states["maven"]), store_path(states["gradle"])) == []
    # auto: Maven wins, and the generation says which files were ignored
    ignored = [lim for lim in maven.limitations if lim.kind == "build_files_ignored"]
    assert len(ignored) == 1 and "Gradle" in ignored[0].message and "--build-tool gradle" in ignored[0].message


@pytest.fixture
def reactor(samples, tmp_path, worker, gradle_home, monkeypatch):
    """A copy of samples/gradle-reactor synced with Gradle into a state home of its own."""
    env = gradle_env(gradle_home)
    for name in ("GRADLE_USER_HOME", "JAVA_HOME"):
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("GRADLE_OPTS", raising=False)
    root, home = tmp_path / "gradle-reactor", tmp_path / "home"
    shutil.copytree(samples / "gradle-reactor", root)
    monkeypatch.setenv("PYBRIDGE_STATE_HOME", str(home))
    sync(root, state_dir=default_state_dir(root), worker=worker)
    return root, home, {"GRADLE_USER_HOME": env["GRADLE_USER_HOME"], "JAVA_HOME": env["JAVA_HOME"]}


def test_a_gradle_workspace_over_mcp_answers_every_scope_and_catches_up_java_and_build_file_edits(reactor):
    root, home, env = reactor
    extra = root / "core" / "src" / "extra" / "java" / "com" / "acme" / "gradle" / "core" / "Extra.java"
    extra.parent.mkdir(parents=True)
    extra.write_text("package com.acme.gradle.core;\n\npublic class Extra {\n"
                     "    public String shout() { return new Names().toString(); }\n}\n", encoding="utf-8")
    with serve([root], home, {**ENV, **env, "PYBRIDGE_FRESH_WAIT": str(LONG_WAIT)}) as client:
        assert {s["name"] for s in ok(client, "find_symbol", {"query": "AppIT"})["symbols"]} == {"AppIT"}
        found = {s["name"] for s in ok(client, "find_symbol", {"query": "AppIT", "scope": "test"})["symbols"]}
        assert found == {"AppIT"}       # integrationTest is test code
        assert ok(client, "find_symbol", {"query": "AppIT", "scope": "main"})["symbols"] == []

        # a .java edit: caught up in the background, the next exact answer is fresh without a sync call
        [names] = ok(client, "find_symbol", {"query": "Names", "kind": "CLASS"})["symbols"]
        before = ok(client, "find_references", {"symbolKey": names["symbolKey"]})
        app = root / "app" / "src" / "main" / "java" / "com" / "acme" / "gradle" / "app" / "App.java"
        text = app.read_text(encoding="latin-1")
        app.write_text(text + "\nclass Tally { com.acme.gradle.core.Names names; }\n", encoding="latin-1")
        after = ok(client, "find_references", {"symbolKey": names["symbolKey"]})
        assert after["freshness"] == "fresh" and after["meta"]["generation"] > before["meta"]["generation"]
        assert after["meta"]["total"] == before["meta"]["total"] + 1

        # a build-file edit: a new source set; the live index reads the build again (Gradle runs)
        assert ok(client, "find_symbol", {"query": "Extra", "kind": "CLASS"})["symbols"] == []
        build = root / "core" / "build.gradle"
        build.write_text(build.read_text(encoding="utf-8") + "\nsourceSets {\n    extra {\n"
                         "        compileClasspath += sourceSets.main.output\n    }\n}\n", encoding="utf-8")
        again = ok(client, "find_references", {"symbolKey": names["symbolKey"]})     # waits for the catch-up
        assert again["freshness"] == "fresh" and again["meta"]["generation"] > after["meta"]["generation"]
        assert len(ok(client, "find_symbol", {"query": "Extra", "kind": "CLASS", "scope": "test"})["symbols"]) == 1
        assert again["meta"]["total"] == after["meta"]["total"] + 1      # Extra's use of Names, bound
