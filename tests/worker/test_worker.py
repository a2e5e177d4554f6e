"""The worker child: typed errors when it dies, a fresh child for the next request."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from pybridge.errors import PybridgeError, WorkerError
from pybridge.facts import FileFacts
from pybridge.live.worker import WarmWorker
from pybridge.worker import INDEXER_VERSION, IndexRequest, IndexTask, Worker, archive, cds, client
from pybridge.worker.client import jars_dir
from tests.support.indexing import java_files


def _generated_module(root: Path, classes: int) -> Path:
    src = root / "src"
    pkg = src / "gen"
    pkg.mkdir(parents=True)
    for i in range(classes):
        prev = f"C{i - 1}" if i else "Object"
        (pkg / f"C{i}.java").write_text(
            f"package gen;\npublic class C{i} extends {prev} {{\n"
            f"  int f{i};\n  int m{i}(C{i} other) {{ f{i} += other.f{i}; return new C{i}().f{i}; }}\n}}\n",
            encoding="utf-8")
    return src


def test_the_parent_never_imports_jpype(worker, samples):
    worker.index(IndexRequest(files=java_files(samples / "kitchen-sink" / "src/main/java")[:1],
                              sourcepath=[str(samples / "kitchen-sink" / "src/main/java")]))
    assert "jpype" not in sys.modules


def test_killing_the_worker_mid_request_is_a_typed_error_and_the_next_request_succeeds(tmp_path):
    src = _generated_module(tmp_path, 120)
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])
    with Worker(heap="512m") as w:
        killed = []

        def kill_on_first_progress(done: int, total: int) -> None:
            if not killed:
                killed.append(w.pid)
                os.kill(w.pid, signal.SIGKILL)

        with pytest.raises(WorkerError) as err:
            w.index(request, progress=kill_on_first_progress)
        assert err.value.cause == "killed"
        assert "SIGKILL" in str(err.value)
        assert killed and w.pid is None

        result = w.index(request)
        assert w.pid != killed[0]
        assert len(result.files) == 120
        assert all(f.binding_complete for f in result.files)


def test_running_out_of_heap_is_named_as_oom(tmp_path):
    src = _generated_module(tmp_path, 600)
    with Worker(heap="12m") as w:
        with pytest.raises(WorkerError) as err:
            w.index(IndexRequest(files=java_files(src), sourcepath=[str(src)]))
    assert err.value.cause == "oom"
    assert "-Xmx12m" in str(err.value)


def test_a_request_over_its_time_limit_is_stopped_and_named(tmp_path):
    src = _generated_module(tmp_path, 150)
    with Worker(heap="512m") as w:
        with pytest.raises(WorkerError) as err:
            w.index(IndexRequest(files=java_files(src), sourcepath=[str(src)]), timeout=0.01)
        assert err.value.cause == "timeout"
        assert w.pid is None


def test_missing_jars_say_to_run_gradle(tmp_path, monkeypatch):
    monkeypatch.setenv("PYBRIDGE_JARS", str(tmp_path))
    with pytest.raises(WorkerError) as err:
        Worker().start()
    assert err.value.cause == "start_failed"
    assert "gradle build" in str(err.value)


def test_facts_cross_in_a_handful_of_jpype_calls_not_one_per_fact(worker, samples):
    root = samples / "kitchen-sink" / "src/main/java"
    result = worker.index(IndexRequest(files=java_files(root), sourcepath=[str(root)]))
    facts = sum(len(f.references) + len(f.declarations) for f in result.files)
    assert facts > 500
    assert result.jpype_calls < len(result.files)


def test_the_python_side_knows_the_indexer_version_the_jvm_reports(worker, samples):
    worker.start()
    assert worker.info["indexer_version"] == INDEXER_VERSION


def test_streamed_chunks_carry_exactly_the_facts_of_one_whole_batch(worker, tmp_path):
    src = _generated_module(tmp_path, 70)
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])
    whole = {f.path: f for f in worker.index(request).files}
    chunks = []
    result = worker.index(request, on_files=chunks.append, chunk_files=16)
    assert result.files == []
    assert [len(c) for c in chunks] == [16, 16, 16, 16, 6]
    streamed = {f.path: f for c in chunks for f in c}
    assert streamed.keys() == whole.keys()
    assert all(streamed[p].references == whole[p].references and
               streamed[p].declarations == whole[p].declarations for p in whole)


def test_a_slow_store_gets_every_chunk_in_order_while_the_jvm_indexes_ahead(worker, tmp_path):
    # Storing overlaps indexing: while on_files holds a chunk, the JVM indexes on into its bounded
    # queue (BatchStreamTest pins that), the child ships and a parent thread drains the pipe.
    # Whatever was read ahead reaches on_files in order, each file once; progress only grows.
    src = _generated_module(tmp_path, 96)
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])
    events: list[tuple[str, int]] = []

    def slow_store(chunk) -> None:
        if len(events) < 6:
            time.sleep(0.5)
        events.append(("chunk", len(chunk)))
        seen.extend(f.path for f in chunk)

    seen: list[str] = []
    result = worker.index(request, progress=lambda done, total: events.append(("progress", done)),
                          on_files=slow_store, chunk_files=8)
    assert result.files == []
    assert [n for kind, n in events if kind == "chunk"] == [8] * 12
    assert sorted(seen) == sorted(str(p) for p in java_files(src)) and len(set(seen)) == 96
    done = [n for kind, n in events if kind == "progress"]
    assert done == sorted(done) and done[-1] == 96


def test_index_all_answers_each_request_in_order_and_sends_the_next_while_the_last_chunks_are_stored(
        worker, tmp_path):
    a, b = _generated_module(tmp_path / "a", 40), _generated_module(tmp_path / "b", 20)
    got: dict[str, list[str]] = {"a": [], "b": []}

    def store(name):
        def on_files(chunk):
            if name == "a" and len(got["a"]) >= 32:
                time.sleep(1)          # the last chunk of "a": "b" is already being indexed meanwhile
            got[name].extend(f.path for f in chunk)
        return on_files

    results = worker.index_all([IndexTask(IndexRequest(files=java_files(a), sourcepath=[str(a)]), None, store("a")),
                                IndexTask(IndexRequest(files=java_files(b), sourcepath=[str(b)]), None, store("b"))],
                               chunk_files=16)
    assert len(results) == 2 and all(r.files == [] for r in results)
    assert sorted(got["a"]) == sorted(str(p) for p in java_files(a))
    assert sorted(got["b"]) == sorted(str(p) for p in java_files(b))
    assert len(worker.index(IndexRequest(files=java_files(b), sourcepath=[str(b)])).files) == 20   # in step


class Broken(IndexRequest):
    """A request the child cannot read (no files): it answers an indexer error."""

    def as_message(self):
        return {k: v for k, v in super().as_message().items() if k != "files"}


def test_index_all_stops_at_an_indexer_error_and_the_child_stays_in_step(worker, tmp_path):
    b = _generated_module(tmp_path / "b", 5)
    pid = worker.pid or (worker.start() or worker.pid)

    good = IndexRequest(files=java_files(b), sourcepath=[str(b)])
    with pytest.raises(WorkerError) as err:
        worker.index_all([IndexTask(Broken(files=java_files(b))), IndexTask(good)])
    assert err.value.cause == "error" and "KeyError" in str(err.value)
    assert worker.pid == pid                             # an indexer error keeps the child
    assert len(worker.index(good).files) == 5            # and the protocol in step (the second never went)


def test_index_all_in_two_threads_is_one_message_with_the_facts_of_one_request_at_a_time(
        worker, tmp_path, monkeypatch):
    """PYBRIDGE_INDEX_THREADS (default 2): a sync's streamed requests go in one message and the JVM
    indexes two at once (StreamPlan); each request's chunks still arrive in its order, to its own
    `on_files`, with the facts it has when the requests go one by one."""
    mods = [_generated_module(tmp_path / name, n) for name, n in (("a", 30), ("b", 12), ("c", 21))]
    sent: list[str] = []
    real_send = client.protocol.send

    def spy(stream, message):
        sent.append(message[0])
        return real_send(stream, message)

    monkeypatch.setattr(client.protocol, "send", spy)

    def run() -> list[list[FileFacts]]:
        got: list[list[FileFacts]] = [[] for _ in mods]
        tasks = [IndexTask(IndexRequest(files=java_files(m), sourcepath=[str(m)]), None, got[i].extend)
                 for i, m in enumerate(mods)]
        assert len(worker.index_all(tasks, chunk_files=8)) == 3
        return got

    monkeypatch.setenv("PYBRIDGE_INDEX_THREADS", "1")
    one = run()
    assert sent == ["index", "index", "index"]
    sent.clear()
    monkeypatch.delenv("PYBRIDGE_INDEX_THREADS")
    two = run()
    assert sent == ["index_seq"]
    assert [[f.path for f in files] for files in two] == [[f.path for f in files] for files in one]
    assert [len(files) for files in two] == [30, 12, 21]
    assert all(x.references == y.references and x.declarations == y.declarations and x.relations == y.relations
               for a, b in zip(one, two, strict=True) for x, y in zip(a, b, strict=True))


def test_requests_sent_together_ship_their_chunks_as_they_are_ready(worker, tmp_path):
    """In one "index_seq" message the chunks of a later request come while an earlier one is still being
    indexed (each message names its request): the parent stores what both threads make, instead of
    waiting on the first request while the second piles up in the JVM."""
    big, small = _generated_module(tmp_path / "big", 240), _generated_module(tmp_path / "small", 2)
    calls: list[tuple[int, int]] = []       # (request, files) per on_files call, in arrival order
    progress: list[tuple[int, int, int]] = []
    tasks = [IndexTask(IndexRequest(files=java_files(m), sourcepath=[str(m)]),
                       lambda done, of, _i=i: progress.append((_i, done, of)),
                       lambda files, _i=i: calls.append((_i, len(files))))
             for i, m in enumerate((big, small))]
    results = worker.index_all(tasks, chunk_files=8)
    assert len(results) == 2 and all(r.files == [] for r in results)
    assert sum(n for i, n in calls if i == 0) == 240 and sum(n for i, n in calls if i == 1) == 2
    # the small request's chunk came before the big one's last (one by one, it would come after)
    assert calls.index((1, 2)) < max(k for k, (i, _n) in enumerate(calls) if i == 0)
    for i in (0, 1):      # each request's own progress only grows
        dones = [done for j, done, _of in progress if j == i]
        assert dones == sorted(dones)


def test_an_error_in_a_request_sent_together_stops_them_all_and_the_child_stays_in_step(worker, tmp_path):
    b = _generated_module(tmp_path / "b", 5)
    pid = worker.pid or (worker.start() or worker.pid)

    good = IndexRequest(files=java_files(b), sourcepath=[str(b)])
    stored: list[FileFacts] = []
    with pytest.raises(WorkerError) as err:
        worker.index_all([IndexTask(good, None, stored.extend),
                          IndexTask(Broken(files=java_files(b)), None, stored.extend)])
    assert err.value.cause == "error" and "KeyError" in str(err.value)
    assert worker.pid == pid and stored == []
    assert len(worker.index(good).files) == 5


def test_a_worker_that_indexes_and_exits_promotes_survivors_at_once_and_the_warm_worker_does_not(monkeypatch):
    """A one-shot worker's requests keep their compiler state to their end: promoted at once, it is not
    copied between survivor spaces (Worker.gc_args). The warm worker of serve keeps the collector's
    default, and PYBRIDGE_JVM_ARGS comes after either and wins."""
    monkeypatch.delenv("PYBRIDGE_JVM_ARGS", raising=False)
    assert "-XX:MaxTenuringThreshold=0" in Worker().layout_args()
    assert not any("TenuringThreshold" in a for a in WarmWorker().layout_args())
    monkeypatch.setenv("PYBRIDGE_JVM_ARGS", "-XX:MaxTenuringThreshold=15")
    args = Worker().layout_args()
    assert args.index("-XX:MaxTenuringThreshold=15") > args.index("-XX:MaxTenuringThreshold=0")


def _anon_huge_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not client.huge_page_args(), reason="the kernel gives no transparent huge pages on request "
                    "(/sys/kernel/mm/transparent_hugepage/enabled is not madvise), or PYBRIDGE_HUGE_PAGES=0")
def test_the_worker_heap_is_in_huge_pages_where_the_kernel_gives_them_on_request(tmp_path, monkeypatch):
    """Where the kernel's mode is madvise the worker asks for huge pages (client.huge_page_args), and
    its indexing heap is in them; PYBRIDGE_HUGE_PAGES=0 asks for none. The option stays out of the
    class-data archive's key, as the collector's do."""
    monkeypatch.delenv("PYBRIDGE_JVM_ARGS", raising=False)
    src = _generated_module(tmp_path, 40)
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])
    huge = {}
    for setting in ("1", "0"):
        monkeypatch.setenv(client.HUGE_PAGES_ENV, setting)
        with Worker(heap="512m") as w:
            assert len(w.index(request).files) == 40
            assert w.pid is not None
            huge[setting] = _anon_huge_kib(w.pid)
            assert not any("HugePages" in a for a in w.archive_layout())
    assert huge["1"] >= 2048 and huge["0"] == 0


def test_huge_pages_are_asked_for_only_where_the_kernel_mode_is_madvise(tmp_path, monkeypatch):
    monkeypatch.delenv(client.HUGE_PAGES_ENV, raising=False)
    mode = tmp_path / "enabled"
    for text, expected in (("always [madvise] never\n", ["-XX:+UseTransparentHugePages"]),
                           ("[always] madvise never\n", []), ("always madvise [never]\n", [])):
        mode.write_text(text)
        assert client.huge_page_args(mode) == expected
    assert client.huge_page_args(tmp_path / "absent") == []
    monkeypatch.setenv(client.HUGE_PAGES_ENV, "yes")
    with pytest.raises(PybridgeError, match="PYBRIDGE_HUGE_PAGES"):
        client.huge_page_args(mode)


def test_only_the_warm_worker_looks_up_secondary_types_by_content_and_the_archive_is_shared(monkeypatch):
    """The warm worker of serve sets the indexer's property that has its secondary-type search reuse a
    parse by a file's bytes (SecondaryTypesTest shows what it does); a one-shot worker does not. The
    property decides no class-data archive layout."""
    monkeypatch.delenv("PYBRIDGE_JVM_ARGS", raising=False)
    prop = "-Dpybridge.secondaryTypesByContent=true"
    assert prop in WarmWorker().layout_args() and prop not in Worker().layout_args()
    assert WarmWorker().archive_layout() == Worker().archive_layout()
    java = Path(__file__).resolve().parents[2] / "jvm/src/main/java/dev/pybridge/indexer/SecondaryTypes.java"
    assert 'Boolean.getBoolean("pybridge.secondaryTypesByContent")' in java.read_text(encoding="utf-8")


def test_index_threads_default_to_two_and_zero_sends_requests_one_by_one(monkeypatch):
    monkeypatch.delenv(client.INDEX_THREADS_ENV, raising=False)
    assert client.index_threads() == client.DEFAULT_INDEX_THREADS == 2
    monkeypatch.setenv(client.INDEX_THREADS_ENV, "0")
    assert client.index_threads() == 0
    monkeypatch.setenv(client.INDEX_THREADS_ENV, "two")
    with pytest.raises(PybridgeError, match="PYBRIDGE_INDEX_THREADS"):
        client.index_threads()


def test_a_failure_while_storing_a_chunk_drops_the_child_and_the_next_request_succeeds(tmp_path):
    src = _generated_module(tmp_path, 40)
    request = IndexRequest(files=java_files(src), sourcepath=[str(src)])

    def refuse(chunk):
        raise RuntimeError("disk full")

    with Worker(heap="512m") as w:
        with pytest.raises(RuntimeError):
            w.index(request, on_files=refuse, chunk_files=8)
        assert w.pid is None
        assert len(w.index(request).files) == 40


def test_a_warmed_up_worker_answers_its_first_request_normally(tmp_path):
    src = _generated_module(tmp_path, 5)
    with Worker(heap="512m") as w:
        w.warmup()
        result = w.index(IndexRequest(files=java_files(src), sourcepath=[str(src)]))
    assert len(result.files) == 5 and all(f.binding_complete for f in result.files)


def test_the_installed_jars_carry_no_signature_files():
    """build.gradle removes the signature files Eclipse publishes its jars with (a signed jar has
    every class it loads digested by the JVM); the published ecj jar is kept for bench/."""
    import re
    import zipfile

    jars = sorted(jars_dir().glob("*.jar"))
    assert any(j.name.startswith("org.eclipse.jdt.core-") for j in jars)
    signature = re.compile(r"META-INF/[^/]+\.(SF|RSA|DSA|EC)$")
    signed = [j.name for j in jars if any(signature.match(n) for n in zipfile.ZipFile(j).namelist())]
    assert signed == []
    published = list((Path(__file__).resolve().parent.parent.parent / "build" / "published").glob("ecj-*.jar"))
    assert published and any(signature.match(n) for n in zipfile.ZipFile(published[0]).namelist())


def _jar_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    jars = tmp_path / "jars"
    jars.mkdir()
    for jar in jars_dir().glob("*.jar"):
        shutil.copy2(jar, jars / jar.name)
    monkeypatch.setenv("PYBRIDGE_JARS", str(jars))
    return jars


def test_a_class_data_archive_serves_only_the_jars_and_options_it_was_made_for(tmp_path, monkeypatch):
    jars = _jar_copy(tmp_path, monkeypatch)
    monkeypatch.delenv("PYBRIDGE_CDS", raising=False)
    assert not cds.up_to_date(jars)
    made = cds.build(jars)
    assert made.stat().st_size > 1_000_000
    w = Worker()
    args = archive.archive_args(jars, w.jar_classpath(), w.jvm_path, w.archive_layout())
    assert args == [f"-XX:SharedArchiveFile={made}"]
    # the warm worker of serve tenures differently, which decides no layout: the same archive
    warm = WarmWorker()
    assert warm.layout_args() != w.layout_args()
    assert archive.archive_args(jars, warm.jar_classpath(), warm.jvm_path, warm.archive_layout()) == args
    # other JVM options (another heap): another layout, no archive
    other = Worker(heap="1g")
    assert archive.archive_args(jars, other.jar_classpath(), other.jvm_path, other.archive_layout()) == []
    monkeypatch.setenv("PYBRIDGE_CDS", "0")
    assert archive.archive_args(jars, w.jar_classpath(), w.jvm_path, w.archive_layout()) == []
    monkeypatch.delenv("PYBRIDGE_CDS")
    # a rebuilt jar: the archive is stale
    jar = jars / "pybridge-indexer.jar"
    os.utime(jar, ns=(jar.stat().st_atime_ns, jar.stat().st_mtime_ns + 1_000_000_000))
    assert archive.archive_args(jars, w.jar_classpath(), w.jvm_path, w.archive_layout()) == []
    assert not cds.up_to_date(jars)


def test_a_damaged_class_data_archive_does_not_stop_the_worker(tmp_path, monkeypatch):
    jars = _jar_copy(tmp_path, monkeypatch)
    w = Worker()
    (jars / archive.ARCHIVE).write_bytes(b"\0garbage" * 4096)
    key = archive.archive_key(w.jar_classpath(), w.jvm_path, w.archive_layout())
    (jars / (archive.ARCHIVE + ".key")).write_text(key)
    assert cds.up_to_date(jars)     # it looks right: only the JVM can tell
    src = tmp_path / "src" / "p"
    src.mkdir(parents=True)
    (src / "A.java").write_text("package p; class A { int f; int g() { return f; } }\n")
    with w:
        result = w.index(IndexRequest(files=[str(src / "A.java")], sourcepath=[str(src.parent)],
                                      classpath=[], release="17"))
    assert [len(f.declarations) for f in result.files] == [3]


def test_the_secondary_type_cache_switch_reaches_the_jvm_and_both_sides_give_the_same_facts(
        worker, tmp_path, monkeypatch):
    # `Moved` is a secondary type (declared in Holder.java): JDT finds it by parsing the package's files,
    # which the warm JVM keeps across requests unless PYBRIDGE_SECONDARY_TYPE_CACHE=0 (JUnit
    # SecondaryTypesTest counts the parses).
    pkg = tmp_path / "src" / "p"
    pkg.mkdir(parents=True)
    holder, user = pkg / "Holder.java", pkg / "User.java"
    holder.write_text("package p;\npublic class Holder {}\ninterface Moved {}\n", encoding="utf-8")
    user.write_text("package p;\npublic class User { Moved m; String s; }\n", encoding="utf-8")

    def index(cache: str) -> list:
        monkeypatch.setenv("PYBRIDGE_SECONDARY_TYPE_CACHE", cache)
        request = IndexRequest(files=[str(user)], sourcepath=[str(tmp_path / "src")])
        assert request.secondary_type_cache is (cache == "1")
        return worker.index(request).files

    on, off = index("1"), index("0")
    assert on == off and on[0].binding_complete and not on[0].problems
    assert index("1") == on
    holder.write_text("package p;\npublic class Holder {}\n", encoding="utf-8")     # Moved is gone
    gone = index("1")
    assert gone == index("0") and [p.name for p in gone[0].problems] == ["Moved"]
