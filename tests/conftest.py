"""Shared fixtures: one indexer worker for the whole session, the samples folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.worker import Worker

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
