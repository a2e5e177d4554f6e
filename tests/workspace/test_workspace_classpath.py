"""Classpaths from real Maven runs (mvn on PATH, Maven Central reachable).

Each fixture runs Maven once per module of tests; the tests read its results.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pybridge.workspace import ClasspathResult, load_workspace
from pybridge.workspace.maven import resolve_classpaths
from pybridge.workspace.maven.cachekey import cache_key
from tests.workspace.test_workspace_model import GROUP, dep, write_pom

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")

LANG3 = "commons-lang3-3.14.0.jar"
JUNIT = "junit-4.13.2.jar"
GHOST = "com.example.nonexistent:ghost-lib:9.9.9"
A, B, C = f"{GROUP}:a", f"{GROUP}:b", f"{GROUP}:c"


def names(result: ClasspathResult) -> list[str]:
    return [p.name for p in result.classpath]


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.stat().st_size) for p in root.rglob("*")}


@pytest.fixture(scope="module")
def reactor(tmp_path_factory: pytest.TempPathFactory):
    """root -> a, apps (pom) -> b, c. a: commons-lang3 + junit (test); b: a, a's test-jar (test), junit
    (test); c: a without commons-lang3. Nothing installed, nothing compiled."""
    root = tmp_path_factory.mktemp("reactor") / "ws"
    both = ("src/main/java", "src/test/java")
    write_pom(root, "root", packaging="pom", modules=("a", "apps"),
              properties={"maven.compiler.release": "17", "project.build.sourceEncoding": "UTF-8"})
    parent = f"{GROUP}:root:1.0"
    write_pom(root / "a", "a", group=None, parent=parent, sources=both, properties={"maven.compiler.release": "11"},
              deps=(dep("org.apache.commons:commons-lang3:3.14.0"), dep("junit:junit:4.13.2", "test")))
    (root / "a/src/main/java/A.java").write_text("public class A {}\n")
    write_pom(root / "apps", "apps", group=None, parent=parent, packaging="pom", modules=("b", "c"))
    apps = f"{GROUP}:apps:1.0"
    write_pom(root / "apps/b", "b", group=None, parent=apps, sources=both,
              deps=(dep(f"{GROUP}:a:${{project.version}}"), dep(f"{GROUP}:a:${{project.version}}", "test",
                                                                type="test-jar"), dep("junit:junit:4.13.2", "test")))
    write_pom(root / "apps/c", "c", group=None, parent=apps,
              deps=(dep(f"{GROUP}:a:1.0", exclusions=("org.apache.commons:commons-lang3",)),))
    before = tree_state(root)
    state = tmp_path_factory.mktemp("state")
    ws = load_workspace(root)
    messages: list[str] = []
    results = resolve_classpaths(ws, state, progress=messages.append)
    return {"root": root, "ws": ws, "state": state, "results": results, "before": before, "progress": messages}


def test_a_sibling_resolves_to_its_sources_and_its_externals_come_through_transitively(reactor) -> None:
    b_main = reactor["results"][(B, "main")]
    assert LANG3 in names(b_main)
    assert not any(str(p).startswith(str(reactor["root"])) for p in b_main.classpath)
    assert not any(p.name.startswith("a-1.0") for p in b_main.classpath)
    root = reactor["root"].resolve()
    assert b_main.sourcepath == (root / "apps/b/src/main/java", root / "a/src/main/java")
    assert b_main.limitations == ()


def test_nothing_is_compiled_installed_or_written_into_the_users_tree(reactor) -> None:
    root: Path = reactor["root"]
    assert not [p for p in root.rglob("target")]
    assert tree_state(root) == reactor["before"]
    assert not (Path.home() / ".m2/repository" / GROUP.replace(".", "/")).exists()


def test_the_test_scope_has_junit_and_the_main_scope_does_not(reactor) -> None:
    results = reactor["results"]
    assert JUNIT not in names(results[(A, "main")])
    assert JUNIT in names(results[(A, "test")]) and "hamcrest-core-1.3.jar" in names(results[(A, "test")])
    assert names(results[(A, "main")]) == [LANG3]
    assert JUNIT in names(results[(B, "test")])


def test_test_scoped_dependencies_of_a_sibling_do_not_travel(reactor) -> None:
    assert JUNIT not in names(reactor["results"][(B, "main")])


def test_a_test_jar_sibling_puts_its_test_roots_on_the_test_sourcepath(reactor) -> None:
    root = reactor["root"].resolve()
    b_test = reactor["results"][(B, "test")]
    assert b_test.sourcepath == (root / "apps/b/src/test/java", root / "apps/b/src/main/java",
                                 root / "a/src/main/java", root / "a/src/test/java")


def test_exclusions_on_a_sibling_dependency_are_respected(reactor) -> None:
    c_main = reactor["results"][(C, "main")]
    assert LANG3 not in names(c_main)
    assert c_main.limitations == ()


def test_every_module_with_sources_has_both_scopes_and_the_release_is_recorded(reactor) -> None:
    results = reactor["results"]
    assert set(results) == {(m, s) for m in (A, B, C) for s in ("main", "test")}
    assert results[(A, "main")].release == 11 and results[(B, "main")].release == 17


def test_maven_runs_offline_first_with_logs_in_the_state_folder(reactor) -> None:
    logs = sorted((reactor["state"] / "maven/logs").iterdir())
    assert logs[0].name.endswith("effective-pom-offline.log")
    assert " -o " in logs[0].read_text().splitlines()[0]
    assert any("classpath-offline" in p.name for p in logs)
    assert reactor["progress"]


def test_unchanged_poms_reuse_the_cached_classpaths_and_a_changed_pom_changes_the_key(
        reactor, tmp_path: Path) -> None:
    messages: list[str] = []
    logs = sorted((reactor["state"] / "maven/logs").iterdir())
    again = resolve_classpaths(reactor["ws"], reactor["state"], progress=messages.append)
    assert again == reactor["results"]
    assert "cached" in messages[0] and sorted((reactor["state"] / "maven/logs").iterdir()) == logs
    copy = tmp_path / "ws"
    shutil.copytree(reactor["root"], copy)
    ws = load_workspace(copy)
    key = cache_key(ws, True, "/usr/bin/mvn", {})
    assert cache_key(ws, True, "/usr/bin/mvn", {}) == key
    assert cache_key(ws, False, "/usr/bin/mvn", {}) != key
    pom = copy / "apps/c/pom.xml"
    pom.write_text(pom.read_text().replace("<exclusions>", "<exclusions><!-- changed -->"))
    assert cache_key(ws, True, "/usr/bin/mvn", {}) != key


@pytest.mark.parametrize("how", ["path", "executable"])
def test_mvn_missing_gives_classpath_unresolved_per_module_and_scope_not_an_exception(
        reactor, tmp_path: Path, how: str) -> None:
    kwargs = {"env": {**os.environ, "PATH": str(tmp_path)}} if how == "path" else {
        "mvn_executable": str(tmp_path / "no-such-mvn")}
    results = resolve_classpaths(reactor["ws"], tmp_path / "state", **kwargs)
    assert set(results) == set(reactor["results"])
    for (module, scope), result in results.items():
        [lim] = [x for x in result.limitations if x.kind == "classpath_unresolved"]
        assert (lim.module, lim.scope) == (module, scope)
        assert "not found on PATH" in lim.message and module in lim.message
    # the jars already in the local repository for the declared dependencies are kept
    assert LANG3 in names(results[(A, "main")]) and LANG3 in names(results[(B, "main")])
    assert JUNIT not in names(results[(A, "main")]) and JUNIT in names(results[(A, "test")])
    assert results[(B, "main")].sourcepath == reactor["results"][(B, "main")].sourcepath


def test_a_maven_run_over_the_timeout_is_a_named_limitation(reactor, tmp_path: Path) -> None:
    results = resolve_classpaths(reactor["ws"], tmp_path / "state", timeout=0.3)
    lim = results[(A, "main")].limitations[0]
    assert lim.kind == "classpath_unresolved" and "did not finish within 0.3 s" in lim.message


@pytest.fixture(scope="module")
def ghosted(tmp_path_factory: pytest.TempPathFactory, reactor):
    """g1 needs commons-lang3 and an artifact that exists nowhere; g2 depends on g1."""
    root = tmp_path_factory.mktemp("ghosted")
    write_pom(root, "groot", packaging="pom", modules=("g1", "g2"))
    write_pom(root / "g1", "g1", deps=(dep("org.apache.commons:commons-lang3:3.14.0"), dep(GHOST)))
    write_pom(root / "g2", "g2", deps=(dep(f"{GROUP}:g1:1.0"), dep("junit:junit:4.13.2", "test")))
    results = resolve_classpaths(load_workspace(root), tmp_path_factory.mktemp("state"))
    return root, results


def test_an_unresolvable_dependency_is_named_with_mavens_message_and_the_rest_resolves(ghosted) -> None:
    root, results = ghosted
    g1, g2 = f"{GROUP}:g1", f"{GROUP}:g2"
    for key in [(g1, "main"), (g1, "test"), (g2, "main"), (g2, "test")]:
        [lim] = results[key].limitations
        assert lim.kind == "classpath_unresolved" and lim.module == key[0] and lim.scope == key[1]
        assert "ghost-lib" in lim.message and key[0] in lim.message
        assert LANG3 in names(results[key])
    assert JUNIT in names(results[(g2, "test")]) and JUNIT not in names(results[(g2, "main")])
    assert not list(root.rglob("target"))


def test_the_reactor_sample_resolves_without_install(samples: Path, tmp_path: Path) -> None:
    before = tree_state(samples / "reactor")
    results = resolve_classpaths(load_workspace(samples / "reactor"), tmp_path)
    app = results[("dev.pybridge.samples:app", "main")]
    assert names(app) == [LANG3] and app.limitations == ()
    assert [p.parent.parent.parent.name for p in app.sourcepath] == ["app", "service", "core"]
    assert tree_state(samples / "reactor") == before


def test_a_pom_that_maven_rejects_gives_classpath_unresolved_with_mavens_message(tmp_path: Path) -> None:
    write_pom(tmp_path / "ws", "versionless", deps=(dep("org.apache.commons:commons-lang3"),))
    results = resolve_classpaths(load_workspace(tmp_path / "ws"), tmp_path / "state", allow_online=False)
    for scope in ("main", "test"):
        [lim] = results[(f"{GROUP}:versionless", scope)].limitations
        assert lim.kind == "classpath_unresolved"
        assert "'dependencies.dependency.version' for org.apache.commons:commons-lang3:jar is missing" in lim.message


def test_maven_failing_as_a_whole_keeps_the_jars_already_in_the_local_repository(reactor, tmp_path: Path) -> None:
    """A stand-in mvn that runs the real one except for build-classpath, which fails as an
    unavailable plugin would (offline, on a machine that never downloaded it)."""
    stub = tmp_path / "mvn"
    stub.write_text("#!/bin/sh\ncase \"$*\" in *build-classpath*) echo '[ERROR] Plugin "
                    "org.apache.maven.plugins:maven-dependency-plugin:3.8.1 could not be resolved'; exit 1;; esac\n"
                    f"exec {shutil.which('mvn')} \"$@\"\n")
    stub.chmod(0o755)
    results = resolve_classpaths(reactor["ws"], tmp_path / "state", mvn_executable=str(stub), allow_online=False)
    [lim] = results[(B, "main")].limitations
    assert "maven-dependency-plugin:3.8.1 could not be resolved" in lim.message
    assert names(results[(B, "main")]) == [LANG3]
    assert JUNIT in names(results[(A, "test")])
