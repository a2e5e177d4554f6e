"""Maven's `load_workspace`: modules, scopes, release, encoding, sibling dependencies.

No Maven runs here; this reads the POMs (see `pom.py` for what that covers).

Choices where DESIGN is silent:

- Modules are listed in discovery order (the root first, then depth-first
  through `<modules>`); modules of profiles active by default count too.
- A `<module>` may name a folder (holding pom.xml) or a POM file. It must stay
  inside the workspace root: pybridge reads nothing outside a served
  workspace, so a module outside it is an error that says so.
- A module reached twice through `<modules>` without a cycle is kept once; a
  `<modules>` entry that leads back to a POM on its own path is a cycle.
- Dependencies between modules of any scope count for cycle detection, as in
  Maven's reactor; two POMs with the same groupId:artifactId are an error.
- Sibling dependencies are followed transitively like Maven does: through a
  sibling, only its compile and runtime, non-optional, non-excluded
  dependencies travel on, with Maven's scope mediation (compile x runtime =
  runtime, provided x compile = provided, test x anything = test, ...). A
  directly declared sibling keeps its declared scope; between transitive
  paths the widest scope wins.
"""

from __future__ import annotations

from pathlib import Path

from pybridge.errors import WorkspaceError

from ..model import SCOPES, Dependency, Module, ModuleCycleError, Scope, SiblingDep, Workspace, excluded
from .compiler import annotation_processors, java_release, source_encoding
from .pom import PomReader, PomView, RawPom
from .terms import NAME, POM
from .xmlread import PomError, is_dir, is_file

# Maven's transitive scope table: (scope of the edge to the sibling, scope in the sibling) -> scope.
_TRANSITIVE = {
    ("compile", "compile"): "compile", ("compile", "runtime"): "runtime",
    ("provided", "compile"): "provided", ("provided", "runtime"): "provided",
    ("runtime", "compile"): "runtime", ("runtime", "runtime"): "runtime",
    ("test", "compile"): "test", ("test", "runtime"): "test",
    ("system", "compile"): "system", ("system", "runtime"): "system",
}
WIDTH = {"compile": 5, "system": 4, "provided": 3, "runtime": 2, "test": 1}


def mediate(edge_scope: str, inner_scope: str) -> str | None:
    """The scope a dependency of scope `inner_scope` of a dependency reached with
    `edge_scope` gets; None when it does not travel (provided, test, system)."""
    return _TRANSITIVE.get((edge_scope, inner_scope))


def load_workspace(root: Path | str) -> Workspace:
    """Read the Maven workspace at `root`. Raises WorkspaceError (PomError,
    ModuleCycleError) naming the file and the fix for any malformed input."""
    root = Path(root).expanduser()
    if not is_dir(root):
        raise WorkspaceError(f"{root} is not a folder; point pybridge at the folder that holds the root pom.xml.")
    root = root.resolve()
    pom = root / POM
    if not is_file(pom):
        raise PomError(pom, f"{root} has no pom.xml; pybridge reads Maven workspaces, so point it at "
                            "the folder that holds the root pom.xml.")
    reader = PomReader(root)
    raws = _discover(reader, root, pom)
    views = [PomView(reader.chain(raw)) for raw in raws]
    by_id: dict[str, PomView] = {}
    for v in views:
        mid = f"{v.group_id}:{v.artifact_id}"
        if mid in by_id:
            raise PomError(v.chain[0].path, f"{by_id[mid].chain[0].path} and {v.chain[0].path} both declare "
                                            f"{mid}; give each module its own artifactId.")
        by_id[mid] = v
    direct = {mid: [d for d in v.dependencies.values() if d.ga in by_id] for mid, v in by_id.items()}
    _check_dependency_cycles(direct, by_id)
    return Workspace(root, tuple(_module(mid, v, direct) for mid, v in by_id.items()), NAME)


def _discover(reader: PomReader, root: Path, top: Path) -> list[RawPom]:
    out: list[RawPom] = []
    done: set[Path] = set()

    def visit(path: Path, stack: list[Path]) -> None:
        raw = reader.read(path)
        done.add(raw.path)
        out.append(raw)
        for entry in raw.modules:
            target = raw.path.parent / entry
            if is_dir(target):
                target = target / POM
                if not is_file(target):
                    raise PomError(raw.path, f"{raw.path} lists <module>{entry}</module>, but {target.parent} "
                                             "has no pom.xml; add it or remove the <module> entry.")
            elif not is_file(target):
                raise PomError(raw.path, f"{raw.path} lists <module>{entry}</module>, but {target} does not "
                                         "exist; fix the path or remove the <module> entry.")
            target = target.resolve()
            if not target.is_relative_to(root):
                raise PomError(raw.path, f"{raw.path} lists <module>{entry}</module>, which is outside the "
                                         f"workspace {root}; serve the folder that holds all modules instead.")
            if target in stack or target == raw.path:
                chain = [*stack[stack.index(target):], raw.path, target] if target in stack else [raw.path, target]
                raise ModuleCycleError(
                    f"{raw.path} lists <module>{entry}</module>, which leads back to {target}: a module cycle "
                    f"({' -> '.join(map(str, chain))}); remove that <module> entry.", chain)
            if target not in done:
                visit(target, [*stack, raw.path])

    visit(top.resolve(), [])
    return out


def _check_dependency_cycles(direct: dict[str, list[Dependency]], by_id: dict[str, PomView]) -> None:
    state: dict[str, int] = {}

    def visit(mid: str, path: list[str]) -> None:
        state[mid] = 1
        for d in direct[mid]:
            if state.get(d.ga) == 1:
                cycle = path[path.index(d.ga):] + [mid, d.ga] if d.ga != mid else [mid, mid]
                poms = [by_id[m].chain[0].path for m in dict.fromkeys(cycle)]
                shown = " -> ".join(f"{m} ({by_id[m].chain[0].path})" for m in cycle)
                raise ModuleCycleError(f"Modules depend on each other in a cycle: {shown}. Maven refuses "
                                       "such a reactor; remove one of these dependencies.", poms)
            if state.get(d.ga) is None:
                visit(d.ga, [*path, mid])
        state[mid] = 2

    for mid in direct:
        if mid not in state:
            visit(mid, [])


def sibling_closure(mid: str, direct: dict[str, list[Dependency]]) -> tuple[SiblingDep, ...]:
    """All siblings `mid` depends on, with mediated scopes (see module docstring)."""
    found: dict[str, SiblingDep] = {}
    for d in direct[mid]:
        prev = found.get(d.ga)
        scope = d.scope if prev is None or WIDTH.get(d.scope, 0) > WIDTH.get(prev.scope, 0) else prev.scope
        found[d.ga] = SiblingDep(d.ga, scope, True, d.is_test_jar or bool(prev and prev.test_jar))
    queue = [(d.ga, d.scope, d.exclusions) for d in direct[mid]]
    seen: set[tuple[str, str, tuple[tuple[str, str], ...]]] = set()
    while queue:
        sib, scope, excl = queue.pop(0)
        if (sib, scope, excl) in seen:
            continue
        seen.add((sib, scope, excl))
        for d in direct[sib]:
            new = mediate(scope, d.scope)
            if new is None or d.optional or excluded(excl, d.group_id, d.artifact_id) or d.ga == mid:
                continue
            prev = found.get(d.ga)
            if prev is None or (not prev.direct and WIDTH[new] > WIDTH.get(prev.scope, 0)):
                found[d.ga] = SiblingDep(d.ga, new, False, d.is_test_jar or bool(prev and prev.test_jar))
            queue.append((d.ga, new, excl + d.exclusions))
    return tuple(found.values())


def _existing_dirs(paths: list[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(p.resolve() for p in paths if is_dir(p)))


def _resolved(p: Path) -> Path:
    """`p` with symlinks followed as far as they exist (as it is when no link can be followed)."""
    try:
        return p.resolve()
    except (OSError, RuntimeError, ValueError):
        return p


def _generated(build_dir: Path, name: str) -> tuple[Path, ...]:
    base = build_dir / name
    if not is_dir(base):
        return ()
    try:
        return _existing_dirs(sorted(p for p in base.iterdir() if is_dir(p)))
    except OSError:
        return ()


def _module(mid: str, v: PomView, direct: dict[str, list[Dependency]]) -> Module:
    me = v.chain[0]
    configs = v.compiler_configs()
    release, release_source = java_release(v.prop, configs, v.interp)
    scopes: dict[str, Scope] = {}
    has_sources = v.packaging != "pom"
    if has_sources:
        main = v.resolve_dir(v.build_text("sourceDirectory"), "src/main/java")
        test = v.resolve_dir(v.build_text("testSourceDirectory"), "src/test/java")
        scopes = {
            "main": Scope("main", _existing_dirs([main]), _generated(v.build_directory, "generated-sources"),
                          (main,), v.build_directory / "generated-sources"),
            "test": Scope("test", _existing_dirs([test]), _generated(v.build_directory, "generated-test-sources"),
                          (test,), v.build_directory / "generated-test-sources"),
        }
        assert tuple(scopes) == SCOPES
    processors = annotation_processors(v.dependencies.values(), configs, v.interp)
    return Module(
        id=mid, group_id=v.group_id, artifact_id=v.artifact_id, version=v.version,
        root=me.path.parent, build_files=(me.path,), kind=v.packaging, has_sources=has_sources,
        release=release, release_source=release_source,
        encoding=source_encoding(v.prop, configs, v.interp),
        annotation_processing=bool(processors), annotation_processors=processors,
        sibling_deps=sibling_closure(mid, direct), dependencies=tuple(v.dependencies.values()),
        scopes=scopes,
    )
