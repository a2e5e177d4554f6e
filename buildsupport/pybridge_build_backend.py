"""pybridge's build backend: setuptools' own, with one check before an sdist or a wheel is made.

The indexer's jars (pybridge/jars/*.jar) are built by Gradle into the source tree and are not
in git; the package data takes whatever is there. A wheel or sdist built before `gradle build`
would install and then fail at the first sync, so building one without the jars stops here,
saying what is missing and how to build it. Editable installs (`pip install -e .`, which
scripts/setup runs before Gradle) are not checked: they read the jars from the tree when used.

Where build.gradle is at hand (a build from the checkout, not from an sdist), every runtime
jar it pins must be there too, at the pinned version. The worker's class-data archive
(pybridge-worker.jsa, made for one machine's JDK) is never package data: only *.jar is.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own

REQUIRED = ("pybridge-indexer.jar", "pybridge-maven-ext.jar")


def _pinned_jars(build_gradle: Path) -> list[str]:
    """`name-version.jar` for each 'group:name:version' in build.gradle's `def jdt = [...]` list."""
    text = build_gradle.read_text(encoding="utf-8")
    block = re.search(r"def\s+jdt\s*=\s*\[(.*?)\]", text, re.DOTALL)
    if block is None:
        return []
    return [f"{name}-{version}.jar" for _group, name, version in re.findall(r"'([^:']+):([^:']+):([^:']+)'",
                                                                            block.group(1))]


def missing_jars(tree: Path) -> list[str]:
    """The jars a wheel built from `tree` would lack (empty when all are there)."""
    names = {p.name for p in (tree / "pybridge" / "jars").glob("*.jar")}
    missing = [n for n in REQUIRED if n not in names]
    if not any(n.startswith("org.eclipse.jdt.core-") for n in names):
        missing.append("org.eclipse.jdt.core-*.jar")
    gradle = tree / "build.gradle"
    if gradle.is_file():
        missing += [n for n in _pinned_jars(gradle) if n not in names and n not in missing]
    return missing


def _check() -> None:
    missing = missing_jars(Path.cwd())
    if missing:
        raise RuntimeError(
            "pybridge's indexer jars are not built, so this wheel would fail at its first sync. Missing from "
            f"pybridge/jars/: {', '.join(missing)}. Run `gradle --no-daemon build -x test` at the repository root "
            "(scripts/setup does it), then build again.")


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    _check()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    _check()
    return _setuptools.build_sdist(sdist_directory, config_settings)
