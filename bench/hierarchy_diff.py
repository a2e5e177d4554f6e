"""Library hierarchies against javac (issue 26 part 3): for every workspace type, type_hierarchy(super).

    .venv/bin/python bench/hierarchy_diff.py ROOT STATE [--job MODULE:SCOPE] [--out FILE]

For each (module, scope) job of a synced workspace (`measure.compile_jobs`: javac's own options,
`--release` exactly when the build says release), `javac_refs/JavacSupertypes.java` lists every
named type the job declares with its transitive supertypes as javac binds them (erased, by
qualified name, `java.lang.Object` left out as pybridge leaves it out; anonymous and local classes,
and classes inside them, left out: no qualified name to match by). pybridge's side is
`type_hierarchy {symbolKey, direction: super}` through the query facade (in process), every node of
the tree at every depth, for the same types (by qualified name). Per job: types compared, supertype pairs
on each side, recall and precision, and the types whose sets differ (first examples).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import measure  # noqa: E402 - bench/ is not a package
from javac_refs import driver  # noqa: E402

TYPES = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")


def javac_supertypes(job: dict, root: Path, work: Path) -> tuple[dict[str, set[str]], str]:
    """qualified type name -> its transitive supertypes, as javac binds them."""
    out = work / f"{job['module'].replace(':', '_')}-{job['scope']}.supertypes.tsv"
    summary = driver.run_main("JavacSupertypes", job, root, out, work)
    found: dict[str, set[str]] = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        name, _, supers = line.partition("\t")
        found[name.replace("$", ".")] = {s.replace("$", ".") for s in supers.split(",") if s}
    return found, summary


def _tree_names(nodes: list[dict[str, Any]], into: set[str]) -> None:
    for n in nodes:
        into.add(n["dottedPath"])
        _tree_names(n.get("children") or [], into)


def pybridge_supertypes(root: Path, state: Path, module: str, scope: str,
                        names: set[str]) -> tuple[dict[str, set[str]], list[str]]:
    """qualified type name -> every node of its type_hierarchy(super) tree; and the answers that
    were errors or truncated."""
    from pybridge.query import Facade
    from pybridge.query.view import View

    found: dict[str, set[str]] = {}
    trouble: list[str] = []
    with Facade([root], state_dirs={str(root): state}) as f:
        ws = f.spaces.pick(None)
        reader = ws.reader()
        try:
            v = View(ws, reader)
            keys = {}
            for file in reader.files(module=module, scope=scope):
                for d in reader.file_declarations(file.path):
                    if d.kind in TYPES and d.dotted in names and d.dotted not in keys:
                        keys[d.dotted] = v.key(d.symbol_id, d.key)
        finally:
            reader.close()
        for name, key in keys.items():
            result, is_error = f.call("type_hierarchy", {"symbolKey": key, "direction": "super", "limit": 1000})
            if is_error or result.get("truncated"):
                trouble.append(f"{name}: {'error' if is_error else 'truncated'}")
                if is_error:
                    continue
            got: set[str] = set()
            _tree_names(result.get("supertypes") or [], got)
            got.discard("java.lang.Object")
            found[name] = got
    return found, trouble


def run(root: Path, state: Path, jobs: list[str] | None = None, work: Path | None = None,
        examples: int = 12, say=print) -> dict:
    root, state = root.resolve(), state.resolve()
    work = work or Path(tempfile.mkdtemp(prefix="hierarchy-diff-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    for job in measure.compile_jobs(root, state):
        name = f"{job['module']}:{job['scope']}"
        if jobs and name not in jobs and job["scope"] not in jobs:
            continue
        truth, log = javac_supertypes(job, root, work)
        ours, trouble = pybridge_supertypes(root, state, job["module"], job["scope"], set(truth))
        compared = sorted(set(truth) & set(ours))
        pairs_javac = sum(len(truth[t]) for t in compared)
        pairs_ours = sum(len(ours[t]) for t in compared)
        common = sum(len(truth[t] & ours[t]) for t in compared)
        differ = [t for t in compared if truth[t] != ours[t]]
        library = sum(1 for t in compared for s in truth[t] if s not in truth)
        results[name] = {
            "javac_log": log, "types_javac": len(truth), "types_compared": len(compared),
            "missing_types": sorted(set(truth) - set(ours))[:examples],
            "pairs_javac": pairs_javac, "pairs_pybridge": pairs_ours, "library_pairs_javac": library,
            "recall": common / pairs_javac if pairs_javac else None,
            "precision": common / pairs_ours if pairs_ours else None,
            "types_differing": len(differ), "trouble": trouble[:examples],
            "examples": [{"type": t, "javac_only": sorted(truth[t] - ours[t]),
                          "pybridge_only": sorted(ours[t] - truth[t])} for t in differ[:examples]],
        }
        r = results[name]
        say(f"  {name}: {r['types_compared']}/{r['types_javac']} types, javac {pairs_javac} supertype pairs "
            f"({library} library), pybridge {pairs_ours}, recall {r['recall']}, precision {r['precision']}, "
            f"{len(differ)} types differ")
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--job", action="append", help="MODULE:SCOPE or SCOPE (repeatable; default every job)")
    ap.add_argument("--work", type=Path, help="folder for the extractor's classes and output")
    ap.add_argument("--out", type=Path, help="write the full result (with examples) as JSON")
    ap.add_argument("--examples", type=int, default=12)
    a = ap.parse_args(argv)
    results = run(a.root, a.state, a.job, a.work, a.examples)
    if a.out:
        a.out.write_text(json.dumps(results, indent=1))
    exact = all(r["recall"] in (1.0, None) and r["precision"] in (1.0, None) and not r["missing_types"]
                for r in results.values())
    for job, r in results.items():
        for e in r["examples"]:
            print(f"{job}: {e['type']}: javac only {e['javac_only']}, pybridge only {e['pybridge_only']}")
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
