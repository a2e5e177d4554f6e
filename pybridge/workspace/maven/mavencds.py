"""A class-data-sharing archive for the Maven runs pybridge starts.

Every mvn run starts a JVM that loads some 4,000 classes (Maven's core, Sisu and Guice, the
resolver, the help and dependency plugins) before it does any work. A dynamic CDS archive
(JDK 13+) maps them from one file instead: on guava's one resolution run, 2.7-3.3 s without,
2.4 s with (three alternating runs each, 2 cores). HotSpot archives the classes of Maven's own
class realms too, since they are loaded from jar files.

The first run for a given Maven installation and Java writes the archive as it exits
(`-XX:ArchiveClassesAtExit`, a fraction of a second) to `maven-cds/` in pybridge's cache folder
(`cache_dir`; PYBRIDGE_CACHE_DIR=off: none); later runs map it
(`-XX:SharedArchiveFile`). The name is a digest of the mvn script, the Java it runs, the jars
of the installation and the options below, so another Maven or Java gets its own. The options
are added only where pybridge already picks Maven's JVM options (a MAVEN_OPTS of the user's own
is left alone); `-XX:+IgnoreUnrecognizedVMOptions` keeps a Java too old for them starting, a JVM
that cannot map an archive starts without it, and HotSpot's archive messages are turned off so
that they stay out of Maven's output. PYBRIDGE_CDS=0 turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ..userdirs import cache_home

QUIET = ["-XX:+IgnoreUnrecognizedVMOptions", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]


def cache_dir(env: Mapping[str, str]) -> Path | None:
    """PYBRIDGE_MAVEN_CDS_DIR, else `maven-cds/` in pybridge's cache folder (`userdirs.cache_home`);
    None when PYBRIDGE_CACHE_DIR is empty or `off` (nothing written)."""
    configured = env.get("PYBRIDGE_MAVEN_CDS_DIR")
    if configured:
        return Path(configured)
    home = cache_home(env)
    return None if home is None else home / "maven-cds"


def _key(mvn: str, env: Mapping[str, str], base_opts: str) -> str:
    home = Path(os.path.realpath(mvn)).parent.parent
    jars = []
    for folder in (home / "boot", home / "lib"):
        try:
            for jar in sorted(folder.glob("*.jar")):
                st = jar.stat()
                jars.append([jar.name, st.st_size, st.st_mtime_ns])
        except OSError:
            pass
    java = shutil.which("java", path=env.get("PATH", ""))
    data = [1, os.path.realpath(mvn), env.get("JAVA_HOME", ""), os.path.realpath(java) if java else "", jars,
            base_opts]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:32]


def options(mvn: str, env: Mapping[str, str], base_opts: str) -> tuple[list[str], tuple[Path, Path] | None]:
    """JVM options for one mvn run, and (fresh dump, archive) when this run writes the archive."""
    if env.get("PYBRIDGE_CDS", "1") == "0":
        return [], None
    folder = cache_dir(env)
    if folder is None:
        return [], None
    archive = folder / f"{_key(mvn, env, base_opts)}.jsa"
    if archive.is_file():
        return [*QUIET, f"-XX:SharedArchiveFile={archive}"], None
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return [], None
    dump = archive.with_name(f"{archive.stem}.{os.getpid()}.tmp")
    return [*QUIET, f"-XX:ArchiveClassesAtExit={dump}"], (dump, archive)


def keep(written: tuple[Path, Path] | None) -> None:
    """Move a run's fresh dump into place (a missing or empty one is dropped)."""
    if written is None:
        return
    dump, archive = written
    try:
        if dump.is_file() and dump.stat().st_size > 0:
            os.replace(dump, archive)
        else:
            dump.unlink(missing_ok=True)
    except OSError:
        pass
