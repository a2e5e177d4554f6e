"""scripts/setup and scripts/test fail when Gradle fails (issue 13, item 10).

The scripts run in a copy of the repository's `scripts/` with stand-ins for
`gradle`, `.venv/bin/pip` and `.venv/bin/pytest` (the real build takes
minutes and is what these scripts exist to run): only the exit status
plumbing is under test here, and a stale jar from an earlier build is in
place, as in the defect.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

FAKE_GRADLE = """#!/usr/bin/env bash
echo "OpenJDK 64-Bit Server VM warning: noise"
case "$*" in
  *"build -x test"*) echo "compile error in Indexer.java" >&2; exit "${FAKE_BUILD_STATUS:-0}";;
  *test*) echo "test task failed" >&2; exit "${FAKE_TEST_STATUS:-0}";;
esac
exit 0
"""


def _tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    tree = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", tree / "scripts")
    (tree / "pybridge" / "jars").mkdir(parents=True)
    (tree / "pybridge" / "jars" / "pybridge-indexer.jar").write_bytes(b"stale")
    venv = tree / ".venv" / "bin"
    venv.mkdir(parents=True)
    for name in ("python", "pip", "pytest"):
        (venv / name).write_text("#!/bin/sh\nexit 0\n")
        (venv / name).chmod(0o755)
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "gradle").write_text(FAKE_GRADLE)
    (tools / "gradle").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    return tree, env


def _run(tree: Path, script: str, env: dict[str, str], **statuses: int) -> subprocess.CompletedProcess:
    env = {**env, **{k: str(v) for k, v in statuses.items()}}
    return subprocess.run(["bash", str(tree / "scripts" / script)], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=60)


def test_setup_fails_when_the_gradle_build_fails_even_with_a_stale_jar_present(tmp_path):
    tree, env = _tree(tmp_path)
    done = _run(tree, "setup", env, FAKE_BUILD_STATUS=3)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "gradle build failed (exit status 3)" in done.stderr
    assert "compile error in Indexer.java" in done.stdout + done.stderr
    assert "OpenJDK" not in done.stdout + done.stderr     # the noise is still filtered


def test_setup_passes_when_the_gradle_build_passes(tmp_path):
    tree, env = _tree(tmp_path)
    done = _run(tree, "setup", env, FAKE_BUILD_STATUS=0)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("junit_xml", [False, True])
def test_scripts_test_fails_when_gradle_test_fails_with_or_without_junit_xml(tmp_path, junit_xml):
    tree, env = _tree(tmp_path)
    if junit_xml:    # results of passing tests exist, yet gradle failed (e.g. a later task)
        # scripts/test clears build/test-results/test before running gradle, so
        # the stand-in gradle writes the XML itself.
        (tmp_path / "bin" / "gradle").write_text(FAKE_GRADLE.replace(
            '*test*) echo', '*test*) mkdir -p build/test-results/test; '
            'echo \'<testsuite tests="2" failures="0" errors="0"/>\' > build/test-results/test/T.xml; echo'))
    done = _run(tree, "test", env, FAKE_TEST_STATUS=1)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "gradle test exited with 1" in done.stdout


def test_scripts_test_passes_when_gradle_test_passes_with_results(tmp_path):
    tree, env = _tree(tmp_path)
    (tmp_path / "bin" / "gradle").write_text(FAKE_GRADLE.replace(
        '*test*) echo', '*test*) mkdir -p build/test-results/test; '
        'echo \'<testsuite tests="2" failures="0" errors="0"/>\' > build/test-results/test/T.xml; echo'))
    done = _run(tree, "test", env, FAKE_TEST_STATUS=0)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "JUnit: 2 passed, 0 failed" in done.stdout
