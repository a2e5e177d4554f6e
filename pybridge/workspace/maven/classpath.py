"""Maven's `resolve_classpaths`: per module and scope, the classpath (from Maven) and sourcepath.

Steps (see `runner.py` for the one run and the throwaway reactor):

1. `mvn help:effective-pom -Doutput=<state>/maven/effective-pom.xml` at the
   workspace root: all modules' effective POMs in one run (in the one run
   below, the extension writes them to `<state>/maven/out/effective-pom.xml`).
   When no module depends on a sibling (our POM reading), the same run also resolves every
   project on its real POMs: the test classpath (as `dependency:build-classpath`
   gives it) and each entry's scope (as `dependency:list` does: the main
   classpath is, in the same order, the entries of scope compile, provided
   or system), files in `<state>/maven/out/`. That run loads pybridge's Maven
   core extension (`pybridge-maven-ext.jar`, see `runner.py`) and runs no
   plugin; without the jar, with PYBRIDGE_MAVEN_EXT=0, or when Maven did not
   load it (the run wrote nothing), the run is `help:effective-pom`,
   `dependency:build-classpath` and `dependency:list` instead. A module whose
   effective POM has no sibling dependency and whose two files were written
   and read is settled by this run (PYBRIDGE_MAVEN_ONE_RUN=0 turns the
   combined run off).
2. One `dependency:build-classpath` run on the throwaway reactor for the
   modules step 1 did not settle (none: no second run), which resolves only
   external artifacts (siblings are source folders to us).
3. Each step runs offline first; when something did not resolve and
   `allow_online` is true, it runs again online (step 1 only when the
   effective POMs failed; step 2 only for the failed projects, `-pl ... -am`).
4. A (module, scope) still unresolved gets a `classpath_unresolved`
   limitation with Maven's message, and its classpath is rebuilt from what
   does resolve (`fallback.py`: one more Maven run, one throwaway project per
   external dependency).
5. Without Maven (not on PATH, or the effective POM failed or timed out)
   every module and scope gets `classpath_unresolved`, and the classpath is
   the jars already in the local repository for the dependencies our own POM
   reading found (no transitive ones).

0. When the POMs alone prove that every classpath is empty (`nomaven.py`:
   no external dependency, and nothing Maven evaluates that could add one),
   Maven does not run at all (PYBRIDGE_MAVEN_ALWAYS=1 asks Maven anyway:
   benchmarks, debugging).

Nothing here raises for a Maven problem; all of them end up as limitations.

Other limitations reported here (DESIGN section 8), per module and scope:
`annotation_processing_not_run` when the module runs annotation processors,
and, for `main`, `generated_sources_absent` when a processor other than
Lombok (which generates no files) is configured but no folder exists under
target/generated-sources (`pybridge.workspace.processing`).

The JDK is not on the classpath: `ClasspathResult.release` says which release
to target (from Maven's effective POM when it ran, else from our POM reading),
and `ClasspathResult.api` whose system library to bind against: the release
for `<release>`/`maven.compiler.release` (javac's `--release`), None for
`<source>`/`maven.compiler.source` (javac binds against the JDK it runs on).
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

from pybridge.errors import WorkspaceError

from ..buildsystem import Key, Progress, SiblingCheckout
from ..cache import Cached
from ..cache import load as load_cache
from ..cache import store as store_cache
from ..java import api_release
from ..model import ClasspathResult, Dependency, Limitation, Module, Workspace
from ..processing import processing_limitations as _processing
from .cachekey import cache_key
from .compiler import java_release
from .discovery import WIDTH
from .fallback import SCOPE_FILTER, fallback, flatten, local_jars
from .mvnconfig import local_repository
from .nomaven import maven_needed
from .runner import (
    BUILD_CLASSPATH,
    EXT_EFFECTIVE_POM,
    EXT_STARTED,
    HELP_PLUGIN,
    MAIN_EXEC,
    TEST_EXEC,
    THROWAWAY_GROUP,
    EffectivePom,
    MavenRun,
    MavenRunner,
    configures_dependency_plugin,
    dependency_xml,
    ext_jar,
    one_run_ext_args,
    one_run_files,
    one_run_goals,
    read_classpath_file,
    read_dependency_list,
    read_effective_poms,
    throwaway_pom,
    write_pom,
)
from .terms import MAIN_DEP_SCOPES, POM, WORDING, pom_of
from .xmlread import PomError, is_file, parse_xml

Release = tuple[int, int | None]
"""A module's release, and the release whose API javac binds against (`ClasspathResult.api`)."""


def resolve_classpaths(workspace: Workspace, state_dir: Path | str, *, allow_online: bool = True,
                       timeout: float = 300, progress: Progress | None = None,
                       mvn_executable: str | None = None, env: Mapping[str, str] | None = None,
                       use_cache: bool = True, sibling: SiblingCheckout | None = None) -> dict[Key, ClasspathResult]:
    """Classpath, sourcepath, limitations and release for every (module id, scope)
    of every module with sources.

    Maven's files go to `<state_dir>/maven/` (wiped when Maven runs), the
    cache to `<state_dir>/classpath-cache.json` and to the user's shared
    cache folder (see `pybridge.workspace.cache`; `use_cache` False ignores both but still
    refreshes them).
    `sibling`: another checkout of the same repository; when nothing is cached for this root, its
    cached resolution (its state folder's, or the shared entry) is used if every input but the
    checkout's place is the same (`cachekey`), its paths under its root moved to this one.
    `mvn_executable` and `env` default to `mvn` on the PATH of `os.environ`.
    Each Maven run is limited to `timeout` seconds. `progress` receives one
    sentence per step. Maven problems never raise; a state folder that cannot
    be written raises WorkspaceError."""
    say = progress or (lambda _msg: None)
    modules = [m for m in workspace.modules if m.has_sources]
    if not modules:
        return {}
    state_root = Path(state_dir).resolve()
    if os.environ.get("PYBRIDGE_MAVEN_ALWAYS") != "1" and maven_needed(workspace) is None:
        say("No module declares an external dependency (nor a profile, BOM, outside parent or extension "
            "that could add one): every classpath is empty, no Maven run needed")
        return _results(workspace, modules, {}, {}, {})
    runner = MavenRunner(mvn_executable, env, timeout, state_root / "maven" / "logs", project_dir=workspace.root)
    key = cache_key(workspace, allow_online, runner.find(), dict(os.environ if env is None else env))
    cache_file = state_root / "classpath-cache.json"
    cached = load_cache(cache_file, key) if use_cache else None
    moved = False
    if cached is None and use_cache and sibling is not None and sibling.root != workspace.root:
        cached = _from_sibling(workspace, sibling, cache_key(
            workspace, allow_online, runner.find(), dict(os.environ if env is None else env), moved_to=sibling.root))
        moved = cached is not None
    try:
        if cached is not None:
            classpaths = cached.classpaths
            releases = {m: (r, cached.apis.get(m)) for m, r in cached.releases.items()}
            failures: dict[Key, str] = {}
            if moved:
                assert sibling is not None
                say(f"The build files are those of the checkout at {sibling.root}: using its resolved "
                    f"classpaths, moved to this checkout")
                store_cache(cache_file, key, classpaths, cached.releases, cached.apis)
            elif cached.shared:
                say("The POMs did not change since they were last resolved: using the classpaths cached by "
                    "another state folder")
                store_cache(cache_file, key, classpaths, cached.releases, cached.apis, shared=False)
            else:
                say("The POMs did not change since the last resolution: using the cached classpaths")
        else:
            classpaths, failures, releases = _resolve(workspace, modules, state_root / "maven", runner,
                                                      allow_online, say)
            if not failures:
                store_cache(cache_file, key, classpaths, {m: r for m, (r, _a) in releases.items()},
                            {m: a for m, (_r, a) in releases.items()})
    except OSError as exc:
        raise WorkspaceError(f"Cannot write pybridge's state folder {state_root}: {exc}; free some space or "
                             "choose another folder with --state-dir.") from None

    return _results(workspace, modules, classpaths, failures, releases)


def _from_sibling(workspace: Workspace, sibling: SiblingCheckout, key: str) -> Cached | None:
    """The classpaths cached for the sibling checkout under `key` (this workspace's inputs as if
    there), with its paths moved to this root; None when not cached or a moved path is missing."""
    folder = sibling.state_dir if sibling.state_dir is not None else sibling.root / ".no-state-folder"
    found = load_cache(folder / "classpath-cache.json", key)
    if found is None:
        return None

    def moved(path: Path) -> Path:
        try:
            return workspace.root / path.relative_to(sibling.root)
        except ValueError:
            return path

    classpaths = {k: [moved(p) for p in cp] for k, cp in found.classpaths.items()}
    if not all(p.exists() for cp in classpaths.values() for p in cp):
        return None
    return Cached(classpaths, found.releases, found.apis, shared=True)


def _results(workspace: Workspace, modules: list[Module], classpaths: Mapping[Key, list[Path]],
             failures: Mapping[Key, str], releases: Mapping[str, Release]) -> dict[Key, ClasspathResult]:
    out: dict[Key, ClasspathResult] = {}
    for m in modules:
        for s in m.scopes:
            lims = []
            if (m.id, s) in failures:
                lims.append(Limitation("classpath_unresolved", m.id,
                                       f"Maven could not resolve the {s} classpath of {m.id}: "
                                       f"{failures[(m.id, s)]}", s))
            lims += processing_limitations(m, s)
            release, api = releases.get(m.id, (m.release, api_release(m.release, m.release_source)))
            out[(m.id, s)] = ClasspathResult(tuple(classpaths.get((m.id, s), [])), sourcepath(workspace, m, s),
                                             tuple(lims), release, api=api)
    return out


def _resolve(workspace: Workspace, modules: list[Module], state: Path, runner: MavenRunner, allow_online: bool,
             say: Progress) -> tuple[dict[Key, list[Path]], dict[Key, str], dict[str, Release]]:
    if state.exists():
        shutil.rmtree(state)
    state.mkdir(parents=True)
    keys = [(m.id, s) for m in modules for s in m.scopes]
    repo = local_repository(workspace.root, runner.env)    # Maven's, as the workspace configures it
    classpaths: dict[Key, list[Path]] = {}
    failures: dict[Key, str] = {}
    one_run = _one_run_possible(workspace)
    if one_run:
        say("Reading the effective POMs with Maven, resolving the classpaths in the same run")
    else:
        say("Reading the effective POMs with Maven")
    effs, eff_problem = _effective_poms(runner, workspace, state, allow_online, one_run)
    if effs is None:
        deps_of = {m.id: list(m.dependencies) for m in workspace.modules}
        for key in keys:
            wanted = flatten(key[0], deps_of, key[1])
            classpaths[key] = local_jars(wanted, repo)
            problem = (eff_problem or "Maven did not produce the effective POMs").rstrip(".")
            failures[key] = (f"{problem}. The classpath holds "
                             "only the declared dependencies' own jars already in the local repository "
                             f"({len(classpaths[key])} of {len(wanted)}).")
        return classpaths, failures, {}
    for m in modules:
        if m.id not in effs:
            deps_of = {x.id: list(x.dependencies) for x in workspace.modules}
            for s in m.scopes:
                classpaths[(m.id, s)] = local_jars(flatten(m.id, deps_of, s), repo)
                failures[(m.id, s)] = (f"Maven's reactor has no project {m.id}; is its <module> entry in "
                                       "a profile that is not active? The classpath holds only the declared "
                                       "dependencies' own jars already in the local repository.")
    settled = _settled(workspace, effs, [m for m in modules if m.id in effs], state / "out") if one_run else {}
    classpaths.update(settled)
    settled_ids = {mid for mid, _ in settled}
    todo = [m for m in modules if m.id in effs and m.id not in settled_ids]
    if not todo:
        return classpaths, failures, _releases(effs)
    if one_run:
        say(f"Resolving the classpaths of {len(todo)} of {len(modules)} modules again with Maven, "
            "on throwaway POMs (the first run could not give their classpaths)")
    else:
        say(f"Resolving the classpaths of {len(todo)} modules with Maven")
    resolved, errors, everything_failed = _reactor(runner, workspace, effs, todo, state, allow_online)
    classpaths.update(resolved)
    if everything_failed:       # Maven itself failed (plugin unavailable, timeout): a second run would too
        deps_of = {mid: [d for d, _ in e.dependencies] for mid, e in effs.items()}
        for key, message in errors.items():
            classpaths[key] = local_jars(flatten(key[0], deps_of, key[1]), repo)
            failures[key] = (f"{message.rstrip('.')}. The classpath holds only the dependencies' own jars "
                             "already in the local repository.")
    elif errors:
        say(f"Resolving the dependencies of {len({k[0] for k in errors})} modules one by one")
        rebuilt, missing = fallback(runner, effs, sorted(errors), state, allow_online, repo)
        classpaths.update(rebuilt)
        for key, message in errors.items():
            gone = ", ".join(missing[key]) or "none of them alone"
            failures[key] = (f"{message.rstrip('.')}. The classpath holds the dependencies that resolve on their own "
                             f"(unresolved: {gone}).")
    return classpaths, failures, _releases(effs)


def _releases(effs: Mapping[str, EffectivePom]) -> dict[str, Release]:
    return {mid: _release(*java_release(e.prop, e.compiler_configs)) for mid, e in effs.items()}


def _release(release: int, source: str) -> Release:
    return release, api_release(release, source)


def _one_run_possible(ws: Workspace) -> bool:
    """Whether the effective-POM run may also resolve the classpaths on the real POMs: no module
    depends on a sibling (MDEP-409), and no workspace POM configures maven-dependency-plugin in a
    way that would apply to the run's goals (where its files go, what they hold)."""
    if os.environ.get("PYBRIDGE_MAVEN_ONE_RUN") == "0" or any(m.sibling_deps for m in ws.modules):
        return False
    for pom in (pom_of(m) for m in ws.modules):
        try:
            xml = parse_xml(pom)
        except PomError:
            return False
        if any(configures_dependency_plugin(b) for b in xml.iter("build")):
            return False
    return True


def _settled(ws: Workspace, effs: Mapping[str, EffectivePom], modules: list[Module],
             outdir: Path) -> dict[Key, list[Path]]:
    """The classpaths the one run gives, for the modules it settles: the effective POM has no
    dependency on a project of the reactor, nor a maven-dependency-plugin configuration of its own,
    and both files were written and read, every classpath entry with its scope in the list and none
    of them a project of the reactor. Every other module is left to the throwaway reactor."""
    reactor = set(effs) | {m.id for m in ws.modules}
    out: dict[Key, list[Path]] = {}
    for m in modules:
        eff = effs[m.id]
        if eff.dependency_plugin_configured or any(d.ga in reactor for d, _ in eff.dependencies):
            continue
        cp_file, list_file = one_run_files(outdir, eff.group_id, eff.artifact_id)
        test = read_classpath_file(cp_file)
        listed = read_dependency_list(list_file) if test is not None else None
        if test is None or listed is None or not all(p in listed and listed[p][0] not in reactor for p in test):
            continue
        cps = {"test": test, "main": [p for p in test if listed[p][1] in MAIN_DEP_SCOPES]}
        for s in m.scopes:
            out[(m.id, s)] = cps[s]
    return out


def sourcepath(workspace: Workspace, module: Module, scope: str) -> tuple[Path, ...]:
    """Main: own main roots, then main roots of siblings reached in compile,
    provided or system scope. Test: own test and main roots, then main roots
    of all siblings reached, plus test roots of siblings used as test-jars."""
    roots: list[Path] = []
    if scope == "test":
        roots += module.scopes["test"].roots
    roots += module.scopes["main"].roots
    for sd in module.sibling_deps:
        sib = workspace.module(sd.module)
        if not sib.has_sources or (scope == "main" and sd.scope not in MAIN_DEP_SCOPES):
            continue
        roots += sib.scopes["main"].roots
        if scope == "test" and sd.test_jar:
            roots += sib.scopes["test"].roots
    return tuple(dict.fromkeys(roots))


def _modes(allow_online: bool) -> list[bool]:
    return [True, False] if allow_online else [True]


def _effective_poms(runner: MavenRunner, ws: Workspace, state: Path, allow_online: bool,
                    one_run: bool = False) -> tuple[dict[str, EffectivePom] | None, str | None]:
    """The effective POMs (None and why not when Maven gave none). `one_run`: the same run also
    writes each project's classpath files to `<state>/out`, through the Maven core extension when
    it is there (`ext_jar`), else with the plugin goals under `--fail-never`; either way only the
    effective POM's file tells whether the run served (a project that failed has no files)."""
    target, outdir = state / "effective-pom.xml", state / "out"
    pom = str(ws.root / POM)
    if one_run:
        args = ["-q", "-fn", "-f", pom, *one_run_goals(target, outdir)]
    else:
        args = ["-q", "-f", pom, f"{HELP_PLUGIN}:effective-pom", f"-Doutput={target}"]
    name = "effective-pom-and-classpaths" if one_run else "effective-pom"
    ext = ext_jar() if one_run else None
    run: MavenRun | None = None
    for offline in _modes(allow_online):
        mode = "-offline" if offline else "-online"
        if ext is not None:
            shutil.rmtree(outdir, ignore_errors=True)
            run = runner.run(name + mode, ["-q", "-f", pom, *one_run_ext_args(ext, outdir)], ws.root,
                             offline=offline)
            if run.returncode is not None and is_file(outdir / EXT_EFFECTIVE_POM):
                return _read_effective_poms(outdir / EXT_EFFECTIVE_POM)
            if run.returncode is None:       # mvn missing or timed out: trying again will not help
                break
            if (outdir / EXT_STARTED).is_file():    # Maven could not read the projects: nor would the goals
                continue
            ext = None      # Maven did not load the extension: the plugin goals, from this run on
        target.unlink(missing_ok=True)
        shutil.rmtree(outdir, ignore_errors=True)
        run = runner.run(name + mode, args, ws.root, offline=offline)
        if (run.ok or (one_run and run.returncode is not None)) and is_file(target):
            return _read_effective_poms(target)
        if run.returncode is None:       # mvn missing or timed out: trying again will not help
            break
    assert run is not None
    return None, run.summary()


def _read_effective_poms(path: Path) -> tuple[dict[str, EffectivePom] | None, str | None]:
    try:
        return read_effective_poms(parse_xml(path, max_bytes=None)), None
    except PomError as exc:
        return None, f"Maven's effective POM could not be read: {exc}"


def _lib(i: int) -> str:
    return f"m{i}-lib"


def _throwaway_deps(eff: EffectivePom, scopes: frozenset[str] | None, index: dict[str, int],
                    lib_only: bool = False) -> list[ET.Element]:
    """The effective dependencies for a throwaway POM: externals as they are,
    siblings as pom-typed dependencies on their `-lib` throwaway.

    For a `-main` leaf (`scopes` given, not `lib_only`), the direct jar dependencies it leaves out
    (test, runtime) are excluded from those it keeps: in Maven's resolution of the real module a
    direct declaration wins its conflict and keeps its own scope, so the same artifact brought in
    by a compile dependency stays off the compile classpath, and so does what it alone brings."""
    shadow: tuple[tuple[str, str], ...] = ()
    if scopes is not None and not lib_only:
        shadow = tuple(dict.fromkeys(
            (THROWAWAY_GROUP, _lib(index[d.ga])) if d.ga in index else (d.group_id, d.artifact_id)
            for d, _ in eff.dependencies
            if d.scope not in scopes and d.type == "jar" and not d.classifier and d.ga != eff.id))
    out: list[ET.Element] = []
    libs: dict[str, int] = {}
    for d, el in eff.dependencies:
        if (scopes is not None and d.scope not in scopes) or (lib_only and d.optional):
            continue
        if d.ga not in index:
            out.append(_excluding(el, shadow) if shadow else el)
            continue
        if d.ga == eff.id:
            continue
        lib = Dependency(THROWAWAY_GROUP, _lib(index[d.ga]), "0", "pom", None, d.scope, False, d.exclusions)
        if lib.artifact_id in libs:       # a jar and a test-jar of one sibling: keep the widest scope
            pos = libs[lib.artifact_id]
            if _width(d.scope) <= _width(out[pos].findtext("scope")):
                continue
            out[pos] = dependency_xml(lib, extra_exclusions=shadow)
        else:
            libs[lib.artifact_id] = len(out)
            out.append(dependency_xml(lib, extra_exclusions=shadow))
    return out


def _excluding(el: ET.Element, pairs: tuple[tuple[str, str], ...]) -> ET.Element:
    """A copy of a `<dependency>` element with exclusions of `pairs` (groupId, artifactId) added."""
    el = copy.deepcopy(el)
    holder = el.find("exclusions")
    if holder is None:
        holder = ET.SubElement(el, "exclusions")
    have = {(x.findtext("groupId"), x.findtext("artifactId")) for x in holder.findall("exclusion")}
    for g, a in pairs:
        if (g, a) not in have:
            x = ET.SubElement(holder, "exclusion")
            ET.SubElement(x, "groupId").text = g
            ET.SubElement(x, "artifactId").text = a
    return el


def _width(scope: str | None) -> int:
    return WIDTH.get(scope or "compile", 0)


def _reactor(runner: MavenRunner, ws: Workspace, effs: dict[str, EffectivePom], todo: list[Module],
             state: Path, allow_online: bool) -> tuple[dict[Key, list[Path]], dict[Key, str], bool]:
    """Run the throwaway reactor: (classpaths, errors by key, whether Maven failed as a whole)."""
    index = {m.id: i for i, m in enumerate(ws.modules)}
    names = {i: m.id for i, m in enumerate(ws.modules)}
    reactor, outdir = state / "reactor", state / "out"
    outdir.mkdir(parents=True, exist_ok=True)
    libs = {d.ga for e in effs.values() for d, _ in e.dependencies if d.ga in index and d.ga != e.id}
    projects: list[str] = []
    for mid in sorted(libs, key=index.__getitem__):
        if mid in effs:
            aid = _lib(index[mid])
            write_pom(throwaway_pom(aid, eff=effs[mid], dependencies=_throwaway_deps(
                effs[mid], frozenset({"compile", "runtime"}), index, lib_only=True)), reactor / aid / POM)
            projects.append(aid)
    leaves: dict[str, Key] = {}
    for m in todo:
        for s in m.scopes:
            aid = f"m{index[m.id]}-{s}"
            execution = {MAIN_EXEC if s == "main" else TEST_EXEC: ("compile" if s == "main" else "test",
                                                                   outdir / f"{aid}.cp")}
            write_pom(throwaway_pom(aid, eff=effs[m.id], dependencies=_throwaway_deps(
                effs[m.id], SCOPE_FILTER[s], index), executions=execution), reactor / aid / POM)
            projects.append(aid)
            leaves[aid] = (m.id, s)
    if not leaves:
        return {}, {}, False
    write_pom(throwaway_pom("reactor", modules=projects), reactor / POM)

    resolved: dict[Key, list[Path]] = {}
    pending = dict(leaves)
    run: MavenRun | None = None
    for offline in _modes(allow_online):
        args = ["-fn", "-f", str(reactor / POM)]
        if not offline:
            args += ["-pl", ",".join(f":{aid}" for aid in pending), "-am"]
        run = runner.run("classpath" + ("-offline" if offline else "-online"), args + BUILD_CLASSPATH,
                         reactor, offline=offline)
        for aid, key in list(pending.items()):
            cp = read_classpath_file(outdir / f"{aid}.cp", reactor)
            if cp is not None:
                resolved[key] = cp
                del pending[aid]
        if not pending or run.returncode is None:
            break
    assert run is not None
    per_project = run.project_errors()
    errors = {key: _rename(per_project.get(aid) or run.summary(), names) for aid, key in pending.items()}
    return resolved, errors, bool(errors) and not resolved and not per_project


def _rename(message: str, names: dict[int, str]) -> str:
    """Maven's message with our throwaway names replaced by the real module ids."""
    message = re.sub(rf"{re.escape(THROWAWAY_GROUP)}:m(\d+)-\w+:pom:0", lambda m: names[int(m.group(1))], message)
    return re.sub(r"(?<=project )m(\d+)-(main|test|lib)\b", lambda m: names.get(int(m.group(1)), m.group(0)),
                  message)


def processing_limitations(m: Module, scope: str, indexed: frozenset[str] = frozenset()) -> list[Limitation]:
    """`annotation_processing_not_run` (and `generated_sources_absent`) for a module's processors,
    leaving out those in `indexed` (e.g. Lombok, when its agent runs in the indexer JVM)."""
    return _processing(m, scope, WORDING, indexed)
