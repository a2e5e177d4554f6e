"""What a class-data archive for the worker JVM is made for, and the options that use it.

The archive itself (`pybridge-worker.jsa` beside the jars) is made by `cds.py` (`python -m
pybridge.worker.cds`), with a key file naming what it was made for: the jars (names, sizes, times),
the Java the worker runs, the JVM options that decide the archive's layout, and the indexer
version. A worker uses the archive only when that key matches (`archive_args`). A leaf module:
`client.py` starts workers with these options, and `cds.py` starts a worker to make the archive.
PYBRIDGE_CDS=0 turns the archive off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from pybridge.worker.version import INDEXER_VERSION

ARCHIVE = "pybridge-worker.jsa"


def _java_identity(jvm_path: str | None) -> list[str]:
    """What decides which Java the child starts: an explicit libjvm, else JAVA_HOME / PATH's java."""
    if jvm_path:
        return [os.path.realpath(jvm_path)]
    java = shutil.which("java")
    return [os.environ.get("JAVA_HOME", ""), os.path.realpath(java) if java else ""]


def archive_key(classpath: Sequence[str], jvm_path: str | None, layout_args: Sequence[str]) -> str:
    """A digest of what an archive is valid for (see the module doc)."""
    jars = []
    for jar in classpath:
        try:
            st = os.stat(jar)
            jars.append([os.path.basename(jar), st.st_size, st.st_mtime_ns])
        except OSError:
            jars.append([os.path.basename(jar), None, None])
    data = json.dumps([2, jars, _java_identity(jvm_path), list(layout_args), INDEXER_VERSION])
    return hashlib.sha256(data.encode()).hexdigest()


def enabled() -> bool:
    return os.environ.get("PYBRIDGE_CDS", "1") != "0"


def archive_args(jars: Path, classpath: Sequence[str], jvm_path: str | None,
                 layout_args: Sequence[str]) -> list[str]:
    """`-XX:SharedArchiveFile=...` when the archive beside the jars was made for this worker."""
    archive = jars / ARCHIVE
    if not enabled() or not archive.is_file():
        return []
    try:
        made_for = (jars / (ARCHIVE + ".key")).read_text(encoding="ascii").strip()
    except OSError:
        return []
    if made_for != archive_key(classpath, jvm_path, layout_args):
        return []
    return [f"-XX:SharedArchiveFile={archive}"]
