"""Library usages against javac (issue 26, acceptance "Library usages against javac").

    .venv/bin/python bench/library_usages.py ROOT STATE [--members 200] [--seed 26] [--out FILE.json]

Syncs ROOT into STATE (when it has no generation), runs javac's reference extractor
(bench/javac_refs) on every (module, scope) job, and samples library and JDK members among the
targets of javac's references (`bin|owner|member|params`: methods, constructors, fields; types
too). For each, it asks pybridge the way an agent would: `find_symbol` with the member's qualified
name and parameter list (`java.util.List.add(E)`, `org.apache.commons.lang3.StringUtils.isEmpty(
CharSequence)`), then every page of `find_references` with the key it returned, and compares the
references' (file, token span) with javac's references to that member (Javadoc mentions left out:
javac's Tree API does not attribute Javadoc). Reports recall and precision over all sampled members,
and each member whose name did not resolve or whose references differ.

javac binds against the project's release API (`--release N`, or `-source N -target N` where the
build says only those), as pybridge's JDT does since issue 26 part 4; `--running-jdk-api` gives javac
the running JDK's API instead (`-source N -target N` always), as before that.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "javac_refs"))

import driver  # noqa: E402 - bench/ is not a package
import measure  # noqa: E402

from pybridge.query import Facade  # noqa: E402
from pybridge.store import Store  # noqa: E402
from pybridge.sync import store_path, sync  # noqa: E402

_PRIMS = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short",
          "Z": "boolean"}

Site = tuple[str, int, int, int]


def _simple(sig: str) -> str:
    dims = len(sig) - len(sig.lstrip("["))
    s = sig[dims:]
    name = _PRIMS.get(s) or s[1:-1].rsplit("/", 1)[-1].replace("$", ".").rsplit(".", 1)[-1]
    return name + "[]" * dims


def _params(desc: str) -> list[str]:
    out, i, s = [], 0, desc.strip("()")
    while i < len(s):
        j = i
        while s[j] == "[":
            j += 1
        k = s.index(";", j) + 1 if s[j] in "LT" else j + 1
        out.append(_simple(s[i:k]))
        i = k
    return out


def query_name(target: str) -> str | None:
    """The name an agent would ask for a javac target `bin|owner|member|params`."""
    parts = target.split("|")
    if parts[0] != "bin" or len(parts) != 4:
        return None
    owner = parts[1].replace("/", ".").replace("$", ".")
    member, params = parts[2], parts[3]
    if not member:
        return owner
    if params == "F":
        return f"{owner}.{member}"
    name = owner.rsplit(".", 1)[-1] if member == "<init>" else member
    return f"{owner}.{name}({', '.join(_params(params))})"


def javac_library_refs(root: Path, state: Path, work: Path, running_jdk_api: bool, say=print) -> dict[str, set[Site]]:
    out: dict[str, set[Site]] = defaultdict(set)
    for job in measure.compile_jobs(root, state):
        if running_jdk_api:
            job = {**job, "release_flag": "source"}
        refs, _ = driver.extract(job, root, work / f"{job['module'].replace(':', '_')}-{job['scope']}.tsv", work)
        say(f"  {job['module']}:{job['scope']}: javac {len(refs)} references")
        for r in refs:
            if r.target.startswith("bin|") and r.target.split("|")[1] != "Array":
                out[r.target].add((r.path, r.line, r.char, r.end_char))
    return out


def pybridge_sites(facade: Facade, name: str) -> tuple[set[Site] | None, str]:
    found, error = facade.call("find_symbol", {"query": name, "limit": 5})
    if error or not found["symbols"]:
        return None, found.get("error") or "no symbol"
    if len(found["symbols"]) != 1:
        return None, f"{len(found['symbols'])} symbols"
    key = found["symbols"][0]["symbolKey"]
    sites: set[Site] = set()
    cursor = None
    while True:
        args = {"symbolKey": key, "limit": 500, **({"cursor": cursor} if cursor else {})}
        page, error = facade.call("find_references", args)
        if error:
            return None, page["error"]
        for r in page["references"]:
            if not r.get("javadoc"):
                s, e = r["range"]["start"], r["range"]["end"]
                sites.add((r["path"], s["line"], s["character"], e["character"]))
        cursor = page.get("nextCursor")
        if not cursor:
            return sites, ""


def run(root: Path, state: Path, members: int, seed: int, running_jdk_api: bool = False, say=print) -> dict:
    root, state = root.resolve(), state.resolve()
    if not store_path(state).exists() or Store.open(store_path(state)).current_generation() is None:
        say(f"syncing {root}")
        sync(root, state_dir=state)
    truth = javac_library_refs(root, state, Path(tempfile.mkdtemp(prefix="libusages-")), running_jdk_api, say)
    targets = sorted(t for t in truth if query_name(t))
    sample = random.Random(seed).sample(targets, min(members, len(targets)))
    found = expected = reported = 0
    failures = []
    with Facade([root], {root: state}, allow_online=False) as facade:
        for target in sample:
            name = query_name(target)
            assert name is not None
            ours, why = pybridge_sites(facade, name)
            want = truth[target]
            expected += len(want)
            if ours is None:
                failures.append({"target": target, "name": name, "unresolved": why, "javac": len(want)})
                continue
            reported += len(ours)
            found += len(want & ours)
            if ours != want:
                failures.append({"target": target, "name": name, "javac": len(want), "pybridge": len(ours),
                                 "missed": sorted(want - ours)[:5], "extra": sorted(ours - want)[:5]})
    return {"root": str(root), "members": len(sample), "library_members_javac_names": len(targets),
            "javac_references": expected, "pybridge_references": reported,
            "recall": found / expected if expected else None,
            "precision": found / reported if reported else None,
            "members_exact": len(sample) - len(failures), "failures": failures}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("state", type=Path)
    ap.add_argument("--members", type=int, default=200)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--running-jdk-api", action="store_true",
                    help="javac binds against the running JDK's API (-source/-target), not the release's")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    result = run(a.root, a.state, a.members, a.seed, a.running_jdk_api)
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.write_text(text)
    print(text[:6000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
