"""Mass renames against javac (issue 24): random renames of every declaration kind, each judged by javac.

    .venv/bin/python bench/mass_rename.py ROOT STATE [--n 50] [--seed 1] [--out FILE.json] [--work DIR]

ROOT is a workspace synced into STATE (e.g. bench/work/commons-lang3-main, bench/work/guava). Each
rename picks a kind at random among those declared (types, methods, fields, enum constants, record
components, parameters, locals, type parameters; constructors are renamed with their type), a
declaration of that kind, and a new name: a fresh one (the old name plus a suffix) or, as often, a
hazard (another name declared in the same file, which invites collisions and captures). Then:

- pybridge plans and checks the rename on the warm worker (`pybridge.edits.rename.plan`,
  `pybridge.edits.rename_check.check`: what the `rename` tool runs);
- a clean rename is written (`rename_apply.write`) to a copy of ROOT (hard links, so each file the
  rename writes is replaced, never the original), and javac (bench/javac_refs, the Tree API) analyses
  every file of the copy the rename could affect (`affected`: the files it edits and, unless the
  target is seen from its own file only, those that mention the new name). It must report no
  error, and its references must be the original's with the name substituted: every position
  shifted on its line, paths through the file move, targets through the rename (a declaration in
  source by its mapped position; a library-style target by its binary owner and member, with the
  renamed type or member substituted). A difference is `failed`;
- a refused rename is checked to be real: the naive rename (the same edits without the refusals made
  before the compile; a library method's overrides renamed without it) is written to a copy and javac
  must report a new error or a reference that binds elsewhere (in the edited files, else in all
  affected ones, else a Javadoc link of the edited files that javac's DocTrees resolves elsewhere or
  no longer resolves: `proof: javadoc`; pybridge renames and checks `{@link}` and `@see` too).
  Otherwise it is `refused_unproven`.

Counts: clean, refused (by reason, each proven real), refused_unproven, failed, error (pybridge raised).
The original's javac references are computed once per compile job (the whole job).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "javac_refs"))

import driver  # noqa: E402 - bench/ is not a package

from pybridge.edits import EditSession  # noqa: E402
from pybridge.edits import rename as planner  # noqa: E402
from pybridge.edits.rename_apply import write  # noqa: E402
from pybridge.edits.rename_check import base_of, check  # noqa: E402
from pybridge.edits.rename_verify import Shifts  # noqa: E402
from pybridge.facts import DECL_GENERATED  # noqa: E402
from pybridge.store import DeclRow, Reader, Store  # noqa: E402
from pybridge.sync import store_path  # noqa: E402
from pybridge.sync.meta import GenerationMeta  # noqa: E402
from pybridge.worker import Worker  # noqa: E402

KINDS = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "METHOD", "FIELD", "ENUM_CONSTANT",
         "RECORD_COMPONENT", "PARAMETER", "LOCAL", "TYPE_PARAMETER")
TYPES = {"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"}
RefKey = tuple[str, int, int, int, str, str]     # path, line, char, end, kind, target


def pool(reader: Reader) -> dict[str, list[DeclRow]]:
    """The declarations a rename may pick, by kind."""
    out: dict[str, list[DeclRow]] = {}
    for f in reader.files():
        for d in reader.file_declarations(f.path):
            if d.kind in KINDS and d.name and not d.modifiers & DECL_GENERATED and d.name != "<init>":
                out.setdefault(d.kind, []).append(d)
    return out


def pick(rng: random.Random, reader: Reader, decls: dict[str, list[DeclRow]], i: int) -> tuple[DeclRow, str, str]:
    kind = rng.choice(sorted(decls))
    d = rng.choice(decls[kind])
    if rng.random() < 0.5:
        return d, f"{d.name}Rn{i}", "fresh"
    beside = sorted({x.name for x in reader.file_declarations(d.path)
                     if x.name and x.name != d.name and x.name != "<init>" and x.kind in KINDS})
    if not beside:
        return d, f"{d.name}Rn{i}", "fresh"
    return d, rng.choice(beside), "hazard"


class Javac:
    """javac's references and errors of the original and of copies, on the files a rename can affect
    (`driver.Subset`: against the original's class output); the original's runs are cached by file set."""

    def __init__(self, root: Path, state: Path, work: Path, warm: driver.Warm, say: Any = print) -> None:
        self.root = root
        self.work = work
        self.subset = driver.Subset(root, state, work, warm, say)
        self.mentions = driver.Mentions(root, self.subset.job_of)
        self._original: dict[tuple[frozenset[str], bool], driver.Run] = {}
        self._whole: driver.Run | None = None

    def original(self, paths: set[str], javadoc: bool = False) -> driver.Run:
        key = (frozenset(paths), javadoc)
        if key not in self._original:
            if len(self._original) > 200:
                self._original.clear()
            self._original[key] = self.subset.run(self.root, {p: p for p in paths}, "orig", javadoc)
        return self._original[key]

    def whole_original(self) -> driver.Run:
        if self._whole is None:
            self._whole = self.subset.whole(self.root, name="orig-whole")
        return self._whole


class Substitution:
    """The original's javac references as the rename should leave them."""

    def __init__(self, plan: planner.RenamePlan) -> None:
        self.shifts = Shifts(plan)
        self.old, self.new = plan.old_name, plan.new_name
        self.types = {_binary(d.key) for d in plan.renamed if d.kind in TYPES}
        self.owners = {_binary(d.container_key or "") for d in plan.renamed if d.kind not in TYPES}
        # a static import kept for a member that keeps the old name, and the one added after it
        self.kept = {(a.path, a.token.start_line): a for a in plan.added_imports}
        self.renamed_at = {f"src|{d.path}|{d.name_span.start_line}|{d.name_span.start_char}" for d in plan.renamed}

    def refs(self, r: driver.Ref) -> list[RefKey]:
        """Where `r` should be after the rename: its place shifted; at a kept static import, a
        reference to a renamed declaration at the added import instead, and a type of the kept
        import's name at both."""
        a = self.kept.get((r.path, r.line))
        if a is None or not a.head <= r.char <= a.token.start_char:
            return [self.ref(r)]
        line, at = self.shifts.forward(r.path, a.at.start_line, a.at.start_char)
        width = len(self.new) if r.char == a.token.start_char else r.end_char - r.char
        copy = (self.shifts.new_path(r.path), line, at + a.copied(r.char), at + a.copied(r.char) + width, r.kind,
                self.target(r.target))
        if r.char == a.token.start_char:
            return [copy] if r.target in self.renamed_at else [self.ref(r)]
        return [self.ref(r), copy]

    def ref(self, r: driver.Ref) -> RefKey:
        line, char = self.shifts.forward(r.path, r.line, r.char)
        _, end = self.shifts.forward(r.path, r.line, r.end_char)
        return (self.shifts.new_path(r.path), line, char, end, r.kind, self.target(r.target))

    def target(self, t: str) -> str:
        parts = t.split("|")
        if parts[0] == "src":
            path, line, char = parts[1], int(parts[2]), int(parts[3])
            nl, nc = self.shifts.forward(path, line, char)
            return f"src|{self.shifts.new_path(path)}|{nl}|{nc}"
        if parts[0] == "bin" and len(parts) == 4:
            owner, member, params = parts[1], parts[2], parts[3]
            if member == self.old and owner in self.owners:
                member = self.new
            for old_type in self.types:
                new_type = old_type.rsplit(self.old, 1)[0] + self.new if old_type.endswith(self.old) else old_type
                if owner == old_type or owner.startswith(old_type + "$"):
                    owner = new_type + owner[len(old_type):]
                params = params.replace(f"L{old_type};", f"L{new_type};").replace(f"L{old_type}$", f"L{new_type}$")
            return f"bin|{owner}|{member}|{params}"
        return t


def _binary(key: str) -> str:
    """`Lcom/acme/Outer$Inner;` -> `com/acme/Outer$Inner` (the extractor's owner names)."""
    k = key.split(";", 1)[0]
    return k[1:].split("<", 1)[0].replace(".", "$") if k.startswith("L") else k


def _key(r: driver.Ref) -> RefKey:
    return (r.path, r.line, r.char, r.end_char, r.kind, r.target)


PRIVATE = 0x2      # JDT's Modifier.PRIVATE


TYPE_KINDS = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")


def affected(mentions: driver.Mentions, plan: planner.RenamePlan, reader: Reader | None = None) -> set[str]:
    """The files whose bindings the rename could change: those it edits and, unless the target is
    seen from its own file only (a local, a parameter, a type parameter, a private member), those that
    mention the new name or the old one as a code token (a reference can only move to a declaration
    named like it, or away from one named like it; and a reference the rename missed is there).
    A renamed type's binary name changes, so with `reader` the files that refer to the type or to
    anything declared in it are added too: a file that names only an inherited member type
    (`Entry` for `Multiset.Entry`) is not edited, and its class file in the original's output
    would still carry the old binary name."""
    edited = {f.path for f in plan.files} | {m.source for m in plan.moves}
    t = plan.target
    if t.kind in ("LOCAL", "PARAMETER", "TYPE_PARAMETER") or t.modifiers & PRIVATE:
        return edited
    out = edited | mentions.paths([plan.new_name, plan.old_name])
    if reader is not None and t.kind in TYPE_KINDS and t.key.startswith("L"):
        own = t.key.split("<", 1)[0].split(";", 1)[0]      # Lcom/acme/Type (a generic key: Type<TE;>;)
        keys = [d.key for d in reader.file_declarations(t.path)
                if d.key.startswith((own + ";", own + "<", own + "$"))]
        out |= reader.paths_referencing(keys)
    return out


def judged(javac: Javac, reader: Reader, plan: planner.RenamePlan, work: Path, wide: bool = True,
           full: bool = False, javadoc: bool = False) -> dict[str, Any]:
    """Write `plan` to a copy and compare javac's view of it with the original's, substituted: the
    affected files (`wide`) or only the edited ones, each side compiled against the original's class
    output; `full`: every file of the workspace, the check of that subset rule; `javadoc`: the Javadoc
    references (`{@link}`, `@see`) as javac's DocTrees resolves them are compared too."""
    copy = work / "copy"
    if copy.exists():
        shutil.rmtree(copy)
    subprocess.run(["cp", "-al", str(javac.root), str(copy)], check=True)
    write(copy, plan, base_of(plan))
    shifts = Shifts(plan)
    if full:
        before = javac.whole_original()
        after = javac.subset.whole(copy, shifts.new_path, "copy-whole")
        old_paths = set(javac.subset.job_of)
    else:
        edited = {f.path for f in plan.files} | {m.source for m in plan.moves}
        old_paths = affected(javac.mentions, plan, reader) if wide else edited
        before = javac.original(old_paths, javadoc)
        after = javac.subset.run(copy, {shifts.new_path(p): p for p in old_paths}, "copy", javadoc)
    sub = Substitution(plan)
    expected = Counter(k for r in before.refs for k in sub.refs(r))
    actual = Counter(_key(r) for r in after.refs)
    missing, extra = expected - actual, actual - expected
    errors = max(0, len(after.errors) - len(before.errors))
    return {"files": len(old_paths), "errors": errors, "log": after.log[-2000:] if errors else "",
            "missing": [list(k) for k in sorted(missing)[:5]], "extra": [list(k) for k in sorted(extra)[:5]],
            "differences": sum(missing.values()) + sum(extra.values())}


def run(root: Path, state: Path, n: int, seed: int, work: Path, worker: Worker,
        say: Any = print, out: Path | None = None, full: int = 0, resume: bool = False,
        redo: frozenset[int] = frozenset()) -> dict[str, Any]:
    """The mass rename; with `out`, the result so far is written there after each rename (and with
    `resume`, the renames it already holds for this seed are kept, not run again); the first `full`
    renames are judged a second time on every file of the workspace, which must give the same
    judgement (`fullEqual`); `redo`: the indices of renames run again even when `out` holds them
    (after a fix)."""
    root, state = root.resolve(), state.resolve()
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    warm = driver.Warm(work)
    try:
        return _run(root, state, n, seed, work, worker, say, warm, t0, out, full, resume, redo)
    finally:
        warm.close()


def _run(root: Path, state: Path, n: int, seed: int, work: Path, worker: Worker, say: Any, warm: driver.Warm,
         t0: float, out: Path | None, full: int, resume: bool, redo: frozenset[int]) -> dict[str, Any]:
    javac = Javac(root, state, work, warm, say)
    say(f"javac: the original's class output ready ({time.monotonic() - t0:.1f} s)")
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    by_kind: dict[str, Counter[str]] = {}
    cases: list[dict[str, Any]] = []
    done: list[dict[str, Any]] = []
    if resume and out is not None and out.exists():
        before = json.loads(out.read_text(encoding="utf-8"))
        if before.get("seed") == seed and before.get("root") == str(root):
            done = before["cases"]
            t0 -= before.get("seconds", 0)
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        meta = GenerationMeta.of(reader.generation)
        decls = pool(reader)
        session = EditSession(root, reader, worker, lambda sid, key: key, lambda d, m: d)
        for i in range(n):
            target, new, how = pick(rng, reader, decls, i)
            if i < len(done) and i not in redo and done[i]["target"] == target.dotted and done[i]["new"] == new:
                case = done[i]
                counts[case["result"]] += 1
                by_kind.setdefault(target.kind, Counter())[case["result"]] += 1
                cases.append(case)
                continue
            case: dict[str, Any] = {"i": i, "kind": target.kind, "target": target.dotted, "path": target.path,
                                    "old": target.name, "new": new, "how": how}
            t1 = time.monotonic()
            try:
                try:
                    plan = planner.plan(reader, root, target, new, meta.encoding)
                    check(plan, session)
                    case["outcome"] = "clean"
                except planner.RenameRefused as refused:
                    case["outcome"] = "refused"
                    case["reason"] = refused.reason
                    case["message"] = refused.message[:300]
                    plan = planner.plan(reader, root, target, new, meta.encoding, naive=True)
                case["seconds"] = round(time.monotonic() - t1, 2)
                case["edits"] = sum(len(f.edits) for f in plan.files)
                # a refusal is proven by the edited files alone when they break; else by all affected;
                # else by a Javadoc link that would move (javac's DocTrees on the edited files)
                verdict = judged(javac, reader, plan, work, wide=case["outcome"] == "clean")
                broke = verdict["errors"] > 0 or verdict["differences"] > 0
                if case["outcome"] != "clean" and not broke:
                    verdict = judged(javac, reader, plan, work)
                    broke = verdict["errors"] > 0 or verdict["differences"] > 0
                if case["outcome"] != "clean" and not broke:
                    verdict = judged(javac, reader, plan, work, wide=False, javadoc=True)
                    broke = verdict["differences"] > 0
                    case["proof"] = "javadoc"
                case["javac"] = verdict
                case["javac_seconds"] = round(time.monotonic() - t1 - case["seconds"], 2)
                if i < full:
                    whole = judged(javac, reader, plan, work, full=True)
                    case["fullEqual"] = (whole["errors"] > 0 or whole["differences"] > 0) == broke
                    case["full"] = {k: whole[k] for k in ("files", "errors", "differences", "missing", "extra")}
                if case["outcome"] == "clean":
                    outcome = "failed" if broke else "clean"
                else:
                    outcome = f"refused:{case['reason']}" if broke else "refused_unproven"
            except Exception as exc:  # noqa: BLE001 - a bench: count it and go on
                outcome = "error"
                case["error"] = f"{type(exc).__name__}: {exc}"[:500]
            case["result"] = outcome
            case["total_seconds"] = round(time.monotonic() - t1, 2)
            counts[outcome] += 1
            by_kind.setdefault(target.kind, Counter())[outcome] += 1
            cases.append(case)
            if out is not None:
                out.write_text(json.dumps(_result(root, i + 1, seed, t0, counts, by_kind, cases), indent=1) + "\n",
                               encoding="utf-8")
            say(f"{i + 1}/{n} {target.kind} {target.dotted} -> {new} ({how}): {outcome}"
                + (f" [{case.get('message', '')[:120]}]" if outcome.startswith("refused") else "")
                + (f" {case.get('javac')}" if outcome in ("failed", "refused_unproven") else "")
                + (f" {case.get('error')}" if outcome == "error" else "")
                + (f" fullEqual={case['fullEqual']}" if "fullEqual" in case else "")
                + f" ({case.get('seconds')} s + javac {case.get('javac_seconds')} s)")
    result = _result(root, n, seed, t0, counts, by_kind, cases)
    if out is not None:     # the renames kept by --resume after the last one run are written too
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def _result(root: Path, n: int, seed: int, t0: float, counts: Counter[str], by_kind: dict[str, Counter[str]],
            cases: list[dict[str, Any]]) -> dict[str, Any]:
    full = [c["fullEqual"] for c in cases if "fullEqual" in c]
    return {"root": str(root), "n": n, "seed": seed, "seconds": round(time.monotonic() - t0, 1),
            "fullChecked": len(full), "fullEqual": sum(full), "counts": dict(counts),
            "byKind": {k: dict(v) for k, v in sorted(by_kind.items())}, "cases": cases}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--work", type=Path)
    ap.add_argument("--heap", default="2g")
    ap.add_argument("--full", type=int, default=0, help="judge the first N renames on the whole workspace too")
    ap.add_argument("--resume", action="store_true", help="keep the renames --out already holds")
    ap.add_argument("--redo", default="", help="with --resume: these renames (indices, comma-separated) run again")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="mass-rename-"))
    with Worker(heap=a.heap) as worker:
        result = run(a.root, a.state, a.n, a.seed, work, worker, lambda m: print(m, flush=True), a.out,
                     a.full, a.resume, frozenset(int(i) for i in a.redo.split(",") if i))
    print(json.dumps({k: result[k] for k in ("n", "seconds", "fullChecked", "fullEqual", "counts", "byKind")},
                     indent=1))


if __name__ == "__main__":
    main()
