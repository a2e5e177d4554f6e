"""The build-system seam: which build system owns a root, what it says invalidates the model, where
roots appear. No build tool runs here (Maven's own behaviour is the Maven tests')."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.errors import WorkspaceError
from pybridge.workspace import AUTO, load_workspace, select
from pybridge.workspace.gradle import GRADLE
from pybridge.workspace.maven import MAVEN
from pybridge.workspace.maven.cachekey import cache_key
from pybridge.workspace.registry import BUILD_SYSTEMS, names, owners
from tests.support.query_support import SAMPLES


@pytest.fixture
def reactor(tmp_path: Path) -> Path:
    root = tmp_path / "reactor"
    shutil.copytree(SAMPLES / "reactor", root)
    return root


def test_a_root_with_a_pom_is_mavens_and_the_workspace_says_which_build_system_read_it(reactor):
    assert select(reactor) is MAVEN and owners(reactor) == (MAVEN,)
    assert select(reactor, "maven") is MAVEN and names() == (AUTO, *(s.name for s in BUILD_SYSTEMS))
    assert load_workspace(reactor).build_tool == "maven"


def test_an_unknown_or_absent_build_tool_is_an_error_that_says_what_to_do(reactor, tmp_path):
    with pytest.raises(WorkspaceError, match="knows no build tool 'bazel'; use one of: auto, maven"):
        select(reactor, "bazel")
    with pytest.raises(WorkspaceError, match="is not a Maven workspace"):
        select(tmp_path, "maven")


def test_maven_names_every_pom_and_the_mvn_configuration_as_inputs_and_the_cache_key_covers_them(reactor):
    ws = load_workspace(reactor)
    inputs = MAVEN.inputs(ws, {"HOME": str(Path.home()), "PATH": ""})
    poms = sorted(reactor.resolve() / d / "pom.xml" for d in ("", "core", "service", "app"))
    assert [p for p in inputs if p.name == "pom.xml"] == poms
    mvn = reactor.resolve() / ".mvn"
    assert {mvn / "maven.config", mvn / "jvm.config", mvn / "extensions.xml"} <= set(inputs)
    before = cache_key(ws, True, None, {})
    mvn.mkdir()
    (mvn / "jvm.config").write_text("-Xmx1g\n", encoding="utf-8")
    assert cache_key(ws, True, None, {}) != before
    assert all(MAVEN.is_input(reactor, p) for p in inputs if p.is_relative_to(reactor.resolve()))
    assert not MAVEN.is_input(reactor, reactor / "core/src/main/java/Foo.java")
    assert not MAVEN.is_input(reactor, reactor / "core/maven.config")


def test_a_module_says_where_its_roots_appear_before_they_exist(reactor):
    shutil.rmtree(reactor / "core/src/test")
    core = load_workspace(reactor).module("dev.pybridge.samples:core")
    base = reactor.resolve() / "core"
    assert core.scopes["test"].source_roots == ()
    assert core.root_places == (base / "src/main/java", base / "target/generated-sources",
                                   base / "src/test/java", base / "target/generated-test-sources")


def test_only_a_build_system_whose_load_runs_the_build_guesses_agents_before_it_from_the_build_text(
        reactor, tmp_path):
    assert MAVEN.agent_hint_before_load(reactor) is None        # reading POMs is quick: no early JVM
    home = tmp_path / "gradle-home"
    cached = home / "caches/modules-2/files-2.1/org.projectlombok/lombok"
    jars = {}
    for v in ("1.18.30", "1.18.42"):
        jars[v] = cached / v / "0123abcd" / f"lombok-{v}.jar"
        jars[v].parent.mkdir(parents=True)
        jars[v].write_bytes(b"")
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / "settings.gradle").write_text("include 'app'\n")
    build = ws / "app" / "build.gradle"
    env = {"GRADLE_USER_HOME": str(home)}
    build.write_text("dependencies { implementation 'com.acme:tool:1.18.42' }\n")
    assert GRADLE.agent_hint_before_load(ws, env) == []         # a version, but not Lombok's
    build.write_text("dependencies {\n    lombokAgent('org.projectlombok:lombok:1.18.30')\n}\n")
    assert GRADLE.agent_hint_before_load(ws, env) == []         # Lombok, but on no compile configuration
    other = ws / "samples" / "other"                            # another build below the root
    other.mkdir(parents=True)
    (other / "settings.gradle").write_text("")
    (other / "build.gradle").write_text("dependencies { compileOnly 'org.projectlombok:lombok:1.18.30' }\n")
    assert GRADLE.agent_hint_before_load(ws, env) == []
    build.write_text("dependencies { compileOnly 'org.projectlombok:lombok:1.18.30' }\n")
    assert GRADLE.agent_hint_before_load(ws, env) == [jars["1.18.30"]]
    (ws / "gradle").mkdir()
    (ws / "gradle" / "libs.versions.toml").write_text(
        '[versions]\nlombok = "1.18.42"\n[libraries]\nlombok = { module = "org.projectlombok:lombok", '
        'version.ref = "lombok" }\n')
    assert GRADLE.agent_hint_before_load(ws, env) == [jars["1.18.42"]]      # the newest named
    assert GRADLE.agent_hint_before_load(ws, {"GRADLE_USER_HOME": str(tmp_path / "empty")}) == []
