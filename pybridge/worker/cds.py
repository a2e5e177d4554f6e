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

import os
import sys
from pathlib import Path

from pybridge.errors import WorkerError
from pybridge.worker.archive import ARCHIVE, archive_args, archive_key, enabled
from pybridge.worker.client import Worker, jars_dir


def build(jars: Path | None = None) -> Path:
    """Make the archive (see the module doc); returns its path. Raises WorkerError when the JVM
    cannot dump one (a JDK older than 17, or a JRE without the DiagnosticCommand MBean)."""
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
    worker = Worker()
    try:
        return bool(archive_args(jars or jars_dir(), worker.jar_classpath(), worker.jvm_path, worker.archive_layout()))
    except WorkerError:
        return False


def main() -> int:
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
