"""Running Gradle: the wrapper before `gradle` on PATH, its version and distribution read before it runs,
the JDK chosen by Gradle's compatibility table, offline first and online only for what failed, a
timeout that kills the whole process group, and each failure as a named limitation saying what to do.

A real wrapper (generated once by Debian's `gradle wrapper`, the only Gradle run here) serves the
wrapper cases; it points at a `.invalid` host (RFC 2606: never resolves), so its download fails on
any machine. Fake `gradle` scripts serve the exit codes, messages and hangs that a real Gradle here
cannot produce on demand.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pybridge.workspace.gradle import resolve_gradle
from pybridge.workspace.gradle.runner import (
    GradleRunner,
    Launcher,
    find_launcher,
    installed_jdks,
    java_major,
    max_java,
)
from pybridge.workspace.proc import session_processes
from tests.workspace.test_gradle_model import jar, project, source_set

JDK17, JDK25 = Path("/usr/lib/jvm/java-17-openjdk-amd64"), Path("/usr/lib/jvm/temurin-25-jdk-amd64")
UNREACHABLE = "https\\://services.gradle.invalid/distributions/gradle-{v}-bin.zip"


@pytest.fixture(scope="module")
def wrapper_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gradlew and gradle/wrapper/ as `gradle wrapper` writes them."""
    if shutil.which("gradle") is None:
        pytest.skip("needs Gradle on PATH to generate a wrapper")
    folder = tmp_path_factory.mktemp("wrapper")
    (folder / "settings.gradle").write_text("rootProject.name = 'w'\n")
    env = {**os.environ, "GRADLE_USER_HOME": str(folder / "home")}
    if JDK17.is_dir():
        env["JAVA_HOME"] = str(JDK17)
    done = subprocess.run(["gradle", "--no-daemon", "-q", "--offline", "--project-cache-dir", str(folder / "pc"),
                           "wrapper", "--gradle-version", "8.10.2"], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def wrapped(tmp_path: Path, wrapper_files: Path, version: str) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    shutil.copy2(wrapper_files / "gradlew", ws / "gradlew")
    shutil.copytree(wrapper_files / "gradle", ws / "gradle")
    (ws / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(
        f"distributionUrl={UNREACHABLE.format(v=version)}\ndistributionBase=GRADLE_USER_HOME\n"
        "distributionPath=wrapper/dists\nzipStorePath=wrapper/dists\nzipStoreBase=GRADLE_USER_HOME\n")
    (ws / "settings.gradle").write_text("rootProject.name = 'ws'\n")
    return ws


def env_with(tmp_path: Path, java: Path | None = JDK17, path: str | None = None) -> dict[str, str]:
    env = {**os.environ, "GRADLE_USER_HOME": str(tmp_path / "gradle-home")}
    if java is not None:
        env["JAVA_HOME"] = str(java)
    if path is not None:
        env["PATH"] = path
    return env


# ---------------------------------------------------------------- the wrapper

def test_a_wrapper_distribution_not_downloaded_is_named_before_anything_runs(tmp_path, wrapper_files):
    ws = wrapped(tmp_path, wrapper_files, "8.10.2")
    model = resolve_gradle(ws, tmp_path / "state", env=env_with(tmp_path), allow_online=False)
    [lim] = model.limitations
    assert lim.kind == "gradle_distribution_unavailable" and "Gradle 8.10.2" in lim.message
    assert "./gradlew --version" in lim.message
    assert model.workspace.modules == () and not (tmp_path / "state" / "gradle" / "logs").exists()


def test_online_the_wrapper_tries_to_download_and_its_failure_is_named(tmp_path, wrapper_files):
    ws = wrapped(tmp_path, wrapper_files, "8.10.2")
    model = resolve_gradle(ws, tmp_path / "state", env=env_with(tmp_path), allow_online=True)
    [lim] = model.limitations
    assert lim.kind == "gradle_distribution_unavailable", lim.message
    assert "UnknownHostException: services.gradle.invalid" in lim.message
    [log] = (tmp_path / "state" / "gradle" / "logs").glob("*.log")
    assert str(ws / "gradlew") in log.read_text().splitlines()[0]          # the wrapper ran, not gradle on PATH


def test_a_present_wrapper_distribution_is_used_with_its_version(tmp_path, wrapper_files):
    ws = wrapped(tmp_path, wrapper_files, "8.10.2")
    dist = tmp_path / "gradle-home" / "wrapper" / "dists" / "gradle-8.10.2-bin" / "abc123"
    (dist / "gradle-8.10.2").mkdir(parents=True)
    (dist / "gradle-8.10.2-bin.zip.ok").write_text("")
    found = find_launcher(ws, env_with(tmp_path), allow_online=False)
    assert isinstance(found, Launcher)
    assert (found.kind, found.version, found.distribution) == ("wrapper", "8.10.2", dist / "gradle-8.10.2")


@pytest.mark.skipif(not (JDK17.is_dir() and JDK25.is_dir()), reason="needs the JDKs 17 and 25 of this machine")
def test_a_jdk_too_new_for_the_wrapper_is_replaced_by_an_installed_one_that_fits(tmp_path, wrapper_files):
    ws = wrapped(tmp_path, wrapper_files, "8.10.2")
    assert max_java("8.10.2") == 23 and java_major(JDK25) == 25
    found = find_launcher(ws, env_with(tmp_path, java=JDK25), allow_online=True)
    assert isinstance(found, Launcher) and found.java_home is not None
    assert java_major(found.java_home) == 17 and found.java_note and "not on Java 25" in found.java_note


@pytest.mark.skipif(not JDK17.is_dir(), reason="needs a JDK 17")
def test_a_wrapper_no_installed_jdk_can_run_is_gradle_jdk_incompatible(tmp_path, wrapper_files):
    if any((java_major(h) or 99) <= 16 for h in installed_jdks(os.environ)):
        pytest.skip("a JDK 16 or older is installed: Gradle 7.2 would run on it")
    ws = wrapped(tmp_path, wrapper_files, "7.2")
    model = resolve_gradle(ws, tmp_path / "state", env=env_with(tmp_path), allow_online=True)
    [lim] = model.limitations
    assert lim.kind == "gradle_jdk_incompatible"
    assert "Gradle 7.2 runs on Java 8 to 16" in lim.message and "install a JDK 16" in lim.message


# ---------------------------------------------------------------- gradle on PATH (fakes)

def fake_gradle(tmp_path: Path, body: str) -> str:
    tools = tmp_path / "bin"
    tools.mkdir(exist_ok=True)
    exe = tools / "gradle"
    exe.write_text("#!/usr/bin/env bash\n" + body)
    exe.chmod(0o755)
    return f"{tools}{os.pathsep}/usr/bin{os.pathsep}/bin"


def test_without_wrapper_or_gradle_on_path_it_is_gradle_unavailable(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "build.gradle").write_text("")
    model = resolve_gradle(tmp_path / "ws", tmp_path / "state", env=env_with(tmp_path, path=str(tmp_path / "none")))
    [lim] = model.limitations
    assert lim.kind == "gradle_unavailable" and "gradle wrapper" in lim.message


def test_gradles_what_went_wrong_becomes_the_limitations_message(tmp_path):
    path = fake_gradle(tmp_path, 'echo "FAILURE: Build failed with an exception."; echo; echo "* What went wrong:"\n'
                                 'echo "A problem occurred evaluating root project \'ws\'."\n'
                                 'echo "> No such property: x"; echo; echo "* Try:"; exit 1\n')
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "build.gradle").write_text("x")
    model = resolve_gradle(tmp_path / "ws", tmp_path / "state", env=env_with(tmp_path, path=path), allow_online=False)
    [lim] = model.limitations
    assert lim.kind == "classpath_unresolved" and lim.module is None
    assert "A problem occurred evaluating root project 'ws'. > No such property: x" in lim.message


def test_a_gradle_that_cannot_run_on_the_jdk_is_gradle_jdk_incompatible(tmp_path):
    # what upstream Gradle 4.4 prints on Java 11+ (Debian's 4.4.1 is patched and runs on 17 and 25)
    path = fake_gradle(tmp_path, "echo \"FAILURE: Build failed with an exception.\"; echo; echo '* What went wrong:'\n"
                                 "echo \"Could not determine java version from '17.0.15'.\"; exit 1\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "build.gradle").write_text("")
    model = resolve_gradle(tmp_path / "ws", tmp_path / "state", env=env_with(tmp_path, path=path), allow_online=True)
    [lim] = model.limitations
    assert lim.kind == "gradle_jdk_incompatible" and "Could not determine java version from '17.0.15'" in lim.message
    assert len(list((tmp_path / "state" / "gradle" / "logs").glob("*.log"))) == 1    # online would not help


def test_a_run_past_its_timeout_is_killed_with_everything_it_started(tmp_path):
    path = fake_gradle(tmp_path, f"echo $$ > {tmp_path}/pid; sleep 300 &\necho started; sleep 300\n")
    launcher = Launcher((shutil.which("gradle", path=path) or "",), "path", None, None, None, None)
    runner = GradleRunner(launcher, env_with(tmp_path, path=path), timeout=2, log_dir=tmp_path / "logs")
    run = runner.run("hang", ["--version"], tmp_path)
    assert run.returncode is None and run.problem and "did not finish within 2 s" in run.problem
    session = int((tmp_path / "pid").read_text())      # the script's pid: its session's id (a session per run)
    assert session_processes(session) == []
    assert "started" in (tmp_path / "logs" / "00-hang.log").read_text()


def test_offline_first_then_online_only_for_the_projects_that_failed(tmp_path):
    """The second run names only the failed projects (-Dpybridge.only); the others keep the first run's output."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "settings.gradle").write_text("include 'a', 'b'\n")
    junit = jar(tmp_path, "junit:junit:4.13.2")
    failed = source_set(ws / "a", "main", classpath=[])
    failed["compileClasspath"]["failures"] = ["Could not resolve junit:junit:4.13.2."]
    outputs = {"offline": {"k-a": project(ws, ":a", sets=[failed]), "k-b": project(ws, ":b", sets=[
                   source_set(ws / "b", "main", classpath=[junit])])},
               "online": {"k-a": project(ws, ":a", sets=[source_set(ws / "a", "main", classpath=[junit])])}}
    for mode, files in outputs.items():
        (tmp_path / mode).mkdir()
        for stem, data in files.items():
            (tmp_path / mode / f"{stem}.json").write_text(json.dumps(data))
    path = fake_gradle(tmp_path, f'mode=online; case "$*" in *--offline*) mode=offline;; esac\n'
                                 f'echo "$*" > {tmp_path}/$mode.args; mkdir -p "$PYBRIDGE_GRADLE_OUT"\n'
                                 f'cp {tmp_path}/$mode/*.json "$PYBRIDGE_GRADLE_OUT"/\n')
    model = resolve_gradle(ws, tmp_path / "state", env=env_with(tmp_path, path=path), allow_online=True)
    assert "-Dpybridge.only=k-a " in (tmp_path / "online.args").read_text()
    assert "--offline" in (tmp_path / "offline.args").read_text()
    assert [p.name for p in model.classpaths[("g:a", "main")].classpath] == ["junit-4.13.2.jar"]
    assert model.classpaths[("g:a", "main")].limitations == ()
    assert [p.name for p in model.classpaths[("g:b", "main")].classpath] == ["junit-4.13.2.jar"]
    # resolved: cached for every state folder (the shared cache); another one runs no Gradle
    again = resolve_gradle(ws, tmp_path / "other-state", env=env_with(tmp_path, path=path), allow_online=True)
    assert not (tmp_path / "other-state" / "gradle" / "logs").exists()
    assert again.classpaths == model.classpaths
    (ws / "settings.gradle").write_text("include 'a', 'b', 'c'\n")             # an input changed: Gradle runs
    resolve_gradle(ws, tmp_path / "other-state", env=env_with(tmp_path, path=path), allow_online=True)
    assert (tmp_path / "other-state" / "gradle" / "logs").exists()
