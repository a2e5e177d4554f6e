"""The structure tools (DESIGN section 7) through a real MCP client session, with exact answers.

Every answer is also checked against the tool's advertised output schema, as
the strictest MCP hosts do.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.sync import default_state_dir, sync
from tests.support.mcp_session import checked_call, serve

STRUCTURE_TOOLS = ("type_hierarchy", "find_implementations", "call_graph", "outline", "diagnostics", "describe")

LOOP = """package com.acme.graphs;

public class Loop {
    int even(int n) {
        return n == 0 ? 1 : odd(n - 1);
    }

    int odd(int n) {
        return n == 0 ? 0 : even(n - 1);
    }

    int self(int n) {
        return n <= 0 ? 0 : self(n - 1);
    }
}
"""

LOOP_TEST = """package com.acme.graphs;

public class LoopTest {
    public void testEven() {
        new Loop().even(2);
    }

    void helper() {
        new Loop().odd(1);
    }
}
"""


def _write_graphs(root: Path, samples: Path) -> None:
    pom = (samples / "kitchen-sink" / "pom.xml").read_text()
    root.mkdir(parents=True)
    (root / "pom.xml").write_text(pom.replace("<artifactId>kitchen-sink</artifactId>",
                                              "<artifactId>graphs</artifactId>"))
    main = root / "src/main/java/com/acme/graphs"
    test = root / "src/test/java/com/acme/graphs"
    main.mkdir(parents=True)
    test.mkdir(parents=True)
    (main / "Loop.java").write_text(LOOP)
    (test / "LoopTest.java").write_text(LOOP_TEST)


@pytest.fixture(scope="module")
def served(tmp_path_factory, samples, worker):
    base = tmp_path_factory.mktemp("structure")
    home = base / "state-home"
    roots = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        for name in ("kitchen-sink", "reactor", "broken"):
            roots[name] = base / name
            shutil.copytree(samples / name, roots[name])
        roots["graphs"] = base / "graphs"
        _write_graphs(roots["graphs"], samples)
        for name, root in roots.items():
            sync(root, state_dir=default_state_dir(root), worker=worker, allow_online=name != "broken")
    with serve(list(roots.values()), home) as client:
        schemas = {t.name: t.output_schema for t in client.list_tools()}
        yield client, roots, schemas


def call(served, name, args):
    client, _roots, schemas = served
    payload, is_error, text = checked_call(client, name, args, schemas)
    if not is_error:
        assert len(text.encode()) < 32 * 1024
    return payload, is_error


def ok(served, name, args):
    payload, is_error = call(served, name, args)
    assert not is_error, payload
    return payload


def err(served, name, args, code):
    payload, is_error = call(served, name, args)
    assert is_error, payload
    assert payload["code"] == code, payload
    return payload


def key(served, repo, query, kind=None):
    args = {"repo": repo, "query": query}
    if kind:
        args["kind"] = kind
    found = ok(served, "find_symbol", args)
    assert found["total"] == 1, found
    return found["symbols"][0]["symbolKey"]


def tree(items):
    """(relation, dottedPath, [children]) of a hierarchy tree, markers included."""
    out = []
    for i in items:
        marks = [m for m in ("seen", "beyond") if i.get(m)]
        out.append((i["relation"], i["dottedPath"], *[f"{m}={i[m]}" for m in marks],
                    tree(i.get("children", []))))
    return out


def test_the_six_tools_are_listed_read_only_with_schemas(served):
    client, _roots, _schemas = served
    tools = {t.name: t for t in client.list_tools()}
    for name in STRUCTURE_TOOLS:
        tool = tools[name]
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema["type"] == "object"
        assert tool.annotations.read_only_hint is True


def test_type_hierarchy_both_ways_with_library_supertypes_by_scip_symbol(served):
    shape = key(served, "kitchen-sink", "Shape", "INTERFACE")
    got = ok(served, "type_hierarchy", {"symbolKey": shape})
    assert got["root"]["dottedPath"] == "com.acme.kitchen.Shape"
    assert got["root"]["line"] == 7 and got["root"]["path"] == "src/main/java/com/acme/kitchen/Shape.java"
    assert tree(got["supertypes"]) == []
    assert tree(got["subtypes"]) == [
        ("implements", "com.acme.kitchen.BaseShape", [
            ("extends", "com.acme.kitchen.Circle", []),
            ("extends", "com.acme.kitchen.Kitchen.shapes.<anonymous>", []),
        ]),
    ]
    assert got["nodes"] == 3 and got["truncated"] is False
    assert got["subtypeCoverage"] == {"complete": True, "blockers": 0, "places": []}
    assert got["freshness"] == "fresh"

    circle = key(served, "kitchen-sink", "Circle", "CLASS")
    up = ok(served, "type_hierarchy", {"symbolKey": circle, "direction": "super"})
    assert tree(up["supertypes"]) == [
        ("extends", "com.acme.kitchen.BaseShape", [("implements", "com.acme.kitchen.Shape", [])])]
    assert "subtypes" not in up and "subtypeCoverage" not in up
    one = ok(served, "type_hierarchy", {"symbolKey": circle, "direction": "super", "depth": 1})
    assert tree(one["supertypes"]) == [("extends", "com.acme.kitchen.BaseShape", "beyond=depth", [])]

    error = key(served, "kitchen-sink", "ShapeException", "CLASS")
    lib = ok(served, "type_hierarchy", {"symbolKey": error, "direction": "super"})
    [exception] = lib["supertypes"]
    assert exception["symbol"] == "scip-java maven . . java/lang/Exception#"
    assert exception["external"] is True and "beyond" not in exception and "path" not in exception
    # the JDK's own supertypes follow, at every depth (Object left out)
    [throwable] = exception["children"]
    assert (throwable["dottedPath"], [c["dottedPath"] for c in throwable["children"]]) == (
        "java.lang.Throwable", ["java.io.Serializable"])


def test_an_enum_constant_body_is_a_subtype_of_its_enum(served):
    size = key(served, "kitchen-sink", "Size", "ENUM")
    got = ok(served, "type_hierarchy", {"symbolKey": size, "direction": "sub"})
    [body] = got["subtypes"]
    assert (body["relation"], body["dottedPath"], body["kind"], body["line"]) == (
        "extends", "com.acme.kitchen.Size.LARGE.<anonymous>", "CLASS", 7)
    impls = ok(served, "find_implementations", {"symbolKey": size})
    assert [(i["dottedPath"], i["direct"]) for i in impls["implementations"]] == [
        ("com.acme.kitchen.Size.LARGE.<anonymous>", True)]
    label = key(served, "kitchen-sink", "Size.label")
    over = ok(served, "find_implementations", {"symbolKey": label})
    assert [i["dottedPath"] for i in over["implementations"]] == ["com.acme.kitchen.Size.LARGE.<anonymous>.label"]


def test_find_implementations_of_types_and_methods(served):
    shape = key(served, "kitchen-sink", "Shape", "INTERFACE")
    got = ok(served, "find_implementations", {"symbolKey": shape})
    assert [(i["dottedPath"], i["direct"], i["line"]) for i in got["implementations"]] == [
        ("com.acme.kitchen.BaseShape", True, 4),
        ("com.acme.kitchen.Circle", False, 4),
        ("com.acme.kitchen.Kitchen.shapes.<anonymous>", False, 41),
    ]
    assert got["total"] == 3 and got["truncated"] is False and got["coverage"]["complete"] is True
    cut = ok(served, "find_implementations", {"symbolKey": shape, "limit": 1})
    assert len(cut["implementations"]) == 1 and cut["total"] == 3 and cut["truncated"] is True

    area = key(served, "kitchen-sink", "Shape.area")
    got = ok(served, "find_implementations", {"symbolKey": area})
    assert [(i["dottedPath"], i["direct"]) for i in got["implementations"]] == [
        ("com.acme.kitchen.Circle.area", True), ("com.acme.kitchen.Kitchen.shapes.<anonymous>.area", True)]
    assert got["overrides"] == []

    name = key(served, "kitchen-sink", "Circle.name")
    got = ok(served, "find_implementations", {"symbolKey": name})
    assert got["implementations"] == [] and got["total"] == 0
    assert [o["dottedPath"] for o in got["overrides"]] == ["com.acme.kitchen.BaseShape.name",
                                                           "com.acme.kitchen.Shape.name"]

    greeter = key(served, "reactor", "com.acme.core.Greeter")
    got = ok(served, "find_implementations", {"symbolKey": greeter})
    assert [(i["dottedPath"], i["path"]) for i in got["implementations"]] == [
        ("com.acme.service.PoliteGreeter", "service/src/main/java/com/acme/service/PoliteGreeter.java")]
    assert "symbol" not in got["implementations"][0]          # said once, by the root
    assert got["root"]["module"] == "dev.pybridge.samples:core"


def test_implementations_of_a_library_type_from_its_key(served):
    _client, roots, _schemas = served
    # find_symbol finds a JDK type the code refers to by its dotted name ...
    exception = key(served, "kitchen-sink", "java.lang.Exception")
    got = ok(served, "find_implementations", {"symbolKey": exception})
    assert [i["dottedPath"] for i in got["implementations"]] == ["com.acme.kitchen.ShapeException"]
    assert got["root"]["external"] is True and got["root"]["symbol"] == "scip-java maven . . java/lang/Exception#"
    # ... and symbol_at on a use gives the same key.
    lines = (roots["kitchen-sink"] / "src/main/java/com/acme/kitchen/ShapeException.java").read_text().splitlines()
    line = next(n for n, text in enumerate(lines) if "extends Exception" in text)
    at = ok(served, "symbol_at", {"repo": "kitchen-sink", "path": "src/main/java/com/acme/kitchen/ShapeException.java",
                                  "line": line, "character": lines[line].index("Exception {")})
    assert at["symbol"]["symbolKey"] == exception


def test_coverage_is_false_where_a_file_is_not_binding_complete(served):
    helper = key(served, "broken", "Helper", "CLASS")
    got = ok(served, "find_implementations", {"symbolKey": helper})
    assert got["implementations"] == []
    assert got["coverage"]["complete"] is False and got["coverage"]["blockers"] == 5
    assert {(p["path"], p["line"], p["column"]) for p in got["coverage"]["places"]} == {
        ("src/main/java/com/acme/broken/MissingDep.java", 3, 8),
        ("src/main/java/com/acme/broken/MissingDep.java", 10, 9),
        ("src/main/java/com/acme/broken/MissingDep.java", 10, 27),
        ("src/main/java/com/acme/broken/Syntax.java", 12, 31),
        ("src/main/java/com/acme/broken/Syntax.java", 15, 17),
    }
    hierarchy = ok(served, "type_hierarchy", {"symbolKey": helper})
    assert hierarchy["subtypeCoverage"]["complete"] is False


def _graph(got):
    nodes = {n["id"]: n for n in got["nodes"]}
    name = {i: n["dottedPath"] for i, n in nodes.items()}
    edges = [(name[e["from"]], name[e["to"]], e["line"], e["column"],
              name.get(e.get("through")), e.get("cycle", False)) for e in got["edges"]]
    return nodes, name, edges


def test_call_graph_in_with_calls_through_an_interface_and_the_affected_tests(served):
    normalize = key(served, "reactor", "Names.normalize")
    got = ok(served, "call_graph", {"symbolKey": normalize, "depth": 3})
    nodes, name, edges = _graph(got)
    assert got["root"] == 0 and name[0] == "com.acme.core.Names.normalize" and got["direction"] == "in"
    assert edges == [
        ("com.acme.app.App.run", "com.acme.core.Names.normalize", 17, 49, None, False),
        ("com.acme.core.NamesTest.blankNameBecomesDefault", "com.acme.core.Names.normalize", 10, 48, None, False),
        ("com.acme.core.NamesTest.nameIsCapitalized", "com.acme.core.Names.normalize", 15, 35, None, False),
        ("com.acme.service.PoliteGreeter.greet", "com.acme.core.Names.normalize", 16, 64, None, False),
        ("com.acme.app.App.main", "com.acme.app.App.run", 23, 32, None, False),
        ("com.acme.app.AppTest.runFramesTheGreeting", "com.acme.app.App.run", 15, 37, None, False),
        ("com.acme.app.AppTest.coreGreeterThroughService", "com.acme.service.PoliteGreeter.greet", 31, 69,
         "com.acme.core.Greeter.greet", False),
        ("com.acme.service.GreetingService.welcome", "com.acme.service.PoliteGreeter.greet", 21, 36,
         "com.acme.core.Greeter.greet", False),
        ("com.acme.app.App.run", "com.acme.service.GreetingService.welcome", 17, 35, None, False),
        ("com.acme.app.AppTest.serviceCountsMessages", "com.acme.service.GreetingService.welcome", 23, 17, None,
         False),
    ]
    assert [e.get("sites", 1) for e in got["edges"]] == [1] * 9 + [2]     # lines 23 and 24: one edge
    assert sorted(name[i] for i in got["affectedTests"]) == [
        "com.acme.app.AppTest.coreGreeterThroughService", "com.acme.app.AppTest.runFramesTheGreeting",
        "com.acme.app.AppTest.serviceCountsMessages", "com.acme.core.NamesTest.blankNameBecomesDefault",
        "com.acme.core.NamesTest.nameIsCapitalized"]
    assert all(nodes[i]["test"] and nodes[i]["scope"] == "test" for i in got["affectedTests"])
    assert got["callerCoverage"] is True and got["truncated"] is False
    assert len(name) == len(set(name.values()))          # each node once

    no_tests = ok(served, "call_graph", {"symbolKey": normalize, "depth": 3, "include_tests": False})
    _nodes, name, edges = _graph(no_tests)
    assert "affectedTests" not in no_tests
    assert all(not n.startswith(("com.acme.app.AppTest", "com.acme.core.NamesTest")) for n in name.values())
    assert len(edges) == 5

    shallow = ok(served, "call_graph", {"symbolKey": normalize, "depth": 1})
    nodes, name, edges = _graph(shallow)
    assert len(edges) == 4
    assert [n["expanded"] for n in shallow["nodes"] if n["id"] != 0] == [False] * 4
    limited = ok(served, "call_graph", {"symbolKey": normalize, "depth": 3, "limit": 2})
    assert len(limited["edges"]) == 2 and limited["truncated"] is True


def test_call_graph_out_and_cycles(served):
    run = key(served, "reactor", "App.run")
    got = ok(served, "call_graph", {"symbolKey": run, "direction": "out", "depth": 1})
    _nodes, _name, edges = _graph(got)
    assert [(a, b, line, col) for a, b, line, col, _t, _c in edges] == [
        ("com.acme.app.App.run", "com.acme.service.GreetingService.welcome", 17, 35),
        ("com.acme.app.App.run", "com.acme.core.Names.normalize", 17, 49),
        ("com.acme.app.App.run", "com.acme.app.Banner.frame", 18, 23),
        ("com.acme.app.App.run", "com.acme.core.Message.getText", 18, 37),
    ]
    assert "affectedTests" not in got and "callerCoverage" not in got
    welcome = key(served, "reactor", "GreetingService.welcome")
    out = ok(served, "call_graph", {"symbolKey": welcome, "direction": "out", "depth": 1})
    greet = next(n for n in out["nodes"] if n["dottedPath"] == "com.acme.core.Greeter.greet")
    assert greet["overriders"] == 1

    even = key(served, "graphs", "Loop.even")
    got = ok(served, "call_graph", {"symbolKey": even, "depth": 3})
    nodes, name, edges = _graph(got)
    assert edges == [
        ("com.acme.graphs.Loop.odd", "com.acme.graphs.Loop.even", 9, 29, None, False),
        ("com.acme.graphs.LoopTest.testEven", "com.acme.graphs.Loop.even", 5, 20, None, False),
        ("com.acme.graphs.Loop.even", "com.acme.graphs.Loop.odd", 5, 29, None, True),
        ("com.acme.graphs.LoopTest.helper", "com.acme.graphs.Loop.odd", 9, 20, None, False),
    ]
    assert [name[i] for i in got["affectedTests"]] == ["com.acme.graphs.LoopTest.testEven"]
    self_ = key(served, "graphs", "Loop.self")
    got = ok(served, "call_graph", {"symbolKey": self_, "depth": 5})
    _nodes, _name, edges = _graph(got)
    assert edges == [("com.acme.graphs.Loop.self", "com.acme.graphs.Loop.self", 13, 29, None, True)]


def _outline(items):
    return [(i["kind"], i["name"], i.get("signature"), i.get("modifiers", []), i["line"],
             _outline(i.get("children", []))) for i in items]


def test_outline_of_a_file_as_a_tree(served):
    got = ok(served, "outline", {"repo": "kitchen-sink", "path": "src/main/java/com/acme/kitchen/Size.java"})
    assert (got["path"], got["module"], got["scope"], got["bindingComplete"]) == (
        "src/main/java/com/acme/kitchen/Size.java", "dev.pybridge.samples:kitchen-sink", "main", True)
    assert _outline(got["declarations"]) == [
        ("ENUM", "Size", "public enum Size", ["public"], 4, [
            ("ENUM_CONSTANT", "SMALL", "SMALL(1)", [], 5, []),
            ("ENUM_CONSTANT", "MEDIUM", "MEDIUM(5)", [], 6, []),
            ("ENUM_CONSTANT", "LARGE", "LARGE(10)", [], 7, [
                ("CLASS", "<anonymous>", None, [], 7, [
                    ("METHOD", "label", "public String label()", ["public"], 9, []),
                ]),
            ]),
            ("FIELD", "weight", "private final int weight", ["private", "final"], 14, []),
            ("CONSTRUCTOR", "Size", "Size(int weight)", [], 16, []),
            ("METHOD", "weight", "public int weight()", ["public"], 20, []),
            ("METHOD", "label", "public String label()", ["public"], 24, []),
        ]),
    ]
    assert got["total"] == 10 and got["truncated"] is False
    assert got["declarations"][0]["range"] == {"start": {"line": 2, "character": 0},
                                               "end": {"line": 26, "character": 1}}
    cut = ok(served, "outline", {"repo": "kitchen-sink", "path": "src/main/java/com/acme/kitchen/Size.java",
                                 "limit": 3})
    assert cut["truncated"] is True and cut["total"] == 10
    assert _outline(cut["declarations"])[0][5] == [("ENUM_CONSTANT", "SMALL", "SMALL(1)", [], 5, []),
                                                   ("ENUM_CONSTANT", "MEDIUM", "MEDIUM(5)", [], 6, [])]
    err(served, "outline", {"repo": "kitchen-sink", "path": "pom.xml"}, "not_found")


def test_diagnostics_per_file_with_binding_completeness_and_paging(served):
    got = ok(served, "diagnostics", {"repo": "broken"})
    assert [(f["path"], f["bindingComplete"], [(p["kind"], p["line"], p["column"], p.get("name"))
                                               for p in f["problems"]]) for f in got["files"]] == [
        ("src/main/java/com/acme/broken/MissingDep.java", False, [
            ("unresolved_import", 3, 8, "Ghost"), ("unresolved_type", 10, 9, "Ghost"),
            ("unresolved_type", 10, 27, "Ghost")]),
        ("src/main/java/com/acme/broken/Syntax.java", False, [
            ("syntax", 12, 31, None), ("syntax", 15, 17, None)]),
        ("src/main/java/com/acme/broken/Unresolved.java", False, [
            ("unresolved_method", 8, 16, "noSuchMethod")]),
    ]
    assert got["total"] == 6 and got["filesNotBindingComplete"] == 3 and "nextCursor" not in got
    first = got["files"][1]["problems"][0]
    assert first["message"] == 'Syntax error, insert ";" to complete BlockStatements'
    assert first["range"] == {"start": {"line": 11, "character": 30}, "end": {"line": 11, "character": 31}}

    page1 = ok(served, "diagnostics", {"repo": "broken", "limit": 4})
    assert sum(len(f["problems"]) for f in page1["files"]) == 4 and page1["nextCursor"]
    page2 = ok(served, "diagnostics", {"repo": "broken", "limit": 4, "cursor": page1["nextCursor"]})
    assert [(f["path"], len(f["problems"])) for f in page2["files"]] == [
        ("src/main/java/com/acme/broken/Syntax.java", 1), ("src/main/java/com/acme/broken/Unresolved.java", 1)]
    assert "nextCursor" not in page2
    err(served, "diagnostics", {"repo": "broken", "limit": 5, "cursor": page1["nextCursor"]}, "invalid_cursor")

    clean = ok(served, "diagnostics", {"repo": "broken", "path": "src/main/java/com/acme/broken/Helper.java"})
    assert [(f["path"], f["bindingComplete"], f["problems"]) for f in clean["files"]] == [
        ("src/main/java/com/acme/broken/Helper.java", True, [])]
    assert ok(served, "diagnostics", {"repo": "kitchen-sink"})["files"] == []


def test_describe_a_method_and_a_type(served):
    name = key(served, "kitchen-sink", "BaseShape.name")
    got = ok(served, "describe", {"symbolKey": name})
    assert got["symbol"]["dottedPath"] == "com.acme.kitchen.BaseShape.name"
    assert (got["signature"], got["modifiers"], got["annotations"], got["javadoc"]) == (
        "public String name()", ["public"], ["@Override"], None)
    assert got["declaringType"]["dottedPath"] == "com.acme.kitchen.BaseShape"
    assert [o["dottedPath"] for o in got["overrides"]] == ["com.acme.kitchen.Shape.name"]
    assert got["counts"] == {"references": 2, "callers": 2, "implementations": 1}

    greeter = key(served, "kitchen-sink", "Greeter", "CLASS")
    got = ok(served, "describe", {"symbolKey": greeter})
    assert got["javadoc"] == "/** Greets people: a static nested class, an inner class, a local class and a lambda. */"
    assert got["signature"] == "public class Greeter" and got["declaringType"] is None
    assert got["counts"]["implementations"] == 0 and "callers" not in got["counts"]

    weight = key(served, "kitchen-sink", "Size.weight", "FIELD")
    got = ok(served, "describe", {"symbolKey": weight})
    assert (got["signature"], got["modifiers"]) == ("private final int weight", ["private", "final"])
    assert got["declaringType"]["dottedPath"] == "com.acme.kitchen.Size"


def test_wrong_kinds_and_bad_keys_are_clear_errors(served):
    shape = key(served, "kitchen-sink", "Shape", "INTERFACE")
    message = err(served, "call_graph", {"symbolKey": shape}, "invalid_argument")["error"]
    assert "method or constructor" in message
    area = key(served, "kitchen-sink", "Shape.area")
    err(served, "type_hierarchy", {"symbolKey": area}, "invalid_argument")
    err(served, "describe", {"symbolKey": "garbage-key"}, "invalid_key")
    err(served, "call_graph", {"symbolKey": area, "depth": 6}, "invalid_argument")
    err(served, "type_hierarchy", {"symbolKey": shape, "direction": "up"}, "invalid_argument")
