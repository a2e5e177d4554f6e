"""The worker child process: the only place that imports `jpype`.

Started by `pybridge.worker.client.Worker` as `python -m pybridge.worker.child`
(a fresh interpreter, never a fork of a process with a JVM). The protocol
runs on the stdin/stdout pipes; before the JVM starts, file descriptor 1 is
pointed at stderr so that nothing Java or Python prints can corrupt it.

An OutOfMemoryError ends the JVM at once (-XX:+ExitOnOutOfMemoryError, exit
code 3); the parent names it. The child ends when its stdin closes or on an
"exit" message; it is never stopped with SIGTERM (the JVM would skip
Python's clean-up).
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from types import ModuleType
from typing import IO, Any

# Java classes and objects reach Python as JPype proxies, which have no static types: `Any` below.


def _redirect_stdout() -> tuple[IO[bytes], IO[bytes]]:
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Unbuffered: whether a request is waiting is then whether the pipe is readable (`_waiting`).
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    return proto_in, proto_out


def main() -> int:
    from pybridge.worker import protocol

    proto_in, proto_out = _redirect_stdout()
    config = json.loads(os.environ.get("PYBRIDGE_WORKER_CONFIG", "{}"))

    import jpype  # the one import of jpype in pybridge
    import jpype.config
    import jpype.imports  # enables Python imports of Java packages

    jpype.config.destroy_jvm = False
    t0 = time.perf_counter()
    jvm_args = list(config.get("jvm_args", []))
    jpype.startJVM(config["jvm_path"], *jvm_args,     # chosen by the parent (worker/jdk.py)
                   classpath=config["classpath"], convertStrings=False)
    start_s = time.perf_counter() - t0
    Indexer = jpype.JClass("dev.pybridge.indexer.Indexer")
    ProgressListener = jpype.JClass("dev.pybridge.indexer.ProgressListener")
    StreamPlan = jpype.JClass("dev.pybridge.indexer.StreamPlan")
    JString = jpype.JString
    JArray = jpype.JArray

    protocol.send(proto_out, ("ready", {
        "jvm_start_s": start_s,
        "indexer_version": str(Indexer.VERSION),
        "latest_release": str(Indexer.latestRelease()),
        "java_version": str(jpype.java.lang.System.getProperty("java.version")),
        "pid": os.getpid(),
    }))

    @jpype.JImplements(ProgressListener)
    class Progress:
        calls = 0

        @jpype.JOverride  # type: ignore[untyped-decorator]  # jpype ships no types
        def filesDone(self, done: Any, total: Any) -> None:
            Progress.calls += 1
            protocol.send(proto_out, ("progress", int(done), int(total)))

    collect_after = int(config.get("collect_after_files") or 0)

    def collect(files: int) -> None:
        """After a request of `files` files: collect the heap if it was large, and no request waits."""
        nonlocal collect_after
        if 0 < collect_after <= files and not _waiting(proto_in) and not _collect_heap(jpype):
            collect_after = 0

    while True:
        message = protocol.receive(proto_in)
        if message is None or message[0] == "exit":
            return 0
        if message[0] == "ping":
            protocol.send(proto_out, ("pong",))
            continue
        if message[0] == "cds_dump":
            Cds = jpype.JClass("dev.pybridge.indexer.Cds")
            protocol.send(proto_out, ("cds", str(Cds.dump(JString(message[1])))))
            continue
        if message[0] == "warmup":
            _warmup(Indexer, JArray, JString)
            protocol.send(proto_out, ("warm",))
            continue
        if message[0] == "index_seq":
            _index_seq(message[1], int(message[2]), StreamPlan, jpype.JException, JArray, JString, proto_out,
                       protocol)
            collect(sum(_files_asked(r) for r in message[1]))
            continue
        if message[0] != "index":
            protocol.send(proto_out, ("error", "error", f"unknown request {message[0]!r}"))
            continue
        request = message[1]
        try:
            listener = Progress()
            Progress.calls = 0
            chunk = int(request.get("chunk_files") or 0)
            args = (*_source_args(request, JArray, JString), bool(request.get("class_cache", False)),
                    None if request.get("cache_roots") is None else JArray(JString)(request["cache_roots"]))
            if chunk > 0:
                _stream(Indexer.stream(*args, chunk), proto_out, protocol)
            else:
                batch = Indexer.index(*args, listener)
                payload = _payload(batch)
                # index() + 9 field reads + progress callbacks from Java
                payload["jpype_calls"] = 10 + Progress.calls
                del batch
                protocol.send(proto_out, ("result", payload))
        except jpype.JException as e:  # a Java exception other than OutOfMemoryError
            protocol.send(proto_out, ("error", "error", f"{e.getClass().getName()}: {e.getMessage()}"))
        except Exception as e:  # noqa: BLE001 - reported to the parent, which raises a typed error
            protocol.send(proto_out, ("error", "error", f"{type(e).__name__}: {e}"))
        collect(_files_asked(request))


def _source_args(request: dict[str, Any], JArray: Any, JString: Any) -> tuple[Any, ...]:
    """An index request's files, sourcepath, classpath, release, api, encoding, javadoc and secondary-type
    cache, as the Java arguments `Indexer.index`, `Indexer.stream` and `StreamPlan.add` begin with."""
    return (JArray(JString)(request["files"]), JArray(JString)(request["sourcepath"]),
            JArray(JString)(request["classpath"]), JString(request["release"]),
            JString(request.get("api") or ""), JString(request["encoding"]),
            bool(request.get("javadoc", True)), bool(request.get("secondary_type_cache", True)))


def _index_seq(requests: list[dict[str, Any]], threads: int, StreamPlan: Any, JException: Any, JArray: Any,
               JString: Any, proto_out: IO[bytes], protocol: ModuleType) -> None:
    """Several streamed requests in one message: the JVM indexes up to `threads` of them at once
    (`StreamPlan`), and their chunks are shipped as they are ready, whichever request they belong to,
    each message carrying its request's index ("progress", done, total, i), ("chunk", payload, i),
    ("result", payload, i): the parent stores the facts of two requests at the pace the two threads
    make them, instead of waiting on the first while the second piles up. After a failure the rest
    are closed and nothing more is sent for them."""
    streams: list[Any] = []
    try:
        plan = StreamPlan(threads, max(int(requests[0].get("chunk_files") or 1), 1))
        for request in requests:
            plan.add(*_source_args(request, JArray, JString))
        streams = list(plan.start())
        shipped = [_Shipped() for _ in streams]
        left = len(streams)
        while left:
            i = int(plan.nextReady())          # blocks in Java with the GIL released
            if not _ship(streams[i], shipped[i], proto_out, protocol, i):
                streams[i] = None
                left -= 1
    except JException as e:
        _close(streams)
        protocol.send(proto_out, ("error", "error", f"{e.getClass().getName()}: {e.getMessage()}"))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which raises a typed error
        _close(streams)
        protocol.send(proto_out, ("error", "error", f"{type(e).__name__}: {e}"))
    except BaseException:
        _close(streams)
        raise


def _files_asked(request: Any) -> int:
    """How many files an index request names (0 for a malformed one, already answered with an error)."""
    files = request.get("files") if isinstance(request, dict) else None
    return len(files) if isinstance(files, (list, tuple)) else 0


def _waiting(stream: IO[bytes]) -> bool:
    """Whether the parent has already sent the next message (a sync's next request goes out as soon
    as the last chunk of the one before is shipped): then the child is not idle. True where a pipe
    cannot be polled (Windows' select takes sockets only): the child then never collects."""
    try:
        return bool(select.select([stream], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _collect_heap(jpype: ModuleType) -> bool:
    """A full collection of the JVM's heap, through the GC.run diagnostic command (the worker runs
    with -XX:+DisableExplicitGC, which only System.gc obeys: see Worker.layout_args). Called after
    a large request's answer is sent, so that the next request does not pay for its garbage
    (`WarmWorker.collect_after_files`). False when the JVM has no such command (not HotSpot)."""
    try:
        server = jpype.JClass("java.lang.management.ManagementFactory").getPlatformMBeanServer()
        name = jpype.JClass("javax.management.ObjectName")("com.sun.management:type=DiagnosticCommand")
        server.invoke(name, "gcRun", None, None)
    except jpype.JException:
        return False
    return True


def _close(streams: list[Any]) -> None:
    for stream in streams:
        if stream is not None:
            stream.close()


def _warmup(Indexer: Any, JArray: Any, JString: Any) -> None:
    """Index a small bundled source: loads and compiles JDT's hot paths before the real request."""
    from pathlib import Path

    source = Path(__file__).resolve().parent / "warmup"
    try:
        Indexer.index(JArray(JString)([str(source / "Warmup.java")]), JArray(JString)([str(source)]),
                      JArray(JString)([]), JString("17"), JString("UTF-8"), True, None)
    except Exception:  # noqa: BLE001 - a warm-up that fails only costs its time
        pass


def _payload(batch: Any) -> dict[str, Any]:
    return {
        "strings": memoryview(batch.stringsUtf8).tobytes(),
        "files": memoryview(batch.files).tobytes(),
        "decls": memoryview(batch.decls).tobytes(),
        "refs": memoryview(batch.refs).tobytes(),
        "rels": memoryview(batch.rels).tobytes(),
        "probs": memoryview(batch.probs).tobytes(),
        "exts": memoryview(batch.exts).tobytes(),
        "blocks": memoryview(batch.blocks).tobytes(),
        "sigs": memoryview(batch.sigs).tobytes(),
        "elapsed_ms": int(batch.elapsedMillis),
    }


class _Shipped:
    """What one stream has shipped so far: its JPype calls, the JVM's time and the progress said."""

    __slots__ = ("calls", "elapsed", "said")

    def __init__(self) -> None:
        self.calls, self.elapsed, self.said = 1, 0, -1


def _ship(stream: Any, shipped: _Shipped, proto_out: IO[bytes], protocol: ModuleType, index: int | None) -> bool:
    """Ship the next chunk of a Java `BatchStream` (its progress first, when it moved), or its result
    after the last one; False once the result went. `index`: the request's index in an
    "index_seq" message, sent with each message (None: a lone request's messages carry none)."""
    tail = () if index is None else (index,)
    batch = stream.next()      # blocks in Java with the GIL released
    shipped.calls += 1
    if batch is None:
        protocol.send(proto_out, ("result", {"streamed": True, "elapsed_ms": shipped.elapsed,
                                             "jpype_calls": shipped.calls}, *tail))
        return False
    done, total = int(stream.done()), int(stream.total())
    shipped.calls += 2
    if done != shipped.said:
        shipped.said = done
        protocol.send(proto_out, ("progress", done, total, *tail))
    payload = _payload(batch)
    shipped.calls += 9
    del batch
    shipped.elapsed = payload["elapsed_ms"]
    protocol.send(proto_out, ("chunk", payload, *tail))
    return True


def _stream(stream: Any, proto_out: IO[bytes], protocol: ModuleType) -> None:
    """Ship each chunk of a Java `BatchStream` as it is ready. The JVM indexes the next chunks
    meanwhile (into a bounded queue), whether or not the parent is reading yet: while this thread
    waits on a full pipe, indexing goes on. Progress is read from the stream before each chunk (the
    Java thread never calls into Python). A failure here (the parent gone) closes the stream, so
    the indexing thread stops instead of running on in the background."""
    shipped = _Shipped()
    try:
        while _ship(stream, shipped, proto_out, protocol, None):
            pass
    except BaseException:
        stream.close()
        raise


if __name__ == "__main__":
    sys.exit(main())
