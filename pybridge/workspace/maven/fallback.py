"""Fallbacks when Maven cannot resolve a whole classpath.

- `fallback`: one more Maven run on a second throwaway reactor with one
  project per (module, external dependency): the module's own dependencies
  plus those its siblings bring in (`flatten`), so every dependency that
  resolves brings its whole transitive closure; a dependency that does not
  resolve contributes its own jar from the local repository if it is there.
- `local_jars`: without Maven at all, the dependencies' own files already in
  the local repository (no transitive ones).

Entries are deduplicated by artifact, the first one wins (`dedupe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..model import Dependency, excluded
from .discovery import mediate
from .runner import (
    BUILD_CLASSPATH,
    MAIN_EXEC,
    TEST_EXEC,
    EffectivePom,
    MavenRunner,
    dependency_xml,
    read_classpath_file,
    throwaway_pom,
    write_pom,
)
from .terms import MAIN_DEP_SCOPES

Key = tuple[str, str]
SCOPE_FILTER = {"main": MAIN_DEP_SCOPES, "test": None}
_EXT = {"jar": "jar", "test-jar": "jar", "bundle": "jar", "ejb": "jar", "maven-plugin": "jar", "zip": "zip"}


def flatten(mid: str, deps_of: Mapping[str, list[Dependency]], scope: str) -> list[Dependency]:
    """The external dependencies of `mid` for `scope`: its own and those its
    siblings bring in (compile/runtime, non-optional, not excluded), each with
    the mediated scope and the exclusions collected along the way."""
    allowed = SCOPE_FILTER[scope]
    Excl = tuple[tuple[str, str], ...]
    out: dict[tuple[str, str, str, str | None], Dependency] = {}
    queue: list[tuple[str, str | None, Excl]] = [(mid, None, ())]
    seen: set[tuple[str, str | None, Excl]] = set()
    while queue:
        owner, edge, excl = queue.pop(0)
        if (owner, edge, excl) in seen:
            continue
        seen.add((owner, edge, excl))
        for d in deps_of.get(owner, []):
            new: str | None
            if edge is None:
                new = d.scope
            else:
                new = mediate(edge, d.scope)
                if new is None or d.optional or excluded(excl, d.group_id, d.artifact_id):
                    continue
            if d.ga in deps_of:
                if d.ga != mid:
                    queue.append((d.ga, new, excl + d.exclusions))
                continue
            if allowed is not None and new not in allowed:
                continue
            key = (d.group_id, d.artifact_id, d.type, d.classifier)
            if key not in out:
                out[key] = Dependency(d.group_id, d.artifact_id, d.version, d.type, d.classifier, new,
                                      False, tuple(dict.fromkeys(d.exclusions + excl)), d.system_path)
    return list(out.values())


def fallback(runner: MavenRunner, effs: dict[str, EffectivePom], failed: list[Key], state: Path,
              allow_online: bool, repo: Path) -> tuple[dict[Key, list[Path]], dict[Key, list[str]]]:
    """Rebuild failed classpaths from the dependencies that resolve on their own:
    one throwaway project per (module, external dependency), shared by its scopes."""
    reactor, outdir = state / "fallback", state / "fallback-out"
    outdir.mkdir(parents=True, exist_ok=True)
    deps_of = {mid: [d for d, _ in e.dependencies] for mid, e in effs.items()}
    scopes_of: dict[str, set[str]] = {}
    for mid, scope in failed:
        scopes_of.setdefault(mid, set()).add(scope)
    units: dict[str, list[tuple[str, Dependency]]] = {}
    for n, (mid, scopes) in enumerate(scopes_of.items()):
        units[mid] = []
        for k, d in enumerate(flatten(mid, deps_of, "test")):
            aid = f"u{n}-{k}"
            executions = {TEST_EXEC: ("test", outdir / f"{aid}-test.cp")} if "test" in scopes else {}
            if "main" in scopes and d.scope in MAIN_DEP_SCOPES:
                executions[MAIN_EXEC] = ("compile", outdir / f"{aid}-main.cp")
            if executions:
                write_pom(throwaway_pom(aid, eff=effs[mid], dependencies=[dependency_xml(d)],
                                        executions=executions), reactor / aid / "pom.xml")
                units[mid].append((aid, d))
    projects = [aid for items in units.values() for aid, _ in items]
    if projects:
        write_pom(throwaway_pom("fallback", modules=projects), reactor / "pom.xml")
        runner.run("classpath-one-by-one", ["-fn", "-f", str(reactor / "pom.xml"), *BUILD_CLASSPATH],
                   reactor, offline=not allow_online)
    out: dict[Key, list[Path]] = {}
    missing: dict[Key, list[str]] = {}
    for mid, scope in failed:
        entries: list[Path] = []
        missing[(mid, scope)] = []
        for aid, d in units[mid]:
            if scope == "main" and d.scope not in MAIN_DEP_SCOPES:
                continue
            cp = read_classpath_file(outdir / f"{aid}-{scope}.cp", reactor)
            if cp is None:
                missing[(mid, scope)].append(":".join(x for x in (d.group_id, d.artifact_id, d.version) if x))
                cp = local_jars([d], repo)
            entries += cp
        out[(mid, scope)] = dedupe(entries)
    return out, missing


def local_jars(deps: list[Dependency], repo: Path) -> list[Path]:
    """The dependencies' own files already in the local repository `repo` (no transitive ones)."""
    out = []
    for d in deps:
        if d.system_path and "${" not in d.system_path:
            p = Path(d.system_path)
        elif d.version and "${" not in d.version and d.type in _EXT:
            classifier = "tests" if d.type == "test-jar" and not d.classifier else d.classifier
            name = f"{d.artifact_id}-{d.version}{'-' + classifier if classifier else ''}.{_EXT[d.type]}"
            p = repo / d.group_id.replace(".", "/") / d.artifact_id / d.version / name
        else:
            continue
        if p.is_file():
            out.append(p)
    return dedupe(out)


def dedupe(entries: list[Path]) -> list[Path]:
    """First wins, by path and by artifact (same folder .../group/artifact, same
    file name once the version is taken out)."""
    seen: set[object] = set()
    out: list[Path] = []
    for p in entries:
        key = (p.parent.parent, p.name.replace(p.parent.name, "")) if p.suffix in (".jar", ".zip") else p
        if key in seen or p in seen:
            continue
        seen.update({key, p})
        out.append(p)
    return out
