"""Spot checks of the structure tools on real projects, against an independent computation:
the class files of the same release's jars from Maven Central, read by `tests.support.classfiles`
(superclass and interfaces for the hierarchy; the invoke instructions of each method's
bytecode and its runtime annotations for callers and tests).

They need the benchmark workspaces synced (`bench/work/<name>` with its state in
`bench/work/state-<name>`) and the jars in `bench/work/jars/`; `bench/structure.py`
makes all of them. With these cached the tests run; without them they are skipped,
unless PYBRIDGE_REAL_PROJECTS=1, which builds them (network to Maven Central, a few
minutes).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from pybridge.query import Facade
from tests.support.classfiles import parameters, read_jar, subtypes

ROOT = Path(__file__).resolve().parent.parent.parent
WORK = ROOT / "bench" / "work"
JARS = {
    "guava": ["com.google.guava:guava:33.3.1-jre:jar"],
    "commons-lang3": ["org.apache.commons:commons-lang3:3.14.0:jar",
                      "org.apache.commons:commons-lang3:3.14.0:jar:tests"],
}


def _jar_path(gav: str) -> Path:
    parts = gav.split(":")
    return WORK / "jars" / (f"{parts[1]}-{parts[2]}" + (f"-{parts[4]}" if len(parts) > 4 else "") + ".jar")


def prepare(name: str, worker=None) -> tuple[Path, Path, list[Path]]:
    """The synced workspace, its state folder and its jars; built when PYBRIDGE_REAL_PROJECTS=1."""
    root, state = WORK / name, WORK / f"state-{name}"
    jars = [_jar_path(g) for g in JARS[name]]
    ready = (state / "store.sqlite").exists() and all(j.exists() for j in jars)
    if not ready:
        if os.environ.get("PYBRIDGE_REAL_PROJECTS") != "1":
            pytest.skip(f"bench/work/{name} is not synced (run bench/structure.py, or set PYBRIDGE_REAL_PROJECTS=1)")
        from bench.workspaces import ARTIFACTS, copy, ensure
        from pybridge.sync import sync

        ensure(ARTIFACTS[name])
        state.mkdir(parents=True, exist_ok=True)
        sync(root, state_dir=state, worker=worker)
        for gav in JARS[name]:
            copy(gav, WORK / "jars")
    return root, state, jars


def _facade(root: Path, state: Path) -> Facade:
    return Facade([root], state_dirs={root: state})


def _call(facade: Facade, tool: str, args: dict) -> dict:
    result, is_error = facade.call(tool, args)
    assert not is_error, result
    return result


def _key(facade: Facade, query: str) -> str:
    found = _call(facade, "find_symbol", {"query": query})
    assert found["total"] == 1, found
    return found["symbols"][0]["symbolKey"]


def _top(dotted: str) -> str:
    """The top-level class of a dotted path (the first segment that starts upper case)."""
    parts = dotted.split(".")
    for i, p in enumerate(parts):
        if p[:1].isupper():
            return ".".join(parts[:i + 1])
    return dotted


def _split_jar(names: set[str]) -> tuple[set[str], Counter]:
    """Named member classes (dotted) and, per top-level class, how many anonymous or local ones."""
    named, unnamed = set(), Counter()
    for n in names:
        segments = n.split("$")
        if any(s[:1].isdigit() for s in segments[1:]):
            unnamed[segments[0].replace("/", ".")] += 1
        else:
            named.add(n.replace("/", ".").replace("$", "."))
    return named, unnamed


def _split_ours(dotted: list[str], kinds: dict[str, str], member: set[str]) -> tuple[set[str], Counter]:
    named, unnamed = set(), Counter()
    for d in dotted:
        if d in member:
            named.add(d)
        else:
            unnamed[_top(d)] += 1
    return named, unnamed


def _member_classes(jar_named: set[str], ours: list[str]) -> set[str]:
    return {d for d in ours if "<anonymous>" not in d and d in jar_named} | {
        d for d in ours if "<anonymous>" not in d and not re.search(r"\.[a-z]\w*\.[A-Z]", d[len(_top(d)):])}


def _compare(facade: Facade, jar_classes: dict, query: str, binary: str) -> None:
    result = _call(facade, "find_implementations", {"symbolKey": _key(facade, query), "limit": 1000})
    assert result["truncated"] is False and result["coverage"]["complete"] is True
    ours = [i["dottedPath"] for i in result["implementations"]]
    assert len(ours) == len(set(ours)) == result["total"]
    theirs = {n for n in subtypes(jar_classes, binary) if not jar_classes[n].is_interface}
    jar_named, jar_unnamed = _split_jar(theirs)
    member = _member_classes(jar_named, ours)
    our_named, our_unnamed = _split_ours(ours, {}, member)
    assert our_named == jar_named
    assert our_unnamed == jar_unnamed
    assert len(ours) == len(theirs)


def test_guava_immutable_collection_subtypes_match_the_class_files(worker):
    root, state, [jar] = prepare("guava", worker)
    classes = read_jar(jar)
    with _facade(root, state) as facade:
        _compare(facade, classes, "com.google.common.collect.ImmutableCollection",
                 "com/google/common/collect/ImmutableCollection")
        # the tree view of the same: every subtype once, the direct ones at the top
        collection = _key(facade, "com.google.common.collect.ImmutableCollection")
        tree = _call(facade, "type_hierarchy", {"symbolKey": collection, "direction": "sub", "limit": 1000})
        direct = {c["dottedPath"] for c in tree["subtypes"]}
        jar_direct = {n.replace("/", ".").replace("$", ".") for n, cf in classes.items()
                      if cf.superclass == "com/google/common/collect/ImmutableCollection"}
        assert direct == jar_direct
        # its supertypes go on through JDK types, named by SCIP symbol, at every depth
        up = _call(facade, "type_hierarchy", {"symbolKey": collection, "direction": "super"})
        [abstract] = [s for s in up["supertypes"] if s["symbol"] == "scip-java maven . . java/util/AbstractCollection#"]
        assert abstract.get("beyond") is None
        assert {c["dottedPath"] for c in abstract["children"]} == {"java.util.Collection"}


def test_guava_function_implementations_match_the_class_files(worker):
    root, state, [jar] = prepare("guava", worker)
    classes = read_jar(jar)
    with _facade(root, state) as facade:
        _compare(facade, classes, "com.google.common.base.Function", "com/google/common/base/Function")


TEST_ANNOTATIONS = {"Lorg/junit/jupiter/api/Test;", "Lorg/junit/jupiter/params/ParameterizedTest;",
                    "Lorg/junit/jupiter/api/RepeatedTest;", "Lorg/junit/jupiter/api/TestFactory;",
                    "Lorg/junit/jupiter/api/TestTemplate;", "Lorg/junit/Test;"}


_PRIMITIVES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
               "D": "double"}


def _simple(descriptor_type: str) -> str:
    dims = len(descriptor_type) - len(descriptor_type.lstrip("["))
    base = descriptor_type[dims:]
    name = _PRIMITIVES.get(base) or base[1:-1].rsplit("/", 1)[-1].rsplit("$", 1)[-1]
    return name + "[]" * dims


def _display_params(display: str) -> list[str]:
    inner = display[display.index("(") + 1:display.rindex(")")]
    out, depth, cur = [], 0, ""
    for ch in inner:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [re.sub(r"<.*>", "", p).replace("...", "[]").strip().rsplit(".", 1)[-1] for p in out]


def _matches(ours: tuple[str, str, tuple[str, ...]], owner: str, name: str, descriptor: str) -> bool:
    """Whether a bytecode method reference names our method: same class, name and parameter
    types (a type variable of ours matches any erased type)."""
    if (ours[0], ours[1]) != (owner, name):
        return False
    theirs = [_simple(t) for t in parameters(descriptor)]
    return len(theirs) == len(ours[2]) and all(
        a == b or re.fullmatch(r"[A-Z]\w?(\[\])*", a) is not None for a, b in zip(ours[2], theirs, strict=True))


def _bytecode_callers(classes: dict, targets: set[tuple[str, str, tuple[str, ...]]]) -> dict[tuple[str, str], list]:
    """(class, method) of the methods whose bytecode invokes one of targets; a lambda's
    body counts for the method that encloses it (as a call's container does)."""
    by_name: dict[tuple[str, str], list] = {}
    for t in targets:
        by_name.setdefault((t[0], t[1]), []).append(t)
    out: dict[tuple[str, str], list] = {}
    for cf in classes.values():
        for m in cf.methods:
            if any(_matches(t, o, n, d) for o, n, d in m.calls for t in by_name.get((o, n), ())):
                lam = re.match(r"lambda\$(.+)\$\d+$", m.name)
                name = lam.group(1) if lam else m.name
                out[(cf.name, name)] = [a for other in cf.methods if other.name == name for a in other.annotations]
    return out


def _ours(node: dict) -> tuple[str, str, tuple[str, ...]]:
    owner_dotted = node["dottedPath"].rsplit(".", 1)[0]
    top = _top(owner_dotted)
    owner = top.replace(".", "/") + owner_dotted[len(top):].replace(".", "$")
    name = "<init>" if node["kind"] == "CONSTRUCTOR" else node["dottedPath"].rsplit(".", 1)[1]
    return (owner, name, tuple(_display_params(node["display"])))


def test_callers_of_string_utils_is_empty_to_depth_2_with_the_affected_tests(worker):
    root, state, jars = prepare("commons-lang3", worker)
    classes = {}
    for jar in jars:
        classes.update(read_jar(jar))
    with _facade(root, state) as facade:
        key = _key(facade, "StringUtils.isEmpty")
        graph = _call(facade, "call_graph", {"symbolKey": key, "depth": 2, "limit": 1000})
    assert graph["truncated"] is False and graph["callerCoverage"] is True
    nodes = {n["id"]: n for n in graph["nodes"]}
    root_target = {_ours(nodes[0])}
    assert root_target == {("org/apache/commons/lang3/StringUtils", "isEmpty", ("CharSequence",))}
    methods = ("METHOD", "CONSTRUCTOR")
    # depth 1: the methods whose bytecode calls isEmpty (anonymous and local classes aside)
    level1 = {e["from"] for e in graph["edges"] if e["to"] == 0 and "through" not in e}
    ours1 = {_ours(nodes[i])[:2] for i in level1 if nodes[i]["kind"] in methods}
    theirs1 = {k for k in _bytecode_callers(classes, root_target) if not re.search(r"\$\d", k[0])}
    assert ours1 == {k for k in theirs1 if k[1] not in ("<clinit>",)}
    # depth 2 and the affected tests: the @Test methods whose bytecode calls isEmpty or a depth-1 caller
    targets = root_target | {_ours(nodes[i]) for i in level1 if nodes[i]["kind"] in methods}
    theirs2 = _bytecode_callers(classes, targets)
    bytecode_tests = {k for k, annotations in theirs2.items()
                      if TEST_ANNOTATIONS & set(annotations) and not re.search(r"\$\d", k[0])}
    plain_callers = {e["from"] for e in graph["edges"] if "through" not in e and e["to"] in level1 | {0}}
    our_tests = {_ours(nodes[i])[:2] for i in graph["affectedTests"] if i in plain_callers}
    assert our_tests == bytecode_tests
    assert len(our_tests) > 50
