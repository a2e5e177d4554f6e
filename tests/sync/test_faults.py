"""The fault suite (issue 13): kills at random moments of a real sync, hostile paths
and symlinks, a full disk on a real small volume.

Short form by default (3 kills, every hostile entry and path argument, the
full-disk round); `PYBRIDGE_FAULTS_LONG=1` runs the long form (25 kills).
`PYBRIDGE_FAULTS_SEED=N` repeats a run's random choices; each kill test
prints its seed and the events it killed at (`pytest -s` shows them).
Malformed MCP messages are fuzzed in the MCP tests, not here.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from pybridge.store import Store
from pybridge.sync import store_path, sync
from tests.support.query_support import err, facade_for, ok

ROOT = Path(__file__).resolve().parent.parent.parent
LONG = os.environ.get("PYBRIDGE_FAULTS_LONG") == "1"
KILLS = 25 if LONG else 3
MARK = "PYBRIDGE_FAULT_RUN"

# A sync in a child process that prints one line per event (progress and every
# fault point of sync and store) and flushes, so the parent can kill it at the
# N-th event: at a random moment of Maven, indexing, staging, publish or GC.
EVENTS = r"""
import json, os, signal, sys
from pybridge.sync import faults
from pybridge.store import faults as store_faults
root, state = sys.argv[1:3]
die_at = os.environ.get("PYBRIDGE_TEST_DIE_AT")
def say(kind, what):
    sys.stdout.write(json.dumps([kind, what]) + "\n")
    sys.stdout.flush()
    if kind == "fault" and what == die_at:   # at exactly that point, not when the parent reads it
        os.kill(os.getpid(), signal.SIGKILL)
faults.hit = lambda point: say("fault", point)
store_faults.hit = lambda point: say("fault", point)
from pybridge.sync import sync
result = sync(root, state_dir=state, heap="512m", progress=lambda e: say("progress", e.get("phase")))
say("done", result.generation)
"""


def _kill_marked(token: str) -> None:
    """SIGKILL the processes this test started (the sync's worker JVM, Maven), found by
    the marker in their environment, each by its id."""
    needle = f"{MARK}={token}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):
            continue


def _run_sync(root: Path, state: Path, kill_at: int | None, kill_point: str | None = None) -> tuple[list, int | None]:
    """Run the event-printing sync; kill it at event number `kill_at` (1-based), or have it kill
    itself at the first hit of the fault point `kill_point`. Returns (the events seen, the exit code)."""
    token = uuid.uuid4().hex
    env = {**os.environ, MARK: token, **({"PYBRIDGE_TEST_DIE_AT": kill_point} if kill_point else {})}
    proc = subprocess.Popen([sys.executable, "-c", EVENTS, str(root), str(state)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    events: list = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            events.append(json.loads(line))
            if kill_at is not None and len(events) >= kill_at:
                os.kill(proc.pid, signal.SIGKILL)
                break
        code = proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        _kill_marked(token)
    return events, code


def _check_store(state: Path, allowed: set[int]) -> int:
    """The store opens (as a writer: it collects the debris), its current generation is
    one of `allowed` and whole, and SQLite finds no corruption."""
    with Store.open(store_path(state)) as store:
        current = store.current_generation()
        assert current is not None and current.number in allowed, (current, allowed)
        with store.reader() as r:
            listed = {f.path for f in r.files()}
        assert listed == set(current.snapshot["files"])    # every file of the generation, whole
        conn = store._checkout()
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        finally:
            store._checkin(conn)
        return current.number


def test_syncs_killed_at_random_moments_never_lose_or_corrupt_a_generation(tmp_path, samples, worker):
    seed = int(os.environ.get("PYBRIDGE_FAULTS_SEED") or random.randrange(1 << 30))
    rng = random.Random(seed)
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    state = tmp_path / "state"
    generation = sync(root, state_dir=state, worker=worker).generation
    banner = root / "app/src/main/java/com/acme/app/Banner.java"
    # How many events a full sync (Maven included) has: the range to kill in.
    (state / "classpath-cache.json").unlink()
    banner.write_text(banner.read_text(encoding="utf-8") + "\nclass Probe0 {}\n", encoding="utf-8")
    events, code = _run_sync(root, state, None)
    assert code == 0 and events[-1][0] == "done", events[-5:]
    generation = events[-1][1]
    span = len(events)
    killed_at = []
    for round_ in range(1, KILLS + 1):
        banner.write_text(banner.read_text(encoding="utf-8") + f"\nclass Probe{round_} {{}}\n", encoding="utf-8")
        if rng.random() < 0.3:
            (state / "classpath-cache.json").unlink(missing_ok=True)     # Maven runs again
        at = rng.randint(1, span)
        events, code = _run_sync(root, state, at)
        killed_at.append((at, events[-1] if events else None))
        # Killed before the publish commit: the previous generation; after it: the new one.
        generation = _check_store(state, {generation, generation + 1})
    print(f"\nfault suite: {KILLS} kills, seed {seed}, killed at {killed_at}")
    final = sync(root, state_dir=state, worker=worker)
    assert final.generation >= generation
    with Store.open(store_path(state), readonly=True) as store, store.reader() as r:
        assert r.declarations(name=f"Probe{KILLS}")


# Hostile paths and symlinks ----------------------------------------------------

SECRET = "H3-SECRET-MARKER-5b1c"


def _hostile_tree(tmp_path: Path, samples: Path) -> tuple[Path, list[str]]:
    """The kitchen-sink with a few dozen hostile entries in a source folder; returns
    (root, the names of the entries)."""
    root = tmp_path / "ws" / "kitchen-sink"
    shutil.copytree(samples / "kitchen-sink", root)
    outside = tmp_path / "outside"
    (outside / "com" / "acme" / "kitchen").mkdir(parents=True)
    leak = outside / "Leak.java"
    leak.write_text(f"package com.acme.kitchen; class Leak {{ String s = \"{SECRET}\"; }}\n")
    (outside / "com" / "acme" / "kitchen" / "Leak2.java").write_text(
        f"package com.acme.kitchen; class Leak2 {{ String s = \"{SECRET}\"; }}\n")
    pkg = root / "src/main/java/com/acme/kitchen"
    hostile = pkg / "h"
    hostile.mkdir()

    def java(name: str, body: str = "") -> None:
        (hostile / name).write_text(f"package com.acme.kitchen.h;\nclass Ok{abs(hash(name)) % 10**9} {{ {body} }}\n")

    entries: list[str] = []

    def add(name: str, make) -> None:
        make(hostile / name)
        entries.append(name)

    add("Dangling.java", lambda p: p.symlink_to(hostile / "Nothing.java"))
    add("Self.java", lambda p: p.symlink_to(p))
    add("LoopA.java", lambda p: p.symlink_to(hostile / "LoopB.java"))
    add("LoopB.java", lambda p: p.symlink_to(hostile / "LoopA.java"))
    add("Passwd.java", lambda p: p.symlink_to("/etc/passwd"))
    add("Leak.java", lambda p: p.symlink_to(leak))
    add("LeakRelative.java", lambda p: p.symlink_to(os.path.relpath(leak, hostile)))
    add("Chain.java", lambda p: p.symlink_to(hostile / "Leak.java"))
    add("DevNull.java", lambda p: p.symlink_to("/dev/null"))
    add("Environ.java", lambda p: p.symlink_to("/proc/self/environ"))
    add("Fifo.java", lambda p: os.mkfifo(p))     # reading it would block the sync forever
    add("DirLink.java", lambda p: p.symlink_to(pkg / "util"))
    add("Dir.java", lambda p: p.mkdir())
    add("outdir", lambda p: p.symlink_to(outside / "com" / "acme" / "kitchen"))   # never descended
    add("loopdir", lambda p: p.symlink_to(hostile))
    add("PomLink.java", lambda p: p.symlink_to(root / "pom.xml"))               # inside: read, garbage
    add("Twin.java", lambda p: p.symlink_to(pkg / "Counter.java"))              # inside: indexed
    for name in ("Space Name.java", "Ünïcödé.java", "New\nLine.java", "Back\\slash.java", "-rf.java",
                 "..java", ".java", "$(touch pwned).java", "semi;colon'quote\".java", "[a-z]*.java",
                 "%s%n.java", "x" * 240 + ".java", "tab\tname.java", "CON.java"):
        add(name, lambda p: java(p.name))
    add(os.fsdecode(b"Bad\xff.java"), lambda p: java(p.name))
    add("Empty.java", lambda p: p.write_text(""))
    add("Garbage.java", lambda p: p.write_bytes(bytes(range(256)) * 8))
    add("Nul.java", lambda p: p.write_bytes(b"package com.acme.kitchen.h;\0\0 class Nul {}\n"))
    add("Huge.java", lambda p: p.write_text("package com.acme.kitchen.h;\nclass Huge {}\n" + "//\n" * 4000))
    return root, entries


HOSTILE_PATH_ARGS = [
    "../../etc/passwd", "/etc/passwd", "..", ".", "../outside/Leak.java", "src/../../outside/Leak.java",
    "src/main/java/com/acme/kitchen/h/Passwd.java", "src/main/java/com/acme/kitchen/h/Leak.java",
    "src/main/java/com/acme/kitchen/h/Chain.java", "src/main/java/com/acme/kitchen/h/Fifo.java",
    "src/main/java/com/acme/kitchen/h/outdir/Leak2.java", "src/main/java/com/acme/kitchen/h/Environ.java",
    "src/main/java/com/acme/kitchen/h/loopdir/loopdir/Self.java", "/proc/self/environ", "~/.ssh/id_rsa",
    "\\..\\..\\etc\\passwd", "src/main/java/com/acme/kitchen/h/Dangling.java", "file:///etc/passwd",
    "src/main/java/com/acme/kitchen/h/DevNull.java", "/dev/zero", "%2e%2e/%2e%2e/etc/passwd",
    "src/main/java/com/acme/kitchen/Counter.java/../../../../../../../../etc/passwd",
    "\u202e/etc/passwd", "src\0/etc/passwd", "a" * 5000, "", " ", "//etc/passwd",
    "src/main/java/com/acme/kitchen/h/Self.java", "src/main/java/com/acme/kitchen/h/Dir.java",
]


def test_a_sync_over_hostile_paths_and_symlinks_names_each_and_reads_nothing_outside(tmp_path, samples, worker):
    root, entries = _hostile_tree(tmp_path, samples)
    state = tmp_path / "state"
    result = sync(root, state_dir=state, worker=worker)      # never hangs on the FIFO, never fails
    named = {lim["path"].rsplit("/", 1)[-1]: lim["kind"] for lim in result.limitations if "path" in lim}
    expected_skips = {"Dangling.java", "Self.java", "LoopA.java", "LoopB.java", "Passwd.java", "Leak.java",
                      "LeakRelative.java", "Chain.java", "DevNull.java", "Environ.java", "Fifo.java"}
    assert expected_skips <= named.keys(), named
    assert {named[n] for n in ("Passwd.java", "Leak.java", "LeakRelative.java", "Chain.java", "DevNull.java",
                               "Environ.java")} == {"file_outside_workspace"}
    assert {named[n] for n in ("Dangling.java", "Self.java", "LoopA.java", "LoopB.java",
                               "Fifo.java")} == {"file_unreadable"}
    assert not (root / "pwned").exists() and not Path("pwned").exists()
    # Nothing from outside the workspace reached the store.
    assert SECRET.encode() not in store_path(state).read_bytes()
    for suffix in ("-wal",):
        extra = store_path(state).with_name(store_path(state).name + suffix)
        assert not extra.exists() or SECRET.encode() not in extra.read_bytes()
    with Store.open(store_path(state), readonly=True) as store, store.reader() as r:
        assert not r.declarations(name="Leak") and not r.declarations(name="Leak2")
        paths = {f.path for f in r.files()}
    assert "src/main/java/com/acme/kitchen/h/Twin.java" in paths
    assert "src/main/java/com/acme/kitchen/h/Space Name.java" in paths
    shown = {lim["path"] for lim in result.limitations if "path" in lim}
    assert "src/main/java/com/acme/kitchen/h/Bad\\xff.java" in shown, shown     # bytes that are not UTF-8, escaped
    json.dumps(result.limitations, ensure_ascii=False).encode("utf-8")     # valid text for any transport
    with facade_for((root, state)) as facade:
        assert ok(facade, "status", {})["stale"] is False
        for arg in HOSTILE_PATH_ARGS:
            result, is_error = facade.call("symbol_at", {"path": arg, "line": 0, "character": 0})
            text = json.dumps(result)
            assert SECRET not in text and "root:x:0:0" not in text, (arg, result)
            assert is_error or result.get("symbols") is not None, (arg, result)
    print(f"\nfault suite: {len(entries)} hostile entries, {len(HOSTILE_PATH_ARGS)} hostile path arguments")
    assert len(entries) >= 30 and len(HOSTILE_PATH_ARGS) >= 30


# A full disk --------------------------------------------------------------------

@pytest.fixture
def small_volume(tmp_path):
    """A 6 MiB tmpfs (root only); skipped with the reason when mounting is not permitted."""
    mount = tmp_path / "vol"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root; the injected ENOSPC tests cover the path")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); the injected ENOSPC tests "
                    f"cover the path")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _fill(volume: Path) -> Path:
    filler = volume / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 4096, 512, 1):
            block = b"\0" * size
            try:
                while os.write(fd, block):
                    pass
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler


def _cli(*args: str, cwd: Path, state: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pybridge.cli", *args, "--state-dir", str(state)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_on_a_full_volume_queries_answer_and_sync_names_the_full_disk(tmp_path, samples, worker, small_volume):
    root = tmp_path / "kitchen-sink"
    shutil.copytree(samples / "kitchen-sink", root)
    state = small_volume / "state"
    sync(root, state_dir=state, worker=worker)
    filler = _fill(small_volume)
    assert shutil.disk_usage(small_volume).free < 64 * 1024
    # A fresh query process: the store had no open connection, so not even -shm exists.
    found = _cli("tool", "find_symbol", '{"query": "Counter.count"}', cwd=root, state=state)
    assert found.returncode == 0, found.stdout + found.stderr
    assert json.loads(found.stdout)["symbols"][0]["dottedPath"] == "com.acme.kitchen.Counter.count"
    status = _cli("status", "--json", cwd=root, state=state)
    assert status.returncode == 0 and json.loads(status.stdout)["generation"] == 1, status.stdout + status.stderr
    counter = root / "src/main/java/com/acme/kitchen/Counter.java"
    counter.write_text(counter.read_text(encoding="utf-8") + "\n// edit\n", encoding="utf-8")
    failed = _cli("sync", cwd=root, state=state)
    assert failed.returncode != 0
    message = " ".join((failed.stdout + failed.stderr).split())
    assert f"disk full: free space on {small_volume}" in message, message
    assert "not_synced" not in message and "writable" not in message
    with facade_for((root, state)) as facade:
        assert ok(facade, "status", {})["generation"] == 1
        err(facade, "symbol_at", {"path": "src/main/java/com/acme/kitchen/Counter.java", "line": 0,
                                  "character": 0}, "stale_snapshot")
    filler.unlink()
    assert sync(root, state_dir=state, worker=worker).generation == 2
