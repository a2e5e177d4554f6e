"""The workspace model read from POMs (no Maven runs here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybridge.errors import WorkspaceError
from pybridge.workspace import ModuleCycleError, SiblingDep, load_workspace
from pybridge.workspace.maven import PomError, sourcepath

GROUP = "test.pybridge.fixture"


def dep(coords: str, scope: str | None = None, *, type: str | None = None, optional: bool = False,
        exclusions: tuple[str, ...] = ()) -> str:
    g, a, *v = coords.split(":")
    parts = [f"<groupId>{g}</groupId>", f"<artifactId>{a}</artifactId>"]
    if v:
        parts.append(f"<version>{v[0]}</version>")
    if type:
        parts.append(f"<type>{type}</type>")
    if scope:
        parts.append(f"<scope>{scope}</scope>")
    if optional:
        parts.append("<optional>true</optional>")
    if exclusions:
        parts.append("<exclusions>" + "".join(
            f"<exclusion><groupId>{x.split(':')[0]}</groupId><artifactId>{x.split(':')[1]}</artifactId></exclusion>"
            for x in exclusions) + "</exclusions>")
    return "<dependency>" + "".join(parts) + "</dependency>"


def write_pom(folder: Path, artifact: str, *, group: str | None = GROUP, version: str | None = "1.0",
              parent: str | None = None, packaging: str | None = None, modules: tuple[str, ...] = (),
              deps: tuple[str, ...] = (), properties: dict[str, str] | None = None, build: str = "",
              extra: str = "", sources: tuple[str, ...] = ("src/main/java",)) -> Path:
    """Write folder/pom.xml; `parent` is "groupId:artifactId:version"; create the `sources` folders."""
    folder.mkdir(parents=True, exist_ok=True)
    body = ["<modelVersion>4.0.0</modelVersion>"]
    if parent:
        g, a, v = parent.split(":")
        body.append(f"<parent><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></parent>")
    if group:
        body.append(f"<groupId>{group}</groupId>")
    body.append(f"<artifactId>{artifact}</artifactId>")
    if version and not parent:
        body.append(f"<version>{version}</version>")
    if packaging:
        body.append(f"<packaging>{packaging}</packaging>")
    if modules:
        body.append("<modules>" + "".join(f"<module>{m}</module>" for m in modules) + "</modules>")
    if properties:
        body.append("<properties>" + "".join(f"<{k}>{v}</{k}>" for k, v in properties.items()) + "</properties>")
    if deps:
        body.append("<dependencies>" + "".join(deps) + "</dependencies>")
    if build:
        body.append(f"<build>{build}</build>")
    body.append(extra)
    (folder / "pom.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n  '
        + "\n  ".join(body) + "\n</project>\n", encoding="utf-8")
    if packaging != "pom":
        for s in sources:
            (folder / s).mkdir(parents=True, exist_ok=True)
    return folder / "pom.xml"


def compiler_plugin(configuration: str) -> str:
    return ("<plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin"
            f"</artifactId><version>3.13.0</version><configuration>{configuration}</configuration></plugin></plugins>")


PARENT = f"{GROUP}:root:1.0"


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    """root (pom) -> a, group (pom) -> b, c; group has its own groupId."""
    write_pom(tmp_path, "root", packaging="pom", modules=("a", "group"),
              properties={"java.version": "11", "maven.compiler.release": "${java.version}",
                          "project.build.sourceEncoding": "ISO-8859-1"})
    write_pom(tmp_path / "a", "a", group=None, parent=PARENT, sources=("src/main/java", "src/test/java"))
    write_pom(tmp_path / "group", "group", group="org.other", parent=PARENT, packaging="pom", modules=("b", "c/"))
    write_pom(tmp_path / "group" / "b", "b", group=None, parent="org.other:group:1.0",
              deps=(dep(f"{GROUP}:a:${{project.version}}"),))
    write_pom(tmp_path / "group" / "c", "c", group=None, parent="org.other:group:1.0",
              deps=(dep("org.other:b:1.0", "runtime"),))
    return tmp_path


def test_modules_are_found_recursively_through_nested_reactors(nested: Path) -> None:
    ws = load_workspace(nested)
    assert [m.id for m in ws.modules] == [
        f"{GROUP}:root", f"{GROUP}:a", "org.other:group", "org.other:b", "org.other:c"]
    assert ws.root == nested.resolve()
    assert ws.module("org.other:c").root == (nested / "group" / "c").resolve()


def test_group_id_is_inherited_from_the_parent_when_absent(nested: Path) -> None:
    ws = load_workspace(nested)
    assert ws.module(f"{GROUP}:a").group_id == GROUP
    assert ws.module("org.other:b").group_id == "org.other"


def test_pom_packaging_has_no_scopes_and_jar_has_main_and_test(nested: Path) -> None:
    ws = load_workspace(nested)
    assert ws.module(f"{GROUP}:root").scopes == {}
    a = ws.module(f"{GROUP}:a")
    assert list(a.scopes) == ["main", "test"]
    assert a.scopes["main"].source_roots == ((nested / "a/src/main/java").resolve(),)
    assert a.scopes["test"].source_roots == ((nested / "a/src/test/java").resolve(),)
    assert ws.module("org.other:b").scopes["test"].source_roots == ()


def test_release_and_encoding_are_interpolated_through_the_parent_chain(nested: Path) -> None:
    b = load_workspace(nested).module("org.other:b")
    assert (b.release, b.release_source, b.encoding) == (11, "maven.compiler.release", "ISO-8859-1")


def test_release_defaults_to_17_and_encoding_to_utf8_when_nothing_says(tmp_path: Path) -> None:
    write_pom(tmp_path, "plain")
    m = load_workspace(tmp_path).modules[0]
    assert (m.release, m.release_source, m.encoding) == (17, "default", "UTF-8")


def test_compiler_plugin_release_beats_the_property_and_source_1_8_means_8(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("x", "y"),
              properties={"maven.compiler.release": "11", "level": "21"},
              build="<pluginManagement>" + compiler_plugin("<release>${level}</release>") + "</pluginManagement>")
    write_pom(tmp_path / "x", "x", group=None, parent=PARENT)
    write_pom(tmp_path / "y", "y", properties={"maven.compiler.source": "1.8"},
              build=compiler_plugin("<encoding>UTF-16</encoding>"))
    ws = load_workspace(tmp_path)
    x, y = ws.module(f"{GROUP}:x"), ws.module(f"{GROUP}:y")
    assert (x.release, x.release_source) == (21, "compiler plugin <release>")
    assert (y.release, y.release_source, y.encoding) == (8, "maven.compiler.source", "UTF-16")


def test_custom_source_directories_are_read_with_basedir_interpolation(tmp_path: Path) -> None:
    write_pom(tmp_path, "custom", sources=("java", "tests"),
              build="<sourceDirectory>${project.basedir}/java</sourceDirectory><testSourceDirectory>tests"
                    "</testSourceDirectory>")
    m = load_workspace(tmp_path).modules[0]
    assert m.scopes["main"].source_roots == ((tmp_path / "java").resolve(),)
    assert m.scopes["test"].source_roots == ((tmp_path / "tests").resolve(),)


def test_generated_source_folders_are_scope_roots_when_they_exist(tmp_path: Path) -> None:
    write_pom(tmp_path, "gen")
    (tmp_path / "target/generated-sources/annotations").mkdir(parents=True)
    (tmp_path / "target/generated-sources/antlr4").mkdir(parents=True)
    (tmp_path / "target/generated-test-sources/test-annotations").mkdir(parents=True)
    m = load_workspace(tmp_path).modules[0]
    t = tmp_path.resolve() / "target"
    assert m.scopes["main"].generated_roots == (t / "generated-sources/annotations", t / "generated-sources/antlr4")
    assert m.scopes["test"].generated_roots == (t / "generated-test-sources/test-annotations",)
    assert m.scopes["main"].roots[0] == (tmp_path / "src/main/java").resolve()


def test_no_generated_roots_when_target_is_absent(tmp_path: Path) -> None:
    write_pom(tmp_path, "gen")
    m = load_workspace(tmp_path).modules[0]
    assert m.scopes["main"].generated_roots == () and m.scopes["test"].generated_roots == ()


def test_annotation_processing_is_detected_from_lombok_processor_paths_and_processor_names(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("lombok", "paths", "names", "off", "plain"),
              deps=(dep("org.projectlombok:lombok:1.18.30", "provided"),))
    write_pom(tmp_path / "lombok", "lombok", group=None, parent=PARENT)
    write_pom(tmp_path / "paths", "paths", build=compiler_plugin(
        "<annotationProcessorPaths><path><groupId>org.mapstruct</groupId><artifactId>mapstruct-processor"
        "</artifactId><version>1.5.5.Final</version></path></annotationProcessorPaths>"))
    write_pom(tmp_path / "names", "names", build=compiler_plugin(
        "<annotationProcessors><annotationProcessor>com.acme.Gen</annotationProcessor></annotationProcessors>"))
    write_pom(tmp_path / "off", "off", deps=(dep("org.projectlombok:lombok:1.18.30", "provided"),),
              build=compiler_plugin("<proc>none</proc>"))
    write_pom(tmp_path / "plain", "plain", deps=(dep("junit:junit:4.13.2", "test"),))
    ws = load_workspace(tmp_path)
    found = {m.artifact_id: m.annotation_processors for m in ws.modules}
    assert found["lombok"] == ("org.projectlombok:lombok",)
    assert found["paths"] == ("org.mapstruct:mapstruct-processor",)
    assert found["names"] == ("com.acme.Gen",)
    assert found["off"] == () and found["plain"] == ()
    assert ws.module(f"{GROUP}:lombok").annotation_processing
    assert not ws.module(f"{GROUP}:plain").annotation_processing


def test_sibling_dependencies_are_transitive_with_maven_scope_mediation(nested: Path) -> None:
    ws = load_workspace(nested)
    assert ws.module("org.other:b").sibling_deps == (SiblingDep(f"{GROUP}:a", "compile", True),)
    assert ws.module("org.other:c").sibling_deps == (
        SiblingDep("org.other:b", "runtime", True), SiblingDep(f"{GROUP}:a", "runtime", False))


def test_optional_test_and_excluded_sibling_dependencies_do_not_travel(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("a", "b", "c", "d", "e"))
    write_pom(tmp_path / "a", "a")
    write_pom(tmp_path / "b", "b")
    write_pom(tmp_path / "c", "c")
    write_pom(tmp_path / "d", "d", deps=(dep(f"{GROUP}:a:1.0", optional=True), dep(f"{GROUP}:b:1.0", "test"),
                                          dep(f"{GROUP}:c:1.0")))
    write_pom(tmp_path / "e", "e", deps=(dep(f"{GROUP}:d:1.0", exclusions=(f"{GROUP}:c",)),))
    ws = load_workspace(tmp_path)
    assert ws.module(f"{GROUP}:e").sibling_deps == (SiblingDep(f"{GROUP}:d", "compile", True),)


def test_sourcepath_adds_sibling_main_roots_and_test_jar_test_roots(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("a", "b", "r"))
    write_pom(tmp_path / "a", "a", sources=("src/main/java", "src/test/java"))
    write_pom(tmp_path / "r", "r")
    write_pom(tmp_path / "b", "b", sources=("src/main/java", "src/test/java"),
              deps=(dep(f"{GROUP}:a:1.0"), dep(f"{GROUP}:a:1.0", "test", type="test-jar"),
                    dep(f"{GROUP}:r:1.0", "runtime")))
    ws = load_workspace(tmp_path)
    b = ws.module(f"{GROUP}:b")
    t = tmp_path.resolve()
    assert sourcepath(ws, b, "main") == (t / "b/src/main/java", t / "a/src/main/java")
    assert sourcepath(ws, b, "test") == (t / "b/src/test/java", t / "b/src/main/java", t / "a/src/main/java",
                                         t / "a/src/test/java", t / "r/src/main/java")


def test_modules_of_profiles_active_by_default_are_included(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", extra=(
        "<profiles><profile><id>all</id><activation><activeByDefault>true</activeByDefault></activation>"
        "<modules><module>on</module></modules></profile><profile><id>other</id>"
        "<modules><module>off</module></modules></profile></profiles>"))
    write_pom(tmp_path / "on", "on")
    assert [m.artifact_id for m in load_workspace(tmp_path).modules] == ["root", "on"]


def test_samples_load_with_the_expected_modules(samples: Path) -> None:
    reactor = load_workspace(samples / "reactor")
    assert [m.artifact_id for m in reactor.modules] == ["reactor-parent", "core", "service", "app"]
    app = reactor.module("dev.pybridge.samples:app")
    assert {sd.module for sd in app.sibling_deps} >= {"dev.pybridge.samples:service", "dev.pybridge.samples:core"}
    assert all(m.release == 17 for m in reactor.modules)
    assert load_workspace(samples / "kitchen-sink").modules[0].id == "dev.pybridge.samples:kitchen-sink"


# ------------------------------------------------------------------------- malformed input

def assert_names(err: pytest.ExceptionInfo[WorkspaceError], path: Path) -> None:
    assert str(path.resolve()) in str(err.value) or str(path) in str(err.value)


def test_a_root_without_pom_xml_is_a_workspace_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="no pom.xml") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path)
    with pytest.raises(WorkspaceError, match="not a folder"):
        load_workspace(tmp_path / "nowhere")


def test_bad_xml_is_a_workspace_error_naming_the_file_and_line(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("a",))
    (tmp_path / "a").mkdir()
    (tmp_path / "a/pom.xml").write_text("<project>\n<artifactId>a</artifactId>\n<groupId>x</project>\n")
    with pytest.raises(PomError, match=r"not well-formed XML \(line 3") as err:
        load_workspace(tmp_path)
    assert err.value.path == (tmp_path / "a/pom.xml").resolve()
    assert_names(err, tmp_path / "a/pom.xml")


def test_an_external_entity_is_refused_and_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    (tmp_path / "pom.xml").write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE project [<!ENTITY x SYSTEM "file://{secret}">]>\n'
        "<project><groupId>g</groupId><artifactId>&x;</artifactId><version>1</version></project>\n")
    with pytest.raises(PomError, match="DOCTYPE") as err:
        load_workspace(tmp_path)
    assert "TOP-SECRET" not in str(err.value)
    assert_names(err, tmp_path / "pom.xml")


def test_entity_expansion_bombs_are_refused(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text(
        '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>'
        "<project><groupId>g</groupId><artifactId>&lol2;</artifactId><version>1</version></project>")
    with pytest.raises(PomError, match="refuses"):
        load_workspace(tmp_path)


def test_a_missing_module_folder_is_a_workspace_error_naming_the_parent_pom(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("ghost",))
    with pytest.raises(PomError, match=r"<module>ghost</module>.*does not exist") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path / "pom.xml")


def test_a_module_folder_without_pom_xml_is_a_workspace_error(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("empty",))
    (tmp_path / "empty").mkdir()
    with pytest.raises(PomError, match="has no pom.xml") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path / "pom.xml")


def test_a_module_cycle_through_modules_is_a_workspace_error(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("a",))
    write_pom(tmp_path / "a", "a", packaging="pom", modules=("..",))
    with pytest.raises(ModuleCycleError, match="module cycle") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path / "a/pom.xml")


def test_a_dependency_cycle_between_siblings_is_a_workspace_error(tmp_path: Path) -> None:
    write_pom(tmp_path, "root", packaging="pom", modules=("a", "b"))
    write_pom(tmp_path / "a", "a", deps=(dep(f"{GROUP}:b:1.0", "test"),))
    write_pom(tmp_path / "b", "b", deps=(dep(f"{GROUP}:a:1.0"),))
    with pytest.raises(ModuleCycleError, match="cycle") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path / "a/pom.xml")
    assert_names(err, tmp_path / "b/pom.xml")


def test_missing_coordinates_and_duplicate_ids_are_workspace_errors(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project><groupId>g</groupId></project>")
    with pytest.raises(PomError, match="no <artifactId>"):
        load_workspace(tmp_path)
    (tmp_path / "pom.xml").write_text("<project><artifactId>a</artifactId></project>")
    with pytest.raises(PomError, match="no <groupId>"):
        load_workspace(tmp_path)
    (tmp_path / "pom.xml").write_text("<settings/>")
    with pytest.raises(PomError, match="not <project>"):
        load_workspace(tmp_path)
    write_pom(tmp_path, "root", packaging="pom", modules=("a", "b"))
    write_pom(tmp_path / "a", "same")
    write_pom(tmp_path / "b", "same")
    with pytest.raises(PomError, match="both declare") as err:
        load_workspace(tmp_path)
    assert_names(err, tmp_path / "b/pom.xml")


def test_a_module_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    write_pom(tmp_path / "ws", "root", packaging="pom", modules=("../elsewhere",))
    write_pom(tmp_path / "elsewhere", "elsewhere")
    with pytest.raises(PomError, match="outside the workspace"):
        load_workspace(tmp_path / "ws")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda s: f"<project>{s}</project>".encode())))
def test_arbitrary_pom_bytes_give_a_workspace_or_a_workspace_error(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "pom.xml").write_bytes(data)
    try:
        load_workspace(tmp_path)
    except WorkspaceError as exc:
        assert "pom.xml" in str(exc)


def test_a_self_referencing_property_does_not_blow_up(tmp_path: Path) -> None:
    write_pom(tmp_path, "loop", properties={"a": "${a}" * 5000, "maven.compiler.release": "${a}"})
    m = load_workspace(tmp_path).modules[0]
    assert (m.release, m.release_source) == (17, "default")


def test_properties_come_from_a_parent_found_in_the_local_repository(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo_parent = tmp_path / "home/.m2/repository/org/ext/ext-parent/3"
    write_pom(repo_parent, "ext-parent", group="org.ext", version="3", packaging="pom",
              properties={"java.version": "21", "maven.compiler.release": "${java.version}"})
    (repo_parent / "pom.xml").rename(repo_parent / "ext-parent-3.pom")
    write_pom(tmp_path / "ws", "app", group=None, parent="org.ext:ext-parent:3")
    m = load_workspace(tmp_path / "ws").modules[0]
    assert (m.id, m.release, m.release_source) == ("org.ext:app", 21, "maven.compiler.release")
