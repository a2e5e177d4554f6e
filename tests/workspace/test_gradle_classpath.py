"""pybridge's Gradle model equals what Gradle gives javac (issue 23's acceptance), on samples/gradle-reactor.

One `resolve_gradle` (what a sync will run) on a copy of the sample, in a Gradle user home of its own:
offline first, then online for the projects that failed (a fresh home has nothing), which also
fills the home for the other runs (PYBRIDGE_TEST_GRADLE_HOME names a home to reuse across sessions:
then the offline run already succeeds). The oracle is a real `gradle --offline --debug` compile of
every compile task on a second copy: each `Compiler arguments:` line that Gradle's
NormalizingJavaCompiler logs gives javac's -classpath, -source, -encoding and -processorpath (or
-proc:none), which must equal ours in order, sibling and own outputs mapped to the source roots we
put on the sourcepath instead. Also: the resolved model equals the hand-reviewed golden
(tests/test_gradle_data/reactor-model.golden.json, `--update-goldens` rewrites it); nothing is
written into the tree but buildSrc's output; no Gradle process outlives the run; a cached model
runs no Gradle; an artifact missing offline is a `classpath_unresolved` naming it while the rest
resolves. Gradle runs here: 2 (1 with a prefilled home) + the oracle + the missing artifact.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from pybridge.workspace.gradle import GRADLE, GradleModel, build_model, resolve_gradle
from pybridge.workspace.gradle.compiler import parse_level
from pybridge.workspace.gradle.runner import gradle_user_home
from pybridge.workspace.lombok import apply_agents
from tests.conftest import SAMPLES
from tests.support.gradle_support import gradle_env, prefilled

pytestmark = pytest.mark.skipif(shutil.which("gradle") is None, reason="needs Gradle on PATH")

SAMPLE = SAMPLES / "gradle-reactor"
GOLDEN = Path(__file__).resolve().parent.parent / "test_gradle_data" / "reactor-model.golden.json"
ORACLE_TASKS = ["compileJava", "compileTestJava", "compileIntegrationTestJava"]
BUILDSRC_OUTPUT = ("buildSrc/build", "buildSrc/.gradle")


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under root: (size, mtime_ns); buildSrc's output left out."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if not rel.startswith(BUILDSRC_OUTPUT):
            st = p.lstat()      # a folder's mtime changes with its entries, which are listed themselves
            out[rel] = (st.st_size, st.st_mtime_ns) if p.is_file() else (0, 0)
    return out


@dataclass
class Resolution:
    ws: Path
    state: Path
    home: Path
    prefilled: bool
    model: GradleModel
    before: dict[str, tuple[int, int]]
    after: dict[str, tuple[int, int]]
    leftovers: list[str]


def gradle_processes(marker: str) -> list[str]:
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in text:
            out.append(text)
    return out


@pytest.fixture(scope="module")
def resolution(tmp_path_factory: pytest.TempPathFactory, gradle_home: Path) -> Resolution:
    base = tmp_path_factory.mktemp("gradle-reactor")
    home = gradle_home
    was_prefilled = prefilled(home)
    ws = base / "ws"
    shutil.copytree(SAMPLE, ws)
    before = snapshot(ws)
    state = base / "state"
    model = resolve_gradle(ws, state, env=gradle_env(home), allow_online=True, use_cache=False)
    return Resolution(ws, state, home, was_prefilled, model, before, snapshot(ws), gradle_processes(str(state)))


# ---------------------------------------------------------------- the oracle: javac's arguments

@dataclass
class Javac:
    out: Path                     # -d
    classpath: list[Path]
    source: str | None
    encoding: str | None
    processorpath: list[Path] | None    # None: -proc:none


def javac_calls(log: str, copy: Path, ws: Path) -> list[Javac]:
    """Every `Compiler arguments:` line of a --debug log, paths moved from the oracle's copy to ws."""
    calls = []
    for line in log.splitlines():
        if "Compiler arguments:" not in line:
            continue
        args = line.split("Compiler arguments: ", 1)[1].replace(str(copy), str(ws)).split(" ")

        def value(name: str, args: list[str] = args) -> str | None:
            return args[args.index(name) + 1] if name in args else None

        def files(text: str | None) -> list[Path]:
            return [Path(x) for x in (text or "").split(os.pathsep) if x]

        calls.append(Javac(Path(value("-d") or ""), files(value("-classpath")), value("-source"), value("-encoding"),
                           None if "-proc:none" in args else files(value("-processorpath"))))
    return calls


def javac_oracle(copy: Path, ws: Path, env: dict[str, str], gradle: str = "gradle") -> list[Javac]:
    """A real compile of every compile task on `copy` (of the sample), its javac calls moved to `ws`."""
    shutil.copytree(SAMPLE, copy)
    cmd = [gradle, "--no-daemon", "--offline", "--debug", "--console=plain",
           "--project-cache-dir", str(copy.parent / "project-cache"), *ORACLE_TASKS]
    done = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return javac_calls(done.stdout, copy, ws)


@pytest.fixture(scope="module")
def oracle(resolution: Resolution, tmp_path_factory: pytest.TempPathFactory) -> list[Javac]:
    return javac_oracle(tmp_path_factory.mktemp("gradle-oracle") / "ws", resolution.ws, gradle_env(resolution.home))


def expected_root(output: Path, ws: Path) -> Path:
    """Where a Gradle output of the sample comes from, by the sample's layout (written by hand:
    <project>/build/classes/java/<set> and <project>/build/resources/<set> -> <project>/src/<set>/java)."""
    rel = output.relative_to(ws).parts
    i = rel.index("build")
    return ws.joinpath(*rel[:i], "src", rel[-1], "java")


def assert_as_javac(model: GradleModel, calls: list[Javac], ws: Path) -> None:
    """Per javac call: our javac classpath is its -classpath; our classpath starts with its external entries
    (then main's compile-only jars); our sourcepath is the scope's roots, then the roots of the outputs on
    its -classpath (own first, then siblings: mapped by the sample's layout); -source, -encoding and
    -processorpath (or -proc:none) are ours. Every scope with sources had its javac call."""
    module_at = {m.root: m.id for m in model.workspace.modules}
    by_output = {d: (module_at[p.dir], ss.name)
                 for p in model.projects for ss in p.source_sets for d in ss.classes_dirs}
    seen = set()
    for call in calls:
        key = by_output[call.out]
        seen.add(key)
        scope, cp = model.scopes[key], model.classpaths[key]
        assert [e.path for e in scope.javac_classpath] == call.classpath, key
        externals = [p for p in call.classpath if not p.is_relative_to(ws)]
        assert list(cp.classpath[:len(externals)]) == externals, key
        extras = cp.classpath[len(externals):]          # main's compile-only jars, for sources of main
        assert all(not p.is_relative_to(ws) for p in extras), key
        own = [r for r in model.workspace.module(key[0]).scopes[key[1]].roots]
        mapped = [expected_root(p, ws) for p in call.classpath if p.is_relative_to(ws)]
        home = model.workspace.module(key[0]).root
        owners = sorted(mapped, key=lambda r: not r.is_relative_to(home))     # own source sets, then siblings
        assert list(cp.sourcepath) == list(dict.fromkeys(own + [r for r in owners if r.is_dir()])), key
        assert cp.release == parse_level(call.source), key
        assert scope.encoding == (call.encoding or "UTF-8"), key
        assert list(scope.processor_path) == (call.processorpath or []), key
    with_sources = {k for k, s in model.scopes.items()
                    if model.workspace.module(k[0]).scopes[k[1]].source_roots}
    assert seen == with_sources


def test_every_compile_task_gets_our_classpath_source_level_encoding_and_processor_path(resolution, oracle):
    assert_as_javac(resolution.model, oracle, resolution.ws)
    assert len(oracle) == 7       # textkit main, core main+test, service main, app main+test+integrationTest


GRADLE_HOMES = [Path(h) for h in os.environ.get("PYBRIDGE_GRADLE_HOMES", "").split(os.pathsep) if h]


@pytest.mark.skipif(not GRADLE_HOMES, reason="Gradle 5 to 9 cannot be had on this machine (Debian has 4.4.1 "
                    "only): PYBRIDGE_GRADLE_HOMES=<unpacked gradle-X>:... runs this on a machine with network")
@pytest.mark.parametrize("gradle_home", GRADLE_HOMES, ids=[h.name for h in GRADLE_HOMES])
def test_other_gradle_versions_give_javac_our_classpaths(gradle_home, tmp_path):
    """The version-guarded paths of the init script (annotationProcessor, release, toolchains, archiveFile,
    layout.buildDirectory, build paths, java-platform), judged by the same oracle. JAVA_HOME must suit them."""
    gradle = str(gradle_home / "bin" / "gradle")
    env = {**os.environ, "GRADLE_USER_HOME": str(tmp_path / "home")}
    ws = tmp_path / "ws"
    shutil.copytree(SAMPLE, ws)
    model = resolve_gradle(ws, tmp_path / "state", env=env, allow_online=True, gradle_executable=gradle)
    assert model.limitations == () and model.notes == (), (model.limitations, model.notes)
    assert_as_javac(model, javac_oracle(tmp_path / "oracle" / "ws", ws, env, gradle), ws)


def test_the_sample_covers_what_the_issue_lists(resolution):
    model = resolution.model
    ids = [m.id for m in model.workspace.modules]
    assert "dev.pybridge.samples.textkit:textkit" in ids                      # the included build is a module
    assert not model.workspace.module("dev.pybridge.samples.gradle:platform").has_sources
    assert ("dev.pybridge.samples.gradle:app", "integrationTest") in model.classpaths
    app = model.workspace.module("dev.pybridge.samples.gradle:app")
    core = {d.module: d for d in app.sibling_deps}["dev.pybridge.samples.gradle:core"]
    assert not core.direct                                                    # reached through service's api
    assert [j.name for j in model.agents] == ["lombok-1.18.42.jar"]
    assert model.scopes[("dev.pybridge.samples.gradle:service", "main")].processors == ("org.projectlombok:lombok",)


def test_lombok_on_the_processor_path_runs_as_the_agent_and_lifts_its_limitation(resolution):
    model = resolution.model
    key = ("dev.pybridge.samples.gradle:service", "main")
    assert [lim.kind for lim in model.classpaths[key].limitations] == ["annotation_processing_not_run"]
    adjusted = apply_agents(model.workspace, GRADLE.wording, model.classpaths, model.agents, None)
    assert adjusted[key].limitations == ()


# ---------------------------------------------------------------- the golden model

def render(model: GradleModel, ws: Path, home: Path) -> dict[str, object]:
    """The model as JSON, machine paths normalized: the workspace as $WS, jars from Gradle's cache by name."""
    cache = str(home / "caches")

    def path(p: Path | None) -> str | None:
        if p is None:
            return None
        s = str(p)
        if s.startswith(cache):
            return p.name
        return s.replace(str(ws), "$WS")

    modules = []
    for m in model.workspace.modules:
        modules.append({
            "id": m.id, "kind": m.kind, "build_file": path(m.build_files[0]), "release": m.release,
            "release_source": m.release_source, "encoding": m.encoding,
            "annotation_processors": list(m.annotation_processors),
            "sibling_deps": [[d.module, d.scope, d.direct] for d in m.sibling_deps],
            "scopes": {name: {"source_roots": [path(r) for r in s.source_roots],
                              "generated_roots": [path(r) for r in s.generated_roots]}
                       for name, s in m.scopes.items()}})
    scopes = {}
    for (mid, name), cp in model.classpaths.items():
        s = model.scopes[(mid, name)]
        scopes[f"{mid} {name}"] = {
            "compile_task": s.compile_task,
            "javac_classpath": [f"{e.kind} {path(e.path)}" for e in s.javac_classpath],
            "classpath": [path(p) for p in cp.classpath], "sourcepath": [path(p) for p in cp.sourcepath],
            "release": cp.release, "release_source": s.release_source,
            "encoding": s.encoding, "encoding_source": s.encoding_source,
            "processor_rule": s.processor_rule, "processor_path": [path(p) for p in s.processor_path],
            "processors": list(s.processors), "limitations": [lim.kind for lim in cp.limitations]}
    return {"gradle": model.gradle_version, "modules": modules, "scopes": scopes,
            "agents": [path(a) for a in model.agents], "limitations": [lim.kind for lim in model.limitations]}


def test_the_resolved_model_equals_the_reviewed_golden(resolution, update_goldens):
    got = render(resolution.model, resolution.ws, resolution.home)
    text = json.dumps(got, indent=1) + "\n"
    if update_goldens:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert json.loads(GOLDEN.read_text(encoding="utf-8")) == got


# ---------------------------------------------------------------- how it ran

def test_nothing_is_written_into_the_tree_but_buildsrc_output(resolution):
    assert resolution.after == resolution.before
    assert all((resolution.ws / d).is_dir() for d in BUILDSRC_OUTPUT)       # the documented exception
    assert not (resolution.ws / ".gradle").exists()


def test_no_gradle_process_outlives_the_run(resolution):
    assert resolution.leftovers == []


def test_it_runs_offline_first_and_online_only_for_the_projects_that_failed(resolution):
    logs = sorted((resolution.state / "gradle" / "logs").glob("*.log"))
    commands = [log.read_text(encoding="utf-8").splitlines()[0] for log in logs]
    assert "--offline" in commands[0] and "--no-daemon" in commands[0]
    if resolution.prefilled:
        assert len(commands) == 1
        return
    assert len(commands) == 2 and "--offline" not in commands[1]
    only = re.search(r"-Dpybridge\.only=(\S+)", commands[1])
    assert only is not None
    # the projects with external dependencies; not the root, the platform, nor textkit
    assert sorted(s.split("-", 1)[1] for s in only.group(1).split(",")) == ["app", "core", "service"]
    assert not any(lim for cp in resolution.model.classpaths.values() for lim in cp.limitations
                   if lim.kind == "classpath_unresolved")


def test_a_cached_model_runs_no_gradle(resolution, tmp_path):
    state = tmp_path / "state" / "gradle"
    state.mkdir(parents=True)
    shutil.copy2(resolution.state / "gradle" / "model-cache.json", state / "model-cache.json")
    again = resolve_gradle(resolution.ws, tmp_path / "state", env=gradle_env(resolution.home), allow_online=True)
    assert not (state / "logs").exists()
    assert again.classpaths == resolution.model.classpaths and again.workspace == resolution.model.workspace


def test_an_artifact_missing_offline_is_classpath_unresolved_naming_it(resolution, tmp_path):
    home = tmp_path / "home"
    # the whole cache: its compiled build scripts too, which Gradle would otherwise compile again
    shutil.copytree(resolution.home / "caches", home / "caches")
    # Gradle 4.4 trusts its index for a jar that is gone (see the next test); without the module's
    # metadata too, the module was never downloaded as far as Gradle knows
    for gone in (home / "caches" / "modules-2").glob("*/**/org.slf4j"):
        shutil.rmtree(gone)
    model = resolve_gradle(resolution.ws, tmp_path / "state", env=gradle_env(home), allow_online=False)
    assert gradle_user_home(gradle_env(home)) == home
    app = ("dev.pybridge.samples.gradle:app", "main")
    [lim] = [lim for lim in model.classpaths[app].limitations if lim.kind == "classpath_unresolved"]
    assert "org.slf4j:slf4j-api:2.0.17" in lim.message
    assert [p.name for p in model.classpaths[app].classpath] == ["commons-lang3-3.14.0.jar"]
    core = ("dev.pybridge.samples.gradle:core", "main")
    assert model.classpaths[core].limitations == ()


def test_a_jar_gone_from_gradles_cache_is_classpath_unresolved(resolution, tmp_path):
    """Gradle 4.4 resolves offline to a cached jar's path without looking at the file (no Gradle run here:
    the model of the resolution, its slf4j jar deleted in a copy of the output)."""
    projects = list(resolution.model.projects)
    app = next(p for p in projects if p.name == "app")
    main = app.source_set("main")
    assert main is not None and main.classpath is not None and main.compile_classpath is not None
    gone = tmp_path / "slf4j-api-2.0.17.jar"
    moved = dataclasses.replace(main, classpath=tuple(gone if f.name == gone.name else f for f in main.classpath),
                                compile_classpath=dataclasses.replace(main.compile_classpath, entries=tuple(
                                    dataclasses.replace(e, file=gone) if e.file.name == gone.name else e
                                    for e in main.compile_classpath.entries)))
    projects[projects.index(app)] = dataclasses.replace(app, source_sets=tuple(
        moved if s.name == "main" else s for s in app.source_sets))
    model = build_model(resolution.ws, projects)
    [lim] = model.classpaths[("dev.pybridge.samples.gradle:app", "main")].limitations
    assert lim.kind == "classpath_unresolved" and "org.slf4j:slf4j-api:2.0.17" in lim.message
