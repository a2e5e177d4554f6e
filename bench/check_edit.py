"""check_edit's latency on a warm worker: 1-file and 5-file changes (issue 24's figures).

A copy of a workspace built by `workspaces.py` (bench/work/NAME, copied to a scratch folder) is
synced once with a worker that then stays warm; then N random changes (seeded) are checked with
`pybridge.edits.check_edit`, nothing written: each change edits 1 or 5 files, each file one of
these kinds, chosen at random among the generation's methods (kind 5 = METHOD):

- `body`: a statement added at the start of a method body (`int zzBench = 1;`);
- `overload`: a static overload of the method added after it, taking `java.lang.Object`
  (it may capture calls, or clash with an existing one);
- `field`: a field `int zzField;` added just before the method (in its class body).

Printed and written to bench/check_edit.json: per size, p50, p95 and max wall time of the call,
files compiled (median, max), rounds (max), verdicts.

    .venv/bin/python bench/check_edit.py [--edits 20] [--seed 1] [--only guava]

With `--compare-plans`: each change is checked with the narrow plan and the broad one
(`PYBRIDGE_CHECK_PLAN`, pybridge/edits/plan.py) in turn on the same worker; p50/p95 per plan, and
every change whose answers (`EditCheck.model_dump()` but the counts of files compiled and rounds)
differ is listed (`answers_differing`, to be empty). Its kinds add `param` (the first parameter's
type changed) and `delete` (the method removed). Written to bench/check_edit-plans.json (`--out`).

    .venv/bin/python bench/check_edit.py --compare-plans [--edits 20] [--only guava] [--kinds ...]

With `--javac` (commons-lang3-main by default; `--root`/`--state` take a workspace already synced):
random 1-file changes (the kinds above, and `hide`: a field named like a field declared elsewhere and
used in the file; `overload_str`: an instance overload taking a String), each checked by pybridge and
judged by javac (bench/javac_refs, one warm `JavacRefs --serve`, `driver.Subset`): the edited file
and every file holding a name the change declares (as a code token), on the original and on a
hard-linked copy with the change written (the workspace itself is never written), against the
original's class output (compiled once into `--work`). javac's errors on the copy minus the
original's are compared with `diagnostics.added` by file and by (file, line). `rebound` is compared
with javac's reference graphs: each original reference outside the edited text mapped through the
edit (`TextMap`) to its place in the copy; javac's rebound references are those whose target there
differs from the original's target mapped through the edit (a declaration on the command line by
its position, any other by its binary name), or that javac no longer reports: equal, missing (javac
only), extra (pybridge only). `--full N`: the first N changes are judged a second time with every
file on javac's command line; both judgements must be equal (the check of the subset rule).
Where an edit changes what the edited type's subtypes inherit (`rename`, `delete`, `param`; an
instance method added to an interface or abstract type), the subset also holds every file declaring a
transitive subtype, read from javac's class output of the original (`subtype_files`). javac runs with
`-Xdiags:verbose` (`JAVAC_OPTIONS`). Named rules (`ruled`) count the differences each compiler's
recovery or policy explains apart, never dropping them.
Written to `--out` (bench/check_edit-javac.json) every 5 changes. Edits are numbered from 1 in the
order the seed draws them (methods in source order); `--resume` goes on from the rows in `--out`;
`--redo FILE --rows 3,7` judges those edits of an earlier result file again (into `--out`, which
records `redo_of`); `--tally` counts a redone row instead of the first, and lists every row whose
difference no rule explains (`remaining`).

    .venv/bin/python bench/check_edit.py --javac [--edits 20] [--only commons-lang3-main] [--root R --state S]
        [--work DIR] [--full 2] [--out FILE] [--resume] [--redo FILE --rows N,M]
    .venv/bin/python bench/check_edit.py --tally bench/check_edit-javac-*.json

With `--phases`: where a check's time goes, on a warm worker (`--root`/`--state` take a workspace
already synced): a statement in one method body, a 5-file change (seeded), and the method with about
`--callers` referring files deleted, each checked `--reps` times after one uncounted check; per case,
the median wall and CPU time of each phase (`pybridge.edits.check.Phases`), the worker process's CPU
(/proc), the JVM's own time and the load. `--switch PYBRIDGE_X` (repeatable) checks each case with
the switches off then on in turn within each repetition, and every answer must be equal
(`answers_differing`); `--jfr FILE` records the worker with JFR and splits its samples by case and
by what JDT was doing (loading dependencies, parsing, resolving, DOM conversion, fact extraction).
Written to bench/check_edit-phases.json (`--out`).

    .venv/bin/python bench/check_edit.py --phases [--only guava] [--root R --state S] [--reps 3]
        [--switch PYBRIDGE_CHECK_MIRRORS ...] [--jfr FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import workspaces  # noqa: E402 - after the sys.path set-up; bench/ is not a package
from javac_refs import driver  # noqa: E402

from pybridge.edits import EditSession, FileChange, check_edit  # noqa: E402
from pybridge.edits.check import Phases  # noqa: E402
from pybridge.edits.textmap import TextMap  # noqa: E402
from pybridge.facts import DECL_KINDS, Span  # noqa: E402
from pybridge.store import Store  # noqa: E402
from pybridge.sync import sync  # noqa: E402
from pybridge.sync.state import store_path  # noqa: E402
from pybridge.sync.summary import SourceText, body_start  # noqa: E402
from pybridge.worker import Worker  # noqa: E402

KINDS = ("body", "overload", "field")
# --compare-plans adds signature changes: the first parameter's type, and a deleted method.
ALL_KINDS = (*KINDS, "param", "delete")
_FIRST_PARAM = re.compile(r"\(\s*(?:final\s+)?([\w.$]+)(\s+[\w$]+\s*[,)])")


def methods(state: Path) -> list[tuple[str, str, tuple[int, int, int, int], tuple[int, int]]]:
    """The generation's methods in source order (by path, then place), so that a seed draws the same
    changes from any sync of the same workspace (before, the store's row order, which follows the
    order the indexer's threads finish files in, drew other changes in each run)."""
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, coalesce(d.name_x, s.name), d.full_line, d.full_col, d.full_line + d.full_dline,"
            " d.full_end_col, d.line + d.dline, d.end_col FROM checkouts c"
            " JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " JOIN symbols s ON s.id = d.symbol_id WHERE d.kind = 5"
            " ORDER BY f.path, d.full_line, d.full_col").fetchall()
    finally:
        conn.close()
    return [(r[0], r[1], tuple(r[2:6]), (r[6], r[7])) for r in rows]


def edit_text(text: str, kind: str, name: str, span: tuple[int, int, int, int],
              name_end: tuple[int, int]) -> str | None:
    t = SourceText(text)
    start, end = t.offset(span[0], span[1]), t.offset(span[2], span[3])
    brace = body_start(text, t.offset(*name_end), end)
    if brace >= end or text[brace] != "{":
        return None
    if kind == "body":
        return text[:brace + 1] + " int zzBench = 1;" + text[brace + 1:]
    if kind == "overload":
        return text[:end] + f"\n    static void {name}(java.lang.Object zzBench) {{ }}\n" + text[end:]
    if kind == "param":
        m = _FIRST_PARAM.match(text, text.index("(", t.offset(*name_end)))
        if m is None or m.end() > brace:
            return None
        other = "java.lang.String" if m.group(1) in ("Object", "java.lang.Object") else "java.lang.Object"
        return text[:m.start(1)] + other + text[m.end(1):]
    if kind == "delete":
        return text[:start] + text[end:]
    return text[:start] + "int zzField;\n    " + text[start:]


def pick(root: Path, rng: random.Random, candidates, files: int, kinds: tuple[str, ...] = KINDS) -> list[FileChange]:
    changes: dict[str, str] = {}
    for _ in range(500):
        if len(changes) == files:
            break
        path, name, span, name_end = rng.choice(candidates)
        if path in changes:
            continue
        new = edit_text((root / path).read_text(encoding="utf-8"), rng.choice(kinds), name, span, name_end)
        if new is not None:
            changes[path] = new
    return [FileChange(path=p, text=t) for p, t in changes.items()]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(round(q * (len(ordered) - 1))), len(ordered) - 1)]


def _answer(check) -> dict:
    """What a check answers, without how much it compiled (the plans differ there by design)."""
    out = check.model_dump()
    out["checked"] = {k: v for k, v in out["checked"].items() if k not in ("compiled", "rounds")}
    return out


def _latency_summary(walls: list[float], compiled: list[int], rounds: list[int], verdicts: Counter) -> dict:
    return {"checks": len(walls), "p50_s": round(statistics.median(walls), 3),
            "p95_s": round(pct(walls, 0.95), 3), "max_s": round(max(walls), 3),
            "compiled_median": statistics.median(compiled), "compiled_max": max(compiled),
            "rounds_max": max(rounds), "verdicts": dict(verdicts)}


def run(name: str, edits: int, seed: int, plans: tuple[str, ...] = ("narrow",), kinds: tuple[str, ...] = KINDS,
        sizes: tuple[int, ...] = (1, 5), switches: tuple[str, ...] = ()) -> dict:
    """Each change checked once per plan (`plans`, in turn on the same warm worker); with two plans,
    their answers (`EditCheck.model_dump()` but `checked.compiled` and `rounds`) must be equal.
    `switches`: each change is checked with them all off (0) and all on (1), in turn (the order
    alternating from one change to the next, so that neither side always runs second), on the
    narrow plan; the settings are then the "plans" (`off`, `on`) and their answers must be equal too.
    Every check's phases (`Phases`: wall and CPU, the worker's JVM time) are kept in `rows`."""
    settings: dict[str, dict[str, str]] = {plan: {} for plan in plans}
    if switches:
        settings = {"off": {s: "0" for s in switches}, "on": {s: "1" for s in switches}}
        plans = ("off", "on")
    source = workspaces.ensure(workspaces.ARTIFACTS[name], say=print)
    out: dict = {"workspace": name, "plans": list(plans), "kinds": list(kinds)}
    with tempfile.TemporaryDirectory(prefix=f"pybridge-check-{name}-") as tmp, Worker() as worker:
        root = Path(tmp) / name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
        state = Path(tmp) / "state"
        t = time.perf_counter()
        result = sync(root, state_dir=state, worker=worker)
        out["sync_s"] = round(time.perf_counter() - t, 2)
        out["files"] = result.counts["files"]
        out["load_before"] = list(os.getloadavg())
        print(f"{name}: synced {out['files']} files in {out['sync_s']} s")
        candidates = methods(state)
        rng = random.Random(seed)
        with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
            sessions = {plan: EditSession(root.resolve(), reader, worker, lambda i, k: f"{i}", lambda d, m: d,
                                          plan=None if switches else plan) for plan in plans}
            rows: list[dict] = []
            out["rows"] = rows
            check_edit(sessions[plans[0]], pick(root, rng, candidates, 1))   # the first check loads JDT's paths
            differing = []
            for size in sizes:
                walls: dict[str, list[float]] = {plan: [] for plan in plans}
                compiled: dict[str, list[int]] = {plan: [] for plan in plans}
                rounds: dict[str, list[int]] = {plan: [] for plan in plans}
                verdicts: dict[str, Counter] = {plan: Counter() for plan in plans}
                for i in range(edits):
                    changes = pick(root, rng, candidates, size, kinds)
                    answers = {}
                    order = plans if not switches or i % 2 == 0 else plans[::-1]
                    for plan in order:
                        os.environ.update(settings[plan])
                        session = sessions[plan]
                        session.phases = Phases()
                        t, c = time.perf_counter(), time.process_time()
                        check = check_edit(session, changes)
                        walls[plan].append(time.perf_counter() - t)
                        p = session.phases
                        rows.append({"size": size, "edit": i + 1, "setting": plan,
                                     "wall_s": round(walls[plan][-1], 3),
                                     "cpu_s": round(time.process_time() - c, 3), "jvm_s": p.jvm_ms / 1000,
                                     "load": round(os.getloadavg()[0], 2), "compiled": check.checked.compiled,
                                     "rounds": check.checked.rounds, "verdict": check.verdict,
                                     "wall": {k: round(v, 3) for k, v in p.wall.items()},
                                     "cpu": {k: round(v, 3) for k, v in p.cpu.items()}, "counts": dict(p.counts)})
                        compiled[plan].append(check.checked.compiled)
                        rounds[plan].append(check.checked.rounds)
                        verdicts[plan][check.verdict] += 1
                        answers[plan] = _answer(check)
                        print(f"  {size} file(s) #{i + 1} {plan}: {walls[plan][-1]:.2f} s, {check.checked.compiled} "
                              f"compiled, {check.checked.rounds} rounds, {check.verdict}, {len(check.rebound)} "
                              f"rebound; cpu {rows[-1]['cpu_s']:.2f} s, jvm {p.jvm_ms / 1000:.2f} s, load "
                              f"{rows[-1]['load']:.1f}\n    " + " ".join(
                                  f"{k} {p.wall[k]:.3f}/{p.cpu.get(k, 0):.3f}" for k in PHASES if k in p.wall),
                              flush=True)
                    for k in settings[plans[-1]]:
                        os.environ.pop(k, None)
                    if len(plans) > 1 and any(answers[p] != answers[plans[0]] for p in plans[1:]):
                        differing.append({"size": size, "edit": i + 1, "paths": [c.path for c in changes]})
                        print(f"  ANSWERS DIFFER: {differing[-1]}", flush=True)
                for plan in plans:
                    key = f"{size}_file" if len(plans) == 1 else f"{size}_file_{plan}"
                    out[key] = _latency_summary(walls[plan], compiled[plan], rounds[plan], verdicts[plan])
                    print(f"{name} {size}-file {plan}: {out[key]}")
            if len(plans) > 1:
                out["answers_differing"] = differing
        out["load_after"] = list(os.getloadavg())
    return out


# ------------------------------------------------------------------ --phases: where a check's time goes

PHASES = ("input", "environment", "overlay", "plan", "stored", "worker", "digest", "summary", "moved", "names",
          "stored_facts", "textmap", "diff", "cleanup", "answer")


def _proc_cpu(pid: int | None) -> float:
    """user + system CPU seconds of a process so far (0 when unknown)."""
    if pid is None:
        return 0.0
    try:
        parts = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def many_callers(state: Path, target: int) -> tuple[tuple[str, str, tuple[int, int, int, int], tuple[int, int]], int]:
    """The source method whose number of referring files is nearest `target` (the case of a deleted
    method with many callers), as `methods` lists it, and that number."""
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        counts = dict(conn.execute(
            "SELECT r.target_id, count(DISTINCT r.file_version_id) FROM checkouts c"
            " JOIN manifest m ON m.generation_id = c.generation_id JOIN refs r ON r.file_version_id = m.file_version_id"
            " JOIN symbols s ON s.id = r.target_id WHERE s.kind = 5 AND s.external = 0 GROUP BY r.target_id"
            ).fetchall())
        rows = conn.execute(
            "SELECT d.symbol_id, f.path FROM checkouts c JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " WHERE d.kind = 5").fetchall()
    finally:
        conn.close()
    declared = {sid for sid, _path in rows if sid in counts}
    best = min(sorted(declared), key=lambda sid: abs(counts[sid] - target))
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        key = conn.execute("SELECT binding_key FROM symbols WHERE id = ?", (best,)).fetchone()[0]
    finally:
        conn.close()
    name = key.split(";.", 1)[1].split("(", 1)[0].split("<", 1)[0]
    path = next(p for sid, p in rows if sid == best)
    return next(c for c in methods(state) if c[0] == path and c[1] == name), counts[best]


def phase_cases(root: Path, state: Path, seed: int, callers: int) -> dict[str, list[FileChange]]:
    """The profiled changes: a statement in one method body, a 5-file change of the latency kinds
    (seeded), and the method with about `callers` referring files deleted."""
    rng = random.Random(seed)
    candidates = methods(state)
    (path, name, span, name_end), referring = many_callers(state, callers)
    text = edit_text((root / path).read_text(encoding="utf-8"), "delete", name, span, name_end)
    assert text is not None
    return {"1-file body": pick(root, rng, candidates, 1, ("body",)), "5-file": pick(root, rng, candidates, 5),
            f"delete {name} ({referring} referring files)": [FileChange(path=path, text=text)]}


def _jfr_split(recording: Path, windows: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, int]]:
    """JFR execution samples of the worker per case (`windows`: wall-clock intervals of its checks),
    by what the sampled thread was doing (`_jfr_category`)."""
    data = json.loads(subprocess.run([str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "jfr"), "print", "--json",
                                      "--events", "jdk.ExecutionSample", "--stack-depth", "64", str(recording)],
                                     check=True, capture_output=True, text=True).stdout)
    out: dict[str, Counter] = {case: Counter() for case in windows}
    for event in data["recording"]["events"]:
        values = event["values"]
        when = datetime.fromisoformat(values["startTime"].replace("Z", "+00:00")).timestamp()
        case = next((c for c, spans in windows.items() if any(a <= when <= b for a, b in spans)), None)
        if case is None:
            continue
        stack = values["stackTrace"] or {}
        frames = [f"{f['method']['type']['name']}.{f['method']['name']}".replace("/", ".")
                  for f in stack.get("frames", [])]
        thread = (values.get("sampledThread") or {}).get("javaName")
        out[case][_jfr_category(frames, bool(stack.get("truncated")), thread)] += 1
    return {case: dict(c.most_common()) for case, c in out.items()}


_FACTS = ("dev.pybridge.indexer.Indexer.indexFile", "dev.pybridge.indexer.Indexer$1.acceptAST")
_COMPILER = "org.eclipse.jdt.internal.compiler."


def _jfr_category(frames: list[str], truncated: bool, thread: str | None) -> str:
    """One sample's category (frames from the top of the stack): fact extraction (pybridge's visitor,
    and the JDT lookups it asks for), the loading of the types the compiled files use from the
    sourcepath and classpath (JDT's name environment: finding, reading, diet-parsing and building
    them), parsing the compiled files (Javadoc comments apart), resolving them, converting them to
    DOM trees, and the rest (the request's Python thread, the JPype payload)."""
    if thread != "pybridge-indexer":
        return "python thread (payload to Python)"
    facts = next((i for i, f in enumerate(frames) if f in _FACTS), None)
    if facts is not None:
        return "facts: JDT lookups they ask" if any(f.startswith(_COMPILER) for f in frames[:facts]) else "facts"
    if any(".LookupEnvironment.askForType" in f or ".CompilationUnitResolver.accept" in f
           or _COMPILER + "batch." in f for f in frames):
        return "dependencies: name environment (find, read, diet-parse, build)"
    top = next((f for f in frames if f.startswith(("org.eclipse.", "dev.pybridge."))), "")
    if "CommentParser" in top or "Javadoc" in top:
        return "parse: Javadoc"
    if top.startswith(_COMPILER + "parser."):
        return "parse" + (" (stack cut)" if truncated else "")
    if any("ASTConverter" in f or "DefaultBindingResolver" in f for f in frames):
        return "DOM conversion"
    if top.startswith(_COMPILER):
        return "resolve"
    return "other"


def phases(name: str, root: Path | None, state: Path | None, seed: int, reps: int, callers: int,
           switches: list[str], jfr: Path | None) -> dict:
    """Each case checked `reps` times on a warm worker (after one check not counted), with each of
    `switches` off (0) then on (1) in turn within each repetition when given; per case and setting,
    the median of each phase's wall and CPU time (`pybridge.edits.check.Phases`; `answer`: the
    answer serialised as the MCP tool does), the worker's CPU time (/proc), the JVM's own time, and
    the load; every answer of a case must be equal, whatever the setting (`answers_differing`)."""
    if jfr is not None:
        os.environ["PYBRIDGE_JVM_ARGS"] = (os.environ.get("PYBRIDGE_JVM_ARGS", "") +
                                           " -XX:StartFlightRecording=name=phases,settings=profile").strip()
    settings = [{}] if not switches else [{s: "0" for s in switches}, {s: "1" for s in switches}]
    out: dict = {"workspace": name, "reps": reps, "switches": switches, "load_before": list(os.getloadavg())}
    windows: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix=f"pybridge-phases-{name}-") as tmp, Worker() as worker:
        if root is None or state is None:
            source = workspaces.ensure(workspaces.ARTIFACTS[name], say=print)
            root = Path(tmp) / name
            shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
            state = Path(tmp) / "state"
            sync(root, state_dir=state, worker=worker)
        root = root.resolve()
        cases = phase_cases(root, state, seed, callers)
        differing = []
        with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
            session = EditSession(root, reader, worker, lambda i, k: f"{i}", lambda d, m: d)
            check_edit(session, cases["1-file body"])          # the first check loads JDT's paths
            for case, changes in cases.items():
                # Settings alternate within each repetition (off, on, off, on, ...): neither gets a
                # warmer JIT or page cache; the first round of each case is not counted.
                rows: dict[str, list[dict]] = {}
                answers = []
                check = None
                for i in range(reps + 1):
                    for setting in settings:
                        label = case + "".join(f" {k}={v}" for k, v in setting.items())
                        os.environ.update(setting)
                        session.phases = Phases()
                        w0, c0, t0, e0 = _proc_cpu(worker.pid), time.process_time(), time.perf_counter(), time.time()
                        check = check_edit(session, changes)
                        with session.phases("answer"):
                            check.model_dump_json(by_alias=True)
                        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                        answers.append(_answer(check))
                        if i == 0:
                            continue
                        windows.setdefault(label, []).append((e0, time.time()))
                        p = session.phases
                        rows.setdefault(label, []).append({
                            "wall_s": wall, "cpu_s": cpu, "jvm_cpu_s": _proc_cpu(worker.pid) - w0,
                            "jvm_s": p.jvm_ms / 1000, "load": os.getloadavg()[0],
                            **{f"{k}_wall_s": v for k, v in p.wall.items()},
                            **{f"{k}_cpu_s": v for k, v in p.cpu.items()}, "counts": dict(p.counts),
                            "compiled": check.checked.compiled, "rounds": check.checked.rounds,
                            "verdict": check.verdict})
                assert check is not None
                for label, got in rows.items():
                    keys = sorted({k for r in got for k in r if k not in ("counts", "verdict")})
                    out[label] = {"verdict": got[-1]["verdict"], "counts": got[-1]["counts"],
                                  **{k: round(statistics.median(r.get(k, 0.0) for r in got), 3) for k in keys}}
                    print(_phase_line(label, out[label]), flush=True)
                if len(answers) > 1 and any(a != answers[0] for a in answers[1:]):
                    differing.append(case)
                    print(f"  ANSWERS DIFFER: {case}", flush=True)
        for setting in settings:
            for k in setting:
                os.environ.pop(k, None)
        if jfr is not None:
            # The child never shuts its JVM down (JPype's destroy_jvm is off): no dump on exit; ask for it.
            subprocess.run([str(Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / "jcmd"), str(worker.pid),
                            "JFR.dump", "name=phases", f"filename={jfr.resolve()}"], check=True, capture_output=True)
    out["answers_differing"] = differing
    out["load_after"] = list(os.getloadavg())
    if jfr is not None:
        out["jfr_samples"] = _jfr_split(jfr, windows)
        print("JFR samples:", json.dumps(out["jfr_samples"]))
    return out


def _phase_line(label: str, row: dict) -> str:
    shown = " ".join(f"{p} {row[f'{p}_wall_s']:.3f}/{row.get(f'{p}_cpu_s', 0):.3f}" for p in PHASES
                     if f"{p}_wall_s" in row)
    return (f"{label}: {row['compiled']} compiled, {row['rounds']} rounds, {row['verdict']}; "
            f"wall {row['wall_s']:.2f} s, cpu {row['cpu_s']:.2f} s, worker process cpu {row['jvm_cpu_s']:.2f} s, "
            f"jvm elapsed {row['jvm_s']:.2f} s, "
            f"load {row['load']:.1f}\n  phases (wall/cpu s): {shown}")


Place = tuple[str, int, int]          # path, 0-based line and character of a reference


def _mapped(maps: dict[str, TextMap], path: str, line: int, char: int, end: int) -> tuple[int, int] | None:
    """Where the text at (path, line, char..end) of the original is in the copy; None inside edited text."""
    tm = maps.get(path)
    if tm is None:
        return line, char
    span = tm.map(Span(line, char, line, max(end, char + 1)))
    return None if span is None else (span.start_line, span.start_char)


_WORD = re.compile(r"[\w$]+")


def _target(maps: dict[str, TextMap], target: str) -> str:
    """A javac target of the original as the copy names it (a source declaration moves with its text:
    its name, the word at its place in the original, is mapped; TextMap maps whole words only)."""
    parts = target.split("|")
    if parts[0] != "src" or len(parts) < 4:
        return target
    path, line, char = parts[1], int(parts[2]), int(parts[3])
    tm = maps.get(path)
    if tm is None:
        return target
    word = _WORD.match(tm.old.text, tm.old.offset(line, char))
    at = _mapped(maps, path, line, char, char + (len(word.group()) if word else 1))
    return "src|gone" if at is None else f"src|{path}|{at[0]}|{at[1]}"


def javac_rebound(original: list[driver.Ref], copy: list[driver.Ref], maps: dict[str, TextMap]) -> set[Place]:
    """The places in the copy of the original's references outside the edited text whose target changed."""
    now: dict[Place, set[str]] = {}
    for r in copy:
        now.setdefault((r.path, r.line, r.char), set()).add(r.target)
    out = set()
    for r in original:
        at = _mapped(maps, r.path, r.line, r.char, r.end_char)
        if at is None:
            continue
        place = (r.path, *at)
        if _target(maps, r.target) not in now.get(place, set()):
            out.add(place)
    return out


# The javac differential's kinds: `KINDS`, `hide` and `overload_str` (see `javac_edit`), and the
# incremental differential's (tests/support/incremental_edits.py) that fit a 1-file change: `param`
# (the first parameter's type changed), `delete` (the method removed, its callers kept) and `rename`
# (the declaration renamed, its callers kept). The last three break the build on purpose.
JAVAC_KINDS = (*KINDS, "hide", "overload_str", "param", "delete", "rename")


class Member(NamedTuple):
    """A method the javac differential edits: where it is, its type (`container`, a symbol id) and its
    parameters' erasures as the binding key spells them (None when the key could not be read)."""
    path: str
    name: str
    span: tuple[int, int, int, int]
    name_end: tuple[int, int]
    container: int
    params: tuple[str, ...] | None


class TypeMembers(NamedTuple):
    """What a type declares itself (inherited members aside): field names (enum constants and record
    components included) and each method name's parameter lists (erasures, None when unread)."""
    fields: set[str]
    methods: dict[str, list[tuple[str, ...] | None]]


def key_params(key: str, name: str) -> tuple[str, ...] | None:
    """The parameters of the method binding key `key` (JDT's, `Lp/T;.name<T:...>(Lp/A;[I)V`) as
    erasures: `p.A`, `int[]`; a type variable as `<T>`. None when the key does not read so."""
    at = key.rfind(";." + name)
    if at < 0:
        return None
    i = at + 2 + len(name)
    if i < len(key) and key[i] == "<":
        depth = 0
        while i < len(key):
            depth += {"<": 1, ">": -1}.get(key[i], 0)
            i += 1
            if depth == 0:
                break
    if i >= len(key) or key[i] != "(":
        return None
    i += 1
    out = []
    prim = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
            "D": "double"}
    while i < len(key) and key[i] != ")":
        dims = 0
        while key[i] == "[":
            dims, i = dims + 1, i + 1
        c = key[i]
        if c in prim:
            out.append(prim[c] + "[]" * dims)
            i += 1
            continue
        if c not in "LT":
            return None
        depth, j, plain = 0, i + 1, []
        while j < len(key) and not (key[j] == ";" and depth == 0):
            depth += {"<": 1, ">": -1}.get(key[j], 0)
            if depth == 0 and key[j] != ">":
                plain.append(key[j])
            j += 1
        if j >= len(key):
            return None
        word = "".join(plain)
        out.append((f"<{word}>" if c == "T" else word.replace("/", ".")) + "[]" * dims)
        i = j + 1
    return tuple(out) if i < len(key) else None


def javac_members(state: Path) -> tuple[list[Member], dict[int, TypeMembers]]:
    """The generation's methods (with their types and parameters), and what each type declares. The
    methods in source order (by path, then place), so that a seed draws the same edits from any state of
    the same workspace (runs before that order drew from the store's row order, which a new sync
    changes: `--redo` makes their edits again from what their rows record)."""
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT f.path, coalesce(d.name_x, s.name), d.kind, d.container_id, s.binding_key, d.full_line,"
            " d.full_col, d.full_line + d.full_dline, d.full_end_col, d.line + d.dline, d.end_col FROM checkouts c"
            " JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " JOIN symbols s ON s.id = d.symbol_id WHERE d.kind IN (?, ?, ?, ?) AND d.container_id IS NOT NULL"
            " ORDER BY f.path, d.full_line, d.full_col",
            tuple(DECL_KINDS.index(k) for k in ("METHOD", "FIELD", "ENUM_CONSTANT", "RECORD_COMPONENT"))).fetchall()
    finally:
        conn.close()
    methods, types = [], {}
    for path, name, kind, container, key, *rest in rows:
        own = types.setdefault(container, TypeMembers(set(), {}))
        if DECL_KINDS[kind] != "METHOD":
            own.fields.add(name)
            continue
        params = key_params(key, name)
        own.methods.setdefault(name, []).append(params)
        methods.append(Member(path, name, tuple(rest[:4]), tuple(rest[4:]), container, params))
    return methods, types


def clashes(own: TypeMembers, name: str, params: tuple[str, ...]) -> bool:
    """Whether a method `name(params)` would duplicate one `own` declares: same erasures, a type
    variable's taken as matching anything (its bound is not read), an unread key as a clash."""
    for other in own.methods.get(name, []):
        if other is None:
            return True
        if len(other) == len(params) and all(a == b or a.startswith("<") or b.startswith("<")
                                             for a, b in zip(other, params, strict=True)):
            return True
    return False


def javac_edit(text: str, kind: str, m: Member, own: TypeMembers, fields: list[str],
               rng: random.Random) -> tuple[str, set[str]] | None:
    """One edit of the javac differential and the names it declares: `KINDS`, `hide` (a field named
    like a field declared elsewhere in the workspace and used in this file: it may hide an inherited
    or outer one), `overload_str` (an instance overload taking a String: it may capture calls),
    `param`, `delete` and `rename` (see `JAVAC_KINDS`). None when the kind does not apply, and when an
    edit that is not meant to break would declare what its type already declares (an overload with a
    signature the type has, a field of a name it has; a changed parameter type likewise): a duplicate
    declaration's error and the bindings around it are each compiler's recovery, not the contract."""
    name, span, name_end = m.name, m.span, m.name_end
    if kind in ("overload", "overload_str") and clashes(
            own, name, ("java.lang.Object",) if kind == "overload" else ("java.lang.String",)):
        return None
    if kind == "hide":
        used = [f for f in fields if f not in own.fields and re.search(rf"\b{re.escape(f)}\b", text)]
        if not used:
            return None
        field = rng.choice(used)
        t = SourceText(text)
        start = t.offset(span[0], span[1])
        return text[:start] + f"int {field};\n    " + text[start:], {field}
    if kind == "field" and "zzField" in own.fields:
        return None
    if kind == "overload_str":
        t = SourceText(text)
        end = t.offset(span[2], span[3])
        return text[:end] + f"\n    void {name}(String zzBench) {{ }}\n" + text[end:], {name}
    if kind == "rename":
        t = SourceText(text)
        at = t.offset(*name_end)
        if text[at - len(name):at] != name:
            return None
        return text[:at] + "Zz" + text[at:], {name, name + "Zz"}
    new = edit_text(text, kind, name, span, name_end)
    if new is None:
        return None
    if kind == "param":
        if m.params is None or not m.params:
            return None
        first = _FIRST_PARAM.match(new, new.index("(", SourceText(new).offset(*name_end)))
        assert first is not None
        params = ("java.lang." + first.group(1).rsplit(".", 1)[-1], *m.params[1:])
        if clashes(TypeMembers(own.fields, {name: [p for p in own.methods.get(name, []) if p != m.params]}),
                   name, params):
            return None
    return new, {"body": {"zzBench"}, "overload": {name}, "field": {"zzField"}, "param": {name},
                 "delete": {name}}[kind]


# javac's and JDT's messages in a few kinds both word (each compiler's own wording, matched by its
# phrases); a line whose errors fall in none is `other`, and is matched by its line only.
_MESSAGE_KINDS = (
    ("duplicate", ("is already defined", "duplicate ")),
    ("clash", ("name clash", "same erasure", "cannot override", "cannot hide", "does not override",
               "must override", "overrides", "cannot implement", "must implement", "reduce the visibility",
               "weaker access privileges", "static method cannot hide", "hides the instance method",
               "conflicts with the instance method", "conflicts with an inherited")),
    ("ambiguous", ("is ambiguous", "ambiguous")),
    ("unresolved", ("cannot find symbol", "cannot be resolved", "is undefined", "undefined for")),
    ("arguments", ("cannot be applied to", "no suitable", "not applicable for the arguments",
                   "is not applicable")),
    ("types", ("incompatible types", "type mismatch", "cannot convert", "bad operand", "is not compatible")),
    ("static", ("non-static", "static reference", "modifier static not allowed", "static methods")),
)


# JDT's wordings that say "undefined" of what javac words as a mismatch: a constructor none of whose
# declarations fits the arguments ("The constructor C(Object) is undefined": javac "constructor C in
# class C cannot be applied to given types"), an operator no operand types fit ("The operator ^ is
# undefined for the argument type(s) Object, int": javac "bad operand types for binary operator").
_JDT_UNDEFINED = (("arguments", re.compile(r"^the constructor .* is undefined")),
                  ("types", re.compile(r"^the operator .* is undefined for the argument type")))


def message_kind(message: str) -> str:
    low = message.lower()
    for kind, pattern in _JDT_UNDEFINED:
        if pattern.match(low):
            return kind
    for kind, phrases in _MESSAGE_KINDS:
        if any(p in low for p in phrases):
            return kind
    return "other"


def compare_errors(javac: Counter, javac_kinds: dict[tuple[str, int], set[str]], ours: Counter,
                   our_kinds: dict[tuple[str, int], set[str]]) -> dict:
    """diagnostics.added against javac's new errors, per (file, line): the lines both have, each side's
    own, the lines whose counts differ, and of the lines both have, those whose message kinds (javac's
    and JDT's, `message_kind`) share one, differ, or are `other` on a side (not comparable)."""
    both = sorted(set(javac) & set(ours))
    kinds_equal, kinds_differ, kinds_other = 0, [], 0
    for at in both:
        a, b = javac_kinds.get(at, set()) - {"other"}, our_kinds.get(at, set()) - {"other"}
        if not a or not b:
            kinds_other += 1
        elif a & b:
            kinds_equal += 1
        else:
            kinds_differ.append([*at, sorted(a), sorted(b)])
    return {"lines_both": len(both), "javac_only": sorted(set(javac) - set(ours)),
            "pybridge_only": sorted(set(ours) - set(javac)),
            "counts_differ": [[*at, javac[at], ours[at]] for at in both if javac[at] != ours[at]],
            "kinds_equal": kinds_equal, "kinds_differ": kinds_differ, "kinds_not_comparable": kinds_other}


def field_names(state: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{store_path(state)}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT DISTINCT coalesce(d.name_x, s.name) FROM checkouts c"
            " JOIN manifest m ON m.generation_id = c.generation_id"
            " JOIN file_versions f ON f.id = m.file_version_id JOIN declarations d ON d.file_version_id = f.id"
            " JOIN symbols s ON s.id = d.symbol_id WHERE d.kind = ?", (DECL_KINDS.index("FIELD"),)).fetchall()
    finally:
        conn.close()
    return sorted(r[0] for r in rows if r[0])


def in_javadoc(text: str, line: int, char: int) -> bool:
    """Whether (0-based line, char) of Java source `text` is inside a `/** ... */` comment."""
    at = SourceText(text).offset(line, char)
    return any(m.start() <= at < m.end() and m.group().startswith("/**")
               for m in driver._LEXEME.finditer(text) if m.group().startswith("/*"))


def new_errors(before: driver.Run, after: driver.Run, maps: dict[str, TextMap]
               ) -> tuple[Counter, dict[tuple[str, int], set[str]]]:
    """javac's errors on the copy minus the original's (each original error's line mapped through the
    edit, by the first word on it), per (path, 1-based line) with their count; and each such line's
    message kinds (`message_kind`)."""
    gone: Counter = Counter()
    for path, line in before.errors:
        tm = maps.get(path)
        if tm is None:
            gone[(path, line)] += 1
            continue
        text = tm.old.text.splitlines()[line - 1] if 0 < line <= len(tm.old.text.splitlines()) else ""
        char = len(text) - len(text.lstrip())
        at = _mapped(maps, path, line - 1, char, char + 1)
        if at is not None:
            gone[(path, at[0] + 1)] += 1
    added = Counter(after.errors) - gone
    kinds: dict[tuple[str, int], set[str]] = {}
    for path, line, message in after.messages:
        if (path, line) in added:
            kinds.setdefault((path, line), set()).add(message_kind(message))
    return added, kinds


def _drawn(rng: random.Random, candidates: list[Member], kinds: tuple[str, ...], types: dict[int, TypeMembers],
           fields: list[str], root: Path, skipped: Counter, expect: list[dict]):
    """The edits drawn from `rng` in order (those that apply, numbered from 1), each as one option;
    an edit numbered within `expect` (an earlier run's rows) must be the one recorded there."""
    drawn = 0
    while True:
        member = rng.choice(candidates)
        kind = rng.choice(kinds)
        before_text = (root / member.path).read_text(encoding="utf-8")
        edit = javac_edit(before_text, kind, member, types[member.container], fields, rng)
        if edit is None:
            skipped[kind] += 1
            continue
        drawn += 1
        if drawn <= len(expect):
            was = expect[drawn - 1]
            if (was["path"], was["kind"], was["method"], was["declares"]) != (
                    member.path, kind, member.name, sorted(edit[1])):
                raise RuntimeError(f"edit {drawn} is not the one recorded ({was['kind']} {was['path']} "
                                   f"{was['method']}): this state draws {kind} {member.path} {member.name}")
        yield drawn, kind, member.path, before_text, [(member, *edit)]


def _recorded(rows: list[dict], numbers: list[int], candidates: list[Member], types: dict[int, TypeMembers],
              root: Path):
    """The edits of `rows` (an earlier run's) numbered `numbers`, made again from what the row records:
    its file, kind, method (at `at`, where recorded) and the names it declares (a `hide` field's name).
    Rows of runs before `at` name the method only: each overload of that name that the kind applies to
    is an option (the caller keeps the one whose check gives the recorded answer)."""
    for n in numbers:
        row = rows[n - 1]
        assert row.get("edit", n) == n, (row.get("edit"), n)
        before_text = (root / row["path"]).read_text(encoding="utf-8")
        options = []
        for m in candidates:
            if m.path != row["path"] or m.name != row["method"] or ("at" in row and list(m.name_end) != row["at"]):
                continue
            edit = javac_edit(before_text, row["kind"], m, types[m.container], row["declares"],
                              random.Random(0))
            if edit is not None and sorted(edit[1]) == row["declares"]:
                options.append((m, *edit))
        if not options:
            raise RuntimeError(f"edit {n} ({row['kind']} {row['path']} {row['method']}) cannot be made again")
        yield n, row["kind"], row["path"], before_text, options


# javac's options for the judged runs: `-Xdiags:verbose` turns off javac's compact method diagnostics,
# which reword a single candidate's argument mismatch as "incompatible types: A cannot be converted to
# B" placed on the argument (a line below the call's name when the arguments wrap); verbose, javac says
# "method m in class C cannot be applied to given types" on the call, as JDT places and words it ("not
# applicable for the arguments", "The constructor C(...) is undefined"). Runs before 2026-12-02 14:00
# UTC were judged with the compact wording.
JAVAC_OPTIONS = ("-Xdiags:verbose",)

_NOT_ABSTRACT = re.compile(r"(?:<anonymous )?([\w.$]+)>? is not abstract and does not override abstract method "
                           r"([\w$]+\(.*?\)) in ([\w.$]+)")


def repeated_abstract(messages, javac_lines: set, ours: set, hierarchy: driver.Hierarchy) -> list[list]:
    """Rule `repeated_abstract` (found when judging: it needs javac's hierarchy): javac's "C is not
    abstract and does not override abstract method m in I" on a line pybridge does not report, where a
    superclass S of C (javac's class output) gets the same message for the same m and I on a line both
    report. JDT reports an abstract method a concrete class leaves unimplemented once, on the topmost
    such class (S); javac again on each subclass that names an interface bringing m in its own
    `implements` clause (tests/edits/test_check_edit_bench.py reproduces it on three classes)."""
    both = javac_lines & ours
    reported: dict[str, set[tuple[str, str]]] = {}
    for path, line, message in messages:
        m = _NOT_ABSTRACT.match(message)
        if m and (path, line) in both:
            reported.setdefault(m.group(1), set()).add((m.group(2), m.group(3)))
    out = []
    for path, line, message in messages:
        m = _NOT_ABSTRACT.match(message)
        if not m or (path, line) not in javac_lines - ours:
            continue
        info = hierarchy.named(m.group(1))
        ups = hierarchy.superclasses(info) if info else []
        if any((m.group(2), m.group(3)) in reported.get(u.name.replace("$", "."), ()) for u in ups):
            out.append([path, line])
    return out


_PARENS = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[()]',
                     re.S)


def call_extent(text: str, line: int, char: int) -> tuple[int, int]:
    """The 1-based first and last lines of the call whose method name starts at (0-based line, char) of
    Java source `text`: from the name to its closing parenthesis (comments and literals skipped); the
    name's line alone when no argument list follows the name."""
    at = SourceText(text).offset(line, char)
    word = _WORD.match(text, at)
    i = word.end() if word else at
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "(":
        return line + 1, line + 1
    depth = 0
    for m in _PARENS.finditer(text, i):
        depth += {"(": 1, ")": -1}.get(m.group(), 0)
        if depth == 0:
            return line + 1, text.count("\n", 0, m.start()) + 1
    return line + 1, line + 1


_STATEMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:\\.|[^\\])*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[;{}()]',
                        re.S)


def statement_extent(text: str, line: int, char: int) -> tuple[int, int]:
    """The 1-based first and last lines of the statement around (0-based line, char) of Java source
    `text`: from after the last `;`, `{` or `}` before it to the next `;`, each outside parentheses
    deeper than the place's own (an array initializer or a lambda inside a call's arguments does not
    end it); comments and literals skipped. An approximation, never wider than the statement."""
    at = SourceText(text).offset(line, char)
    depth, here, start, end = 0, None, 0, len(text)
    marks: list[tuple[int, int, str]] = []
    for m in _STATEMENT.finditer(text):
        if here is None and m.start() >= at:
            here = depth                      # the parentheses depth at the place
        token = m.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token in (";", "{", "}"):
            marks.append((m.start(), depth, token))
    here = depth if here is None else here
    for pos, d, token in marks:
        if pos < at and d <= here:
            start = pos + 1
        elif pos >= at and token == ";" and d <= here:
            end = pos
            break
    while start < at and text[start].isspace():
        start += 1
    return text.count("\n", 0, start) + 1, text.count("\n", 0, end) + 1


# The subset rule's subtypes: an edit that renames, deletes or re-types a method changes what every
# subtype of its type inherits (an abstract method it implemented for them, in a class that names
# neither the old nor the new name); an instance method added to an interface or an abstract type
# may be one more to implement. Those files are compiled too. A static method added obliges no
# subtype (a subtype that declares the same signature names it, and is in the subset by its name).
SIGNATURE_KINDS = ("rename", "delete", "param")
ADDING_KINDS = ("overload_str",)


def subtype_files(hierarchy: driver.Hierarchy, path: str, kind: str, method: str) -> set[str]:
    """The files declaring a transitive subtype of the classes of `path` that declare a method named
    `method` (javac's class output of the original, `driver.Hierarchy`), for the kinds that change what
    subtypes inherit (for `ADDING_KINDS`, only when that class is an interface or abstract)."""
    if kind in SIGNATURE_KINDS:
        types = hierarchy.declaring(path, method)
    elif kind in ADDING_KINDS:
        types = [t for t in hierarchy.declaring(path, method)
                 if t.flags & (driver.ACC_INTERFACE | driver.ACC_ABSTRACT)]
    else:
        return set()
    return hierarchy.subtype_files(t.name for t in types) - {path}


def javac_differential(name: str, edits: int, seed: int, root: Path | None = None, state: Path | None = None,
                       work: Path | None = None, full: int = 0, out: Path | None = None,
                       kinds: tuple[str, ...] = JAVAC_KINDS, under: str = "", subtypes: bool = True,
                       redo: list[int] | None = None, resume: list[dict] | None = None,
                       expect: list[dict] | None = None) -> dict:
    """check_edit against javac: `edits` 1-file edits of the workspace `root` synced into `state` (else a
    copy of bench/work/NAME synced here). javac (`driver.Subset`, one warm JVM) compiles the files the
    edit can affect, the edited one and those that hold a name it declares, against the original's
    class output, on the original and on a hard-linked copy with the edit written (the workspace is
    never written); the first `full` edits are judged on the whole workspace too, which must agree.
    `subtypes`: the subset also holds the files of the edited type's subtypes where the edit changes
    what they inherit (`subtype_files`). The edits are drawn from `seed` in order, numbered from 1 (a
    row's `edit`): `redo` judges only the edits of those numbers; `resume` (the rows of an earlier run)
    draws its edits again unjudged and goes on after them; `expect` (an earlier run's rows, by number)
    must be what is drawn again (same file, kind, method and names), else the run stops."""
    expect = expect or []
    meta = {"kinds_drawn": list(kinds), "under": under, "subtypes": subtypes, **({"redo": redo} if redo else {})}
    resume = resume or []
    with tempfile.TemporaryDirectory(prefix=f"pybridge-check-javac-{name}-") as tmp, Worker() as worker:
        if root is None or state is None:
            source = workspaces.ensure(workspaces.ARTIFACTS[name], say=print)
            root = (Path(tmp) / name).resolve()
            shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
            state = Path(tmp) / "state"
            sync(root, state_dir=state, worker=worker)
        root = root.resolve()
        work = (work or Path(tmp)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        warm = driver.Warm(work)
        t0 = time.monotonic()
        rows: list[dict] = []
        skipped: Counter = Counter()       # edits drawn that did not apply (javac_edit gave None), by kind
        try:
            subset = driver.Subset(root, state, work, warm, options=JAVAC_OPTIONS)
            mentions = driver.Mentions(root, subset.job_of)
            copy = work / "ce-copy"
            if copy.exists():
                shutil.rmtree(copy)
            subprocess.run(["cp", "-al", str(root), str(copy)], check=True)
            originals: dict[frozenset[str], driver.Run] = {}
            whole_original: driver.Run | None = None
            members, types = javac_members(state)
            candidates = [c for c in members if c.path in subset.job_of and c.path.startswith(under)]
            fields = field_names(state)
            if resume:
                rows = list(resume)
            with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
                session = EditSession(root, reader, worker, lambda i, k: f"{i}", lambda d, m: d)
                if redo is not None:
                    todo = _recorded(expect, redo, candidates, types, root)
                else:
                    todo = _drawn(random.Random(seed), candidates, kinds, types, fields, root, skipped, expect)
                for drawn, kind, path, before_text, options in todo:
                    if redo is None and len(rows) >= edits:
                        break
                    if drawn <= len(resume):
                        continue           # drawn again only to replay the seed's sequence
                    t1 = time.perf_counter()
                    checks = [check_edit(session, [FileChange(path=path, text=o[1])]) for o in options]
                    if len(options) > 1:   # overloads of one name: the one whose answer was recorded
                        was = {tuple(x) for x in expect[drawn - 1]["pybridge"]}
                        fits = [i for i, c in enumerate(checks)
                                if {(d.path, d.range.start.line + 1) for d in c.diagnostics.added} == was]
                        if len(fits) != 1:
                            raise RuntimeError(f"edit {drawn}: {len(fits)} of the {len(options)} overloads of "
                                               f"{options[0][0].name} give the recorded answer")
                        options, checks = [options[fits[0]]], [checks[fits[0]]]
                    (member, new_text, declared), check = options[0], checks[0]
                    ours_s = (time.perf_counter() - t1) / len(checks)
                    maps = {path: TextMap(before_text, new_text)}
                    below = subtype_files(subset.hierarchy(), path, kind, member.name) if subtypes else set()
                    files = {path} | mentions.paths(declared) | below
                    target = copy / path
                    target.unlink()
                    target.write_text(new_text, encoding="utf-8")
                    try:
                        key = frozenset(files)
                        if key not in originals:
                            originals[key] = subset.run(root, {p: p for p in files}, "ce-orig")
                        before, after = originals[key], subset.run(copy, {p: p for p in files}, "ce-copy")
                        judged = [(before, after)]
                        if len(rows) - len(resume) < full:
                            if whole_original is None:
                                whole_original = subset.whole(root, name="ce-orig-whole")
                            judged.append((whole_original, subset.whole(copy, name="ce-copy-whole")))
                    finally:
                        target.unlink()
                        os.link(root / path, target)
                    javac_s = time.perf_counter() - t1 - ours_s
                    answers = [(new_errors(b, a, maps), javac_rebound(b.refs, a.refs, maps)) for b, a in judged]
                    (javac_count, javac_kinds), theirs = answers[0]
                    javac = set(javac_count)
                    ours_count = Counter((d.path, d.range.start.line + 1) for d in check.diagnostics.added)
                    our_kinds: dict[tuple[str, int], set[str]] = {}
                    for d in check.diagnostics.added:
                        our_kinds.setdefault((d.path, d.range.start.line + 1), set()).add(message_kind(d.message))
                    ours = set(ours_count)
                    rebound = {(r.path, r.range.start.line, r.range.start.character) for r in check.rebound}
                    errors = compare_errors(javac_count, javac_kinds, ours_count, our_kinds)
                    # Rule `javadoc`: a rebound reference in a Javadoc comment has no counterpart in
                    # javac's graph (the extractor reads no Javadoc): counted apart, not as extra.
                    texts = {path: new_text}
                    extra_javadoc = sorted(
                        x for x in rebound - theirs
                        if in_javadoc(texts.setdefault(x[0], (root / x[0]).read_text(encoding="utf-8")), x[1], x[2]))
                    for x in sorted(theirs - rebound):
                        texts.setdefault(x[0], (root / x[0]).read_text(encoding="utf-8"))
                    calls = [[*x, *call_extent(texts[x[0]], x[1], x[2])] for x in sorted(theirs - rebound)]
                    for x in sorted(rebound - theirs):
                        texts.setdefault(x[0], (root / x[0]).read_text(encoding="utf-8"))
                    statements = [[*x, *statement_extent(texts[x[0]], x[1], x[2])] for x in sorted(rebound - theirs)]
                    repeated = repeated_abstract(after.messages, javac, ours, subset.hierarchy())
                    row = {"edit": drawn, "path": path, "kind": kind, "method": member.name,
                           "at": list(member.name_end), "declares": sorted(declared),
                           "files": len(files), "subtype_files": sorted(below - {path} - mentions.paths(declared)),
                           "verdict": check.verdict, "javac": sorted(javac),
                           "pybridge": sorted(ours), "original_errors": len(before.errors),
                           "removed": len(check.diagnostics.removed),
                           "same_files": {p for p, _ in javac} == {p for p, _ in ours},
                           "same_lines": javac == ours, "same_counts": javac_count == ours_count, **errors,
                           "messages": {"javac": [[a, b, c[:400]] for a, b, c in after.messages][:40],
                                        "pybridge": [[d.path, d.range.start.line + 1, d.message]
                                                     for d in check.diagnostics.added][:20]},
                           "javac_repeated_abstract": repeated, "rebound_missing_calls": calls,
                           "rebound_extra_statements": statements,
                           "javac_options": list(JAVAC_OPTIONS),
                           "rebound_equal": len(theirs & rebound),
                           "rebound_missing": sorted(theirs - rebound),
                           "rebound_extra": sorted(rebound - theirs - set(extra_javadoc)),
                           "rebound_unbound": sorted((r.path, r.range.start.line, r.range.start.character)
                                                     for r in check.rebound if r.to is None),
                           "rebound_extra_to": sorted(    # [path, line, char, from, to]: for rule recovery_overload
                               ([r.path, r.range.start.line, r.range.start.character, r.from_.symbol,
                                r.to.symbol if r.to else None] for r in check.rebound
                                if (r.path, r.range.start.line, r.range.start.character) in rebound - theirs),
                               key=lambda x: x[:3]),
                           "rebound_extra_javadoc": extra_javadoc,
                           "pybridge_s": round(ours_s, 2), "javac_s": round(javac_s, 2)}
                    row.update(ruled(row))
                    if len(answers) > 1:
                        row["full_equal"] = (answers[1][0][0], answers[1][1]) == (answers[0][0][0], answers[0][1])
                    rows.append(row)
                    print(f"  #{drawn} {kind} {path} ({len(files)} files, {len(row['subtype_files'])} for subtypes): "
                          f"javac {len(javac)} error(s), "
                          f"pybridge {len(ours)} added; files {'=' if row['same_files'] else '!='}, "
                          f"lines {'=' if row['same_lines'] else '!='}, counts {'=' if row['same_counts'] else '!='}, "
                          f"kinds {errors['kinds_equal']} equal {len(errors['kinds_differ'])} differ; "
                          f"rebound {len(theirs & rebound)} equal, "
                          f"{len(theirs - rebound)} missing, {len(row['rebound_extra'])} extra, "
                          f"{len(extra_javadoc)} in Javadoc"
                          + (f"; full {'=' if row['full_equal'] else '!='}" if "full_equal" in row else "")
                          + f" ({ours_s:.1f} s + javac {javac_s:.1f} s)", flush=True)
                    if out is not None and (len(rows) % 5 == 0 or len(rows) == edits or redo is not None):
                        out.write_text(json.dumps(_summary(name, rows, t0, seed, skipped, meta), indent=2) + "\n",
                                       encoding="utf-8")
        finally:
            warm.close()
    return _summary(name, rows, t0, seed, skipped, meta)


def _summary(name: str, rows: list[dict], t0: float, seed: int = 0, skipped: Counter | None = None,
             meta: dict | None = None) -> dict:
    full = [r["full_equal"] for r in rows if "full_equal" in r]
    return {"workspace": name, "seed": seed, **(meta or {}), "edits": len(rows),
            "seconds": round(time.monotonic() - t0, 1),
            "cpu_s": round(time.process_time(), 1), "load": list(os.getloadavg()),
            "kinds": dict(Counter(r["kind"] for r in rows)),
            "skipped": dict(skipped or {}),
            "verdicts": dict(Counter(r["verdict"] for r in rows)),
            "full_checked": len(full), "full_equal": sum(full),
            "same_files": sum(r["same_files"] for r in rows), "same_lines": sum(r["same_lines"] for r in rows),
            "same_counts": sum(r["same_counts"] for r in rows),
            "javac_errors": sum(len(r["javac"]) for r in rows),
            "error_lines_both": sum(r["lines_both"] for r in rows),
            "error_lines_javac_only": sum(len(r["javac_only"]) for r in rows),
            "error_lines_pybridge_only": sum(len(r["pybridge_only"]) for r in rows),
            "error_kinds_equal": sum(r["kinds_equal"] for r in rows),
            "error_kinds_differ": sum(len(r["kinds_differ"]) for r in rows),
            "error_kinds_not_comparable": sum(r["kinds_not_comparable"] for r in rows),
            "original_errors": max((r["original_errors"] for r in rows), default=0),
            "removed": sum(r["removed"] for r in rows),
            "rebound_equal": sum(r["rebound_equal"] for r in rows),
            "rebound_missing": sum(len(r["rebound_missing"]) for r in rows),
            "rebound_extra": sum(len(r["rebound_extra"]) for r in rows),
            "rebound_extra_javadoc": sum(len(r["rebound_extra_javadoc"]) for r in rows),
            "edits_with_rebound_mismatch": sum(bool(r["rebound_missing"] or r["rebound_extra"]) for r in rows),
            "rows": [{**r, "javac": [list(x) for x in r["javac"]], "pybridge": [list(x) for x in r["pybridge"]],
                      "rebound_missing": [list(x) for x in r["rebound_missing"]],
                      "rebound_extra": [list(x) for x in r["rebound_extra"]],
                      "rebound_extra_javadoc": [list(x) for x in r["rebound_extra_javadoc"]]} for r in rows]}


# Rule `override_annotation`'s pairs: javac's wording (on the annotation) and JDT's (on the name below).
_ANNOTATION_PAIRS = (("does not override or implement a method from a supertype", "must override or implement"),
                     ("Unexpected @FunctionalInterface annotation", "is not a functional interface"))

# javac's "method m in class C<...> cannot be applied to given types" and "cannot find symbol ...
# symbol: method m(...) location: class C<...>", for rule `abstract_lookup`.
_CANNOT_APPLY = re.compile(r"method ([\w$]+) in class ([\w.$]+)(?:<.*?>)? cannot be applied to given types"
                           r"|cannot find symbol.*?symbol:\s+method ([\w$]+)\(.*?location: class ([\w.$]*)")


# javac's erasure clashes, for rule `erasure_clash_pair`: on the clashing method "name clash: m(A) in C
# and m(B) in D have the same erasure, yet neither overrides (hides) the other"; on a method overriding
# one of a clashing pair "name clash: class C has two methods with the same erasure, yet neither overrides
# the other", then javac's source line and "first method: m(...) in D  second method: m(...) in C".
# JDT's on the clashing method: "Name clash: The method m(A) of type C has the same erasure as m(B) of type D".
_CLASH_PAIR = re.compile(r"name clash: ([\w$]+)\(.*?\) in ([\w.$]+) and ([\w$]+)\(.*?\) in ([\w.$]+) "
                         r"have the same erasure")
_CLASH_TWO = re.compile(r"name clash: (?:class|interface|enum|record) ([\w$]+) has two methods with the same "
                        r"erasure, yet neither overrides the other")
_JDT_CLASH = re.compile(r"Name clash: The method ([\w$]+)\(.*?\) of type .*? has the same erasure as ([\w$]+)\(")


# A method's symbol without what tells its overloads apart: SCIP's `owner#name(+n).` (pybridge's
# `symbol`), else JDT's binding key `Lowner;.name(params)ret`; None for any other symbol.
_SCIP_METHOD = re.compile(r"(.*#[^#()]+)\((?:\+\d+)?\)\.$")
_KEY_METHOD = re.compile(r"(L[^;(]+;\.[^.(;]+)\(")


def method_name(symbol: str | None) -> str | None:
    """`symbol`'s owner and method name, the same for each overload of one name in one type (SCIP
    names a constructor `<init>`); None when `symbol` is no method's (a field's, a type's)."""
    m = _SCIP_METHOD.fullmatch(symbol or "") or _KEY_METHOD.match(symbol or "")
    return m.group(1) if m else None


def _erasure_clash_pair(row: dict, javac: set, ours: set) -> list[list]:
    """Rule `erasure_clash_pair` (see `ruled`): javac's lines, each [path, line]."""
    out = []
    for path, line, message in row["messages"]["javac"]:
        m = _CLASH_TWO.match(message)
        if not m or (path, line) not in javac or (path, line) in ours:
            continue
        if not all(_CLASH_TWO.match(other) for p, n, other in row["messages"]["javac"] if (p, n) == (path, line)):
            continue                      # another error on the line: not the clash alone
        owner = re.compile(rf"(?:^|[.$]){re.escape(m.group(1))}$")
        for p, n, other in row["messages"]["javac"]:
            pair = _CLASH_PAIR.match(other)
            if (p != path or n == line or pair is None or pair.group(1) != pair.group(3)
                    or (p, n) not in javac or (p, n) not in ours
                    or not (owner.search(pair.group(2)) or owner.search(pair.group(4)))
                    or not re.search(rf"\b{re.escape(pair.group(1))}\(", message[m.end():])):
                continue
            if any((q, k) == (p, n) and (jdt := _JDT_CLASH.match(x)) and jdt.group(1) == jdt.group(2) == pair.group(1)
                   for q, k, x in row["messages"]["pybridge"]):
                out.append([path, line])
                break
    return out


def ruled(row: dict) -> dict:
    """Rule `override_annotation`: javac places "method does not override or implement a method from
    a supertype" on the `@Override` annotation, JDT ("must override or implement a supertype method")
    on the method's name, a line or more below; likewise "Unexpected @FunctionalInterface annotation"
    (javac, on the annotation) and "Invalid '@FunctionalInterface' annotation; X is not a functional
    interface" (JDT, on the type's name). Such a javac error, on an annotation line that pybridge does
    not report, is matched with pybridge's error of that wording on the first line of the same file
    within the next 10 (both read from the row's messages); a line whose count then agrees is no
    longer counted as differing (`counts_differ_ruled` keeps the others).
    Gives the moves and whether the (file, line) sets are then equal (`same_lines_ruled`).

    Rule `abstract_lookup`: javac's "method m in class C cannot be applied to given types" (or "cannot
    find symbol: method m") on a line pybridge does not report, in a file where javac also reports "C
    is not abstract and does not override abstract method m(...)" (and pybridge the same, that the
    class must implement it). A call in C of m as its interface declares it: JLS 15.12.2.1 counts the
    inherited abstract method among C's members, and JDT binds the call to it; javac's method lookup
    (Resolve.findMethod, InterfaceLookupPhase.ABSTRACT_OK) skips the abstract methods of
    superinterfaces when the class searched is concrete ("concrete classes are expected to implement
    all abstracts"), so in a concrete class that fails to, the call finds no method. javac's shortcut,
    on a class already in error: the javac error is counted apart (`rule_abstract_lookup`).

    Rule `repeated_abstract`: javac's "C is not abstract and does not override abstract method m" on a
    line pybridge does not report, when a superclass of C gets the same on a line both report
    (`repeated_abstract`, found when judging; the row's `javac_repeated_abstract`).

    Rule `conditional_cascade` (counts per line only): javac's "incompatible types: bad type in
    conditional expression" on a line where an operand of the conditional already has an error both
    report. javac checks each operand against the target type; JDT gives the conditional no type once
    an operand failed and reports no mismatch (guava CharMatcher.Is.or, `param`: 3 errors against 2).
    A line whose counts differ by exactly those is counted apart (`rule_conditional_cascade`).

    Rule `error_line`: a reference javac no longer binds (or binds elsewhere) on a line where both
    compilers report a new error, and pybridge keeps: a call whose arguments no longer fit is dropped
    from javac's graph, while JDT keeps its closest match (a problem binding) and pybridge reports it
    unmoved. The line is any line of the call, from its name to its closing parenthesis, where the row
    records it (`rebound_missing_calls`: arguments wrapped over lines), else the reference's. Counted
    apart (`rebound_missing_error_line`), not as a plain miss: the line's error is in
    `diagnostics.added` on both sides, the verdict is `breaks_build`.

    Rule `recovery_binding`, its mirror image: a reference pybridge reports rebound, and javac still
    binds as before, on a line where both compilers report a new error. A lambda, a method reference or
    a diamond `new X<>(...)` passed to a call that no longer resolves (its method renamed or deleted):
    with no applicable method there is no target type, JDT leaves such an argument's inner references
    unbound (the `Rebound` has no `to`), while javac's recovery attributes the argument on its own and
    binds them. Counted apart (`rebound_extra_error_line`), not as a plain extra: the line's error is
    in `diagnostics.added` on both sides, the verdict is `breaks_build`, and a reference inside a call
    that does not compile has no binding the build would keep. Where the row records which of
    pybridge's references are now unbound (`rebound_unbound`), only those are ruled; where it records
    each extra's statement (`rebound_extra_statements`), an error line anywhere in that statement counts
    (a builder chain's later calls after a call that no longer resolves: JDT gives the chain no type).

    Rule `recovery_overload`, recovery_binding's other half: a reference pybridge reports rebound from a
    method to **another overload of the same name in the same type** (`method_name` of its `from` and
    `to` symbols, recorded per row as `rebound_extra_to`), and javac still binds as before, on a line
    where both compilers report a new error (the statement, where recorded). A call whose argument
    lost its type (guava seed 17 #78: `checkState(Objects.equal(...), "...")`, `equal` renamed): JDT's
    recovery picks an overload for an argument of no type, javac's keeps the original. Code that does
    not compile has no binding the build would keep (`rule_recovery_overload`). A row judged before
    `rebound_extra_to` was recorded names no target: its bound extras are not ruled.

    Rule `erasure_clash_pair`: javac's "name clash: class C has two methods with the same erasure, yet
    neither overrides the other" alone on a line pybridge does not report, when a line of the same
    file both report carries the clash itself, for a method of the name javac's message then shows
    (its source line, "first method: m(...)"): javac's "name clash: m(A) in C and m(B) in D have the
    same erasure" (C or D the class named) and JDT's "Name clash: The method m(A) ... has the same
    erasure as m(B)". javac (Check.checkOverrideClashes) reports a clash again on each method that
    overrides one of the pair; JDT once, on the clashing method (guava seed 17 #75: a static
    `doHash(Object)` added beside `doHash(Iterable<T>)`, which overrides `Equivalence.doHash(T)`).
    Counted apart (`rule_erasure_clash_pair`): both reject the same declaration."""
    javac = {tuple(x) for x in row["javac"]}
    ours = {tuple(x) for x in row["pybridge"]}
    moved = []
    for path, line, message in row["messages"]["javac"]:
        pair = next((jdt for ours_says, jdt in _ANNOTATION_PAIRS if ours_says in message), None)
        if pair is None or "@" not in message or (path, line) not in javac or (path, line) in ours:
            continue
        below = sorted(n for p, n, m in row["messages"]["pybridge"]
                       if p == path and line < n <= line + 10 and pair in m)
        if below:
            javac.remove((path, line))
            javac.add((path, below[0]))
            moved.append([path, line, below[0]])
    lookup = []
    for path, line, message in row["messages"]["javac"]:
        m = _CANNOT_APPLY.match(message)
        if not m or (path, line) not in javac or (path, line) in ours:
            continue
        name, owner = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if any(p == path and (x.group(1) == owner or (m.group(3) and x.group(1).startswith(owner)))
               and x.group(2).startswith(name + "(")
               for p, _, other in row["messages"]["javac"] if (x := _NOT_ABSTRACT.match(other))):
            lookup.append([path, line])
    repeated = row.get("javac_repeated_abstract", [])
    javac -= {tuple(x) for x in lookup + repeated}
    both = {tuple(x) for x in row["javac"]} & {tuple(x) for x in row["pybridge"]}
    calls = {tuple(x[:3]): range(x[3], x[4] + 1) for x in row.get("rebound_missing_calls", [])}
    on_error = [x for x in row["rebound_missing"]
                if any((x[0], n) in both for n in calls.get(tuple(x), (x[1] + 1,)))]
    unbound = {tuple(x) for x in row.get("rebound_unbound", row["rebound_extra"])}
    statements = {tuple(x[:3]): range(x[3], x[4] + 1) for x in row.get("rebound_extra_statements", [])}
    extra_on_error = [x for x in row["rebound_extra"] if tuple(x) in unbound
                      and any((x[0], n) in both for n in statements.get(tuple(x), (x[1] + 1,)))]
    clash = _erasure_clash_pair(row, javac, ours)
    javac -= {tuple(x) for x in clash}
    targets = {tuple(x[:3]): (x[3], x[4]) for x in row.get("rebound_extra_to", [])}
    overload = [x for x in row["rebound_extra"] if x not in extra_on_error and tuple(x) in targets
                and (name := method_name(targets[tuple(x)][0])) is not None
                and name == method_name(targets[tuple(x)][1]) and targets[tuple(x)][0] != targets[tuple(x)][1]
                and any((x[0], n) in both for n in statements.get(tuple(x), (x[1] + 1,)))]
    onto = Counter((path, to) for path, _, to in moved)
    counts_left = [x for x in row.get("counts_differ", []) if x[2] + onto[(x[0], x[1])] != x[3]]
    cascade = []
    for path, line, javac_n, ours_n in counts_left:
        here = [m for p, n, m in row["messages"]["javac"] if p == path and n == line]
        extra = sum("bad type in conditional expression" in m for m in here)
        if extra and len(here) > extra and javac_n - ours_n == extra:
            cascade.append([path, line])
    return {"rule_override_annotation": moved, "rule_abstract_lookup": lookup, "rule_repeated_abstract": repeated,
            "rule_conditional_cascade": cascade, "rule_erasure_clash_pair": clash,
            "rule_recovery_overload": overload, "same_lines_ruled": javac == ours,
            "counts_differ_ruled": [x for x in counts_left if [x[0], x[1]] not in cascade],
            "rebound_missing_error_line": on_error, "rebound_extra_error_line": extra_on_error}


def tally(files: list[Path], redone: list[Path] = ()) -> dict:
    """Totals over --javac result files (older ones lack the stricter fields: counted where present).
    `redone`: result files of `--redo` runs (`redo_of` names the file judged first): each of their rows
    replaces the row of the same edit number there. `remaining` lists every row with a difference that
    no named rule explains (lines, counts, message kinds, rebound missing or extra)."""
    total: Counter = Counter()
    remaining = []
    again: dict[tuple[str, int], dict] = {}
    for f in redone:
        d = json.loads(f.read_text(encoding="utf-8"))
        for r in d["rows"]:
            again[(d["redo_of"], r["edit"])] = r
    total["redone"] = len(again)
    for f in files:
        d = json.loads(f.read_text(encoding="utf-8"))
        rows = [again.get((f.name, r.get("edit", i + 1)), r) for i, r in enumerate(d["rows"])]
        total["edits"] += len(rows)
        total["same_files"] += sum(r["same_files"] for r in rows)
        total["same_lines"] += sum(r["same_lines"] for r in rows)
        strict = [r for r in rows if "same_counts" in r]
        for r in strict:
            r.update(ruled(r))
        total["same_lines_ruled"] += sum(r["same_lines_ruled"] for r in strict)
        total["rule_override_annotation"] += sum(len(r["rule_override_annotation"]) for r in strict)
        total["rebound_missing_error_line"] += sum(len(r["rebound_missing_error_line"]) for r in strict)
        total["rebound_extra_error_line"] += sum(len(r["rebound_extra_error_line"]) for r in strict)
        for rule in ("abstract_lookup", "repeated_abstract", "conditional_cascade", "erasure_clash_pair",
                     "recovery_overload"):
            total[f"rule_{rule}"] += sum(len(r[f"rule_{rule}"]) for r in strict)
        total["strict_edits"] += len(strict)
        total["same_counts"] += sum(r["same_counts"] for r in strict)
        total["error_lines_javac"] += sum(len(r["javac"]) for r in rows)
        total["error_lines_pybridge"] += sum(len(r["pybridge"]) for r in rows)
        total["error_lines_both"] += sum(len({tuple(x) for x in r["javac"]} & {tuple(x) for x in r["pybridge"]})
                                         for r in rows)
        for k in ("kinds_equal", "kinds_not_comparable"):
            total[f"error_{k}"] += sum(r[k] for r in strict)
        total["error_kinds_differ"] += sum(len(r["kinds_differ"]) for r in strict)
        total["rebound_equal"] += sum(r["rebound_equal"] for r in rows)
        total["rebound_missing"] += sum(len(r["rebound_missing"]) for r in rows)
        total["rebound_extra"] += sum(len(r["rebound_extra"]) for r in rows)
        total["rebound_extra_javadoc"] += sum(len(r.get("rebound_extra_javadoc", [])) for r in rows)
        total["rebound_extra_unruled"] += sum(len(r["rebound_extra"]) - len(r["rebound_extra_error_line"])
                                              - len(r["rule_recovery_overload"]) for r in strict)
        total["rebound_missing_unruled"] += sum(len(r["rebound_missing"]) - len(r["rebound_missing_error_line"])
                                                for r in strict)
        for i, r in enumerate(rows):
            total[f"kind_{r['kind']}"] += 1
            total[f"verdict_{r['verdict']}"] += 1
            if "same_counts" not in r:
                continue
            why = [w for w, bad in (
                ("lines", not r["same_lines_ruled"]),
                ("counts", bool(r["counts_differ_ruled"])),
                ("message kinds", bool(r["kinds_differ"])),
                ("rebound missing", len(r["rebound_missing"]) > len(r["rebound_missing_error_line"])),
                ("rebound extra", len(r["rebound_extra"]) > len(r["rebound_extra_error_line"])
                 + len(r["rule_recovery_overload"]))) if bad]
            if why:
                remaining.append({"file": f.name, "edit": r.get("edit", i + 1), "kind": r["kind"],
                                  "path": r["path"], "method": r["method"], "differs": why})
    total["strict_all_equal_after_rules"] = total["strict_edits"] - len(remaining)
    return {**dict(total), "remaining": remaining}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=sorted(workspaces.ARTIFACTS))
    parser.add_argument("--javac", action="store_true", help="compare diagnostics.added with javac's errors")
    parser.add_argument("--compare-plans", action="store_true",
                        help="check each change with the narrow and the broad plan; their answers must be equal")
    parser.add_argument("--kinds", default=None,
                        help=f"comma-separated edit kinds among {', '.join(ALL_KINDS)} (default: "
                             f"{', '.join(KINDS)}; all with --compare-plans)")
    parser.add_argument("--sizes", default="1,5", help="files per change, comma-separated")
    parser.add_argument("--out", type=Path, default=None, help="the JSON written (default: bench/check_edit.json, "
                        "bench/check_edit-plans.json with --compare-plans, bench/check_edit-javac.json with --javac)")
    parser.add_argument("--root", type=Path, help="--javac: a workspace already synced into --state")
    parser.add_argument("--state", type=Path)
    parser.add_argument("--work", type=Path, help="--javac: javac's work folder (the original's class output)")
    parser.add_argument("--full", type=int, default=0,
                        help="--javac: judge the first N edits on the whole workspace too")
    parser.add_argument("--phases", action="store_true",
                        help="profile three changes phase by phase (wall and CPU; --root/--state take a synced one)")
    parser.add_argument("--reps", type=int, default=3, help="--phases: checks per case (medians)")
    parser.add_argument("--callers", type=int, default=181, help="--phases: the deleted method's referring files")
    parser.add_argument("--switch", action="append", default=[],
                        help="a PYBRIDGE_* switch to measure off (0) and on (1) in the same run (--phases, and the "
                             "latency run: each change checked with all of them off and on, answers equal)")
    parser.add_argument("--jfr", type=Path, help="--phases: record the worker with JFR here; samples split by case")
    parser.add_argument("--under", default="", help="--javac: edit only methods of files under this path prefix "
                        "(e.g. src/main/; the files judged are still every file the edit can affect)")
    parser.add_argument("--tally", type=Path, nargs="+", help="print the totals over these --javac result files")
    parser.add_argument("--redo", type=Path, help="--javac: judge again edits of this result file (its seed; give "
                        "the same --only, --kinds and --under): those numbered --rows, drawn again and checked to be "
                        "the same edits")
    parser.add_argument("--rows", default="", help="--redo: comma-separated edit numbers (1-based, as printed)")
    parser.add_argument("--resume", action="store_true", help="--javac: go on from the rows already in --out "
                        "(same seed, --kinds and --under), up to --edits in all")
    parser.add_argument("--no-subtypes", action="store_true", help="--javac: the old subset rule (no subtype files)")
    args = parser.parse_args()
    if args.tally:
        redone = [f for f in args.tally if "redo_of" in json.loads(f.read_text(encoding="utf-8"))]
        print(json.dumps(tally([f for f in args.tally if f not in redone], redone), indent=2))
        return
    if args.phases:
        target = args.out or HERE / "check_edit-phases.json"
        result = phases(args.only or "guava", args.root, args.state, args.seed, args.reps, args.callers, args.switch,
                        args.jfr)
        target.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        return
    if args.javac:
        target = args.out or HERE / "check_edit-javac.json"
        kinds = tuple(args.kinds.split(",")) if args.kinds else JAVAC_KINDS
        if set(kinds) - set(JAVAC_KINDS):
            parser.error(f"unknown kinds {sorted(set(kinds) - set(JAVAC_KINDS))}; use some of {', '.join(JAVAC_KINDS)}")
        seed, redo, resume, expect, redo_of = args.seed, None, None, None, None
        if args.redo:
            earlier = json.loads(args.redo.read_text(encoding="utf-8"))
            seed, expect = earlier["seed"], earlier["rows"]
            redo_of = args.redo.name
            redo = [int(x) for x in args.rows.split(",") if x]
            if not redo:
                parser.error("--redo needs --rows")
        elif args.resume and target.exists():
            earlier = json.loads(target.read_text(encoding="utf-8"))
            if earlier["seed"] != seed:
                parser.error(f"--resume: {target} was drawn from seed {earlier['seed']}, not {seed}")
            resume = expect = earlier["rows"]
        out = javac_differential(args.only or "commons-lang3-main", args.edits, seed, args.root, args.state,
                                 args.work, args.full, target, kinds, args.under, not args.no_subtypes,
                                 redo, resume, expect)
        if redo_of:
            out["redo_of"] = redo_of
        print({k: v for k, v in out.items() if k != "rows"})
        target.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
        return
    names = [args.only] if args.only else ["guava"]
    plans = ("narrow", "broad") if args.compare_plans else ("narrow",)
    kinds = tuple(args.kinds.split(",")) if args.kinds else ALL_KINDS if args.compare_plans else KINDS
    unknown = set(kinds) - set(ALL_KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; use some of {', '.join(ALL_KINDS)}")
    sizes = tuple(int(x) for x in args.sizes.split(","))
    results = [run(name, args.edits, args.seed, plans, kinds, sizes, tuple(args.switch)) for name in names]
    out = args.out or HERE / ("check_edit-plans.json" if args.compare_plans else "check_edit.json")
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
