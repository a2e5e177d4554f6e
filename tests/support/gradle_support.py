"""What the Gradle tests share: the environment of a Gradle run and the Gradle user home of the session.

Gradle runs are the slow part of these tests (15-60 s each on this machine), so the default suite keeps
to about six, and they share one Gradle user home: PYBRIDGE_TEST_GRADLE_HOME names one to reuse across
sessions (filled: every run is offline and quick), else the session makes one, which its first run
fills online (Maven Central). `conftest.gradle_home` is that home; `gradle_env(home)` the environment
that points Gradle at it, on Java 17 when installed.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

JAVA17 = Path("/usr/lib/jvm/java-17-openjdk-amd64")
HOME_ENV = "PYBRIDGE_TEST_GRADLE_HOME"
needs_gradle = pytest.mark.skipif(shutil.which("gradle") is None, reason="needs Gradle on PATH")


def gradle_env(home: Path) -> dict[str, str]:
    env = {**os.environ, "GRADLE_USER_HOME": str(home)}
    if JAVA17.is_dir():
        env["JAVA_HOME"] = str(JAVA17)
    env.pop("GRADLE_OPTS", None)
    return env


def session_home(factory: pytest.TempPathFactory) -> Path:
    """The session's Gradle user home (see the module docstring)."""
    reuse = os.environ.get(HOME_ENV)
    return Path(reuse) if reuse else factory.mktemp("gradle-home")


def prefilled(home: Path) -> bool:
    return (home / "caches" / "modules-2").is_dir()
