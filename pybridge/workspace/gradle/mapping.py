"""The init script's output -> pybridge's workspace model (Workspace, Module, Scope, ClasspathResult).

Modules. One per Gradle project of the root build, and of every included build
whose folder lies inside the workspace root (an included build elsewhere
serves only as sources on its dependents' sourcepath). A project that applies
`java` (also through java-library, application, war, ...) has one scope per
source set: `main`, `test`, then the others by name (integrationTest,
testFixtures, a custom mavenExt, ...). A project without `java` (the root of a
multi-project build, a java-platform, a `base` project) has no sources
(kind `none`, like a Maven aggregator). An Android project has none either,
and an `android_unsupported` limitation. buildSrc is not a module.

Module ids: `group:name` (the build's name for an unset group: a root
project's default) when the pair is unique, else `<build name>:<project
path>` (e.g. `textkit::util`).

Classpath of (module, scope): the compile task's classpath, which is what
javac gets, in its order, each entry classified through Gradle's own
identifiers:

- an artifact whose component is a `ProjectComponentIdentifier` is a sibling
  project (its path and build name from Gradle, never a guessed path); which of
  its source sets is decided by matching the file against that project's
  `classesDirs`, `resourcesDir` and jar (the jar is `main`);
- a plain file that is one of the project's own source sets' outputs (test's
  classpath holds main's classes and resources) is an own source set;
- everything else is external and stays on the classpath, in Gradle's order.

Siblings and own source sets are sources to pybridge: the sourcepath is the
scope's own roots, then the roots of the own source sets on its classpath,
then the siblings' roots, both in classpath order. Because javac compiles test
against main's class files but pybridge against main's sources, an own source
set on the classpath also brings its external entries that the scope lacks
(main's compileOnly Lombok, for test), appended after javac's entries; the
exact javac list is kept in `GradleScope.javac_classpath`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..java import api_release
from ..lombok import agents_for
from ..model import ClasspathResult, Dependency, Limitation, Module, Scope, SiblingDep, Workspace
from .compiler import encoding_of, jvm_encoding_note, release_of
from .script import Entry, ProjectJson, SourceSetJson

Key = tuple[str, str]
ProjectKey = tuple[Path, str]
LOMBOK = "org.projectlombok:lombok"
ANDROID_PLUGINS = ("com.android.application", "com.android.library", "com.android.test",
                   "com.android.dynamic-feature")
MAIN, TEST = "main", "test"


@dataclass(frozen=True)
class CompileEntry:
    """One entry of javac's classpath, classified."""

    path: Path
    kind: str                       # "external" | "sibling" | "own"
    project: ProjectKey | None = None   # sibling/own: the Gradle project it stands for
    source_set: str | None = None       # sibling/own: which of its source sets
    gav: str | None = None              # external module: group:name:version


@dataclass(frozen=True)
class GradleScope:
    """Per (module, scope), what the model has beyond ClasspathResult."""

    module: str
    scope: str
    compile_task: str | None
    javac_classpath: tuple[CompileEntry, ...]   # exactly javac's -classpath, in order
    release_source: str
    encoding: str
    encoding_source: str
    processor_path: tuple[Path, ...]            # javac's -processorpath; empty: -proc:none
    processor_rule: str | None
    processors: tuple[str, ...]                 # group:name (or file name) of the jars declaring one
    source_dirs: tuple[Path, ...]               # configured, existing or not: where roots can appear
    generated_dir: Path | None                  # configured -s folder, existing or not


@dataclass(frozen=True)
class GradleModel:
    workspace: Workspace
    classpaths: dict[Key, ClasspathResult]
    scopes: dict[Key, GradleScope]
    limitations: tuple[Limitation, ...] = ()     # module-level (android) and workspace-level ones
    agents: tuple[Path, ...] = ()                # Java agents for the indexer JVM (Lombok)
    gradle_version: str | None = None
    notes: tuple[str, ...] = ()                  # diagnostics: failed guarded getters, unmapped entries
    projects: tuple[ProjectJson, ...] = field(default=(), repr=False)


def build_model(root: Path, projects: Iterable[ProjectJson]) -> GradleModel:
    """Map the script's output (every project of the composite) to the workspace model."""
    root = root.resolve()
    projects = list(projects)
    by_key = {p.key: p for p in projects}
    builds = _builds(projects)
    members = [p for p in projects if p.build.root or _inside(p.build.root_dir, root)]
    members.sort(key=lambda p: (not p.build.root, str(p.build.root_dir), p.path != ":", p.path))
    ids = _module_ids(members)
    outputs = _outputs(projects)
    notes: list[str] = [f"{p.path} ({p.build.name}): {d}" for p in projects for d in p.diagnostics]
    limitations: list[Limitation] = []

    entries: dict[tuple[ProjectKey, str], tuple[CompileEntry, ...]] = {}
    for p in projects:
        for ss in p.source_sets:
            entries[(p.key, ss.name)] = _classify(p, ss, by_key, builds, outputs, notes)

    modules: list[Module] = []
    classpaths: dict[Key, ClasspathResult] = {}
    scopes: dict[Key, GradleScope] = {}
    for p in members:
        mid = ids[p.key]
        android = [x for x in p.plugins if x in ANDROID_PLUGINS]
        if android:
            limitations.append(Limitation("android_unsupported", mid, (
                f"{mid} ({p.dir}) is an Android project ({', '.join(android)}); pybridge does not index Android "
                "projects: their sources, R and BuildConfig classes and android.jar come from the Android Gradle "
                "plugin's variants. Its other modules are indexed; open this one in Android Studio.")))
        java = "java" in p.plugins and not android
        module_scopes = {ss.name: _scope(ss) for ss in _ordered(p.source_sets)} if java else {}
        main = p.source_set(MAIN)
        release, release_source = release_of(p, main) if main else (17, "default")
        encoding = encoding_of(main)[0] if main else "UTF-8"
        processors = tuple(dict.fromkeys(x for ss in p.source_sets for x in _processors(p, ss)))
        modules.append(Module(
            id=mid, group_id=p.group or p.build.name, artifact_id=p.name, version=p.version, root=p.dir,
            build_files=(p.build_file,), kind="jar" if java else "none", has_sources=java, release=release,
            release_source=release_source, encoding=encoding, annotation_processing=bool(processors),
            annotation_processors=processors, sibling_deps=_sibling_deps(p, entries, ids, by_key),
            dependencies=_dependencies(p, entries), scopes=module_scopes))
        if not java:
            continue
        for ss in p.source_sets:
            key = (mid, ss.name)
            javac = entries[(p.key, ss.name)]
            cp, sp = _paths(p, ss, javac, entries, by_key)
            rel, rel_source = release_of(p, ss)
            enc, enc_source = encoding_of(ss)
            procs = _processors(p, ss)
            lims = _limitations(mid, p, ss, procs, module_scopes[ss.name], javac)
            note = jvm_encoding_note(p, enc_source)
            if note and ss.name == MAIN:
                notes.append(note)
            classpaths[key] = ClasspathResult(cp, sp, tuple(lims), rel, ss.processor_path, api_release(rel, rel_source))
            scopes[key] = GradleScope(mid, ss.name, ss.compile_task, javac, rel_source, enc, enc_source,
                                      ss.processor_path, ss.processor_rule, procs, ss.java_dirs, ss.generated_dir)
    agents = agents_for(classpaths)
    version = projects[0].gradle if projects else None
    workspace = Workspace(root, tuple(modules), "gradle", tuple(limitations))
    return GradleModel(workspace, classpaths, scopes, tuple(limitations), tuple(agents),
                       version, tuple(dict.fromkeys(notes)), tuple(projects))


def _inside(path: Path, root: Path) -> bool:
    return path.resolve() == root or root in path.resolve().parents


def _builds(projects: list[ProjectJson]) -> dict[str, Path]:
    """Build name (as ProjectComponentIdentifier names it) -> the build's root folder."""
    out: dict[str, Path] = {}
    for p in projects:
        if p.build.root:
            out[":"] = p.build.root_dir
            for name, folder in p.included_builds:
                out[name] = folder
    for p in projects:
        out.setdefault(p.build.name, p.build.root_dir)
    return {k: v.resolve() for k, v in out.items()}


def _module_ids(members: list[ProjectJson]) -> dict[ProjectKey, str]:
    wanted = {p.key: f"{p.group or p.build.name}:{p.name}" for p in members}
    counts: dict[str, int] = {}
    for mid in wanted.values():
        counts[mid] = counts.get(mid, 0) + 1
    return {p.key: wanted[p.key] if counts.get(wanted.get(p.key, ""), 0) == 1 else f"{p.build.name}:{p.path}"
            for p in members}


def _outputs(projects: list[ProjectJson]) -> dict[Path, tuple[ProjectKey, str]]:
    """Every source set output (classes folders, resources folder) and project jar -> (project, source set)."""
    out: dict[Path, tuple[ProjectKey, str]] = {}
    for p in projects:
        for ss in p.source_sets:
            for d in (*ss.classes_dirs, *([ss.resources_dir] if ss.resources_dir else [])):
                out.setdefault(d, (p.key, ss.name))
        if p.jar is not None and p.source_set(MAIN) is not None:
            out.setdefault(p.jar, (p.key, MAIN))
    return out


def _ordered(source_sets: Iterable[SourceSetJson]) -> list[SourceSetJson]:
    rank = {MAIN: 0, TEST: 1}
    return sorted(source_sets, key=lambda s: (rank.get(s.name, 2), s.name))


def _classify(p: ProjectJson, ss: SourceSetJson, by_key: dict[ProjectKey, ProjectJson], builds: dict[str, Path],
              outputs: dict[Path, tuple[ProjectKey, str]], notes: list[str]) -> tuple[CompileEntry, ...]:
    resolved = ss.compile_classpath
    ids: dict[Path, Entry] = {e.file: e for e in resolved.entries} if resolved else {}
    files = ss.classpath
    if files is None:       # the compile task's classpath did not resolve: the configuration's, leniently
        files = tuple(ids)
    out: list[CompileEntry] = []
    for f in files:
        e = ids.get(f)
        if e is not None and e.kind == "project" and e.project is not None:
            build = builds.get((e.build or ":").rsplit(":", 1)[-1] or ":") or builds.get(e.build or ":")
            target = by_key.get((build, e.project)) if build else None
            if target is None:
                notes.append(f"{p.path} {ss.name}: {f} is project {e.project} of build {e.build}, which wrote no "
                             "model; it stays on the classpath")
                out.append(CompileEntry(f, "external"))
                continue
            hit = outputs.get(f)
            name = hit[1] if hit is not None and hit[0] == target.key else MAIN
            kind = "own" if target.key == p.key else "sibling"
            out.append(CompileEntry(f, kind, target.key, name))
            continue
        hit = outputs.get(f)
        if hit is not None and e is None:
            out.append(CompileEntry(f, "own" if hit[0] == p.key else "sibling", hit[0], hit[1]))
            continue
        out.append(CompileEntry(f, "external", gav=e.gav if e is not None else None))
    return tuple(out)


def _scope(ss: SourceSetJson) -> Scope:
    src = tuple(dict.fromkeys(d.resolve() for d in ss.java_dirs if d.is_dir()))
    gen = tuple(d.resolve() for d in [ss.generated_dir] if d is not None and d.is_dir() and d.resolve() not in src)
    # where roots appear once created: the configured Java folders and the -s folder (itself a root)
    declared = tuple(dict.fromkeys([*ss.java_dirs, *([ss.generated_dir] if ss.generated_dir is not None else [])]))
    return Scope(ss.name, src, gen, declared_roots=declared)


def _paths(p: ProjectJson, ss: SourceSetJson, javac: tuple[CompileEntry, ...],
           entries: dict[tuple[ProjectKey, str], tuple[CompileEntry, ...]],
           by_key: dict[ProjectKey, ProjectJson]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(classpath, sourcepath) of one source set."""
    classpath = [e.path for e in javac if e.kind == "external"]
    own = list(_scope(ss).roots)
    siblings: list[Path] = []
    for e in javac:
        if e.project is None or e.source_set is None:
            continue
        target = by_key[e.project]
        other = target.source_set(e.source_set)
        if other is None:
            continue
        if e.kind == "own":
            if other.name == ss.name:
                continue
            own += _scope(other).roots
            have = set(classpath)
            classpath += [x.path for x in entries.get((target.key, other.name), ())
                          if x.kind == "external" and x.path not in have]
        else:
            siblings += _scope(other).roots
    return tuple(dict.fromkeys(classpath)), tuple(dict.fromkeys(own + siblings))


def _gav_of(p: ProjectJson, ss: SourceSetJson) -> dict[Path, str]:
    out: dict[Path, str] = {}
    for r in (ss.annotation_processor, ss.compile_classpath):
        for e in r.entries if r else ():
            if e.gav:
                out.setdefault(e.file, e.gav)
    return out


def _processors(p: ProjectJson, ss: SourceSetJson) -> tuple[str, ...]:
    """group:name of every processor jar on the processor path (its file name when not a module)."""
    gavs = _gav_of(p, ss)
    return tuple(dict.fromkeys(":".join(gavs[j].split(":")[:2]) if j in gavs else j.name
                               for j in ss.processor_jars))


def _sibling_deps(p: ProjectJson, entries: dict[tuple[ProjectKey, str], tuple[CompileEntry, ...]],
                  ids: dict[ProjectKey, str], by_key: dict[ProjectKey, ProjectJson]) -> tuple[SiblingDep, ...]:
    """Siblings on main's classpath (scope compile), then those only on other scopes' (scope test). Direct:
    declared as a project (same build), or by the coordinates an included build's project answers to."""

    def target_coordinates(key: ProjectKey) -> str:
        q = by_key[key]
        return f"{q.group}:{q.name}"

    projects = {d for ss in p.source_sets for d in ss.declared_projects}
    modules = {d for ss in p.source_sets for d in ss.declared_modules}
    out: dict[str, SiblingDep] = {}
    for ss in _ordered(p.source_sets):
        for e in entries.get((p.key, ss.name), ()):
            if e.kind != "sibling" or e.project not in ids:
                continue
            mid = ids[e.project]
            if mid not in out:
                same_build = e.project[0] == p.build.root_dir
                direct = (e.project[1] in projects) if same_build else target_coordinates(e.project) in modules
                out[mid] = SiblingDep(mid, "compile" if ss.name == MAIN else "test", direct=direct,
                                      test_jar=e.source_set not in (None, MAIN))
    return tuple(out.values())


def _dependencies(p: ProjectJson, entries: dict[tuple[ProjectKey, str], tuple[CompileEntry, ...]]
                  ) -> tuple[Dependency, ...]:
    """The external modules Gradle resolved (not those declared: Gradle has no POM to read them from):
    scope compile for main's, test for the rest."""
    out: dict[str, Dependency] = {}
    for ss in _ordered(p.source_sets):
        for e in entries.get((p.key, ss.name), ()):
            if e.kind == "external" and e.gav and e.gav.count(":") == 2:
                g, a, v = e.gav.split(":")
                out.setdefault(f"{g}:{a}", Dependency(g, a, v, scope="compile" if ss.name == MAIN else "test"))
    return tuple(out.values())


def _limitations(mid: str, p: ProjectJson, ss: SourceSetJson, processors: tuple[str, ...],
                 scope: Scope, javac: tuple[CompileEntry, ...]) -> list[Limitation]:
    out: list[Limitation] = []
    failures = list(ss.compile_classpath.failures) if ss.compile_classpath else []
    if ss.classpath_error and not failures:
        failures.append(ss.classpath_error)
    # Gradle (4.4 at least) trusts its cache index for a jar deleted from disk
    failures += [f"{e.gav} is in Gradle's cache index, but its file {e.path} is gone" for e in javac
                 if e.kind == "external" and e.gav and not e.path.exists()]
    if failures:
        order = "" if ss.classpath is not None else " (in the configuration's order: the task's did not resolve)"
        out.append(Limitation("classpath_unresolved", mid, (
            f"Gradle could not resolve the {ss.name} classpath of {mid}: {' | '.join(_short(f) for f in failures)}. "
            f"The classpath holds what did resolve{order}. Run `gradle {ss.compile_task or 'compileJava'}` "
            "(online) to see why, fix the repositories or versions, then sync again."), ss.name))
    if processors:
        out.append(Limitation("annotation_processing_not_run", mid, (
            f"{mid} runs annotation processors in {ss.name} ({', '.join(processors)}); pybridge does not run them, "
            "so members they add (Lombok getters, builders, ...) are invisible to the compiler here."), ss.name))
        makers = [x for x in processors if not x.startswith(LOMBOK)]
        if makers and not scope.generated_roots:
            out.append(Limitation("generated_sources_absent", mid, (
                f"{mid} has annotation processors ({', '.join(makers)}) but their output folder "
                f"({ss.generated_dir or 'javac -s, not set'}) does not exist; run `gradle "
                f"{ss.compile_task or 'compileJava'}`, then sync, to index the sources they generate."), ss.name))
    return out


def _short(message: str) -> str:
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def source_places(model: GradleModel) -> tuple[Path, ...]:
    """Every folder where a source root of the model can appear, existing or not: each scope's configured
    Java folders and its generated-sources folder (what the live index watches for new roots)."""
    out: list[Path] = []
    for s in model.scopes.values():
        out += s.source_dirs
        if s.generated_dir is not None:
            out.append(s.generated_dir)
    return tuple(dict.fromkeys(out))
