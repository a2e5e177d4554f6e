"""Maven's runs map a class-data archive that their first run wrote (pybridge/workspace/maven/mavencds.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pybridge.workspace.maven import mavencds
from pybridge.workspace.maven.runner import FAST_MAVEN_OPTS, HELP_PLUGIN, MavenRunner

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs Maven (mvn on PATH)")


def _effective_pom(tmp_path: Path, runner: MavenRunner, name: str) -> None:
    out = tmp_path / f"{name}.xml"
    run = runner.run(name, ["-q", f"{HELP_PLUGIN}:effective-pom", f"-Doutput={out}"],
                     ROOT / "samples" / "kitchen-sink", offline=True)
    assert run.ok, run.output[-2000:]
    assert out.is_file()
    assert "cds" not in run.output.lower()      # HotSpot's archive messages stay out of Maven's output


def test_the_first_maven_run_writes_the_archive_and_the_next_ones_map_it(tmp_path, monkeypatch):
    folder = tmp_path / "cds"
    monkeypatch.setenv("PYBRIDGE_MAVEN_CDS_DIR", str(folder))
    monkeypatch.delenv("MAVEN_OPTS", raising=False)
    monkeypatch.delenv("PYBRIDGE_CDS", raising=False)
    runner = MavenRunner(log_dir=tmp_path / "logs")
    mvn = runner.find()
    assert mvn is not None

    opts, dump = mavencds.options(mvn, os.environ, FAST_MAVEN_OPTS)
    assert dump is not None and any(o.startswith("-XX:ArchiveClassesAtExit=") for o in opts)
    _effective_pom(tmp_path, runner, "first")
    archives = list(folder.glob("*.jsa"))
    assert len(archives) == 1 and archives[0].stat().st_size > 1_000_000
    assert not list(folder.glob("*.tmp"))
    opts, dump = mavencds.options(mvn, os.environ, FAST_MAVEN_OPTS)
    assert dump is None and opts[-1] == f"-XX:SharedArchiveFile={archives[0]}"
    _effective_pom(tmp_path, runner, "second")
    # a damaged archive: the JVM starts without it, Maven still answers
    archives[0].chmod(0o644)
    archives[0].write_bytes(b"\0not an archive" * 1000)
    _effective_pom(tmp_path, runner, "damaged")
    # off
    monkeypatch.setenv("PYBRIDGE_CDS", "0")
    assert mavencds.options(mvn, os.environ, FAST_MAVEN_OPTS) == ([], None)


def test_a_users_own_maven_opts_get_no_archive(tmp_path, monkeypatch):
    folder = tmp_path / "cds"
    monkeypatch.setenv("PYBRIDGE_MAVEN_CDS_DIR", str(folder))
    monkeypatch.setenv("MAVEN_OPTS", "-Xmx512m")
    _effective_pom(tmp_path, MavenRunner(), "own")
    assert not folder.exists() or not list(folder.iterdir())


def test_no_archive_where_pybridge_may_write_no_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("PYBRIDGE_MAVEN_CDS_DIR", raising=False)
    monkeypatch.delenv("MAVEN_OPTS", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", "off")
    _effective_pom(tmp_path, MavenRunner(), "off")
    assert not (tmp_path / "xdg").exists()
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", str(tmp_path / "cache"))
    _effective_pom(tmp_path, MavenRunner(), "cache")
    assert len(list((tmp_path / "cache" / "maven-cds").glob("*.jsa"))) == 1
