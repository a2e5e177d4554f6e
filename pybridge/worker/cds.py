"""A class-data-sharing archive for the worker JVM: JDT's classes loaded and verified once, at set-up.

A worker JVM loads about 4,000 classes from the JDT jars before its first index is under way;
with a dynamic CDS archive (JDK 13+) it maps them from a file instead of parsing and verifying
each. Measured on the 2-core machine (`Worker().start()` then `warmup()`): 2.4 s without,
1.75 s with. That time is on the critical path whenever Maven has nothing to resolve (a
dependency-free project, or classpaths from the cache).

`python -m pybridge.worker.cds` (run by scripts/setup; run it by hand after a pip install)
starts a worker with `-XX:+RecordDynamicDumpInfo`, indexes the bundled warm-up source, and has
the JVM write the archive (`VM.cds dynamic_dump` through the DiagnosticCommand MBean) to
`pybridge-worker.jsa` beside the jars, with a key file naming what it was made for: the
jars (names, sizes, times), the Java the worker runs, the JVM options that decide the
archive's layout, and the indexer version. A worker uses the archive only when that key
matches (`archive_args`), and never with a Java agent (Lombok's agent rewrites JDT's classes
as they load). A JVM that cannot map an archive ignores it and starts as before (HotSpot's
`-Xshare:auto`), so a stale or damaged file costs its mapping attempt, not a failure.
PYBRIDGE_CDS=0 turns the archive off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

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
    from pybridge.worker import INDEXER_VERSION

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


def build(jars: Path | None = None) -> Path:
    """Make the archive (see the module doc); returns its path. Raises WorkerError when the JVM
    cannot dump one (a JDK older than 17, or a JRE without the DiagnosticCommand MBean)."""
    from pybridge.errors import WorkerError
    from pybridge.worker.client import Worker, jars_dir

    folder = jars or jars_dir()
    archive = folder / ARCHIVE
    tmp = folder / f"{ARCHIVE}.{os.getpid()}.tmp"
    worker = Worker(recording_cds=True)
    try:
        worker.start()
        worker.warmup()
        key = archive_key(worker.started_classpath, worker.jvm_path, worker.archive_layout())
        error = worker.dump_cds(str(tmp))
        if error or not tmp.is_file():
            raise WorkerError(f"The JVM did not write a class-data archive: {error or 'no file'}",
                              cause="crashed")
    finally:
        worker.close()
    os.replace(tmp, archive)
    key_tmp = folder / f"{ARCHIVE}.key.{os.getpid()}.tmp"
    key_tmp.write_text(key + "\n", encoding="ascii")
    os.replace(key_tmp, folder / (ARCHIVE + ".key"))
    return archive


def up_to_date(jars: Path | None = None) -> bool:
    """Whether the archive beside the jars was made for the worker a default `Worker()` starts."""
    from pybridge.errors import WorkerError
    from pybridge.worker.client import Worker, jars_dir

    worker = Worker()
    try:
        return bool(archive_args(jars or jars_dir(), worker.jar_classpath(), worker.jvm_path, worker.archive_layout()))
    except WorkerError:
        return False


def main() -> int:
    from pybridge.errors import WorkerError

    if enabled() and up_to_date():
        print("pybridge: the worker's class-data archive is up to date")
        return 0
    try:
        path = build()
    except WorkerError as exc:
        print(f"pybridge: no class-data archive for the worker ({exc}); workers start without one.",
              file=sys.stderr)
        return 0
    print(f"pybridge: class-data archive for the worker written to {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
