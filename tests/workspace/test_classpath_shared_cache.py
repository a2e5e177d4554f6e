"""The classpath cache that every state folder of the user shares (`<cache dir>/classpaths/<key>.json`,
workspace/cache.py): a fresh state folder for a workspace already resolved runs no Maven; a changed POM
or a classpath file that is gone misses; PYBRIDGE_CACHE_DIR=off turns it off; a cache folder that
cannot be written never fails a resolution. Real Maven runs (one each: no module here depends on a
sibling) on small artifacts from the local repository, and a system jar made here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pybridge.workspace import cache as classpath_cache
from pybridge.workspace import load_workspace
from pybridge.workspace.cache import shared_dir
from pybridge.workspace.maven.cachekey import cache_key
from tests.support.maven_classpaths import names, ours, paths, unresolved
from tests.workspace.test_classpath_one_run import help_plugin_available, logs, system_jar
from tests.workspace.test_workspace_model import GROUP, dep, write_pom

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")

SHARED_HIT = "using the classpaths cached by another state folder"
STATE_HIT = "The POMs did not change since the last resolution: using the cached classpaths"


def workspace(root: Path, jar: Path, *extra: str) -> Path:
    system = (f"<dependency><groupId>{GROUP}.sys</groupId><artifactId>sys-lib</artifactId><version>1.0</version>"
              f"<scope>system</scope><systemPath>{jar}</systemPath></dependency>")
    write_pom(root, "shared", sources=("src/main/java", "src/test/java"),
              deps=(dep("org.apache.commons:commons-lang3:3.17.0"), system, dep("junit:junit:4.13.2", "test"), *extra))
    return root


def flat(results) -> dict:
    return {k: (paths(r), r.release, [lim.kind for lim in r.limitations]) for k, r in results.items()}


@pytest.fixture(scope="module")
def resolved(tmp_path_factory: pytest.TempPathFactory):
    """The workspace resolved once, in state1, with the shared cache in `cache`."""
    base = tmp_path_factory.mktemp("shared")
    root = workspace(base / "ws", system_jar(base / "lib" / "sys-lib.jar"))
    help_plugin_available(base)
    cache = base / "cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_CACHE_DIR", str(cache))
        mine, _ = ours(root, base / "state1")
    return {"base": base, "root": root, "cache": cache, "ours": mine}


def test_the_first_resolution_ran_maven_and_stored_one_shared_entry_named_by_its_key(resolved) -> None:
    assert logs(resolved["base"] / "state1") == ["effective-pom-and-classpaths-offline"]
    assert names(paths(resolved["ours"][(".", "main")])) == ["commons-lang3-3.17.0.jar", "sys-lib.jar"]
    key = cache_key(load_workspace(resolved["root"]), True, shutil.which("mvn"), dict(os.environ))
    [entry] = (resolved["cache"] / "classpaths").iterdir()
    assert entry.name == f"{key}.json" and json.loads(entry.read_text())["key"] == key
    assert entry.stat().st_mode & 0o077 == 0


def test_a_fresh_state_folder_resolves_from_the_shared_cache_without_maven(
        resolved, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", str(resolved["cache"]))
    state = resolved["base"] / "state2"
    again, messages = ours(resolved["root"], state)
    assert logs(state) == [] and not (state / "maven").exists()
    assert len(messages) == 1 and SHARED_HIT in messages[0]
    assert flat(again) == flat(resolved["ours"])
    # the state folder's own file was written from it: the next resolution there is a plain hit
    assert (state / "classpath-cache.json").is_file()
    third, messages = ours(resolved["root"], state)
    assert messages == [STATE_HIT] and flat(third) == flat(resolved["ours"]) and logs(state) == []


@pytest.mark.parametrize("value", ["off", ""])
def test_pybridge_cache_dir_off_or_empty_turns_the_shared_cache_off(
        resolved, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str) -> None:
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", value)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    before = sorted((resolved["cache"] / "classpaths").iterdir())
    mine, messages = ours(resolved["root"], tmp_path / "state")
    assert logs(tmp_path / "state") == ["effective-pom-and-classpaths-offline"]
    assert not any(SHARED_HIT in m for m in messages) and flat(mine) == flat(resolved["ours"])
    assert sorted((resolved["cache"] / "classpaths").iterdir()) == before and not (tmp_path / "xdg").exists()


def test_a_cache_folder_that_cannot_be_written_does_not_fail_the_resolution(
        resolved, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Its parent is a file (as root, permissions would not stop the write)."""
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder\n")
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", str(blocker / "cache"))
    mine, _ = ours(resolved["root"], tmp_path / "state")
    assert flat(mine) == flat(resolved["ours"]) and (tmp_path / "state" / "classpath-cache.json").is_file()
    assert blocker.read_text() == "not a folder\n"


def test_a_changed_pom_misses_the_shared_cache(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", system_jar(tmp_path / "lib" / "sys-lib.jar"))
    help_plugin_available(tmp_path)
    ours(root, tmp_path / "state1")
    workspace(root, tmp_path / "lib" / "sys-lib.jar", dep("org.slf4j:slf4j-api:2.0.17", "test"))
    mine, messages = ours(root, tmp_path / "state2")
    assert logs(tmp_path / "state2") == ["effective-pom-and-classpaths-offline"]
    assert not any(SHARED_HIT in m for m in messages)
    assert "slf4j-api-2.0.17.jar" in names(paths(mine[(".", "test")]))
    folder = shared_dir()
    assert folder is not None and len(list(folder.iterdir())) == 2      # one entry per key


def test_a_classpath_file_that_is_gone_misses_the_shared_cache(tmp_path: Path) -> None:
    jar = system_jar(tmp_path / "lib" / "sys-lib.jar")
    root = workspace(tmp_path / "ws", jar)
    help_plugin_available(tmp_path)
    ours(root, tmp_path / "state1")
    jar.unlink()
    mine, messages = ours(root, tmp_path / "state2")
    assert logs(tmp_path / "state2")[0] == "effective-pom-and-classpaths-offline"
    assert not any(SHARED_HIT in m for m in messages)
    assert unresolved(mine[(".", "main")])      # Maven's answer now: the system jar is missing


# ---------------------------------------------------------------- the folder itself (no Maven)

def test_the_cache_folder_is_pybridge_cache_dir_else_xdg_cache_home_else_home(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", str(tmp_path / "own"))
    assert shared_dir() == tmp_path / "own" / "classpaths"
    for off in ("off", "", " "):
        monkeypatch.setenv("PYBRIDGE_CACHE_DIR", off)
        assert shared_dir() is None
    monkeypatch.delenv("PYBRIDGE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert shared_dir() == tmp_path / "xdg" / "pybridge" / "classpaths"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert shared_dir() == tmp_path / "home" / ".cache" / "pybridge" / "classpaths"


def test_the_shared_folder_keeps_the_64_entries_used_last(tmp_path: Path) -> None:
    jar = system_jar(tmp_path / "a.jar")
    folder = shared_dir()
    assert folder is not None
    now = time.time()
    for i in range(64):
        classpath_cache.store(tmp_path / f"state{i}" / "classpath-cache.json", f"k{i:02d}", {("m", "main"): [jar]},
                              {"m": 17})
        os.utime(folder / f"k{i:02d}.json", (now - 1000 + i, now - 1000 + i))
    assert len(list(folder.iterdir())) == 64
    # a hit counts as a use: k00 was written first, but is read last
    hit = classpath_cache.load(tmp_path / "elsewhere.json", "k00")
    assert hit is not None and hit.shared and hit.classpaths == {("m", "main"): [jar]} and hit.releases == {"m": 17}
    classpath_cache.store(tmp_path / "state64" / "classpath-cache.json", "k64", {}, {})
    kept = {p.name for p in folder.iterdir()}
    assert kept == {f"k{i:02d}.json" for i in range(65)} - {"k01.json"}


def test_a_corrupt_or_foreign_shared_entry_is_a_miss(tmp_path: Path) -> None:
    folder = shared_dir()
    assert folder is not None
    folder.mkdir(parents=True)
    (folder / "k1.json").write_text("{not json")
    (folder / "k2.json").write_text(json.dumps({"key": "other", "releases": {}, "entries": []}))
    assert classpath_cache.load(tmp_path / "state.json", "k1") is None
    assert classpath_cache.load(tmp_path / "state.json", "k2") is None


def test_each_test_and_its_subprocesses_have_a_cache_folder_of_their_own(cache_dir: Path) -> None:
    """tests/conftest.py: never the user's ~/.cache; a CLI or server started with os.environ inherits it."""
    assert shared_dir() == cache_dir / "classpaths" and not cache_dir.is_relative_to(Path.home() / ".cache")
    out = subprocess.run([sys.executable, "-c", "import os; print(os.environ['PYBRIDGE_CACHE_DIR'])"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == str(cache_dir)
