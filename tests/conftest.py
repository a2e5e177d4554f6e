"""Shared fixtures: one indexer worker for the whole session, the samples folder, and a classpath
cache folder (PYBRIDGE_CACHE_DIR) of their own for the session, each module and each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pybridge.worker import Worker
from tests.support.gradle_support import session_home

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite tests/golden/ from what the indexer sees now (review the diff by hand)")


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(scope="session")
def worker():
    with Worker(heap="1g") as w:
        yield w


@pytest.fixture(scope="session")
def samples() -> Path:
    return SAMPLES


@pytest.fixture(scope="session")
def gradle_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One Gradle user home for every Gradle test of the session (`tests/support/gradle_support.py`)."""
    return session_home(tmp_path_factory)


def _own_cache_dir(factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = factory.mktemp("pybridge-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_CACHE_DIR", str(folder))
        yield folder


# The shared classpath cache (workspace/cache.py) is never the user's ~/.cache, and no test reads what
# another stored: one folder for the session's fixtures, one for each module's (they are set up
# before any test's own), one for each test. Subprocesses (CLI, MCP servers) inherit it via os.environ.

@pytest.fixture(scope="session", autouse=True)
def session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    # Maven's class-data archive (workspace/maven/mavencds.py) only speeds Maven up: one for the session,
    # written by its first Maven run, instead of one per test's cache folder.
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_MAVEN_CDS_DIR", str(tmp_path_factory.mktemp("maven-cds")))
        yield from _own_cache_dir(tmp_path_factory)


@pytest.fixture(scope="module", autouse=True)
def module_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield from _own_cache_dir(tmp_path_factory)


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("pybridge-cache")
    monkeypatch.setenv("PYBRIDGE_CACHE_DIR", str(folder))
    return folder
