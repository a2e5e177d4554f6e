"""Library hierarchies at every depth (issue 26 part 3): type_hierarchy and find_implementations
through library and JDK types, read from the class files of the module's release (part 4)."""

from __future__ import annotations

from typing import Any

import pytest

from pybridge.query import Facade
from pybridge.sync import sync

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId>
  <artifactId>names</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>8</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
</project>
"""

NAMES = """package p;

import java.util.AbstractList;

public class Names extends AbstractList<String> {
    @Override
    public String get(int i) {
        return "n" + i;
    }

    @Override
    public int size() {
        return 3;
    }

    enum Color { RED }
}
"""

SHORT_NAMES = """package p;

public class ShortNames extends Names {
}
"""


@pytest.fixture(scope="module")
def facade(tmp_path_factory, worker):
    base = tmp_path_factory.mktemp("libhier")
    root = base / "names"
    (root / "src/main/java/p").mkdir(parents=True)
    (root / "pom.xml").write_text(POM)
    (root / "src/main/java/p/Names.java").write_text(NAMES)
    (root / "src/main/java/p/ShortNames.java").write_text(SHORT_NAMES)
    sync(root, state_dir=base / "state", worker=worker)
    with Facade([root], state_dirs={root: base / "state"}) as f:
        yield f


def _call(facade: Facade, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result, is_error = facade.call(tool, args)
    assert not is_error, result
    return result


def _key(facade: Facade, dotted: str) -> str:
    found = _call(facade, "find_symbol", {"query": dotted})
    [hit] = [s for s in found["symbols"] if s["dottedPath"] == dotted]
    return hit["symbolKey"]


def _flat(nodes: list[dict[str, Any]], depth: int = 0) -> list[tuple[int, str, str]]:
    out = []
    for n in nodes:
        out.append((depth, n["relation"], n["dottedPath"]))
        out += _flat(n.get("children") or [], depth + 1)
    return out


def test_a_class_extending_a_jdk_collection_has_the_whole_chain(facade):
    tree = _call(facade, "type_hierarchy", {"symbolKey": _key(facade, "p.Names"), "direction": "super"})
    assert _flat(tree["supertypes"]) == [
        (0, "extends", "java.util.AbstractList"),
        (1, "extends", "java.util.AbstractCollection"),
        (2, "implements", "java.util.Collection"),
        (3, "extends", "java.lang.Iterable"),
        (1, "implements", "java.util.List"),
        (2, "extends", "java.util.Collection"),      # shown once above: `seen`, no children again
    ]
    assert [n.get("beyond") for n in tree["supertypes"]] == [None]
    assert all(n.get("external") for n in tree["supertypes"])
    below = _call(facade, "type_hierarchy", {"symbolKey": _key(facade, "p.ShortNames"), "direction": "super"})
    assert {d for _, _, d in _flat(below["supertypes"])} == {
        "p.Names", "java.util.AbstractList", "java.util.AbstractCollection", "java.util.List",
        "java.util.Collection", "java.lang.Iterable"}


def test_an_enum_is_comparable_with_java_8s_supertypes(facade):
    tree = _call(facade, "type_hierarchy", {"symbolKey": _key(facade, "p.Names.Color"), "direction": "super"})
    # release 8: no java.lang.constant.Constable (Java 12), as javac --release 8 sees Enum
    assert {d for _, _, d in _flat(tree["supertypes"])} == {
        "java.lang.Enum", "java.lang.Comparable", "java.io.Serializable"}


def test_find_implementations_of_a_jdk_interface_walks_through_library_types(facade):
    tree = _call(facade, "type_hierarchy", {"symbolKey": _key(facade, "p.Names"), "direction": "super"})
    keys = {}

    def collect(nodes: list[dict[str, Any]]) -> None:
        for n in nodes:
            keys[n["dottedPath"]] = n["symbolKey"]
            collect(n.get("children") or [])

    collect(tree["supertypes"])
    for library in ("java.util.Collection", "java.lang.Iterable", "java.util.AbstractCollection"):
        found = _call(facade, "find_implementations", {"symbolKey": keys[library]})
        assert {(i["dottedPath"], i["direct"]) for i in found["implementations"]} == {
            ("p.Names", False), ("p.ShortNames", False)}, library
    size = _call(facade, "find_implementations", {"symbolKey": _key(facade, "p.Names.size")})
    overridden = {n["dottedPath"]: n["symbolKey"] for n in size["overrides"]}
    assert set(overridden) == {"java.util.AbstractCollection.size", "java.util.List.size",
                               "java.util.Collection.size"}
    up = _call(facade, "find_implementations", {"symbolKey": overridden["java.util.Collection.size"]})
    assert [i["dottedPath"] for i in up["implementations"]] == ["p.Names.size"]
