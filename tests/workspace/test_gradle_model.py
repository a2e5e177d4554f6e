"""The Gradle model's rules, on init-script output written here (no Gradle runs): sibling and own outputs
mapped through Gradle's identifiers, scopes, release and encoding precedence, processors and agents,
modules without sources, Android, included builds, limitations; and the cache key's inputs.

The output is what `pybridge-model.gradle` writes (the same JSON shape, read by the same parser); the
real script's output on samples/gradle-reactor is checked in tests/workspace/test_gradle_classpath.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pybridge.workspace.gradle import build_model, inputs, owns, source_places
from pybridge.workspace.gradle.compiler import parse_level
from pybridge.workspace.gradle.fingerprint import Facts, cache_key
from pybridge.workspace.gradle.script import SCRIPT_VERSION, parse_project

Json = dict[str, Any]


def source_set(project_dir: Path, name: str, *, classpath: list[Any] | None = None, **extra: Any) -> Json:
    """A source set as the script writes it. `classpath` items: a Path (a plain file), or an entry dict."""
    (project_dir / "src" / name / "java").mkdir(parents=True, exist_ok=True)
    items = classpath or []
    files = [str(x if isinstance(x, Path) else x["file"]) for x in items]
    entries = [x for x in items if isinstance(x, dict)]
    cap = name[0].upper() + name[1:]
    base = {"name": name, "javaDirs": [str(project_dir / "src" / name / "java")],
            "resourceDirs": [str(project_dir / "src" / name / "resources")],
            "classesDirs": [str(project_dir / "build" / "classes" / "java" / name)],
            "resourcesDir": str(project_dir / "build" / "resources" / name),
            "compileTask": f":{project_dir.name}:compile{'' if name == 'main' else cap}Java",
            "sourceCompatibility": "17", "targetCompatibility": "17", "encoding": None, "compilerArgs": [],
            "generatedDir": None, "classpath": files, "processorPath": [], "processorRule": "classpath scan",
            "processorJars": [], "compileClasspath": {"name": f"{name}CompileClasspath", "entries": entries,
                                                        "failures": []},
            "annotationProcessor": None, "declaredProjects": [], "declaredModules": []}
    base.update(extra)
    return base


def project(root: Path, path: str, *, sets: list[Json] | None = None, plugins: tuple[str, ...] = ("java",),
            group: str = "g", build_root: Path | None = None, build_name: str = "ws", **extra: Any) -> Json:
    build_root = build_root or root
    folder = build_root if path == ":" else build_root / path.strip(":").replace(":", "/")
    folder.mkdir(parents=True, exist_ok=True)
    name = build_root.name if path == ":" else path.rsplit(":", 1)[-1]
    d = {"scriptVersion": SCRIPT_VERSION, "gradle": "4.4.1", "path": path, "name": name, "dir": str(folder),
         "buildFile": str(folder / "build.gradle"),
         "build": {"rootDir": str(build_root), "name": build_name, "root": build_root == root},
         "buildDir": str(folder / "build"), "group": group, "version": "1.0", "plugins": list(plugins),
         "jvm": {"home": "/jdk", "version": "17.0.15", "fileEncoding": "UTF-8"},
         "sourceSets": sets if sets is not None else [], "diagnostics": [],
         "jar": str(folder / "build" / "libs" / f"{name}-1.0.jar")}
    d.update(extra)
    return d


def jar(tmp: Path, gav: str) -> Json:
    g, a, v = gav.split(":")
    f = tmp / "gradle-cache" / g / a / v / f"{a}-{v}.jar"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(b"PK")
    return {"file": str(f), "kind": "module", "gav": gav}


def sibling(folder: Path, path: str, build: str = ":") -> Json:
    return {"file": str(folder), "kind": "project", "project": path, "build": build}


def model(root: Path, *projects: Json):
    return build_model(root, [parse_project(p) for p in projects])


# ---------------------------------------------------------------- classpath, sourcepath, scopes

def test_a_sibling_is_mapped_to_the_source_set_whose_output_gradle_named(tmp_path):
    lib = tmp_path / "lib"
    guava = jar(tmp_path, "com.google.guava:guava:33.0.0-jre")
    libp = project(tmp_path, ":lib", sets=[source_set(lib, "main"), source_set(lib, "test"),
                                           source_set(lib, "testFixtures")])
    app = tmp_path / "app"
    appp = project(tmp_path, ":app", sets=[
        source_set(app, "main", classpath=[sibling(lib / "build" / "libs" / "lib-1.0.jar", ":lib"), guava]),
        source_set(app, "test", classpath=[app / "build" / "classes" / "java" / "main",
                                           sibling(lib / "build" / "classes" / "java" / "testFixtures", ":lib"),
                                           guava])], declaredProjects=[":lib"])
    m = model(tmp_path, libp, appp)
    main, test = m.classpaths[("g:app", "main")], m.classpaths[("g:app", "test")]
    assert [p.name for p in main.classpath] == ["guava-33.0.0-jre.jar"]
    assert main.sourcepath == (app / "src/main/java", lib / "src/main/java")          # the jar is main's
    assert test.sourcepath == (app / "src/test/java", app / "src/main/java", lib / "src/testFixtures/java")
    kinds = [(e.kind, e.source_set) for e in m.scopes[("g:app", "test")].javac_classpath]
    assert kinds == [("own", "main"), ("sibling", "testFixtures"), ("external", None)]
    [dep] = m.workspace.module("g:app").sibling_deps
    assert (dep.module, dep.scope) == ("g:lib", "compile")


def test_a_project_identifier_wins_over_the_path_and_an_unknown_output_is_main(tmp_path):
    """An artifact Gradle says is project :lib maps to :lib, whatever its file is called."""
    lib, app = tmp_path / "lib", tmp_path / "app"
    odd = tmp_path / "elsewhere" / "lib-custom.jar"
    m = model(tmp_path, project(tmp_path, ":lib", sets=[source_set(lib, "main")]),
              project(tmp_path, ":app", sets=[source_set(app, "main", classpath=[sibling(odd, ":lib")])]))
    assert m.classpaths[("g:app", "main")].classpath == ()
    assert m.classpaths[("g:app", "main")].sourcepath == (app / "src/main/java", lib / "src/main/java")


def test_a_plain_file_that_is_no_output_stays_external_in_gradles_order(tmp_path):
    app = tmp_path / "app"
    libs = tmp_path / "app" / "libs" / "vendor.jar"
    libs.parent.mkdir(parents=True)
    libs.write_bytes(b"PK")
    junit = jar(tmp_path, "junit:junit:4.13.2")
    m = model(tmp_path, project(tmp_path, ":app", sets=[source_set(app, "main", classpath=[
        junit, {"file": str(libs), "kind": "file", "id": "vendor.jar"}])]))
    assert [p.name for p in m.classpaths[("g:app", "main")].classpath] == ["junit-4.13.2.jar", "vendor.jar"]


def test_test_gets_mains_compile_only_jars_after_javacs_because_main_is_sources_here(tmp_path):
    app = tmp_path / "app"
    lombok, junit = jar(tmp_path, "org.projectlombok:lombok:1.18.42"), jar(tmp_path, "junit:junit:4.13.2")
    m = model(tmp_path, project(tmp_path, ":app", sets=[
        source_set(app, "main", classpath=[lombok]),
        source_set(app, "test", classpath=[app / "build/classes/java/main", app / "build/resources/main", junit])]))
    test = m.classpaths[("g:app", "test")]
    assert [p.name for p in test.classpath] == ["junit-4.13.2.jar", "lombok-1.18.42.jar"]
    assert [e.path.name for e in m.scopes[("g:app", "test")].javac_classpath] == ["main", "main",
                                                                                 "junit-4.13.2.jar"]


def test_extra_source_sets_are_scopes_after_main_and_test(tmp_path):
    app = tmp_path / "app"
    m = model(tmp_path, project(tmp_path, ":app", sets=[
        source_set(app, "integrationTest"), source_set(app, "main"), source_set(app, "test"),
        source_set(app, "jmh")]))
    assert list(m.workspace.module("g:app").scopes) == ["main", "test", "integrationTest", "jmh"]


def test_only_existing_source_folders_are_roots_and_generated_ones_count_when_they_exist(tmp_path):
    app = tmp_path / "app"
    gen = app / "build" / "generated" / "ap"
    gen.mkdir(parents=True)
    ss = source_set(app, "main", generatedDir=str(gen))
    ss["javaDirs"].append(str(app / "src" / "main" / "kotlin-missing"))
    m = model(tmp_path, project(tmp_path, ":app", sets=[ss]))
    scope = m.workspace.module("g:app").scopes["main"]
    assert scope.source_roots == (app / "src/main/java",) and scope.generated_roots == (gen,)
    assert m.scopes[("g:app", "main")].source_dirs[-1].name == "kotlin-missing"     # watched, not indexed


# ---------------------------------------------------------------- modules

def test_projects_without_java_are_modules_without_sources(tmp_path):
    m = model(tmp_path, project(tmp_path, ":"), project(tmp_path, ":bom", plugins=("java-platform",)),
              project(tmp_path, ":app", sets=[source_set(tmp_path / "app", "main")]))
    mods = {x.id: x for x in m.workspace.modules}
    assert [x.id for x in m.workspace.modules] == [f"g:{tmp_path.name}", "g:app", "g:bom"]
    assert not mods["g:bom"].has_sources and mods["g:bom"].scopes == {}
    assert mods["g:app"].kind == "jar" and mods["g:app"].build_files == (tmp_path / "app" / "build.gradle",)


def test_an_android_project_is_a_named_limitation_and_indexes_nothing(tmp_path):
    m = model(tmp_path, project(tmp_path, ":phone", plugins=("com.android.application",)))
    [lim] = m.limitations
    assert lim.kind == "android_unsupported" and lim.module == "g:phone" and "Android Studio" in lim.message
    assert not m.workspace.module("g:phone").has_sources and m.classpaths == {}


def test_clashing_coordinates_fall_back_to_build_and_path(tmp_path):
    m = model(tmp_path, project(tmp_path, ":a:util", sets=[source_set(tmp_path / "a/util", "main")]),
              project(tmp_path, ":b:util", sets=[source_set(tmp_path / "b/util", "main")]),
              project(tmp_path, ":c", sets=[source_set(tmp_path / "c", "main")]))
    assert [x.id for x in m.workspace.modules] == ["ws::a:util", "ws::b:util", "g:c"]


def test_an_included_build_inside_is_a_module_and_one_outside_is_only_sources(tmp_path):
    root = tmp_path / "ws"
    inside, outside = root / "kit", tmp_path / "far"
    rootp = project(root, ":", plugins=(), includedBuilds=[{"name": "kit", "dir": str(inside)},
                                                           {"name": "far", "dir": str(outside)}])
    kit = project(root, ":", sets=[source_set(inside, "main")], build_root=inside, build_name="kit", group="k")
    far = project(root, ":", sets=[source_set(outside, "main")], build_root=outside, build_name="far", group="f")
    app = project(root, ":app", sets=[source_set(root / "app", "main", declaredModules=["k:kit"], classpath=[
        sibling(inside / "build/classes/java/main", ":", "kit"),
        sibling(outside / "build/libs/far-1.0.jar", ":", "far")])])
    m = model(root, rootp, kit, far, app)
    assert [x.id for x in m.workspace.modules] == ["g:ws", "g:app", "k:kit"]
    assert m.classpaths[("g:app", "main")].sourcepath == (root / "app/src/main/java", inside / "src/main/java",
                                                          outside / "src/main/java")
    assert [(d.module, d.direct) for d in m.workspace.module("g:app").sibling_deps] == [("k:kit", True)]


def test_gradle_8_build_paths_name_included_builds_too(tmp_path):
    root, kit = tmp_path / "ws", tmp_path / "ws" / "kit"
    rootp = project(root, ":", plugins=(), includedBuilds=[{"name": "kit", "dir": str(kit)}])
    kitp = project(root, ":", sets=[source_set(kit, "main")], build_root=kit, build_name="kit", group="k")
    app = project(root, ":app", sets=[source_set(root / "app", "main", classpath=[
        sibling(kit / "build/classes/java/main", ":", ":kit")])])
    m = model(root, rootp, kitp, app)
    assert m.classpaths[("g:app", "main")].sourcepath[-1] == kit / "src/main/java"


# ---------------------------------------------------------------- release, encoding, processors

@pytest.mark.parametrize(("extra", "release", "source"), [
    ({"release": 11, "compilerArgs": ["--release", "9"], "sourceCompatibility": "1.8"}, 11, "options.release"),
    ({"compilerArgs": ["--release=10", "-source", "9"], "sourceCompatibility": "1.8"}, 10, "compilerArgs --release"),
    ({"compilerArgs": ["-source", "9"], "sourceCompatibility": "1.8"}, 9, "compilerArgs -source"),
    ({"sourceCompatibility": "1.8"}, 8, "sourceCompatibility"),
    ({"sourceCompatibility": "VERSION_11"}, 11, "sourceCompatibility"),
    ({"sourceCompatibility": None, "toolchain": 21}, 21, "toolchain"),
    ({"sourceCompatibility": None}, 17, "default"),
])
def test_release_precedence(tmp_path, extra, release, source):
    app = tmp_path / "app"
    m = model(tmp_path, project(tmp_path, ":app", sets=[source_set(app, "main", **extra)]))
    assert m.classpaths[("g:app", "main")].release == release
    assert m.scopes[("g:app", "main")].release_source == source


def test_levels_parse_as_gradle_writes_them():
    assert [parse_level(x) for x in ("1.8", "8", "11", "VERSION_1_8", "VERSION_11", "VERSION_HIGHER", None)] == \
        [8, 8, 11, 8, 11, None, None]


@pytest.mark.parametrize(("extra", "encoding", "source"), [
    ({"encoding": "ISO-8859-1", "compilerArgs": ["-encoding", "UTF-16"]}, "ISO-8859-1", "options.encoding"),
    ({"compilerArgs": ["-encoding", "Cp1252"]}, "Cp1252", "compilerArgs -encoding"),
    ({}, "UTF-8", "default"),
])
def test_encoding_precedence(tmp_path, extra, encoding, source):
    m = model(tmp_path, project(tmp_path, ":app", sets=[source_set(tmp_path / "app", "main", **extra)]))
    scope = m.scopes[("g:app", "main")]
    assert (scope.encoding, scope.encoding_source) == (encoding, source)


def test_lombok_only_on_the_processor_path_is_still_the_agent(tmp_path):
    """Gradle 5+: the annotationProcessor configuration, not the classpath, holds the processor."""
    app = tmp_path / "app"
    lombok = jar(tmp_path, "org.projectlombok:lombok:1.18.42")
    ss = source_set(app, "main", processorPath=[lombok["file"]], processorJars=[lombok["file"]],
                    processorRule="annotationProcessorPath",
                    annotationProcessor={"name": "annotationProcessor", "entries": [lombok], "failures": []})
    m = model(tmp_path, project(tmp_path, ":app", gradle="6.0", sets=[ss]))
    assert [a.name for a in m.agents] == ["lombok-1.18.42.jar"]
    assert m.workspace.module("g:app").annotation_processors == ("org.projectlombok:lombok",)
    assert [lim.kind for lim in m.classpaths[("g:app", "main")].limitations] == ["annotation_processing_not_run"]


def test_a_processor_that_writes_files_without_its_folder_says_how_to_get_it(tmp_path):
    app = tmp_path / "app"
    mapstruct = jar(tmp_path, "org.mapstruct:mapstruct-processor:1.6.3")
    ss = source_set(app, "main", classpath=[mapstruct], processorPath=[mapstruct["file"]],
                    processorJars=[mapstruct["file"]], generatedDir=str(app / "build/generated/ap"))
    m = model(tmp_path, project(tmp_path, ":app", sets=[ss]))
    kinds = {lim.kind: lim.message for lim in m.classpaths[("g:app", "main")].limitations}
    assert list(kinds) == ["annotation_processing_not_run", "generated_sources_absent"]
    assert "gradle :app:compileJava" in kinds["generated_sources_absent"]


def test_what_gradle_could_not_resolve_is_classpath_unresolved_with_its_message(tmp_path):
    app = tmp_path / "app"
    junit = jar(tmp_path, "junit:junit:4.13.2")
    ss = source_set(app, "main", classpath=None, classpathError="Could not resolve all files for configuration")
    ss["classpath"] = None
    ss["compileClasspath"] = {"name": "compileClasspath", "entries": [junit],
                              "failures": ["Could not resolve com.example:ghost:9.9.\nRequired by:\n    project :app"]}
    m = model(tmp_path, project(tmp_path, ":app", sets=[ss]))
    cp = m.classpaths[("g:app", "main")]
    [lim] = cp.limitations
    assert lim.kind == "classpath_unresolved" and "com.example:ghost:9.9. Required by: project :app" in lim.message
    assert "configuration's order" in lim.message and [p.name for p in cp.classpath] == ["junit-4.13.2.jar"]


# ---------------------------------------------------------------- cache key inputs

def _facts(**kw: Any) -> Facts:
    base: dict[str, Any] = {"root": "/ws", "gradle": "wrapper x", "java_home": "/jdk", "java_release": "17",
                            "env": (), "allow_online": True, "script_sha256": "s"}
    base.update(kw)
    return Facts(**base)


def test_owns_settings_or_build_scripts(tmp_path):
    assert not owns(tmp_path)
    (tmp_path / "build.gradle.kts").write_text("")
    assert owns(tmp_path)


def test_the_cache_key_covers_every_input_the_issue_lists(tmp_path):
    ws = tmp_path / "ws"
    files = {"settings.gradle": "include 'a'", "build.gradle": "", "a/build.gradle.kts": "",
             "gradle.properties": "x=1", "a/gradle.properties": "y=1", "gradle/libs.versions.toml": "[versions]",
             "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=x", "buildSrc/src/main/groovy/X.groovy": "",
             "gradle/other.gradle": "", "a/gradle.lockfile": "", "gradle/verification-metadata.xml": ""}
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / "a/src/main/java").mkdir(parents=True)
    (ws / "a/src/main/java/A.java").write_text("class A {}")
    (ws / "a/build/tmp.gradle").parent.mkdir(parents=True)
    (ws / "a/build/tmp.gradle").write_text("")
    (ws / "buildSrc/build/x.gradle").parent.mkdir(parents=True)
    (ws / "buildSrc/build/x.gradle").write_text("")
    env = {"GRADLE_USER_HOME": str(tmp_path / "home")}
    listed = set(inputs(ws, env))
    assert {ws / rel for rel in files} <= listed
    assert tmp_path / "home" / "gradle.properties" in listed
    assert ws / "a/build/tmp.gradle" not in listed and ws / "buildSrc/build/x.gradle" not in listed
    key = cache_key(inputs(ws, env), _facts())
    for rel in files:
        (ws / rel).write_text(files[rel] + " ")
        assert cache_key(inputs(ws, env), _facts()) != key, rel
        (ws / rel).write_text(files[rel])
    assert cache_key(inputs(ws, env), _facts()) == key
    (ws / "a/src/main/java/A.java").write_text("class A { int x; }")         # a source edit is not an input
    assert cache_key(inputs(ws, env), _facts()) == key
    for change in ({"java_home": "/jdk21"}, {"gradle": "wrapper y"}, {"allow_online": False},
                   {"script_sha256": "t"}, {"env": (("GRADLE_OPTS", "-Xmx1g"),)}):
        assert cache_key(inputs(ws, env), _facts(**change)) != key, change


def test_source_places_are_every_configured_folder_existing_or_not(tmp_path):
    app = tmp_path / "app"
    ss = source_set(app, "main", generatedDir=str(app / "build/generated/ap"))
    ss["javaDirs"].append(str(app / "src/main/more"))
    m = model(tmp_path, project(tmp_path, ":app", sets=[ss, source_set(app, "test")]))
    assert source_places(m) == (app / "src/main/java", app / "src/main/more", app / "build/generated/ap",
                                app / "src/test/java")
