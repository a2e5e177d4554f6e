"""Library and JDK symbols by name over a real MCP session (issue 26 parts 1-2, DESIGN section 7):
find_symbol and the name tools resolve `java.util.List`, `List.add(E)`,
`StringUtils.isBlank(CharSequence)` and their SCIP symbols, marked `external` with their origin;
the reference tools list every workspace use; goToDefinition reads the JDK's src.zip, a sources jar,
or (none fetched) the class file's signatures, and says which."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.query.library import jdk_library
from pybridge.sync import default_state_dir, sync
from tests.support.mcp_session import checked_call, serve

M2 = Path.home() / ".m2" / "repository"
LANG3_SOURCES = M2 / "org/apache/commons/commons-lang3/3.14.0/commons-lang3-3.14.0-sources.jar"
JUNIT_SOURCES = M2 / "junit/junit/4.13.2/junit-4.13.2-sources.jar"
NAMES = "core/src/main/java/com/acme/core/Names.java"


@pytest.fixture(scope="module")
def served(tmp_path_factory, samples, worker):
    base = tmp_path_factory.mktemp("libnames")
    home = base / "state-home"
    roots = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        for name in ("kitchen-sink", "reactor"):
            roots[name] = base / name
            shutil.copytree(samples / name, roots[name])
        roots["overrides"] = _overrides_project(base / "overrides")
        for root in roots.values():
            sync(root, state_dir=default_state_dir(root), worker=worker)
    env = {"PYBRIDGE_NO_AUTO_SYNC": "1", "PYBRIDGE_FETCH_SOURCES": "0"}   # never download a sources jar
    with serve(list(roots.values()), home, env) as client:
        yield client, roots


POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>demo</groupId><artifactId>overrides</artifactId>"
       "<version>1</version><properties><maven.compiler.release>17</maven.compiler.release></properties></project>")
TASK = """package demo;

public class Task implements Runnable {
    @Override
    public void run() {
    }

    @Override
    public String toString() {
        return "task";
    }

    static Runnable later() {
        return new Runnable() {
            @Override
            public void run() {
            }
        };
    }
}
"""


def _overrides_project(root: Path) -> Path:
    """A workspace whose types implement a JDK interface and override JDK methods."""
    (root / "src/main/java/demo").mkdir(parents=True)
    (root / "pom.xml").write_text(POM, encoding="utf-8")
    (root / "src/main/java/demo/Task.java").write_text(TASK, encoding="utf-8")
    return root


SCHEMAS: dict = {}


def call(client, name, args):
    if not SCHEMAS:
        SCHEMAS.update({t.name: t.output_schema for t in client.list_tools()})
    payload, is_error, _ = checked_call(client, name, args, SCHEMAS)
    return payload, is_error


def ok(client, name, args):
    payload, is_error = call(client, name, args)
    assert not is_error, payload
    return payload


def test_find_symbol_resolves_a_jdk_type_a_jdk_method_and_its_scip_symbol_marked_external_with_the_module(served):
    client, _ = served
    [lst] = ok(client, "find_symbol", {"query": "java.util.List", "repo": "kitchen-sink"})["symbols"]
    assert (lst["kind"], lst["external"], lst["origin"], lst["declaration"]) == ("INTERFACE", True, "jdk:java.base",
                                                                                None)
    [add] = ok(client, "find_symbol", {"query": "List.add(E)", "repo": "kitchen-sink"})["symbols"]
    assert (add["dottedPath"], add["display"], add["symbol"]) == (
        "java.util.List.add", "add(E)", "scip-java maven . . java/util/List#add().")
    [again] = ok(client, "find_symbol", {"query": add["symbol"], "repo": "kitchen-sink"})["symbols"]
    assert again["symbolKey"] == add["symbolKey"]


def test_a_jar_member_by_overload_names_its_maven_coordinates_and_every_use_with_coverage(served):
    client, _ = served
    name = "org.apache.commons.lang3.StringUtils.isBlank(CharSequence)"
    refs = ok(client, "findReferences", {"symbol": name, "repo": "reactor"})
    info = refs["symbolInfo"]
    assert (info["external"], info["origin"], info["kind"]) == (True, "org.apache.commons:commons-lang3:3.14.0",
                                                                 "METHOD")
    assert refs["resolvedSymbol"] == "scip-java maven . . org/apache/commons/lang3/StringUtils#isBlank()."
    assert [(r["path"], r["kind"]) for r in refs["references"]] == [(NAMES, "invocation")]
    assert refs["meta"]["referenceCoverage"] is True and refs["total"] == 1
    exact = ok(client, "find_references", {"symbolKey": info["symbolKey"]})
    assert [(r["path"], r["range"]) for r in exact["references"]] == [
        (r["path"], r["range"]) for r in refs["references"]]
    callers = ok(client, "get_callers", {"symbol": "StringUtils.capitalize", "repo": "reactor"})
    assert [(c["path"], c["caller_fn"]) for c in callers["callers"]] == [
        (NAMES, "com.acme.core.Names.normalize(String)")]
    graph = ok(client, "call_graph", {"symbolKey": info["symbolKey"], "direction": "in"})
    assert any(n.get("dottedPath") == "com.acme.core.Names.normalize" for n in graph["nodes"]), graph


def test_a_name_the_workspace_declares_keeps_meaning_its_own_and_library_overloads_are_ambiguous(served):
    client, _ = served
    greets = ok(client, "find_symbol", {"query": "Greeter.greet", "repo": "kitchen-sink"})["symbols"]
    assert greets and not any(s["external"] for s in greets)
    payload, is_error = call(client, "findReferences", {"symbol": "println", "repo": "kitchen-sink"})
    assert is_error and payload["code"] == "ambiguous"
    assert {c["display"] for c in payload["candidates"]} >= {"java.io.PrintStream.println(String)"}
    one = ok(client, "findReferences", {"symbol": "PrintStream.println(String)", "repo": "kitchen-sink"})
    assert one["symbolInfo"]["origin"] == "jdk:java.base" and one["total"] >= 1


@pytest.mark.skipif(jdk_library() is None or jdk_library().src_zip is None,  # type: ignore[union-attr]
                    reason="the JDK has no lib/src.zip (scripts/setup installs openjdk-17-source)")
def test_go_to_definition_of_list_add_reads_the_jdk_sources_with_javadoc(served):
    client, _ = served
    [d] = ok(client, "goToDefinition", {"symbol": "java.util.List.add(E)", "repo": "kitchen-sink"})["definitions"]
    assert d["view"] == "sources" and d["path"].endswith("java/util/List.java") and "note" not in d
    line = Path(d["path"]).read_text(encoding="utf-8").splitlines()[d["range"]["start"]["line"]]
    assert line[d["range"]["start"]["character"]:d["range"]["end"]["character"]] == "add"
    assert d["context"] == "boolean add(E e);"
    assert d["javadoc"].startswith("/**") and "Appends the specified element" in d["javadoc"]


@pytest.mark.skipif(not LANG3_SOURCES.is_file(), reason=f"needs {LANG3_SOURCES} in the local Maven repository")
def test_go_to_definition_of_a_jar_member_reads_its_sources_jar_with_javadoc(served):
    client, _ = served
    [d] = ok(client, "goToDefinition", {"symbol": "StringUtils.isBlank", "repo": "reactor"})["definitions"]
    assert d["view"] == "sources" and d["path"].endswith("org/apache/commons/lang3/StringUtils.java")
    assert "isBlank(final CharSequence cs)" in d["context"]
    assert "whitespace" in d["javadoc"]


@pytest.mark.skipif(JUNIT_SOURCES.exists(), reason=f"{JUNIT_SOURCES} was fetched: no jar without sources")
def test_go_to_definition_without_a_sources_jar_gives_the_class_file_signature_view_and_says_so(served):
    client, _ = served
    [d] = ok(client, "goToDefinition", {"symbol": "org.junit.Assert.assertTrue(boolean)",
                                        "repo": "reactor"})["definitions"]
    assert d["view"] == "class_file" and d["javadoc"] is None
    assert "signature view" in d["note"] and "never fetched" in d["note"]
    assert d["context"] == "public static void assertTrue(boolean);"
    assert not JUNIT_SOURCES.exists()       # nothing was downloaded


@pytest.mark.skipif(not LANG3_SOURCES.is_file(), reason=f"needs {LANG3_SOURCES} in the local Maven repository")
def test_describe_of_a_jar_member_reads_signature_modifiers_and_javadoc_from_its_sources(served):
    client, _ = served
    [symbol] = ok(client, "find_symbol", {"query": "StringUtils.isBlank", "repo": "reactor"})["symbols"]
    d = ok(client, "describe", {"symbolKey": symbol["symbolKey"]})
    assert d["signature"] == "public static boolean isBlank(final CharSequence cs)"
    assert d["modifiers"] == ["public", "static"] and "whitespace only" in d["javadoc"]
    assert d["symbol"]["display"] == "isBlank(CharSequence)" and d["counts"]["callers"] == 1


def test_a_classpath_class_no_file_uses_is_named_in_the_hint_with_its_origin(served):
    client, _ = served
    answer = ok(client, "find_symbol", {"query": "org.apache.commons.lang3.tuple.Pair", "repo": "reactor"})
    assert answer["symbols"] == [] and "org.apache.commons:commons-lang3:3.14.0" in answer["hint"]
    assert "no file of the workspace uses it" in answer["hint"]


def test_find_implementations_of_a_jdk_interface_and_method_found_by_name_lists_the_workspace_s(served):
    client, _ = served
    [runnable] = ok(client, "find_symbol", {"query": "java.lang.Runnable", "repo": "overrides"})["symbols"]
    types = ok(client, "find_implementations", {"symbolKey": runnable["symbolKey"]})
    assert {i["dottedPath"] for i in types["implementations"]} >= {"demo.Task"}
    assert len(types["implementations"]) == 2            # Task and the anonymous class
    [run] = ok(client, "find_symbol", {"query": "Runnable.run()", "repo": "overrides"})["symbols"]
    assert run["external"] is True and run["origin"] == "jdk:java.base"
    overriders = ok(client, "find_implementations", {"symbolKey": run["symbolKey"]})
    assert len(overriders["implementations"]) == 2
    [to_string] = ok(client, "find_symbol", {"query": "java.lang.Object.toString()", "repo": "overrides"})["symbols"]
    assert [i["dottedPath"] for i in ok(client, "find_implementations", {"symbolKey": to_string["symbolKey"]})[
        "implementations"]] == ["demo.Task.toString"]


@pytest.mark.skipif(jdk_library() is None or jdk_library().src_zip is None,  # type: ignore[union-attr]
                    reason="the JDK has no lib/src.zip (scripts/setup installs openjdk-17-source)")
def test_outline_of_the_library_file_go_to_definition_returned_lists_its_declarations_bounded(served):
    client, _ = served
    [d] = ok(client, "goToDefinition", {"symbol": "java.util.List.add(E)", "repo": "kitchen-sink"})["definitions"]
    out = ok(client, "outline", {"path": d["path"], "repo": "kitchen-sink"})
    assert (out["path"], out["module"], out["scope"]) == (d["path"], "jdk:java.base", "library")
    [root] = out["declarations"]
    assert (root["kind"], root["name"]) == ("INTERFACE", "List") and root["symbolKey"]   # the workspace uses List
    list_type = ok(client, "find_symbol", {"query": "java.util.List", "repo": "kitchen-sink"})["symbols"][0]
    assert root["symbolKey"] == list_type["symbolKey"]
    adds = [c for c in root["children"] if c["name"] == "add"]
    assert [c["signature"] for c in adds] == ["boolean add(E e)", "void add(int index, E element)"]
    assert adds[0]["line"] == d["range"]["start"]["line"] + 1
    add = ok(client, "find_symbol", {"query": "java.util.List.add(E)", "repo": "kitchen-sink"})["symbols"][0]
    assert [c["symbolKey"] for c in adds] == [add["symbolKey"], ""]    # the one the workspace uses has its key
    assert out["total"] == 1 + len(root["children"]) and not out["truncated"]
    few = ok(client, "outline", {"path": d["path"], "repo": "kitchen-sink", "limit": 3})
    assert len(few["declarations"][0]["children"]) == 2 and few["truncated"] and few["total"] == out["total"]


@pytest.mark.skipif(JUNIT_SOURCES.exists(), reason=f"{JUNIT_SOURCES} was fetched: no jar without sources")
def test_outline_of_a_class_file_signature_view_lists_its_members(served):
    client, _ = served
    [d] = ok(client, "goToDefinition", {"symbol": "org.junit.Assert.assertTrue(boolean)",
                                        "repo": "reactor"})["definitions"]
    out = ok(client, "outline", {"path": d["path"], "repo": "reactor"})
    [root] = out["declarations"]
    assert (root["kind"], root["name"], out["module"]) == ("CLASS", "Assert", "junit:junit:4.13.2")
    kinds = {(c["kind"], c["signature"]) for c in root["children"]}
    assert ("METHOD", "public static void assertTrue(boolean)") in kinds
    assert ("CONSTRUCTOR", "protected org.junit.Assert()") in kinds
    [used] = [c for c in root["children"] if c["signature"] == "public static void assertTrue(boolean)"]
    assert used["symbolKey"] and used["line"] == d["range"]["start"]["line"] + 1
