"""A differential of pybridge's stored references against javac's (issue 10, part 3).

    .venv/bin/python bench/javac_diff.py ROOT STATE [--job MODULE:SCOPE ...] [--out FILE.json]

The truth is `bench/javac_refs/JavacRefs.java`: javac's Tree API (JavacTask
parse + analyze, Trees, a TreePathScanner) over the same files, sourcepath,
classpath, encoding and Java level that pybridge used (`measure.compile_jobs`
from the synced state's classpath cache). The other side is the published
generation of STATE, read straight from its SQLite store.

A reference is matched on (file, token span, target declaration); the target
is named the same way on both sides: a declaration with a name token in
source by (file, name position), any other by (binary owner, member, erased
parameter descriptors with type variables kept). Per kind: recall (javac's
references of that kind that pybridge has, span and target), precision
(pybridge's references of that kind that javac has) and kind agreement (of
the matched pairs, the share with the same kind).

Convention differences, normalized here and explained in bench/RESULTS.md:
- pybridge's Javadoc references (flag IN_JAVADOC) are left out: javac's Tree
  API does not attribute Javadoc (DocTrees would; out of scope).
- Lombok: javac runs with Lombok as its annotation processor where the module
  has it (`measure.javac_args`), so the members Lombok generates exist for it
  as for pybridge (which runs Lombok's agent in JDT). Three named rules, each
  counted in the result: a generated member is named by owner, name and
  parameters on both sides (LOMBOK_MEMBER: pybridge places it at its
  annotation, javac at no token); the references that generated code makes
  are left out on both sides (LOMBOK_CODE: pybridge stores them at the
  annotation, flagged generated; javac's have no tokens of their own); an
  upstream module with Lombok on a job's sourcepath is given to javac as
  files (LOMBOK_UPSTREAM: javac never runs processors on sourcepath files).
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "javac_refs"))

import driver  # noqa: E402 - bench/ is not a package
import measure  # noqa: E402

from pybridge.facts import DECL_GENERATED, REF_IN_GENERATED, REF_IN_JAVADOC, REF_KINDS  # noqa: E402

KINDS = REF_KINDS
Key = tuple[str, int, int, int, str]   # path, line, char, end char, target id


# ------------------------------------------------------------ pybridge side

_GENERICS = re.compile(r"<[^<>]*>")


def _strip_generics(s: str) -> str:
    while True:
        t = _GENERICS.sub("", s)
        if t == s:
            return s
        s = t


def _type_sigs(s: str) -> list[str]:
    out, i = [], 0
    while i < len(s):
        j = i
        while s[j] == "[":
            j += 1
        if s[j] in "LT":
            k = s.index(";", j)
            sig = s[i:k + 1]
            i = k + 1
        else:
            sig = s[i:j + 1]
            i = j + 1
        out.append(sig.replace(".", "$") if sig.lstrip("[").startswith("L") else sig)
    return out


def binary_id(binding_key: str) -> str | None:
    """A JDT binding key as the extractor names a declaration without a name token in source."""
    k = _strip_generics(binding_key)
    if k.startswith("."):
        k = "LArray;" + k   # an array's member (`length`, `clone()`): javac's owner is its Array class
    if not k.startswith("L"):
        return None
    end = k.index(";")
    owner = k[1:end].replace(".", "$")
    rest = k[end + 1:]
    if not rest:
        return f"bin|{owner}||"
    if not rest.startswith("."):
        return None   # a type variable (`:TE;`) or a local (`#`) key
    rest = rest[1:]
    paren, close = rest.find("("), rest.find(")")
    if close >= 0 and (paren < 0 or close < paren):
        return f"bin|{owner}|{rest[:close]}|F"
    if paren < 0:
        return None
    name = rest[:paren]
    params = rest[paren + 1:rest.index(")", paren)]
    return f"bin|{owner}|{name or '<init>'}|({''.join(_type_sigs(params))})"


LOMBOK_MEMBER = "a Lombok-generated member, named by owner, name and parameters"
LOMBOK_CODE = "a reference made by Lombok-generated code (at its annotation)"


def pybridge_refs(state: Path, module: str, scope: str,
                  excluded: Counter[str] | None = None) -> dict[Key, set[str]]:
    """(path, span, target) -> kinds, of the current generation's references in one (module, scope).

    Lombok (docs/workspaces.md): a generated member is a declaration marked generated in a file that
    also declares members of its own (not a file under a generated-sources root, where everything is
    generated and has tokens); pybridge locates it at the annotation that generates it, javac at no
    token of its own, so both name it by owner, name and parameters (rule LOMBOK_MEMBER). References
    that generated code makes (flagged generated in such a file) sit at the annotation on pybridge's
    side and at no token on javac's: left out (rule LOMBOK_CODE), and counted in `excluded`."""
    conn = sqlite3.connect(f"file:{state / 'store.sqlite'}?mode=ro", uri=True)
    try:
        gen = conn.execute("SELECT generation_id FROM checkouts WHERE name = ''").fetchone()[0]
        all_decls = conn.execute(
            "SELECT d.symbol_id, fv.path, d.line, d.col, d.modifiers FROM manifest m"
            " JOIN file_versions fv ON fv.id = m.file_version_id"
            " JOIN declarations d ON d.file_version_id = fv.id WHERE m.generation_id = ?", (gen,)).fetchall()
        own = {path for _, path, _, _, mods in all_decls if not mods & DECL_GENERATED}
        lombok = {sid for sid, path, _, _, mods in all_decls if mods & DECL_GENERATED and path in own}
        decls = {sid: f"src|{path}|{line}|{col}" for sid, path, line, col, _ in all_decls if sid not in lombok}
        rows = conn.execute(
            "SELECT fv.path, r.line, r.col, r.dline, r.end_col, r.kind, r.flags, r.target_id FROM manifest m"
            " JOIN file_versions fv ON fv.id = m.file_version_id"
            " JOIN refs r ON r.file_version_id = fv.id"
            " WHERE m.generation_id = ? AND fv.module = ? AND fv.scope = ?", (gen, module, scope)).fetchall()
        targets = list({r[7] for r in rows} - decls.keys())
        keys: dict[int, str] = {}
        for i in range(0, len(targets), 500):
            chunk = targets[i:i + 500]
            keys.update(conn.execute(
                f"SELECT id, binding_key FROM symbols WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    finally:
        conn.close()
    out: dict[Key, set[str]] = defaultdict(set)
    for path, line, col, dline, end_col, kind, flags, target in rows:
        if flags & REF_IN_JAVADOC or dline:
            continue
        if flags & REF_IN_GENERATED and path in own:
            if excluded is not None:
                excluded[LOMBOK_CODE] += 1
            continue
        if target in lombok and excluded is not None:
            excluded[LOMBOK_MEMBER] += 1     # a renaming, not an exclusion: `run` reports it as normalized
        tid = decls.get(target) or binary_id(keys[target]) or f"key|{keys[target]}"
        out[(path, line, col, end_col, tid)].add(KINDS[kind])
    return out


def javac_refs(refs: list[driver.Ref]) -> dict[Key, set[str]]:
    out: dict[Key, set[str]] = defaultdict(set)
    for r in refs:
        out[(r.path, r.line, r.char, r.end_char, r.target)].add(r.kind)
    return out


# ------------------------------------------------------------ comparison

def compare(truth: dict[Key, set[str]], ours: dict[Key, set[str]], texts: dict[str, list[str]] | None = None,
            examples: int = 12) -> dict:
    """Per kind: recall, precision, kind agreement; the misses, extras and kind disagreements grouped by cause."""
    spans_t, spans_o = _index_spans(truth), _index_spans(ours)
    per: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    misses: dict[str, list[Key]] = defaultdict(list)
    extras: dict[str, list[Key]] = defaultdict(list)
    other_kind: dict[str, list[Key]] = defaultdict(list)
    for key, kinds in truth.items():
        for kind in kinds:
            per[kind]["javac"] += 1
            if key in ours:
                per[kind]["found"] += 1
                per[kind]["same_kind"] += kind in ours[key]
                if kind not in ours[key]:
                    other_kind[f"{kind} -> {'/'.join(sorted(ours[key]))}"].append(key)
            else:
                misses[_cause(kind, key, spans_o)].append(key)
    for key, kinds in ours.items():
        for kind in kinds:
            per[kind]["pybridge"] += 1
            if key in truth:
                per[kind]["correct"] += 1
            else:
                extras[_cause(kind, key, spans_t)].append(key)
    table = {}
    for kind, c in per.items():
        table[kind] = {
            "javac": c["javac"], "pybridge": c["pybridge"],
            "recall": c["found"] / c["javac"] if c["javac"] else None,
            "precision": c["correct"] / c["pybridge"] if c["pybridge"] else None,
            "kind_agreement": c["same_kind"] / c["found"] if c["found"] else None,
            "missed": c["javac"] - c["found"], "extra": c["pybridge"] - c["correct"],
        }

    def show(groups: dict[str, list[Key]], other: dict[Span, dict[str, set[str]]]) -> list[dict]:
        out = []
        for cause, keys in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            out.append({"group": cause, "count": len(keys),
                        "examples": [_example(k, other, texts) for k in sorted(keys)[:examples]]})
        return out

    return {"kinds": table, "misses": show(misses, spans_o), "extras": show(extras, spans_t),
            "kind_disagreements": show(other_kind, spans_o)}


Span = tuple[str, int, int, int]


def _index_spans(d: dict[Key, set[str]]) -> dict[Span, dict[str, set[str]]]:
    out: dict[Span, dict[str, set[str]]] = defaultdict(dict)
    for (p, ln, c, e, t), kinds in d.items():
        out[(p, ln, c, e)][t] = kinds
    return out


def _short(tid: str) -> str:
    parts = tid.split("|")
    if parts[0] == "bin":
        return f"{parts[1]}.{parts[2]}{'' if parts[3] in ('', 'F') else parts[3]}" if parts[2] else parts[1]
    return "a source declaration" if parts[0] == "src" else tid


def _cause(kind: str, key: Key, other: dict[Span, dict[str, set[str]]]) -> str:
    """A group for a reference the other side lacks: what the other side has at the same token."""
    there = other.get(key[:4])
    if not there:
        return f"{kind} of {_target_class(key[4])}: the other side has no reference at this token"
    names = " + ".join(sorted(_short(t) for t in there))
    return f"{kind} of {_short(key[4])}: the other side names {names} here"


def _target_class(tid: str) -> str:
    parts = tid.split("|")
    if parts[0] == "src":
        return "a source declaration"
    if parts[0] == "bin":
        return "a library field" if parts[3] == "F" else "a library type" if not parts[2] else "a library method"
    return parts[0]


def _example(key: Key, other: dict[Span, dict[str, set[str]]], texts: dict[str, list[str]] | None) -> dict:
    path, line, char, end, target = key
    ex: dict[str, object] = {"at": f"{path}:{line + 1}:{char + 1}", "target": target,
                             "other_side_at_token": {t: sorted(k) for t, k in other.get(key[:4], {}).items()}}
    if texts is not None and path in texts and line < len(texts[path]):
        ex["line"] = texts[path][line].strip()[:160]
    return ex


OBJECT_CLONE = "bin|java/lang/Object|clone|()"
Alternatives = dict[Key, set[str]]


def javac_alternatives(refs: list[driver.Ref]) -> Alternatives:
    """(token, javac's target) -> the other override-equivalent declarations of that method."""
    return {(r.path, r.line, r.char, r.end_char, r.target): set(r.alternatives) for r in refs if r.alternatives}


def normalize(truth: dict[Key, set[str]], ours: dict[Key, set[str]], alternatives: Alternatives) -> Counter[str]:
    """Rewrite javac's target where the two compilers name different, equally right declarations
    (counted per rule; bench/RESULTS.md explains each)."""
    spans = _index_spans(ours)
    applied: Counter[str] = Counter()
    for key in [k for k in truth if k not in ours]:
        target, there = key[4], spans.get(key[:4], {})
        new, rule = None, ""
        if target == "bin|Array|clone|()":
            # JLS 10.7: an array type's clone() overrides Object's; javac binds the array's own member,
            # JDT Object.clone(), the declaration that exists
            new, rule = OBJECT_CLONE, "array clone() bound to Object.clone()"
        else:
            same = [t for t in there if t in alternatives.get(key, ())]
            if len(same) == 1:
                # the method is inherited from several supertypes whose declarations are override-equivalent
                # and do not override one another (List.size() and AbstractCollection.size() in
                # ImmutableList: JLS 15.12.2.5 lets the compiler pick any when all are abstract), or javac
                # names Object's method where the receiver's interface redeclares it (Annotation.hashCode())
                new, rule = same[0], "an override-equivalent declaration of the same inherited method"
        if new is not None and (*key[:4], new) not in truth:
            truth[(*key[:4], new)] = truth.pop(key)
            applied[rule] += 1
    return applied


LOMBOK_UPSTREAM = ("an upstream module with Lombok on this job's sourcepath, given to javac as files (with its "
                   "sourcepath and classpath after this job's; its references compared in its own job)")


def with_lombok_upstream(job: dict, all_jobs: list[dict]) -> tuple[dict, list[str]]:
    """The job as javac must run it for its references to Lombok-generated members of an upstream
    module to exist, and the names of those upstream jobs (rule LOMBOK_UPSTREAM).

    A module's sourcepath holds the sources of the modules it depends on (pybridge binds a reference
    into them to their source declarations, as the extractor does through javac's trees). javac runs
    annotation processors only on the files of its command line, never on sources it reads from the
    sourcepath, so a member Lombok generates in an upstream module (gradle-reactor's
    `Greeting.getWho()`, used by app) does not exist for it; the build compiles app against the
    upstream's class output instead, where it does. So those upstream jobs' files go on the command
    line with Lombok as the processor; their own dependencies (the upstream's `implementation` ones,
    absent from this job's classpath and sourcepath) come after this job's, where they shadow nothing
    of it. Only the job's own files' references are compared. Jobs whose upstream has no Lombok run as
    they are."""
    upstream = [o for o in all_jobs if o is not job and o.get("lombok") and o["files"]
                and not set(o["files"]) & set(job["files"])
                and any(Path(o["files"][0]).is_relative_to(sp) for sp in job["sourcepath"])]
    if not upstream:
        return job, []
    files, sourcepath, classpath = list(job["files"]), list(job["sourcepath"]), list(job["classpath"])
    for o in upstream:
        files += [f for f in o["files"] if f not in files]
        sourcepath += [p for p in o["sourcepath"] if p not in sourcepath]
        classpath += [c for c in o["classpath"] if c not in classpath]
    lombok = job.get("lombok") or upstream[0]["lombok"]
    return ({**job, "files": files, "sourcepath": sourcepath, "classpath": classpath, "lombok": lombok},
            [f"{o['module']}:{o['scope']}" for o in upstream])


def run(root: Path, state: Path, jobs: list[str] | None = None, work: Path | None = None,
        examples: int = 12, say=print, running_jdk_api: bool = False) -> dict:
    """The differential for every (module, scope) job of a synced workspace (or the named ones).

    `running_jdk_api`: give javac `-source N -target N` instead of `--release N`, so that it binds
    against the running JDK's class library, as pybridge's JDT does (see bench/RESULTS.md)."""
    root, state = root.resolve(), state.resolve()
    work = work or Path(tempfile.mkdtemp(prefix="javac-diff-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    all_jobs = measure.compile_jobs(root, state)
    for job in all_jobs:
        name = f"{job['module']}:{job['scope']}"
        if jobs and name not in jobs and job["scope"] not in jobs:
            continue
        if running_jdk_api:
            job = {**job, "release_flag": "source"}
        t0 = time.perf_counter()
        own = {Path(f).relative_to(root).as_posix() for f in job["files"]}
        run_job, upstream = with_lombok_upstream(job, all_jobs)
        out = work / f"{job['module'].replace(':', '_')}-{job['scope']}.tsv"
        refs, log = driver.extract(run_job, root, out, work)
        if upstream:
            refs = [r for r in refs if r.path in own]
        seconds = time.perf_counter() - t0
        say(f"  {name}: javac {len(refs)} references in {seconds:.1f} s ({log.splitlines()[-1] if log else ''})")
        truth = javac_refs(refs)
        rules: Counter[str] = Counter()
        ours = pybridge_refs(state, job["module"], job["scope"], rules)
        normalized = normalize(truth, ours, javac_alternatives(refs))
        if rules[LOMBOK_MEMBER]:
            normalized[LOMBOK_MEMBER] = rules[LOMBOK_MEMBER]
        in_generated = sum(n for path, n in driver.read_generated(out).items() if path in own)
        excluded = {LOMBOK_CODE: (in_generated, rules[LOMBOK_CODE])} if in_generated or rules[LOMBOK_CODE] else {}
        paths = {k[0] for k in truth} | {k[0] for k in ours}
        texts = {p: (root / p).read_text(encoding=job["encoding"], errors="replace").splitlines() for p in paths}
        results[name] = {"javac_log": log, "javac_errors": javac_errors(log), "seconds": seconds,
                         "lombok_upstream": upstream,
                         "normalized": dict(normalized), "excluded": excluded,
                         **compare(truth, ours, texts, examples)}
    return results


_SUMMARY = re.compile(r"javac_refs: \d+ references, (\d+) errors")


def javac_errors(log: str) -> int:
    """The error count of the extractor's summary line."""
    m = _SUMMARY.search(log)
    if m is None:
        raise ValueError(f"no summary line in the extractor's log: {log[-500:]}")
    return int(m.group(1))


def table(results: dict) -> str:
    """Markdown: one row per (job, kind)."""
    lines = ["| job | kind | javac | pybridge | recall | precision | kind agreement |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.3f}%"

    for job, r in results.items():
        for kind, t in r["kinds"].items():
            if t["javac"] or t["pybridge"]:
                lines.append(f"| {job} | {kind} | {t['javac']:,} | {t['pybridge']:,} | {pct(t['recall'])} | "
                             f"{pct(t['precision'])} | {pct(t['kind_agreement'])} |")
    return "\n".join(lines)


def print_details(results: dict, limit: int = 15) -> None:
    """The normalizations and exclusions applied, and the first `limit` groups of each difference."""
    for job, r in results.items():
        for rule, n in r["normalized"].items():
            print(f"{job} normalized: {rule}: {n}")
        for rule, (a, b) in r["excluded"].items():
            print(f"{job} excluded: {rule}: javac {a}, pybridge {b}")
        if r.get("lombok_upstream"):
            print(f"{job}: {LOMBOK_UPSTREAM}: {', '.join(r['lombok_upstream'])}")
        for side in ("misses", "extras", "kind_disagreements"):
            for g in r[side][:limit]:
                print(f"\n{job} {side}: {g['group']} ({g['count']})")
                for ex in g["examples"][:4]:
                    print(f"    {ex['at']}  {ex['target']}\n        {ex.get('line', '')}\n"
                          f"        other side: {ex['other_side_at_token']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--job", action="append", help="MODULE:SCOPE or SCOPE (repeatable; default every job)")
    ap.add_argument("--work", type=Path, help="folder for the extractor's classes and output")
    ap.add_argument("--out", type=Path, help="write the full result (with examples) as JSON")
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--running-jdk-api", action="store_true",
                    help="javac with -source/-target instead of --release: the running JDK's library, as JDT")
    a = ap.parse_args(argv)
    results = run(a.root, a.state, a.job, a.work, a.examples, running_jdk_api=a.running_jdk_api)
    print(table(results))
    print_details(results)
    if a.out:
        a.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
