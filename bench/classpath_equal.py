"""pybridge's classpaths against Maven's on the bench projects (issue 12).

    .venv/bin/python bench/classpath_equal.py                                # every project, into RESULTS.md
    .venv/bin/python bench/classpath_equal.py --work /work/main/bench/work   # sources cached in another checkout
    .venv/bin/python bench/classpath_equal.py --projects guava --no-write    # one project, print only

For each project (bench/workspaces.py: commons-lang3 3.14.0, guava 33.3.1-jre, commons-collections4
4.4; taken from `--work/<name>` when it holds one, else built under bench/work) the bench copies the
workspace to a temporary folder (the cached one stays untouched), resolves its classpaths as `sync`
does (`resolve_classpaths`, fresh state folder, online) and runs `mvn dependency:build-classpath` once
per scope on another copy (main: includeScope=compile, test: includeScope=test; the two sides are
tests/support/maven_classpaths.py, shared with tests/workspace/test_classpath_maven.py). It prints, per project and
scope: the entries on each side, whether the ordered lists are equal, and the first difference; the
table goes into the "Classpaths against Maven" section of bench/RESULTS.md (the rest of the file is
kept). Exit status 1 when a classpath differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.report import write_section  # noqa: E402 - after the sys.path set-up
from bench.run import machine, versions  # noqa: E402 - after the sys.path set-up
from bench.workspaces import ARTIFACTS, WORK, ensure  # noqa: E402 - after the sys.path set-up
from pybridge.workspace import load_workspace  # noqa: E402 - after the sys.path set-up
from tests.support.maven_classpaths import (  # noqa: E402 - after the sys.path set-up
    first_difference,
    mavens,
    ours,
    paths,
    unresolved,
    used_maven,
)

PROJECTS = ("commons-lang3", "guava", "commons-collections4")
BEGIN, END = "<!-- classpath-equal:begin -->", "<!-- classpath-equal:end -->"


def compare(name: str, work: Path, say=print) -> list[dict]:
    """One row per (module, scope) pybridge resolves for the project."""
    a = ARTIFACTS[name]
    source = work / name if (work / name / "pom.xml").is_file() else ensure(a, say=say)
    with tempfile.TemporaryDirectory(prefix=f"cp-equal-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(source, root, ignore=shutil.ignore_patterns("target"))
        t0 = time.monotonic()
        mine, messages = ours(root, Path(tmp) / "state")
        ours_s = time.monotonic() - t0
        scopes = tuple(s for s in ("main", "test") if any(scope == s for _, scope in mine))
        siblings = any(m.sibling_deps for m in load_workspace(root).modules)
        t0 = time.monotonic()
        theirs = mavens(root, scopes=scopes, phases=siblings)
        maven_s = time.monotonic() - t0
        rows = []
        for (module, scope), result in sorted(mine.items()):
            got, maven = paths(result), theirs.get((module, scope))
            if maven is None:
                diff = f"Maven wrote no classpath: {(theirs.get(('', f'{scope}-output')) or [''])[0][-300:]}"
            else:
                diff = first_difference(got, maven)
            problems = unresolved(result)
            rows.append({"project": name, "gav": a.gav, "module": module, "scope": scope, "ours": len(got),
                         "maven": None if maven is None else len(maven),
                         "equal": maven is not None and diff is None and not problems,
                         "difference": diff or ("; ".join(problems) if problems else None),
                         "maven_ran": used_maven(messages), "ours_s": ours_s, "maven_s": maven_s})
            say(f"  {name} {module} {scope}: pybridge {len(got)}, Maven {rows[-1]['maven']} entries: "
                + ("equal" if rows[-1]["equal"] else f"DIFFERENT ({rows[-1]['difference']})"))
        return rows


def report(rows: list[dict], command: str, mach: dict, vers: dict) -> str:
    lines = [BEGIN, "## Classpaths against Maven (issue 12)", "",
             f"Command: `{command}`, at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}; pybridge commit "
             f"{vers['commit']}; {vers['maven'].splitlines()[0]}. Machine: {mach['cpu']} ({mach['cores']} cores), "
             f"{mach['ram_gb']:.1f} GB RAM, {mach['os']}; load average at start {mach['load_at_start']}.", "",
             "Per project and scope that pybridge resolves: its classpath (`resolve_classpaths`, what `sync` runs, "
             "fresh state, online) against `mvn dependency:build-classpath` on a copy (main: "
             "`-DincludeScope=compile`, test: `-DincludeScope=test`), as ordered lists of jar paths. A module "
             "with main sources has a test scope too, also without test sources. *Maven ran*: no when the POMs "
             "prove every classpath empty (no dependency), so pybridge answers without Maven. *pybridge s*, "
             "*mvn s*: per project, both scopes (one mvn run per scope).", "",
             "| project | scope | entries pybridge / Maven | equal | first difference | Maven ran | pybridge s "
             "| mvn s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        where = r["project"] + ("" if r["module"] == "." else f" ({r['module']})")
        lines.append(f"| {where} ({r['gav'].split(':', 2)[2]}) | {r['scope']} | {r['ours']} / "
                     f"{'none' if r['maven'] is None else r['maven']} | {'yes' if r['equal'] else '**no**'} | "
                     f"{r['difference'] or '-'} | {'yes' if r['maven_ran'] else 'no'} | {r['ours_s']:.1f} | "
                     f"{r['maven_s']:.1f} |")
    lines.append(END)
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", nargs="+", default=list(PROJECTS), choices=sorted(ARTIFACTS))
    parser.add_argument("--work", type=Path, default=WORK,
                        help="folder holding the cached workspaces (read only; default bench/work)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = parser.parse_args()
    command = ("python bench/classpath_equal.py " + " ".join(sys.argv[1:])).strip()
    mach, vers = machine(), versions()
    rows: list[dict] = []
    for name in args.projects:
        print(f"{name}:", flush=True)
        rows += compare(name, args.work.resolve(), say=lambda m: print(m, flush=True))
    section = report(rows, command, mach, vers)
    print(section)
    print(f"load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.no_write:
        write_section(HERE / "RESULTS.md", BEGIN, END, section)
    return 0 if all(r["equal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
