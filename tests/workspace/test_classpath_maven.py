"""pybridge's classpaths equal Maven's: each case is resolved by `resolve_classpaths` (what `sync` runs)
and by `mvn dependency:build-classpath` on a copy of the same tree, then compared per module and scope
as ordered lists of jar paths (the two sides: tests/support/maven_classpaths.py, which says what Maven's
answer for a scope is).

Cases: a parent chain with dependencyManagement and properties and a sibling dependency; a direct
test or runtime dependency that a compile dependency also brings; a BOM import; profiles activated by JDK and by
a property given in `.mvn/maven.config`; a `settings.xml` named there whose mirror serves an artifact
that exists only in a `file://` repository made here; offline mode on a private local repository;
a dependency that does not exist (and a sync that still publishes); and the classpath cache, which a
changed POM, settings file or profile-activating property must invalidate; and the bundled samples
(bench/classpath_equal.py does the same for the bench projects). Artifacts come from Maven
Central (small ones), and the fabricated ones from the folders made here; the fabricated group is
taken out of the local repository before and after, so only the mirror can have brought it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from pybridge.sync.pipeline import sync
from pybridge.workspace import load_workspace
from pybridge.workspace.maven.cachekey import cache_key
from pybridge.workspace.maven.mvnconfig import local_repository
from tests.support.maven_classpaths import BUILD_CLASSPATH, assert_equal, mavens, names, ours, paths, used_maven
from tests.workspace.test_workspace_model import GROUP, dep, write_pom

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")

HELP_PLUGIN = "org.apache.maven.plugins:maven-help-plugin:3.4.1"
FAB_GROUP = "dev.pybridge.fabricated"
FAB_LIB = f"{FAB_GROUP}:fab-lib"
GHOST = "com.example.nonexistent:ghost-lib:9.9.9"


# ---------------------------------------------------------------- fabricated artifacts

def fabricate(repo: Path, version: str, deps: tuple[str, ...] = ()) -> Path:
    """A tiny jar and its POM in repository layout under `repo` (maven-metadata.xml lists every version)."""
    folder = repo / FAB_GROUP.replace(".", "/") / "fab-lib"
    (folder / version).mkdir(parents=True, exist_ok=True)
    jar = folder / version / f"fab-lib-{version}.jar"
    with zipfile.ZipFile(jar, "w") as z:
        z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        z.writestr("dev/pybridge/fabricated/version.txt", f"fab-lib {version} from {repo}\n")
    (folder / version / f"fab-lib-{version}.pom").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        f"<groupId>{FAB_GROUP}</groupId><artifactId>fab-lib</artifactId><version>{version}</version>"
        + ("<dependencies>" + "".join(deps) + "</dependencies>" if deps else "") + "</project>\n")
    versions = sorted(p.name for p in folder.iterdir() if p.is_dir())
    (folder / "maven-metadata.xml").write_text(
        f"<metadata><groupId>{FAB_GROUP}</groupId><artifactId>fab-lib</artifactId><versioning>"
        f"<latest>{versions[-1]}</latest><release>{versions[-1]}</release><versions>"
        + "".join(f"<version>{v}</version>" for v in versions) + "</versions></versioning></metadata>\n")
    return jar


def settings(path: Path, mirror_id: str, repo: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0"><mirrors><mirror>'
        f"<id>{mirror_id}</id><mirrorOf>fabrepo</mirrorOf><url>{repo.as_uri()}</url>"
        "</mirror></mirrors></settings>\n")


def forget_fabricated() -> None:
    """Take the fabricated artifacts out of the local repository, so only a mirror can bring them back."""
    shutil.rmtree(local_repository() / FAB_GROUP.replace(".", "/"), ignore_errors=True)


FAB_REPOSITORY = ("<repositories><repository><id>fabrepo</id><url>https://fabricated.invalid/maven</url>"
                  "</repository></repositories>")


# ---------------------------------------------------------------- one workspace, most cases

def profile(pid: str, activation: str, *deps: str) -> str:
    return (f"<profile><id>{pid}</id><activation>{activation}</activation>"
            f"<dependencies>{''.join(deps)}</dependencies></profile>")


def write_workspace(root: Path, fab: Path) -> None:
    """root (pom: properties, dependencyManagement with a BOM import, junit for every module) ->
    core, apps (pom) -> app, late and peer, shadow, bom, profiled, mirrored; `.mvn/maven.config` sets a property and
    names `.mvn/settings.xml`, whose mirror serves `fabrepo` from the folder `fab`."""
    managed = ("<dependencyManagement><dependencies>"
               + dep("org.apache.commons:commons-lang3:${lang3.version}")
               + dep("org.apache.commons:commons-text:1.12.0")
               + dep("org.junit:junit-bom:${junit5.version}", "import", type="pom")
               + "</dependencies></dependencyManagement>")
    write_pom(root, "root", packaging="pom", modules=("core", "apps", "shadow", "bom", "profiled", "mirrored"),
              properties={"lang3.version": "3.17.0", "junit5.version": "5.10.0"},
              deps=(dep("junit:junit:4.13.2", "test"),), extra=managed)
    parent = f"{GROUP}:root:1.0"
    both = ("src/main/java", "src/test/java")
    # core: commons-text (version managed) brings commons-lang3, whose version the parent manages
    write_pom(root / "core", "core", group=None, parent=parent, sources=both,
              deps=(dep("org.apache.commons:commons-text"),))
    write_pom(root / "apps", "apps", group=None, parent=parent, packaging="pom", modules=("app", "late", "peer"),
              properties={"hamcrest.version": "2.2"})
    # app: a grandchild; its sibling core brings core's dependencies; a property from its parent
    write_pom(root / "apps/app", "app", group=None, parent=f"{GROUP}:apps:1.0", sources=both,
              deps=(dep(f"{GROUP}:core:${{project.version}}"),
                    dep("org.hamcrest:hamcrest:${hamcrest.version}", "test")))
    # late: commons-lang3 declared for run time only, while its sibling core brings it for compiling
    write_pom(root / "apps/late", "late", group=None, parent=f"{GROUP}:apps:1.0", sources=both,
              deps=(dep(f"{GROUP}:core:1.0"), dep("org.apache.commons:commons-lang3", "runtime")))
    # peer: its sibling core declared for tests only, while its sibling app brings core for compiling
    write_pom(root / "apps/peer", "peer", group=None, parent=f"{GROUP}:apps:1.0", sources=both,
              deps=(dep(f"{GROUP}:app:1.0"), dep(f"{GROUP}:core:1.0", "test")))
    # shadow: commons-lang3 declared for tests only, while commons-text (compile) brings it too
    write_pom(root / "shadow", "shadow", group=None, parent=parent, sources=both,
              deps=(dep("org.apache.commons:commons-text"), dep("org.apache.commons:commons-lang3", "test")))
    # bom: versions from junit-bom, imported by the parent
    write_pom(root / "bom", "bom", group=None, parent=parent, sources=both,
              deps=(dep("org.junit.platform:junit-platform-commons"),
                    dep("org.junit.jupiter:junit-jupiter-api", "test")))
    profiles = ("<profiles>"
                + profile("new-jdk", "<jdk>[17,)</jdk>", dep("org.apache.commons:commons-lang3"))
                + profile("old-jdk", "<jdk>(,1.8]</jdk>", dep("org.hamcrest:hamcrest:2.2"))
                + profile("with-text", "<property><name>withText</name></property>",
                          dep("org.apache.commons:commons-text"))
                + profile("without-text", "<property><name>!withText</name></property>",
                          dep("org.apache.commons:commons-collections4:4.4"))
                + "</profiles>")
    write_pom(root / "profiled", "profiled", group=None, parent=parent, sources=both, extra=profiles)
    write_pom(root / "mirrored", "mirrored", group=None, parent=parent, sources=both,
              deps=(dep(f"{FAB_LIB}:[1.0,2.0)"),), extra=FAB_REPOSITORY)
    (root / ".mvn").mkdir(exist_ok=True)
    (root / ".mvn/maven.config").write_text("-DwithText\n-s .mvn/settings.xml\n")
    settings(root / ".mvn/settings.xml", "fab-mirror", fab)


@pytest.fixture(scope="module")
def fabricated():
    forget_fabricated()
    yield
    forget_fabricated()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, fabricated):
    base = tmp_path_factory.mktemp("cpmaven")
    fab = base / "fab-repo"
    jar = fabricate(fab, "1.0", (dep("org.apache.commons:commons-lang3:3.14.0"),))
    root = base / "ws"
    write_workspace(root, fab)
    mine, messages = ours(root, base / "state")
    theirs = mavens(root)
    return {"base": base, "root": root, "fab": fab, "jar": jar, "ours": mine, "maven": theirs, "messages": messages}


SCOPES = pytest.mark.parametrize("scope", ["main", "test"])


@SCOPES
@pytest.mark.parametrize("module", ["core", "apps/app"])
def test_a_parent_chains_dependency_management_and_properties_and_a_siblings_dependencies(
        workspace, module: str, scope: str) -> None:
    assert_equal(workspace["maven"], workspace["ours"], module, scope)


def test_the_managed_version_wins_over_the_transitive_one_and_junit_is_inherited(workspace) -> None:
    app = names(paths(workspace["ours"][("apps/app", "test")]))
    assert "commons-lang3-3.17.0.jar" in app and "junit-4.13.2.jar" in app and "hamcrest-2.2.jar" in app


@SCOPES
def test_a_sibling_declared_for_tests_keeps_test_scope_although_another_sibling_brings_it(
        workspace, scope: str) -> None:
    assert_equal(workspace["maven"], workspace["ours"], "apps/peer", scope)
    peer = workspace["ours"][("apps/peer", scope)]
    if scope == "main":
        assert peer.classpath == () and not any("core" in p.parts for p in peer.sourcepath)
    else:
        assert "commons-text-1.12.0.jar" in names(paths(peer))


@SCOPES
@pytest.mark.parametrize("module", ["shadow", "apps/late"])
def test_a_direct_test_or_runtime_dependency_keeps_its_scope_although_a_compile_dependency_brings_it(
        workspace, module: str, scope: str) -> None:
    """Maven's direct declaration wins the conflict with its own scope: commons-lang3 is not on the
    compile classpath, though commons-text (directly, or through the sibling core) brings it."""
    assert_equal(workspace["maven"], workspace["ours"], module, scope)
    if scope == "main":
        assert names(paths(workspace["ours"][(module, "main")])) == ["commons-text-1.12.0.jar"]


@SCOPES
def test_a_bom_import_in_the_parent_gives_the_versions(workspace, scope: str) -> None:
    assert_equal(workspace["maven"], workspace["ours"], "bom", scope)
    assert "junit-platform-commons-1.10.0.jar" in names(paths(workspace["ours"][("bom", scope)]))


@SCOPES
def test_profiles_activated_by_jdk_and_by_a_property_from_maven_config(workspace, scope: str) -> None:
    assert_equal(workspace["maven"], workspace["ours"], "profiled", scope)
    got = names(paths(workspace["ours"][("profiled", scope)]))
    assert "commons-lang3-3.17.0.jar" in got and "commons-text-1.12.0.jar" in got
    assert "hamcrest-2.2.jar" not in got and "commons-collections4-4.4.jar" not in got


@SCOPES
def test_a_settings_file_named_in_maven_config_mirrors_a_repository(workspace, scope: str) -> None:
    assert_equal(workspace["maven"], workspace["ours"], "mirrored", scope)
    [fab] = [Path(p) for p in paths(workspace["ours"][("mirrored", scope)]) if "fab-lib" in p]
    # the declared repository's host does not exist: the jar can only have come through the mirror
    assert fab.name == "fab-lib-1.0.jar" and fab.read_bytes() == workspace["jar"].read_bytes()


def test_nothing_is_written_into_the_workspace(workspace) -> None:
    assert not list(workspace["root"].rglob("target")) and not list(workspace["root"].rglob("*.cp"))


# ---------------------------------------------------------------- offline

@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory):
    """A private local repository named in `.mvn/maven.config`, filled from Maven Central by one online
    mvn run of the two plugins pybridge uses (which also gives Maven's online answer); then pybridge
    offline and `mvn -o`."""
    base = tmp_path_factory.mktemp("offline")
    repo, root = base / "repo", base / "ws"
    write_pom(root, "off", sources=("src/main/java", "src/test/java"),
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep("junit:junit:4.13.2", "test")))
    (root / ".mvn").mkdir()
    (root / ".mvn/maven.config").write_text(f"-Dmaven.repo.local={repo}\n")
    fill = subprocess.run(["mvn", "-B", "-q", f"{HELP_PLUGIN}:effective-pom", f"-Doutput={base / 'effective.xml'}",
                           BUILD_CLASSPATH, f"-Dmdep.outputFile={base / 'online.cp'}"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert fill.returncode == 0, fill.stdout[-3000:]
    mine, _ = ours(root, base / "state", allow_online=False)
    theirs = mavens(root, offline=True, phases=False)
    return {"base": base, "root": root, "repo": repo, "online": (base / "online.cp").read_text().strip().split(":"),
            "ours": mine, "maven": theirs}


@SCOPES
def test_offline_resolution_from_a_prefilled_local_repository_equals_mavens(offline, scope: str) -> None:
    assert_equal(offline["maven"], offline["ours"], ".", scope)
    got = paths(offline["ours"][(".", scope)])
    if scope == "test":
        assert got == offline["online"]
    assert got and all(Path(p).is_relative_to(offline["repo"]) for p in got)


def test_offline_an_artifact_missing_from_the_local_repository_is_a_named_limitation(offline) -> None:
    root, repo = offline["root"], offline["repo"]
    write_pom(root, "off", sources=("src/main/java", "src/test/java"),
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep("org.hamcrest:hamcrest:2.2"),
                    dep("junit:junit:4.13.2", "test")))
    mine, _ = ours(root, offline["base"] / "state", allow_online=False)
    assert mavens(root, offline=True, phases=False, scopes=("test",))[(".", "test")] is None
    for scope in ("main", "test"):
        result = mine[(".", scope)]
        [lim] = result.limitations
        assert lim.kind == "classpath_unresolved" and "org.hamcrest:hamcrest:jar:2.2" in lim.message
        # what resolves on its own is kept; nothing comes from another repository
        assert "commons-lang3-3.17.0.jar" in names(paths(result))
        assert all(p.is_relative_to(repo) for p in result.classpath), paths(result)
    assert not (repo / "org/hamcrest/hamcrest").exists()


# ---------------------------------------------------------------- a dependency that does not resolve

@pytest.fixture(scope="module")
def ghosted(tmp_path_factory: pytest.TempPathFactory):
    """g1 needs an artifact that exists nowhere; g2, beside it, resolves."""
    base = tmp_path_factory.mktemp("ghosted")
    root = base / "ws"
    write_pom(root, "groot", packaging="pom", modules=("g1", "g2"))
    write_pom(root / "g1", "g1", sources=("src/main/java", "src/test/java"),
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep(GHOST)))
    write_pom(root / "g2", "g2", sources=("src/main/java", "src/test/java"),
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), dep("junit:junit:4.13.2", "test")))
    for module in ("g1", "g2"):
        (root / module / "src/main/java" / f"{module.upper()}.java").write_text(
            f"public class {module.upper()} {{ String s = org.apache.commons.lang3.StringUtils.trim(\" \"); }}\n")
    mine, _ = ours(root, base / "state")
    return {"base": base, "root": root, "ours": mine, "maven": mavens(root, phases=False)}


@SCOPES
def test_a_dependency_that_does_not_exist_is_named_and_the_rest_of_the_workspace_resolves(ghosted, scope) -> None:
    assert ghosted["maven"][("g1", scope)] is None
    g1 = ghosted["ours"][("g1", scope)]
    [lim] = g1.limitations
    assert lim.kind == "classpath_unresolved" and lim.module == f"{GROUP}:g1" and lim.scope == scope
    assert GHOST.replace(":9.9.9", ":jar:9.9.9") in lim.message
    assert names(paths(g1)) == ["commons-lang3-3.17.0.jar"]    # what resolves on its own is kept
    assert_equal(ghosted["maven"], ghosted["ours"], "g2", scope)


def test_a_sync_with_a_dependency_that_does_not_exist_publishes_and_names_it(ghosted, worker) -> None:
    result = sync(ghosted["root"], state_dir=ghosted["base"] / "sync-state", worker=worker, allow_online=False)
    assert result.published and result.generation == 1
    unresolved = {(lim["module"], lim["scope"]) for lim in result.limitations if lim["kind"] == "classpath_unresolved"}
    assert unresolved == {(f"{GROUP}:g1", "main")}      # the scopes indexed: those with sources
    # both are indexed, and bind: commons-lang3 is on g1's classpath too
    assert {m["module"]: (m["files"], m["bindingComplete"]) for m in result.modules if m["scope"] == "main"} == {
        f"{GROUP}:g1": (1, 1), f"{GROUP}:g2": (1, 1)}


# ---------------------------------------------------------------- the cache

def test_the_cache_answers_while_nothing_changes_and_a_changed_property_settings_file_or_pom_invalidates_it(
        workspace) -> None:
    """Runs last on `workspace`, since it changes it."""
    root, base = workspace["root"], workspace["base"]

    def key() -> str:
        return cache_key(load_workspace(root), True, shutil.which("mvn"), dict(os.environ))

    again, messages = ours(root, base / "state")
    assert not used_maven(messages)
    assert {k: paths(r) for k, r in again.items()} == {k: paths(r) for k, r in workspace["ours"].items()}
    keys = [key()]
    # a profile-activating property: without -DwithText, profile without-text replaces with-text
    (root / ".mvn/maven.config").write_text("-s .mvn/settings.xml\n")
    keys.append(key())
    # the settings file: a mirror with another id, serving a repository that also has fab-lib 1.1
    fab2 = base / "fab-repo-2"
    fabricate(fab2, "1.0")
    jar = fabricate(fab2, "1.1")
    settings(root / ".mvn/settings.xml", "fab-mirror-2", fab2)
    keys.append(key())
    # a POM: core takes another commons-text
    write_pom(root / "core", "core", group=None, parent=f"{GROUP}:root:1.0", sources=("src/main/java",),
              deps=(dep("org.apache.commons:commons-text:1.11.0"),))
    keys.append(key())
    assert len(set(keys)) == 4

    mine, messages = ours(root, base / "state")
    assert used_maven(messages)
    theirs = mavens(root, scopes=("test",), projects="core,profiled,mirrored", phases=False)
    for module in ("core", "profiled", "mirrored"):
        assert_equal(theirs, mine, module, "test")
    assert "commons-text-1.11.0.jar" in names(paths(mine[("core", "test")]))
    profiled = names(paths(mine[("profiled", "test")]))
    assert "commons-collections4-4.4.jar" in profiled and "commons-text-1.12.0.jar" not in profiled
    [fab] = [p for p in mine[("mirrored", "test")].classpath if "fab-lib" in p.name]
    assert fab.name == "fab-lib-1.1.jar" and fab.read_bytes() == jar.read_bytes()


def test_an_environment_variable_a_pom_names_is_part_of_the_cache_key(tmp_path: Path) -> None:
    write_pom(tmp_path, "envy", extra=profile("flavored", "<property><name>env.PB_FLAVOR</name></property>",
                                              dep("org.apache.commons:commons-lang3:3.17.0")))
    ws = load_workspace(tmp_path)
    plain = cache_key(ws, True, "mvn", {"HOME": "/x"})
    assert cache_key(ws, True, "mvn", {"HOME": "/x", "OTHER": "1"}) == plain
    assert cache_key(ws, True, "mvn", {"HOME": "/x", "PB_FLAVOR": "1"}) != plain


def test_the_local_repository_is_the_one_the_workspaces_maven_configuration_names(tmp_path: Path) -> None:
    """What the fallback and the parent lookups read: -Dmaven.repo.local on Maven's command line
    (.mvn/maven.config) beats MAVEN_OPTS, which beats the settings' <localRepository>."""
    root = tmp_path / "ws"
    (root / ".mvn").mkdir(parents=True)
    assert local_repository(root, {}) == local_repository(None, {})     # ~/.m2: its settings, or repository
    (root / ".mvn/settings.xml").write_text("<settings><localRepository>from-settings</localRepository></settings>")
    (root / ".mvn/maven.config").write_text("-s .mvn/settings.xml\n")
    assert local_repository(root, {}) == root / "from-settings"
    assert local_repository(root, {"MAVEN_OPTS": "-Xmx1g -Dmaven.repo.local=/opt/r"}) == Path("/opt/r")
    (root / ".mvn/maven.config").write_text("-s .mvn/settings.xml -Dmaven.repo.local=cli-repo\n")
    assert local_repository(root, {"MAVEN_OPTS": "-Dmaven.repo.local=/opt/r"}) == root / "cli-repo"
    # a workspace below the folder that holds .mvn takes that folder's configuration, as mvn does
    (root / "sub").mkdir()
    assert local_repository(root / "sub", {}) == root / "sub" / "cli-repo"


# ---------------------------------------------------------------- the samples

# Every bundled sample that Maven resolves online: each (module, scope) pybridge resolves (a module with
# main sources has a test scope too) -> a jar that must be on that classpath, so that equal does not mean
# both empty (None: the sample has no dependency, both must be empty).
# samples/broken is left out: it is broken on purpose, and its ghost-lib resolves nowhere, so Maven writes
# no classpath to compare with (the `ghosted` case above checks what pybridge does then).
SAMPLE_KEYS: dict[str, dict[tuple[str, str], str | None]] = {
    "kitchen-sink": {(".", "main"): None, (".", "test"): None},
    "lombok": {(".", "main"): "lombok-1.18.42.jar", (".", "test"): "slf4j-api-2.0.17.jar"},
    "reactor": {("core", "main"): "commons-lang3-3.14.0.jar", ("core", "test"): "junit-4.13.2.jar",
                ("service", "main"): "commons-lang3-3.14.0.jar", ("service", "test"): "commons-lang3-3.14.0.jar",
                ("app", "main"): "commons-lang3-3.14.0.jar", ("app", "test"): "hamcrest-core-1.3.jar"},
}


@pytest.mark.parametrize("name", sorted(SAMPLE_KEYS))
def test_a_samples_classpaths_equal_mavens(tmp_path: Path, samples: Path, name: str) -> None:
    """The sample, copied; one mvn run per scope pybridge resolves, with the compile phases only when
    a module depends on a sibling."""
    root = tmp_path / name
    shutil.copytree(samples / name, root, ignore=shutil.ignore_patterns("target"))
    mine, _ = ours(root, tmp_path / "state")
    expected = SAMPLE_KEYS[name]
    assert set(mine) == set(expected)
    scopes = tuple(s for s in ("main", "test") if any(scope == s for _, scope in mine))
    siblings = any(m.sibling_deps for m in load_workspace(root).modules)
    theirs = mavens(root, scopes=scopes, phases=siblings)
    for (module, scope), jar in sorted(expected.items()):
        assert_equal(theirs, mine, module, scope)
        got = names(paths(mine[(module, scope)]))
        assert jar in got if jar else got == []
