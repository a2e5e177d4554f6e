"""A library jar's sources jar fetched through the build system (issue 26 part 2: the BuildSystem's
optional `SourcesFetcher`), from a file repository standing in for Maven Central: offline nothing is
fetched; online, Maven's `dependency:get` of the `sources` classifier puts it beside the jar, once,
and Gradle resolves the `sources` artifact with the jar's Gradle user home, once."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from pybridge.workspace.buildsystem import SourcesFetcher
from pybridge.workspace.gradle import GRADLE
from pybridge.workspace.maven import MAVEN

POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>demo.lib</groupId><artifactId>thing</artifactId>"
       "<version>1</version></project>")


def _zip(path: Path, entries: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for name, text in entries.items():
            z.writestr(name, text)


@pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")
def test_maven_fetches_a_sources_jar_beside_the_jar_only_when_online(tmp_path):
    jar = tmp_path / "local/repository/demo/lib/thing/1/thing-1.jar"
    _zip(jar, {"demo/Thing.class": "not really a class"})
    remote = tmp_path / "remote/demo/lib/thing/1"
    _zip(remote / "thing-1-sources.jar", {"demo/Thing.java": "package demo; /** Doc. */ public class Thing {}"})
    (remote / "thing-1.pom").write_text(POM)
    (remote / "thing-1.jar").write_bytes(jar.read_bytes())
    state = tmp_path / "state"
    (state / ".mvn").mkdir(parents=True)      # Maven runs there: its config points at the file repository
    (state / ".mvn" / "maven.config").write_text(f"-DremoteRepositories=file://{tmp_path / 'remote'}\n")

    assert isinstance(MAVEN, SourcesFetcher)
    assert MAVEN.sources_jar(jar, state, allow_online=False) is None
    found = MAVEN.sources_jar(jar, state, allow_online=True)
    assert found == jar.with_name("thing-1-sources.jar"), list((state / "library-sources" / "fetched").glob("*"))
    with zipfile.ZipFile(found) as z:
        assert "Doc." in z.read("demo/Thing.java").decode()


@pytest.mark.skipif(shutil.which("gradle") is None, reason="needs gradle on PATH")
def test_gradle_resolves_a_sources_jar_only_when_online_and_once(tmp_path):
    home = tmp_path / "gradle-home"      # the jar's Gradle user home: its init script names the repository
    jar = home / "caches/modules-2/files-2.1/demo.lib/thing/1/0a1b2c/thing-1.jar"
    _zip(jar, {"demo/Thing.class": "not really a class"})
    remote = tmp_path / "remote/demo/lib/thing/1"
    _zip(remote / "thing-1-sources.jar", {"demo/Thing.java": "package demo; /** Doc. */ public class Thing {}"})
    (remote / "thing-1.pom").write_text(POM)
    (home / "init.d").mkdir()
    (home / "init.d" / "repo.gradle").write_text(
        f"allprojects {{ repositories {{ maven {{ url '{(tmp_path / 'remote').as_uri()}' }} }} }}\n")
    state = tmp_path / "state"

    assert isinstance(GRADLE, SourcesFetcher)
    assert GRADLE.sources_jar(jar, state, allow_online=False) is None
    assert not (state / "library-sources").exists()         # offline: Gradle was not run
    found = GRADLE.sources_jar(jar, state, allow_online=True)
    log = state / "library-sources" / "fetched" / "demo.lib_thing_1.log"
    assert found is not None and found.name == "thing-1-sources.jar", log.read_text()
    with zipfile.ZipFile(found) as z:
        assert "Doc." in z.read("demo/Thing.java").decode()
    stamp = log.stat().st_mtime_ns
    assert GRADLE.sources_jar(jar, state, allow_online=True) == found     # recorded: not run again
    assert log.stat().st_mtime_ns == stamp
