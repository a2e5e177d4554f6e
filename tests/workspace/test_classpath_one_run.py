"""One Maven run when no module depends on a sibling: the effective POMs, build-classpath and list on
the real POMs in one mvn command (classpath.py, step 1), and the throwaway reactor only for what that
run did not settle. Each case counts Maven's runs by their logs in the state folder and compares the
classpaths with `mvn dependency:build-classpath` (tests/support/maven_classpaths.py).

Artifacts: small ones from Maven Central, already in the local repository once Maven's side of the
comparison ran (it runs first, so pybridge's offline-first run finds them); a jar made here for the
system scope; and one that exists nowhere, for a test scope that cannot resolve (offline only).
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from pybridge.workspace.maven.mvnconfig import local_repository
from tests.support.maven_classpaths import assert_equal, mavens, names, ours, paths, unresolved
from tests.workspace.test_workspace_model import GROUP, dep, write_pom

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")

HELP_PLUGIN = "org.apache.maven.plugins:maven-help-plugin:3.4.1"
GHOST = "com.example.nonexistent:ghost-lib:9.9.9"
BOTH = ("src/main/java", "src/test/java")
SCOPES = pytest.mark.parametrize("scope", ["main", "test"])


def logs(state: Path) -> list[str]:
    """The names of Maven's runs, in order (one log file per run)."""
    folder = state / "maven" / "logs"
    return [p.stem[3:] for p in sorted(folder.iterdir())] if folder.is_dir() else []


def help_plugin_available(base: Path) -> None:
    """Get maven-help-plugin into the local repository when no test got it yet, so that pybridge's
    first (offline) run can use it."""
    if not (local_repository() / "org/apache/maven/plugins/maven-help-plugin/3.4.1").is_dir():
        pom = write_pom(base / "help-warmup", "help-warmup")
        subprocess.run(["mvn", "-B", "-q", "-f", str(pom), f"{HELP_PLUGIN}:effective-pom",
                        f"-Doutput={base / 'help-warmup.xml'}"], capture_output=True, timeout=300)


def system_jar(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    return path


def system_dep(jar: Path) -> str:
    return (f"<dependency><groupId>{GROUP}.sys</groupId><artifactId>sys-lib</artifactId><version>1.0</version>"
            f"<scope>system</scope><systemPath>{jar}</systemPath></dependency>")


# ---------------------------------------------------------------- one module

@pytest.fixture(scope="module")
def solo(tmp_path_factory: pytest.TempPathFactory):
    """One module: commons-text (compile, brings commons-lang3), commons-lang3 declared for tests (its
    direct scope wins), slf4j-api provided and optional, a system jar, junit for tests (brings
    hamcrest-core)."""
    base = tmp_path_factory.mktemp("solo")
    root = base / "ws"
    jar = system_jar(base / "lib" / "sys-lib.jar")
    write_pom(root, "solo", sources=BOTH,
              deps=(dep("org.apache.commons:commons-text:1.12.0"),
                    dep("org.apache.commons:commons-lang3:3.17.0", "test"),
                    dep("org.slf4j:slf4j-api:2.0.17", "provided", optional=True), system_dep(jar),
                    dep("junit:junit:4.13.2", "test")))
    theirs = mavens(root, phases=False)
    help_plugin_available(base)
    mine, messages = ours(root, base / "state")
    return {"base": base, "root": root, "ours": mine, "maven": theirs, "messages": messages}


def test_a_single_module_resolves_with_one_maven_run(solo) -> None:
    assert logs(solo["base"] / "state") == ["effective-pom-and-classpaths-offline"]
    assert solo["messages"] == ["Reading the effective POMs with Maven, resolving the classpaths in the same run"]


@SCOPES
def test_a_single_modules_one_run_classpaths_equal_mavens(solo, scope: str) -> None:
    assert_equal(solo["maven"], solo["ours"], ".", scope)
    got = names(paths(solo["ours"][(".", scope)]))
    if scope == "main":     # compile, provided and system, in Maven's order; not what is test-only
        assert got == ["commons-text-1.12.0.jar", "slf4j-api-2.0.17.jar", "sys-lib.jar"]
    else:
        assert {"commons-lang3-3.17.0.jar", "junit-4.13.2.jar", "hamcrest-core-1.3.jar", "sys-lib.jar"} <= set(got)


def test_the_one_run_writes_nothing_into_the_workspace(solo) -> None:
    assert sorted(str(p.relative_to(solo["root"])) for p in solo["root"].rglob("*")) == [
        "pom.xml", "src", "src/main", "src/main/java", "src/test", "src/test/java"]


def commands(state: Path) -> list[str]:
    """The mvn command of each run, in order (the first line of its log)."""
    return [p.read_text(encoding="utf-8").splitlines()[0] for p in sorted((state / "maven" / "logs").iterdir())]


def test_the_one_run_goes_through_the_maven_extension_without_a_plugin(solo) -> None:
    [command] = commands(solo["base"] / "state")
    assert "-Dmaven.ext.class.path=" in command and "pybridge-maven-ext.jar" in command
    assert "maven-help-plugin" not in command and "maven-dependency-plugin" not in command


@SCOPES
def test_the_switch_takes_the_plugin_goals_with_the_same_classpaths(solo, monkeypatch: pytest.MonkeyPatch,
                                                                    scope: str) -> None:
    monkeypatch.setenv("PYBRIDGE_MAVEN_EXT", "0")
    state = solo["base"] / f"state-plugins-{scope}"
    mine, _ = ours(solo["root"], state, use_cache=False)
    [command] = commands(state)
    assert "maven.ext.class.path" not in command
    assert f"{HELP_PLUGIN}:effective-pom" in command and "maven-dependency-plugin:3.8.1:build-classpath" in command
    assert_equal(solo["maven"], mine, ".", scope)
    assert paths(mine[(".", scope)]) == paths(solo["ours"][(".", scope)])


def test_without_the_extension_jar_the_one_run_takes_the_plugin_goals(solo, monkeypatch: pytest.MonkeyPatch) -> None:
    jars = solo["base"] / "no-jars"
    jars.mkdir(exist_ok=True)
    monkeypatch.setenv("PYBRIDGE_JARS", str(jars))
    mine, _ = ours(solo["root"], solo["base"] / "state-no-jar", use_cache=False)
    [command] = commands(solo["base"] / "state-no-jar")
    assert "maven.ext.class.path" not in command and "maven-help-plugin" in command
    assert {k: paths(r) for k, r in mine.items()} == {k: paths(r) for k, r in solo["ours"].items()}


def test_an_extension_jar_maven_loads_nothing_from_falls_back_to_the_plugin_goals(
        solo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A jar without the extension's component (as if Maven could not use it): the run writes
    nothing, and the plugin goals run in its place, in the same mode."""
    jars = solo["base"] / "empty-jar"
    jars.mkdir(exist_ok=True)
    with zipfile.ZipFile(jars / "pybridge-maven-ext.jar", "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    monkeypatch.setenv("PYBRIDGE_JARS", str(jars))
    state = solo["base"] / "state-empty-jar"
    mine, _ = ours(solo["root"], state, use_cache=False)
    assert logs(state) == ["effective-pom-and-classpaths-offline", "effective-pom-and-classpaths-offline"]
    first, second = commands(state)
    assert "maven.ext.class.path" in first and "maven-help-plugin" not in first
    assert "maven.ext.class.path" not in second and "maven-help-plugin" in second
    assert {k: paths(r) for k, r in mine.items()} == {k: paths(r) for k, r in solo["ours"].items()}


def test_the_switch_turns_the_one_run_off(solo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYBRIDGE_MAVEN_ONE_RUN", "0")
    mine, _ = ours(solo["root"], solo["base"] / "state-two-runs", use_cache=False)
    assert logs(solo["base"] / "state-two-runs") == ["effective-pom-offline", "classpath-offline"]
    assert {k: paths(r) for k, r in mine.items()} == {k: paths(r) for k, r in solo["ours"].items()}


# ---------------------------------------------------------------- modules without sibling dependencies

@pytest.fixture(scope="module")
def flat(tmp_path_factory: pytest.TempPathFactory):
    """root (pom: dependencyManagement, junit for every module) -> x (commons-text, version managed),
    y (commons-lang3, slf4j-api for tests), z (nothing of its own)."""
    base = tmp_path_factory.mktemp("flat")
    root = base / "ws"
    managed = ("<dependencyManagement><dependencies>" + dep("org.apache.commons:commons-text:1.12.0")
               + "</dependencies></dependencyManagement>")
    write_pom(root, "flat", packaging="pom", modules=("x", "y", "z"), deps=(dep("junit:junit:4.13.2", "test"),),
              extra=managed)
    parent = f"{GROUP}:flat:1.0"
    write_pom(root / "x", "x", group=None, parent=parent, sources=BOTH, deps=(dep("org.apache.commons:commons-text"),))
    write_pom(root / "y", "y", group=None, parent=parent, sources=BOTH,
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep("org.slf4j:slf4j-api:2.0.17", "test")))
    write_pom(root / "z", "z", group=None, parent=parent, sources=BOTH)
    theirs = mavens(root, phases=False)
    help_plugin_available(base)
    mine, _ = ours(root, base / "state")
    return {"base": base, "root": root, "ours": mine, "maven": theirs}


def test_modules_without_sibling_dependencies_resolve_with_one_maven_run(flat) -> None:
    assert logs(flat["base"] / "state") == ["effective-pom-and-classpaths-offline"]
    assert set(flat["ours"]) == {(m, s) for m in ("x", "y", "z") for s in ("main", "test")}


@SCOPES
@pytest.mark.parametrize("module", ["x", "y", "z"])
def test_modules_without_sibling_dependencies_equal_maven(flat, module: str, scope: str) -> None:
    assert_equal(flat["maven"], flat["ours"], module, scope)
    if module == "z":
        assert names(paths(flat["ours"][("z", scope)])) == ([] if scope == "main" else
                                                            ["junit-4.13.2.jar", "hamcrest-core-1.3.jar"])


# ---------------------------------------------------------------- a sibling dependency

@pytest.fixture(scope="module")
def siblings(tmp_path_factory: pytest.TempPathFactory):
    """root -> a (commons-lang3), b (a, junit for tests), c (commons-text, no sibling)."""
    base = tmp_path_factory.mktemp("siblings")
    root = base / "ws"
    write_pom(root, "sibs", packaging="pom", modules=("a", "b", "c"))
    write_pom(root / "a", "a", sources=BOTH, deps=(dep("org.apache.commons:commons-lang3:3.17.0"),))
    write_pom(root / "b", "b", sources=BOTH, deps=(dep(f"{GROUP}:a:1.0"), dep("junit:junit:4.13.2", "test")))
    write_pom(root / "c", "c", sources=BOTH, deps=(dep("org.apache.commons:commons-text:1.12.0"),))
    theirs = mavens(root)
    help_plugin_available(base)
    mine, _ = ours(root, base / "state")
    return {"base": base, "root": root, "ours": mine, "maven": theirs}


def test_a_workspace_with_a_sibling_dependency_keeps_two_runs(siblings) -> None:
    assert logs(siblings["base"] / "state") == ["effective-pom-offline", "classpath-offline"]


@SCOPES
@pytest.mark.parametrize("module", ["a", "b", "c"])
def test_a_workspace_with_a_sibling_dependency_equals_maven(siblings, module: str, scope: str) -> None:
    assert_equal(siblings["maven"], siblings["ours"], module, scope)


# ---------------------------------------------------------------- what the one run cannot settle

def test_a_missing_test_only_artifact_leaves_the_module_to_the_throwaway_reactor(tmp_path: Path) -> None:
    """The real project resolves its test scope for build-classpath and list, so neither file is
    written; the throwaway reactor resolves main on its own, and test gets classpath_unresolved."""
    root = tmp_path / "ws"
    write_pom(root, "ghostly", sources=BOTH,
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep(GHOST, "test")))
    help_plugin_available(tmp_path)
    mine, messages = ours(root, tmp_path / "state", allow_online=False)
    assert logs(tmp_path / "state") == ["effective-pom-and-classpaths-offline", "classpath-offline",
                                        "classpath-one-by-one"]
    assert any("again with Maven, on throwaway POMs" in m for m in messages)
    main, test = mine[(".", "main")], mine[(".", "test")]
    assert names(paths(main)) == ["commons-lang3-3.17.0.jar"] and unresolved(main) == []
    [lim] = unresolved(test)
    assert "ghost-lib" in lim
    assert names(paths(test)) == ["commons-lang3-3.17.0.jar"]     # what resolves on its own is kept
    # Maven's own answer for main, once the test-only artifact is gone
    write_pom(root, "ghostly", sources=BOTH, deps=(dep("org.apache.commons:commons-lang3:3.17.0"),))
    assert paths(main) == mavens(root, scopes=("main",), phases=False)[(".", "main")]


def test_a_module_that_fails_in_the_one_run_goes_to_the_throwaway_reactor_and_the_others_stay_settled(
        tmp_path: Path) -> None:
    """g1 needs an artifact that exists nowhere; g2 resolves in the one run, so the throwaway
    reactor runs for g1 alone."""
    root = tmp_path / "ws"
    write_pom(root, "groot", packaging="pom", modules=("g1", "g2"))
    write_pom(root / "g1", "g1", sources=BOTH, deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep(GHOST)))
    write_pom(root / "g2", "g2", sources=BOTH,
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep("junit:junit:4.13.2", "test")))
    help_plugin_available(tmp_path)
    mine, messages = ours(root, tmp_path / "state", allow_online=False)
    assert logs(tmp_path / "state") == ["effective-pom-and-classpaths-offline", "classpath-offline",
                                        "classpath-one-by-one"]
    assert any("Resolving the classpaths of 1 of 2 modules again" in m for m in messages)
    reactor = (tmp_path / "state" / "maven" / "reactor")
    assert sorted(p.name for p in reactor.iterdir() if p.is_dir()) == ["m1-main", "m1-test"]    # g1 only
    for scope in ("main", "test"):
        assert "ghost-lib" in unresolved(mine[("g1", scope)])[0]
        assert unresolved(mine[("g2", scope)]) == []
    assert names(paths(mine[("g2", "test")])) == ["commons-lang3-3.17.0.jar", "junit-4.13.2.jar",
                                                  "hamcrest-core-1.3.jar"]


def test_a_pom_that_configures_the_dependency_plugin_keeps_two_runs(tmp_path: Path) -> None:
    """A plugin-level configuration would apply to the one run's goals (here: where the files go, into
    the workspace), so the workspace keeps the throwaway reactor."""
    root = tmp_path / "ws"
    build = ("<plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin"
             "</artifactId><configuration><outputFile>${project.basedir}/deps.txt</outputFile></configuration>"
             "</plugin></plugins>")
    write_pom(root, "configured", sources=BOTH, deps=(dep("org.apache.commons:commons-lang3:3.17.0"),), build=build)
    help_plugin_available(tmp_path)
    mine, _ = ours(root, tmp_path / "state", allow_online=False)
    assert logs(tmp_path / "state") == ["effective-pom-offline", "classpath-offline"]
    assert names(paths(mine[(".", "main")])) == ["commons-lang3-3.17.0.jar"]
    assert not (root / "deps.txt").exists()
