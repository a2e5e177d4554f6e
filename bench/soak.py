"""Soak: `pybridge serve` on a real project under a storm of mixed edits, an exact query every 100 ms.

    .venv/bin/python bench/soak.py                                # 10 minutes on commons-lang3 (main)
    .venv/bin/python bench/soak.py --duration 30 --replays 3 --no-write    # a short run

The workspace (bench/workspaces.py builds it from Maven Central) is copied to
a temporary folder and synced once; `pybridge serve` then watches it over MCP
stdio. A storm thread edits it for `--duration` seconds: storm spells of
1-6 s (bursts of 1 to 40 edits a few milliseconds apart, 0.05-1 s between
bursts) and quiet spells of 2 s to `--quiet-max` (default 15 s), in which
the live index can catch up (a catch-up of commons-lang3 after a burst took
about 5 s here). Kinds: appends, added
methods that call the queried methods, removed methods, method renames,
calls switched between the queried methods, syntax breaks and repairs, new
files, deleted files, moves to another package (the package line fixed),
a new source root (`src/test/java`, which the workspace lacks) and its
removal, edits through a hard link made outside the workspace, and edits that
keep size and mtime. Each content edit is written in place or saved the
editor way (a temporary file renamed over it). Meanwhile an exact query,
`find_references` on one of the queried methods in turn, goes out every
100 ms, whether the earlier ones were answered or not (at most 60 wait at
once: exact tools wait up to `--fresh-wait` for a catch-up); p50 and p99 are
over every answer.

The truth, affordably. The storm is the only writer: it records each file
version it leaves on disk (content-addressed) and bumps a version number
after each edit, under a lock that the query side takes to read that number
just before a query is sent and just after its answer arrives. An answer
marked `fresh` claims that its generation matches the files at some moment
while it was computed, so:

1. inputs: the generation's snapshot (read from the store as soon as an
   answer names it) must hold, path for path, the content hashes of the
   tree at one of the versions between send and answer. Checked for every
   fresh answer.
2. facts: for a sample of the generations that answered fresh (`--replays`,
   spread over the run, the last one always), that exact tree is written out
   again and synced from scratch into a new state folder (the same worker,
   warm); `find_references` there must give the same references as every
   fresh answer from that generation. With (1), this is the answer against
   a fresh sync of the tree as it was when the answer was given.

A fresh answer failing either is a stale answer. At the end the storm stops,
the server settles, and the live store is compared fact by fact with a fresh
sync of the final tree (`tests/support/incremental_edits.py:differences`).

Writes the "Soak" section of bench/RESULTS.md and bench/soak.json (unless
`--no-write`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.queries import _unpack, serve_command  # noqa: E402 - after the sys.path set-up
from bench.report import write_section  # noqa: E402 - after the sys.path set-up
from bench.run import machine, versions  # noqa: E402 - after the sys.path set-up
from bench.workspaces import ARTIFACTS, ensure  # noqa: E402 - after the sys.path set-up
from pybridge.query.facade import Facade  # noqa: E402 - after the sys.path set-up
from pybridge.store import Store  # noqa: E402 - after the sys.path set-up
from pybridge.sync import store_path, sync  # noqa: E402 - after the sys.path set-up
from pybridge.worker import Worker  # noqa: E402 - after the sys.path set-up
from tests.support.incremental_edits import differences  # noqa: E402 - after the sys.path set-up

BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"
TARGETS = ("StringUtils.isEmpty(CharSequence)", "StringUtils.isBlank(CharSequence)")
PACKAGE = "org.apache.commons.lang3"
MAIN = "src/main/java/org/apache/commons/lang3"
TEST_ROOT = "src/test/java"
CALL = re.compile(r"StringUtils\.is(Empty|Blank)\(")
ADDED = re.compile(r"\n    static int (pbSoak\w+)\(\) \{ return [^\n]*\}\n")
BROKEN = "\n    int pbBroken = ;\n"
KINDS = (("append", 12), ("add_method", 14), ("remove_method", 8), ("rename_method", 6), ("switch_call", 6),
         ("break", 6), ("repair", 8), ("new_file", 4), ("delete_file", 2), ("move", 4), ("new_root", 2),
         ("hard_link", 8), ("kept_stat", 8))       # edit kinds and their weights
MAX_IN_FLIGHT = 60          # queries waiting for a catch-up at once (each waits up to --fresh-wait)


def nearest_rank(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[max(math.ceil(q * len(ordered)) - 1, 0)]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Tree:
    """What the storm left on disk: every `.java` file's content hash at each version."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.Lock()
        self.version = 0
        self.blobs: dict[str, bytes] = {}                 # sha256 -> zlib-compressed content
        self.files: dict[str, str] = {}                   # relpath -> sha256, now
        self.initial: dict[str, str] = {}
        self.log: list[dict[str, str | None]] = []        # log[v - 1]: what version v changed
        for path in sorted(root.rglob("*.java")):
            self._put(path.relative_to(root).as_posix(), path.read_bytes())
        self.initial = dict(self.files)

    def _put(self, rel: str, data: bytes) -> str:
        digest = sha(data)
        self.blobs.setdefault(digest, zlib.compress(data, 1))
        self.files[rel] = digest
        return digest

    def record(self, rels: list[str]) -> None:
        """After an edit (the lock held): read back what it left at these paths; one new version."""
        changed: dict[str, str | None] = {}
        for rel in rels:
            path = self.root / rel
            if path.is_file():
                changed[rel] = self._put(rel, path.read_bytes())
            else:
                self.files.pop(rel, None)
                changed[rel] = None
        self.log.append(changed)
        self.version += 1

    def now(self) -> int:
        with self.lock:
            return self.version

    def states(self) -> "StateWalker":
        return StateWalker(self)

    def content(self, digest: str) -> bytes:
        return zlib.decompress(self.blobs[digest])


class StateWalker:
    """The tree at increasing versions, replaying the log once."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.version = 0
        self.files = dict(tree.initial)

    def at(self, version: int) -> dict[str, str]:
        while self.version < version:
            for rel, digest in self.tree.log[self.version].items():
                if digest is None:
                    self.files.pop(rel, None)
                else:
                    self.files[rel] = digest
            self.version += 1
        return self.files


class Storm(threading.Thread):
    """Mixed edits in bursts until stopped (see the module docstring)."""

    def __init__(self, tree: Tree, links: Path, seed: int, quiet_max: float = 15.0, only: set[str] | None = None,
                 pool_size: int = 40) -> None:
        super().__init__(name="soak-storm", daemon=True)
        self.tree = tree
        self.quiet_max = quiet_max
        self.only = only
        self.links = links
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.kinds: Counter[str] = Counter()
        self.errors: list[str] = []
        root = tree.root
        main = sorted(p.relative_to(root).as_posix() for p in (root / MAIN).glob("*.java")
                      if p.name != "package-info.java" and "class " in p.read_text(encoding="utf-8"))
        self.pool = self.rng.sample(main, min(pool_size, len(main)))
        self.created: list[str] = []
        self.tests: list[str] = []
        self.broken: set[str] = set()
        self.counter = 0

    def run(self) -> None:
        storming_until = time.monotonic() + self.rng.uniform(1.0, 6.0)
        while not self.stop.is_set():
            if time.monotonic() > storming_until:       # a quiet spell: the live index may catch up
                if self.stop.wait(self.rng.uniform(min(2.0, self.quiet_max), self.quiet_max)):
                    return
                storming_until = time.monotonic() + self.rng.uniform(1.0, 6.0)
            if self.stop.wait(self.rng.uniform(0.05, 1.0)):
                return
            burst = 1 if self.rng.random() < 0.4 else self.rng.randint(2, 40)
            for _ in range(burst):
                if self.stop.is_set():
                    return
                try:
                    with self.tree.lock:
                        kind, rels = self.edit()
                        self.tree.record(rels)
                    self.kinds[kind] += 1
                except OSError as exc:          # a storm edit must not end the soak
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(self.rng.uniform(0.0, 0.02))

    # ------------------------------------------------------------------ the edits

    def edit(self) -> tuple[str, list[str]]:
        kinds = [(k, w) for k, w in KINDS if self.only is None or k in self.only]
        kind = self.rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        done = getattr(self, f"_{kind}")()
        if done is None:                        # nothing to do for that kind now: append instead
            return "append", self._append()
        return kind, done

    def _file(self) -> str:
        return self.rng.choice(self.pool + self.created)

    def _read(self, rel: str) -> str:
        return (self.tree.root / rel).read_text(encoding="utf-8")

    def _write(self, rel: str, text: str) -> None:
        """In place (truncate and write) or the editor way (a temporary file renamed over it)."""
        path = self.tree.root / rel
        if self.rng.random() < 0.5:
            path.write_text(text, encoding="utf-8")
        else:
            tmp = path.with_name(f".{path.name}.soak~")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)

    def _append(self) -> list[str]:
        rel = self._file()
        with open(self.tree.root / rel, "a", encoding="utf-8") as f:
            f.write(f"// soak {self.counter}\n")
        self.counter += 1
        return [rel]

    def _method(self) -> str:
        self.counter += 1
        which = self.rng.choice(("Empty", "Blank"))
        return f"\n    static int pbSoak{self.counter}() {{ return StringUtils.is{which}(\"x\") ? 1 : 0; }}\n"

    def _add_method(self) -> list[str]:
        rel = self._file()
        text = self._read(rel)
        end = text.rstrip().rfind("}")
        if end < 0:
            return self._append()
        self._write(rel, text[:end] + self._method().replace("StringUtils.", f"{PACKAGE}.StringUtils.")
                    + text[end:])
        return [rel]

    def _with_added(self) -> tuple[str, str, list[re.Match[str]]] | None:
        candidates = self.pool + self.created
        for rel in self.rng.sample(candidates, min(8, len(candidates))):
            text = self._read(rel)
            found = list(ADDED.finditer(text))
            if found:
                return rel, text, found
        return None

    def _remove_method(self) -> list[str] | None:
        hit = self._with_added()
        if hit is None:
            return None
        rel, text, found = hit
        m = self.rng.choice(found)
        self._write(rel, text[:m.start()] + "\n" + text[m.end():])
        return [rel]

    def _rename_method(self) -> list[str] | None:
        hit = self._with_added()
        if hit is None:
            return None
        rel, text, found = hit
        m = self.rng.choice(found)
        self.counter += 1
        self._write(rel, text[:m.start(1)] + f"pbSoak{self.counter}r" + text[m.end(1):])
        return [rel]

    def _switch_call(self) -> list[str] | None:
        hit = self._with_added()
        if hit is None:
            return None
        rel, text, found = hit
        m = self.rng.choice(found)
        body = m.group(0)
        swapped = body.replace("isEmpty(", "isBlank(") if "isEmpty(" in body else body.replace("isBlank(", "isEmpty(")
        self._write(rel, text[:m.start()] + swapped + text[m.end():])
        return [rel]

    def _break(self) -> list[str]:
        rel = self._file()
        text = self._read(rel)
        end = text.rstrip().rfind("}")
        self._write(rel, text[:end] + BROKEN + text[end:])
        self.broken.add(rel)
        return [rel]

    def _repair(self) -> list[str] | None:
        broken = sorted(self.broken)
        if not broken:
            return None
        rel = self.rng.choice(broken)
        self.broken.discard(rel)
        path = self.tree.root / rel
        if not path.exists():
            return None
        self._write(rel, self._read(rel).replace(BROKEN, ""))
        return [rel]

    def _new_file(self) -> list[str]:
        self.counter += 1
        name = f"PbSoak{self.counter}"
        rel = f"{MAIN}/{name}.java"
        self._write(rel, f"package {PACKAGE};\n\npublic class {name} {{{self._method()}}}\n")
        self.created.append(rel)
        return [rel]

    def _delete_file(self) -> list[str] | None:
        if not self.created:
            return None
        rel = self.created.pop(self.rng.randrange(len(self.created)))
        (self.tree.root / rel).unlink()
        self.broken.discard(rel)
        return [rel]

    def _move(self) -> list[str] | None:
        """Move a storm file to the other package folder and fix its package line (as an IDE does)."""
        if not self.created:
            return None
        i = self.rng.randrange(len(self.created))
        rel = self.created[i]
        inner = "/pbsoak/" in rel
        name = rel.rsplit("/", 1)[1]
        new = f"{MAIN}/{name}" if inner else f"{MAIN}/pbsoak/{name}"
        (self.tree.root / new).parent.mkdir(parents=True, exist_ok=True)
        os.rename(self.tree.root / rel, self.tree.root / new)
        self.tree.record([rel, new])                 # the rename alone is a state of the tree
        self.created[i] = new
        if rel in self.broken:
            self.broken.discard(rel)
            self.broken.add(new)
        old_package, new_package = (f"{PACKAGE}.pbsoak", PACKAGE) if inner else (PACKAGE, f"{PACKAGE}.pbsoak")
        text = self._read(new).replace(f"package {old_package};", f"package {new_package};", 1)
        if not inner:
            text = text.replace(f"package {new_package};", f"package {new_package};\n\nimport {PACKAGE}.StringUtils;",
                                1)
        else:
            text = text.replace(f"\n\nimport {PACKAGE}.StringUtils;", "", 1)
        self._write(new, text)
        return [new]

    def _new_root(self) -> list[str]:
        """The module's first test root; when there is one, its removal (rm -rf) or one more test."""
        root = self.tree.root / TEST_ROOT
        if self.tests and self.rng.random() < 0.4:
            gone = list(self.tests)
            shutil.rmtree(self.tree.root / "src/test")
            self.tests.clear()
            return gone
        self.counter += 1
        name = f"PbSoakTest{self.counter}"
        rel = f"{TEST_ROOT}/org/pbsoak/{name}.java"
        (root / "org/pbsoak").mkdir(parents=True, exist_ok=True)
        body = f"    boolean t() {{ return {PACKAGE}.StringUtils.isEmpty(\"t\"); }}\n"
        (self.tree.root / rel).write_text(f"package org.pbsoak;\n\nclass {name} {{\n{body}}}\n", encoding="utf-8")
        self.tests.append(rel)
        return [rel]

    def _hard_link(self) -> list[str]:
        """Edit through a hard link made outside the workspace (re-made if the file was replaced)."""
        rel = self._file()
        path = self.tree.root / rel
        link = self.links / rel.replace("/", "_")
        if not (link.exists() and os.path.samefile(link, path)):
            link.unlink(missing_ok=True)
            os.link(path, link)
        text = link.read_text(encoding="utf-8")
        end = text.rstrip().rfind("}")
        new = text[:end] + self._method().replace("StringUtils.", f"{PACKAGE}.StringUtils.") + text[end:]
        with open(link, "r+", encoding="utf-8") as f:        # in place, through the other name
            f.write(new)
            f.truncate()
        return [rel]

    def _kept_stat(self) -> list[str] | None:
        """A same-length edit (a call switched between the queried methods), size and mtime restored."""
        hit = self._with_added()
        if hit is None:
            return None
        rel, text, found = hit
        m = self.rng.choice(found)
        body = m.group(0)
        swapped = body.replace("isEmpty(", "isBlank(") if "isEmpty(" in body else body.replace("isBlank(", "isEmpty(")
        path = self.tree.root / rel
        before = path.stat()
        data = (text[:m.start()] + swapped + text[m.end():]).encode("utf-8")
        with open(path, "r+b") as f:
            f.write(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        return [rel]


@dataclass
class Answer:
    n: int
    target: str
    sent: float                    # seconds since the soak began
    seconds: float                 # latency
    v0: int                        # the tree's version just before the query was sent
    v1: int                        # and just after its answer arrived
    outcome: str                   # fresh | stale_snapshot | another error code
    generation: int | None = None
    refs: tuple[tuple[str, int, int, int, int], ...] = ()
    total: int | None = None
    inputs_ok: bool | None = None  # its generation's inputs match the tree at a version in [v0, v1]
    facts_ok: bool | None = None   # its references equal a fresh sync's of that tree (replayed generations)
    note: str = ""


def _refs(answer: dict) -> tuple[tuple[str, int, int, int, int], ...]:
    out = []
    for r in answer.get("references", []):
        s, e = r["range"]["start"], r["range"]["end"]
        out.append((r["path"], s["line"], s["character"], e["line"], e["character"]))
    return tuple(sorted(out))


def _java_inputs(snapshot: dict[str, Any]) -> dict[str, str]:
    return {rel: v[2] for rel, v in (snapshot.get("files") or {}).items() if rel.endswith(".java")}


async def _session(root: Path, state: Path, tree: Tree, storm: Storm, duration: float, interval: float,
                   fresh_wait: float, errlog: Any, say: Any) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cmd = [*serve_command(root, state), "--fresh-wait", str(fresh_wait)]
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    answers: list[Answer] = []
    generations: dict[int, dict[str, str]] = {}
    missed: set[int] = set()

    def capture(number: int) -> None:
        """The inputs of a generation, read at once (the store keeps only the last few)."""
        if number in generations or number in missed:
            return
        with Store.open(store_path(state), readonly=True) as store:
            for info in store.generations():
                if info.number not in generations:
                    generations[info.number] = _java_inputs(info.snapshot)
        if number not in generations:
            missed.add(number)

    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def call(name: str, args: dict) -> tuple[dict, bool]:
                return _unpack(await session.call_tool(name, args))

            for _ in range(2400):           # watching, and the worker warm (serve warms it in the background)
                status, _err = await call("status", {})
                live = status.get("live", {})
                if live.get("watchMode") not in (None, "starting") and live.get("worker", {}).get("warm"):
                    break
                await anyio.sleep(0.05)
            keys = {}
            for target in TARGETS:
                found, _err = await call("find_symbol", {"query": target})
                [symbol] = found["symbols"]
                keys[target] = symbol["symbolKey"]
            say(f"  serving, worker warm; storm for {duration:.0f} s, a query every {interval * 1000:.0f} ms")
            t0 = time.perf_counter()
            in_flight = anyio.Semaphore(MAX_IN_FLIGHT)

            async def query(n: int) -> None:
                target = TARGETS[n % len(TARGETS)]
                v0 = tree.now()
                sent = time.perf_counter()
                try:
                    payload, is_error = await call("find_references", {"symbolKey": keys[target], "limit": 500})
                except Exception as exc:  # noqa: BLE001 - counted as an outcome; the soak goes on
                    payload, is_error = {"code": f"client error: {type(exc).__name__}"}, True
                finally:
                    in_flight.release()
                seconds = time.perf_counter() - sent
                v1 = tree.now()
                a = Answer(n, target, sent - t0, seconds, v0, v1,
                           payload.get("code", "error") if is_error else payload.get("freshness", "?"))
                if is_error and a.outcome != "stale_snapshot":
                    a.note = str(payload.get("error"))[:500]
                if not is_error:
                    a.generation = payload["meta"]["generation"]
                    a.refs = _refs(payload)
                    a.total = payload["meta"].get("total")
                    if a.outcome == "fresh":
                        capture(a.generation)
                answers.append(a)

            catch_ups: dict[str, dict[str, Any]] = {}

            async def watch_catch_ups() -> None:
                """Every catch-up's outcome and duration, from `status` (a catch-up lasts a second or more)."""
                while not storm.stop.is_set():
                    live = (await call("status", {}))[0].get("live", {})
                    last = live.get("lastCatchUp") or {}
                    if last.get("at"):
                        catch_ups[last["at"]] = last
                    await anyio.sleep(0.5)

            storm.start()
            n = 0
            async with anyio.create_task_group() as group:
                group.start_soon(watch_catch_ups)
                while time.perf_counter() - t0 < duration:
                    due = t0 + n * interval
                    if due > time.perf_counter():
                        await anyio.sleep(due - time.perf_counter())
                    await in_flight.acquire()       # at most MAX_IN_FLIGHT waiting queries: then one waits
                    group.start_soon(query, n)
                    n += 1
                    if n % 600 == 0:
                        fresh = sum(x.outcome == "fresh" for x in answers)
                        say(f"  {time.perf_counter() - t0:.0f} s: {n} queries sent, {len(answers)} answered, "
                            f"{fresh} fresh, tree version {tree.now()}")
                storm.stop.set()                    # ends watch_catch_ups too; the last queries are answered
            storm.join()
            settled = None
            for _ in range(600):            # the last catch-ups: until an answer is fresh at the final tree
                target = TARGETS[0]
                payload, is_error = await call("find_references", {"symbolKey": keys[target], "limit": 500})
                if not is_error and payload.get("freshness") == "fresh":
                    capture(payload["meta"]["generation"])
                    settled = payload["meta"]["generation"]
                    break
                await anyio.sleep(0.2)
            status, _err = await call("status", {})
    return {"answers": answers, "generations": generations, "missed": sorted(missed), "settled": settled,
            "live": status.get("live", {}), "catch_ups": [catch_ups[k] for k in sorted(catch_ups)]}


def judge_inputs(answers: list[Answer], tree: Tree, generations: dict[int, dict[str, str]]) -> None:
    """Check 1 of the module docstring, for every fresh answer."""
    walker = tree.states()
    for a in sorted((a for a in answers if a.outcome == "fresh"), key=lambda a: (a.v0, a.v1)):
        inputs = generations.get(a.generation) if a.generation is not None else None
        if inputs is None:
            a.note = "generation collected before it was read"
            continue
        ok = False
        state = dict(walker.at(a.v0))
        for v in range(a.v0, a.v1 + 1):
            if v > a.v0:
                for rel, digest in tree.log[v - 1].items():
                    if digest is None:
                        state.pop(rel, None)
                    else:
                        state[rel] = digest
            if state == inputs:
                ok = True
                break
        a.inputs_ok = ok
        if not ok:
            final = state
            diff = sorted(set(inputs.items()) ^ set(final.items()))
            a.note = f"inputs differ from every tree state in [{a.v0}, {a.v1}]: {sorted({d[0] for d in diff})[:5]}"


def replay(tree: Tree, pom: Path, inputs: dict[str, str], scratch: Path, worker: Worker) -> dict[str, Any]:
    """A fresh sync of exactly this tree; the references of each target there."""
    root = scratch / "replay"
    shutil.rmtree(scratch, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copy2(pom, root / "pom.xml")
    for rel, digest in inputs.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(tree.content(digest))
    t = time.perf_counter()
    sync(root, state_dir=scratch / "state", worker=worker)
    seconds = time.perf_counter() - t
    out: dict[str, Any] = {"seconds": seconds}
    with Facade([root], {root: scratch / "state"}) as facade:
        for target in TARGETS:
            found, is_error = facade.call("find_symbol", {"query": target})
            assert not is_error, found
            [symbol] = found["symbols"]
            answer, is_error = facade.call("find_references", {"symbolKey": symbol["symbolKey"], "limit": 500})
            assert not is_error, answer
            out[target] = _refs(answer)
    return out


def judge_facts(answers: list[Answer], tree: Tree, generations: dict[int, dict[str, str]], pom: Path,
                scratch: Path, replays: int, say: Any) -> list[dict[str, Any]]:
    """Check 2 of the module docstring, for the fresh answers of `replays` generations."""
    fresh = sorted({a.generation for a in answers if a.outcome == "fresh" and a.inputs_ok and a.generation})
    if not fresh or replays <= 0:
        return []
    step = max(len(fresh) / replays, 1.0)
    chosen = sorted({fresh[min(int(i * step), len(fresh) - 1)] for i in range(min(replays, len(fresh)))}
                    | {fresh[-1]})
    done = []
    with Worker(heap="1g") as worker:
        for number in chosen:
            truth = replay(tree, pom, generations[number], scratch, worker)
            checked = bad = 0
            for a in answers:
                if a.generation == number and a.outcome == "fresh" and a.inputs_ok:
                    a.facts_ok = a.refs == truth[a.target]
                    checked += 1
                    if not a.facts_ok:
                        bad += 1
                        a.note = f"references differ from a fresh sync of generation {number}'s tree"
            done.append({"generation": number, "answers": checked, "stale": bad, "sync_s": truth["seconds"]})
            say(f"  replayed generation {number}: {checked} fresh answers, {bad} differ "
                f"(fresh sync {truth['seconds']:.1f} s)")
    return done


def final_differences(root: Path, state: Path, scratch: Path) -> list[str]:
    """The live store against a fresh sync of the final tree, fact by fact."""
    shutil.rmtree(scratch, ignore_errors=True)
    sync(root, state_dir=scratch)
    return differences(store_path(state), store_path(scratch))


def run(project: str, duration: float, interval: float, replays: int, seed: int, fresh_wait: float,
        quiet_max: float, only: set[str] | None = None, say: Any = print) -> dict[str, Any]:
    source = ensure(ARTIFACTS[project], say=say)
    scratch = Path(tempfile.mkdtemp(prefix="pybridge-soak-"))
    try:
        root, state, links = scratch / project, scratch / "state", scratch / "links"
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
        shutil.rmtree(root / "src/test", ignore_errors=True)       # the storm makes the first test root
        links.mkdir()
        t = time.perf_counter()
        first = sync(root, state_dir=state)
        say(f"  {project}: first sync {time.perf_counter() - t:.1f} s, {first.counts['files']} files")
        tree = Tree(root)
        storm = Storm(tree, links, seed, quiet_max, only)
        with open(scratch / "serve.log", "w") as errlog:
            out = anyio.run(_session, root, state, tree, storm, duration, interval, fresh_wait, errlog, say)
        answers: list[Answer] = out["answers"]
        judge_inputs(answers, tree, out["generations"])
        replayed = judge_facts(answers, tree, out["generations"], root / "pom.xml", scratch / "replay", replays,
                               say)
        diff = final_differences(root, state, scratch / "final")
        result = summarize(project, duration, interval, answers, storm, tree, replayed, diff, out, first.counts)
        log = (scratch / "serve.log").read_text(encoding="utf-8", errors="replace").splitlines()
        result["serve_warnings"] = sorted({line[:400] for line in log if "WARNING" in line or "ERROR" in line})[:20]
        return result
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def summarize(project: str, duration: float, interval: float, answers: list[Answer], storm: Storm, tree: Tree,
              replayed: list[dict[str, Any]], diff: list[str], out: dict[str, Any],
              counts: dict[str, Any]) -> dict[str, Any]:
    fresh = [a for a in answers if a.outcome == "fresh"]
    stale = [a for a in fresh if a.inputs_ok is False or a.facts_ok is False]
    lat = [a.seconds for a in answers]
    lat_fresh = [a.seconds for a in fresh]
    worker = out["live"].get("worker", {})
    durations = [c["durationSeconds"] for c in out["catch_ups"] if c.get("outcome") == "published"]
    return {
        "project": project, "files": counts.get("files"), "duration_s": duration, "interval_s": interval,
        "queries": len(answers), "outcomes": dict(Counter(a.outcome for a in answers)),
        "fresh": len(fresh), "stale_answers": len(stale),
        "inputs_checked": sum(a.inputs_ok is not None for a in fresh),
        "inputs_unchecked": sum(a.inputs_ok is None for a in fresh),
        "facts_checked": sum(a.facts_ok is not None for a in fresh),
        "generations_answering_fresh": len({a.generation for a in fresh}),
        "replayed": replayed,
        "p50_s": nearest_rank(lat, 0.5) if lat else None, "p99_s": nearest_rank(lat, 0.99) if lat else None,
        "max_s": max(lat) if lat else None,
        "fresh_p50_s": nearest_rank(lat_fresh, 0.5) if lat_fresh else None,
        "fresh_p99_s": nearest_rank(lat_fresh, 0.99) if lat_fresh else None,
        "edits": tree.version, "edit_kinds": dict(storm.kinds), "storm_errors": storm.errors[:10],
        "final_differences": diff[:20], "settled_generation": out["settled"],
        "catch_ups": out["live"].get("catchUps"),
        "catch_up_outcomes": dict(Counter(c.get("outcome") for c in out["catch_ups"])),
        "catch_up_failures": sorted({str(c.get("error"))[:300] for c in out["catch_ups"]
                                     if c.get("outcome") == "failed"}),
        "catch_up_p50_s": nearest_rank(durations, 0.5) if durations else None,
        "catch_up_max_s": max(durations) if durations else None,
        "worker": {k: worker.get(k) for k in ("starts", "restarts", "restartCauses", "drained", "releases")},
        "stale_examples": [asdict(a) | {"refs": len(a.refs)} for a in stale[:10]],
        "error_examples": dict(Counter(f"{a.outcome}: {a.note}" for a in answers
                                       if a.outcome not in ("fresh", "stale_snapshot")).most_common(10)),
    }


def report(r: dict[str, Any], command: str, mach: dict, vers: dict) -> str:
    def s(x: float | None) -> str:
        return "n/a" if x is None else f"{x * 1000:.0f} ms"

    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(r["outcomes"].items()))
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["edit_kinds"].items()))
    lines = [BEGIN, "## Soak: never stale when it says fresh (`bench/soak.py`)", "",
             f"Command: `{command}`, at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; pybridge commit "
             f"{vers['commit']}. Machine: {mach['cpu']} ({mach['cores']} cores, shared), {mach['ram_gb']:.1f} GB "
             f"RAM, {mach['os']}; load average at start {mach['load_at_start']}, at end "
             f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}.", "",
             f"`pybridge serve` on {r['project']} ({r['files']} files) under {r['duration_s']:.0f} s of mixed edits "
             f"({r['edits']} edits: {kinds}), with an exact `find_references` every {r['interval_s'] * 1000:.0f} ms "
             "(the module docstring says how each fresh answer is judged).", "",
             "| queries | fresh | stale answers (target 0) | inputs checked | facts checked (generations replayed) "
             "| p50 | p99 | max | fresh p50 | fresh p99 | final DIFF |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
             f"| {r['queries']} | {r['fresh']} | {r['stale_answers']} | {r['inputs_checked']} | "
             f"{r['facts_checked']} ({len(r['replayed'])} of {r['generations_answering_fresh']}) | {s(r['p50_s'])} | "
             f"{s(r['p99_s'])} | {s(r['max_s'])} | {s(r['fresh_p50_s'])} | {s(r['fresh_p99_s'])} | "
             f"{len(r['final_differences'])} |", "",
             f"Answers: {outcomes}. `stale_snapshot` is the honest answer while a catch-up is still under way "
             "after the wait bound. Latency counts that wait: an exact tool that finds the files changed waits "
             "for the catch-up (up to `--fresh-wait`, 5 s), and up to 60 queries wait at once. "
             f"Catch-ups: {r['catch_ups']} ({r['catch_up_outcomes']} as sampled by "
             f"`status` every 0.5 s; published ones took {s(r['catch_up_p50_s'])} at the median, at most "
             f"{s(r['catch_up_max_s'])}); worker: {r['worker']}.", END]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="commons-lang3-main", choices=sorted(ARTIFACTS))
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of storm")
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between queries")
    parser.add_argument("--replays", type=int, default=20, help="generations checked against a fresh sync")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--fresh-wait", type=float, default=5.0, help="serve's --fresh-wait (seconds)")
    parser.add_argument("--quiet-max", type=float, default=15.0, help="longest quiet spell of the storm (seconds)")
    parser.add_argument("--kinds", help="only these edit kinds, comma-separated (default: all of "
                                        f"{', '.join(k for k, _ in KINDS)})")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = parser.parse_args()
    command = ("python bench/soak.py " + " ".join(sys.argv[1:])).strip()
    mach, vers = machine(), versions()
    result = run(args.project, args.duration, args.interval, args.replays, args.seed, args.fresh_wait,
                 args.quiet_max, set(args.kinds.split(",")) if args.kinds else None,
                 say=lambda m: print(m, flush=True))
    section = report(result, command, mach, vers)
    print(section)
    print(json.dumps({k: result[k] for k in ("stale_examples", "error_examples", "final_differences",
                                             "storm_errors", "catch_up_failures", "serve_warnings")}, indent=1))
    if not args.no_write:
        write_section(HERE / "RESULTS.md", BEGIN, END, section)
        (HERE / "soak.json").write_text(json.dumps({"command": command, "machine": mach, "versions": vers,
                                                    "result": result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
