"""The two sides of a classpath comparison with Maven, shared by tests/workspace/test_classpath_maven.py and
bench/classpath_equal.py: pybridge's `resolve_classpaths` (what `sync` runs) and
`mvn dependency:build-classpath`, per (module folder relative to the root, scope), as ordered lists
of jar paths.

Maven's answer for a scope: `main` is `includeScope=compile` (compile, provided and system: what
maven-compiler-plugin compiles main against), `test` is `includeScope=test` (every scope). Maven runs
`compile` / `test-compile` in the same command so that its reactor resolves a sibling module to its
output folder (MDEP-409); those folders are left out, since pybridge puts siblings on the sourcepath.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from pybridge.workspace import ClasspathResult, load_workspace
from pybridge.workspace.maven import resolve_classpaths

BUILD_CLASSPATH = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath"
MAVEN_SCOPE = {"main": ("compile", "compile"), "test": ("test-compile", "test")}   # phase, includeScope
Key = tuple[str, str]
Results = dict[Key, ClasspathResult]
Mavens = dict[Key, list[str] | None]


def mavens(root: Path, *, offline: bool = False, scopes: tuple[str, ...] = ("main", "test"),
           projects: str | None = None, phases: bool = True) -> Mavens:
    """(module folder relative to root, scope) -> `mvn dependency:build-classpath`'s entries, None when
    Maven wrote none (the module failed). Maven runs on a copy, so its target/ never reaches `root`;
    one mvn run per scope. `phases` False: no compile phase first (for a workspace without sibling
    dependencies). `("", "<scope>-output")` holds the end of Maven's output."""
    copy = root.parent / f"{root.name}-maven"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    out: Mavens = {}
    for scope in scopes:
        phase, include = MAVEN_SCOPE[scope]
        cmd = ["mvn", "-B", "-q", "-fn", *(["-o"] if offline else []), *(["-pl", projects] if projects else []),
               *([phase] if phases else []), BUILD_CLASSPATH, f"-DincludeScope={include}",
               f"-Dmdep.outputFile=pb-{scope}.cp"]
        run = subprocess.run(cmd, cwd=copy, capture_output=True, text=True, timeout=300)
        for pom in sorted(copy.rglob("pom.xml")):
            if "target" in pom.relative_to(copy).parts:
                continue
            rel = str(pom.parent.relative_to(copy))
            cp = pom.parent / f"pb-{scope}.cp"
            if not cp.is_file():
                out[(rel, scope)] = None
                continue
            raw = cp.read_text(encoding="utf-8").strip()
            out[(rel, scope)] = [e for e in raw.split(":") if e and not Path(e).is_relative_to(copy)]
        out[("", f"{scope}-output")] = [run.stdout[-3000:]]
    return out


def ours(root: Path, state: Path, **kw) -> tuple[Results, list[str]]:
    """(module folder relative to root, scope) -> pybridge's result, and the progress messages."""
    ws = load_workspace(root)
    messages: list[str] = []
    results = resolve_classpaths(ws, state, progress=messages.append, **kw)
    rel = {m.id: str(m.root.relative_to(ws.root)) for m in ws.modules}
    return {(rel[mid], scope): r for (mid, scope), r in results.items()}, messages


def paths(result: ClasspathResult) -> list[str]:
    return [str(p) for p in result.classpath]


def names(entries: list[str] | None) -> list[str]:
    return [Path(e).name for e in entries or []]


def first_difference(mine: list[str], theirs: list[str]) -> str | None:
    """None when equal, else where the two lists first part: index, pybridge's entry, Maven's entry."""
    for i in range(max(len(mine), len(theirs))):
        a = mine[i] if i < len(mine) else None
        b = theirs[i] if i < len(theirs) else None
        if a != b:
            return f"#{i}: pybridge {a or '(end)'} vs Maven {b or '(end)'}"
    return None


def unresolved(result: ClasspathResult) -> list[str]:
    return [lim.message for lim in result.limitations if lim.kind == "classpath_unresolved"]


def assert_equal(theirs: Mapping[Key, list[str] | None], mine: Mapping[Key, ClasspathResult],
                 module: str, scope: str) -> None:
    maven = theirs[(module, scope)]
    assert maven is not None, f"Maven failed on {module}: {theirs[('', f'{scope}-output')]}"
    result = mine[(module, scope)]
    assert unresolved(result) == []
    assert paths(result) == maven, (f"{module} {scope}: {first_difference(paths(result), maven)}; "
                                    f"pybridge {names(paths(result))} vs Maven {names(maven)}")


def used_maven(messages: list[str]) -> bool:
    return any("Reading the effective POMs" in m for m in messages)
