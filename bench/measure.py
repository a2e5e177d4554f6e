"""Sync and compile measurements: full sync, no-change resync, worker peak RSS,
store size, and the javac / ecj baselines on the same sources and classpath."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import platformdirs

from pybridge.store import Store
from pybridge.sync import store_path, sync
from pybridge.sync.meta import GenerationMeta
from pybridge.worker import Worker, jars_dir
from pybridge.workspace import load_workspace, resolve_classpaths
from pybridge.workspace.lombok import lombok_jar


class PeakRss:
    """Samples VmHWM (peak resident set) of the worker child while a sync runs.

    VmHWM only grows, so a sample taken before the child exits is its peak;
    sampling every 0.1 s also covers a child that is restarted (max over pids).
    """

    def __init__(self, worker: Worker, every: float = 0.1) -> None:
        self.worker, self.every = worker, every
        self.peak_kb: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        pid = self.worker.pid
        if pid is None:
            return
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_kb[pid] = max(self.peak_kb.get(pid, 0), int(line.split()[1]))
        except (OSError, ValueError):
            pass

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def __enter__(self) -> "PeakRss":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._sample()
        self._stop.set()
        self._thread.join()

    @property
    def peak_bytes(self) -> int | None:
        return max(self.peak_kb.values()) * 1024 if self.peak_kb else None


def _sync_progress(say):
    last = {"t": 0.0, "phase": None}

    def progress(event: dict) -> None:
        now = time.monotonic()
        if event.get("phase") != last["phase"] or now - last["t"] > 10:
            last.update(t=now, phase=event.get("phase"))
            detail = (f"{event.get('module', '')} {event.get('scope', '')} {event.get('done')}/{event.get('total')}"
                      if event.get("phase") == "index" else event.get("message", ""))
            say(f"    [{event.get('phase')}] {detail}")
    return progress


# Maven's class-data archive (pybridge/workspace/maven/mavencds.py) is a set-up artifact like the local Maven
# repository: benches keep it in the user cache folder even where they turn the classpath cache off or
# point it at an empty folder (which would otherwise have every cold sync write a new one).
os.environ.setdefault("PYBRIDGE_MAVEN_CDS_DIR", str(Path(platformdirs.user_cache_dir("pybridge")) / "maven-cds"))


def full_sync(root: Path, state: Path, say=print) -> dict:
    """A full sync into a fresh state folder (JVM start included), with the worker's peak RSS.
    A first sync: unless the caller set PYBRIDGE_CACHE_DIR (bench/firstsync.py does, for its cold and
    warm syncs), the classpath cache that state folders share is off, so that Maven runs as it does
    for a workspace never synced before (a previous round, or another bench, would otherwise have
    cached its classpaths)."""
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    worker = Worker()
    before = os.environ.get("PYBRIDGE_CACHE_DIR")
    if before is None:
        os.environ["PYBRIDGE_CACHE_DIR"] = "off"
    try:
        with PeakRss(worker) as rss:
            t0 = time.perf_counter()
            result = sync(root, state_dir=state, worker=worker, progress=_sync_progress(say))
            wall = time.perf_counter() - t0
    finally:
        worker.close()
        if before is None:
            os.environ.pop("PYBRIDGE_CACHE_DIR", None)
        else:
            os.environ["PYBRIDGE_CACHE_DIR"] = before
    return {"seconds": wall, "result": result.to_json(), "worker_peak_rss_bytes": rss.peak_bytes}


def resync(root: Path, state: Path, say=print) -> dict:
    """A sync of the unchanged workspace into the same state folder, as `pybridge sync` runs it."""
    t0 = time.perf_counter()
    result = sync(root, state_dir=state, progress=_sync_progress(say))
    return {"seconds": time.perf_counter() - t0, "result": result.to_json()}


def store_size(state: Path, references: int) -> dict:
    """File bytes of store.sqlite (+ -wal) after a checkpoint, and bytes per reference."""
    db = state / "store.sqlite"
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    size = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
    return {"bytes": size, "references": references, "bytes_per_reference": size / references if references else None}


# ------------------------------------------------------------------ compile baselines

def recorded_build_tool(state: Path) -> str:
    """The build tool of the state's current generation ("auto" when none is recorded)."""
    if not store_path(state).exists():
        return "auto"
    with Store.open(store_path(state)) as store:
        info = store.current_generation()
    return (GenerationMeta.of(info).build_tool if info is not None else None) or "auto"


def compile_jobs(root: Path, state: Path) -> list[dict]:
    """Per (module, scope) with sources: files, sourcepath, classpath, release, encoding,
    from pybridge's own workspace model and the build tool's resolution (the synced state's cache),
    read by the build system the synced generation was read with (Maven or Gradle)."""
    ws = load_workspace(root, recorded_build_tool(state), state_dir=state)
    cps = resolve_classpaths(ws, state)
    jobs = []
    for module in ws.modules:
        for scope_name, scope in module.scopes.items():
            cp = cps.get((module.id, scope_name))
            files = sorted(str(p) for r in scope.roots for p in r.rglob("*.java") if p.name != "module-info.java")
            if files and cp is not None:
                jobs.append({"module": module.id, "scope": scope_name, "files": files,
                             "sourcepath": [str(p) for p in cp.sourcepath],
                             "classpath": [str(p) for p in cp.classpath],
                             "release": str(cp.release), "encoding": module.encoding,
                             # Lombok for javac's annotation processing (javac_args): the build's
                             # processor path, else its classpath (Gradle 4.4, Maven's `provided`)
                             "lombok": str(jar) if (jar := lombok_jar(cp.processor_path)
                                                    or lombok_jar(cp.classpath)) else None,
                             # as the build: --release only when it says release (ClasspathResult.api)
                             "release_flag": "release" if cp.api is not None else "source"})
    return jobs


def _common(job: dict, processors: bool = False) -> list[str]:
    """The options of one compile job; annotation processing off, unless `processors` and the job has
    Lombok: then Lombok alone is javac's processor path (javac_args)."""
    level = (["--release", job["release"]] if job.get("release_flag") == "release"
             else ["-source", job["release"], "-target", job["release"]])
    proc = ["-processorpath", job["lombok"]] if processors and job.get("lombok") else ["-proc:none"]
    args = [*level, "-encoding", job["encoding"], "-nowarn", *proc,
            "-sourcepath", os.pathsep.join(job["sourcepath"])]
    if job["classpath"]:
        args += ["-classpath", os.pathsep.join(job["classpath"])]
    return args


def javac_args(job: dict) -> list[str]:
    """javac's options for one compile job: as `_common`, with Lombok as the annotation processor when
    the module has it (as the build runs it; ecj, which needs Lombok's agent instead, keeps `-proc:none`)."""
    return _common(job, processors=True)


def javac_cmd(job: dict, out: str) -> list[str]:
    return ["javac", "-J-Xmx3g", "-d", out, *javac_args(job)]


def ecj_jar() -> Path:
    """ecj as published on Maven Central (signed), which the build keeps under build/published/; the
    copy among pybridge's jars has its signature files removed (build.gradle says why), and a user's
    ecj does not."""
    published = sorted((Path(__file__).resolve().parent.parent / "build" / "published").glob("ecj-*.jar"))
    return published[0] if published else next(jars_dir().glob("ecj-*.jar"))


def ecj_cmd(job: dict, out: str) -> list[str]:
    jar = ecj_jar()
    return ["java", "-Xmx3g", "-cp", str(jar), "org.eclipse.jdt.internal.compiler.batch.Main",
            "-d", "none", "-proceedOnError", *_common(job)]


def _run_compiler(kind: str, job: dict) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory(prefix=f"bench-{kind}-") as out:
        cmd = (javac_cmd if kind == "javac" else ecj_cmd)(job, out)
        argfile = Path(out).parent / f"{Path(out).name}.args"
        argfile.write_text("\n".join(f'"{f}"' for f in job["files"]))   # long file lists through @argfile
        try:
            t0 = time.perf_counter()
            proc = subprocess.run([*cmd, f"@{argfile}"], capture_output=True, text=True)
            seconds = time.perf_counter() - t0
        finally:
            argfile.unlink(missing_ok=True)
    tail = (proc.stdout + proc.stderr).strip().splitlines()
    return seconds, proc.returncode, tail[-1] if tail else ""


def compile_once(kind: str, jobs: list[dict]) -> dict:
    """`kind` (javac or ecj) over every (module, scope) job: the total seconds and each job's.

    Each job is its own compiler process (JVM start included), main alone and
    test with main's sources on the sourcepath, as pybridge indexes them."""
    out = {"seconds": 0.0, "jobs": {}}
    for job in jobs:
        seconds, rc, last = _run_compiler(kind, job)
        out["seconds"] += seconds
        out["jobs"][f"{job['module']}:{job['scope']}"] = {"seconds": seconds, "exit_code": rc, "last_line": last}
    return out


def median_run(runs: list[dict]) -> dict:
    """The run whose `seconds` is the median (the lower middle one for an even count), with all runs' seconds."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    return {**ordered[(len(ordered) - 1) // 2], "runs": [r["seconds"] for r in runs]}


def command_line(kind: str, job: dict) -> str:
    """The exact command, shortened for the report (classpath and files elided)."""
    cmd = (javac_cmd if kind == "javac" else ecj_cmd)(job, "<tmp>")
    shown = []
    for i, part in enumerate(cmd):
        prev = cmd[i - 1] if i else ""
        shown.append(f"<{len(part.split(os.pathsep))} entries>" if prev in ("-classpath", "-sourcepath")
                      else Path(part).name if part.endswith(".jar") else part)
    return " ".join(shown) + f" <{len(job['files'])} files>"
