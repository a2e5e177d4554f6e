"""The query tools on the synced samples: exact answers, every error code, coverage."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time

import pytest

from pybridge.query import CODES, TOOL_NAMES, TOOLS, Facade
from tests.support.query_support import ENVELOPE, ROOT, err, facade_for, key_of, ok, start, synced_sample

KS = "dev.pybridge.samples:kitchen-sink"
KS_SCIP = "scip-java maven dev.pybridge.samples/kitchen-sink 1.0 "
COUNTER = "src/main/java/com/acme/kitchen/Counter.java"
KITCHEN = "src/main/java/com/acme/kitchen/Kitchen.java"


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory, worker):
    return synced_sample("kitchen-sink", tmp_path_factory, worker)


@pytest.fixture(scope="module")
def reactor(tmp_path_factory, worker):
    return synced_sample("reactor", tmp_path_factory, worker)


@pytest.fixture(scope="module")
def broken(tmp_path_factory, worker):
    return synced_sample("broken", tmp_path_factory, worker)


@pytest.fixture(scope="module")
def ks(kitchen):
    with facade_for(kitchen) as facade:
        yield facade


@pytest.fixture(scope="module")
def served(kitchen, reactor, broken):
    with facade_for(kitchen, reactor, broken) as facade:
        yield facade


def _line(root, path, line):
    return (root / path).read_text(encoding="utf-8").split("\n")[line]


# discovery -------------------------------------------------------------------------------


def test_status_lists_generation_modules_scopes_counts_and_a_fresh_envelope(ks):
    status = ok(ks, "status", {})
    assert status["synced"] is True and status["generation"] == 1 and status["generations"] == [1]
    assert status["modules"] == [{"module": KS, "groupId": "dev.pybridge.samples",
                                  "artifactId": "kitchen-sink", "version": "1.0", "release": 17,
                                  "encoding": "UTF-8", "scopes": ["main"]}]
    assert status["scopes"] == [{"module": KS, "scope": "main", "files": 12, "bindingComplete": 12,
                                 "failedFiles": 0, "references": 519, "problems": 0,
                                 "limitations": []}]
    assert status["counts"]["files"] == 12 and status["counts"]["bindingCompleteFiles"] == 12
    assert [lim["kind"] for lim in status["limitations"]] == ["reflection_not_tracked"]
    assert ENVELOPE <= status.keys() and status["stale"] is False and status["freshness"] == "fresh"


def test_find_symbol_returns_key_scip_symbol_dotted_path_kind_and_declaration(ks):
    [count] = ok(ks, "find_symbol", {"query": "Counter.count"})["symbols"]
    assert count["symbol"] == KS_SCIP + "com/acme/kitchen/Counter#count."
    assert (count["dottedPath"], count["kind"], count["module"], count["scope"]) == \
        ("com.acme.kitchen.Counter.count", "FIELD", KS, "main")
    assert count["declaration"]["path"] == COUNTER
    assert count["declaration"]["range"] == {"start": {"line": 11, "character": 16},
                                             "end": {"line": 11, "character": 21}}
    assert isinstance(count["symbolKey"], str) and len(count["symbolKey"]) <= 32
    assert set(count["symbolKey"]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_find_symbol_filters_by_kind_module_and_scope(served):
    kinds = [s["kind"] for s in ok(served, "find_symbol", {"repo": "kitchen-sink",
                                                            "query": "Circle"})["symbols"]]
    assert kinds == ["CLASS", "CONSTRUCTOR", "CONSTRUCTOR"]
    [ctor] = ok(served, "find_symbol", {"repo": "kitchen-sink", "query": "Circle",
                                        "kind": "class"})["symbols"]
    assert ctor["kind"] == "CLASS"
    tests = ok(served, "find_symbol", {"repo": "reactor", "query": "NamesTest", "module": "core",
                                       "scope": "test"})
    assert [s["dottedPath"] for s in tests["symbols"]] == ["com.acme.core.NamesTest"]
    none = ok(served, "find_symbol", {"repo": "reactor", "query": "NamesTest", "scope": "main"})
    assert none["symbols"] == [] and none["total"] == 0 and "hint" in none and ENVELOPE <= none.keys()


def test_find_symbol_pages_with_a_cursor(ks):
    first = ok(ks, "find_symbol", {"query": "greet", "limit": 1})
    assert first["total"] == 2 and len(first["symbols"]) == 1
    second = ok(ks, "find_symbol", {"query": "greet", "limit": 1, "cursor": first["nextCursor"]})
    assert "nextCursor" not in second
    assert [s["display"] for s in first["symbols"] + second["symbols"]] == \
        ["greet(String)", "greet(String, int)"]


def test_symbol_at_finds_a_local_and_its_references(ks):
    local = ok(ks, "symbol_at", {"path": COUNTER, "line": 42, "character": 12})["symbol"]
    assert (local["kind"], local["symbol"], local["dottedPath"]) == \
        ("LOCAL", "local 3", "com.acme.kitchen.Counter.step.local")
    assert local["occurrence"]["role"] == "definition"
    refs = ok(ks, "find_references", {"symbolKey": local["symbolKey"]})
    assert [(start(r), r["kind"]) for r in refs["references"]] == [
        ((43, 8), "read_write"), ((44, 8), "read_write"), ((45, 8), "read_write"), ((49, 19), "read")]
    assert refs["meta"]["referenceCoverage"] is True and refs["meta"]["callerCoverage"] is None


def test_symbol_at_counts_characters_in_utf16_after_a_non_bmp_character(ks):
    # `String s = "naïve 😀"; total += größe;`: 😀 is two UTF-16 code units
    field = ok(ks, "symbol_at", {"path": COUNTER, "line": 56, "character": 40})["symbol"]
    assert field["dottedPath"] == "com.acme.kitchen.Counter.größe"
    err(ks, "symbol_at", {"path": COUNTER, "line": 56, "character": 39}, "not_found")


def test_symbol_at_on_new_names_the_constructor_first_then_the_class(ks):
    answer = ok(ks, "symbol_at", {"path": KITCHEN, "line": 37, "character": 24})
    hits = [answer["symbol"], *answer["alternatives"]]
    assert [(h["kind"], h["display"], h["occurrence"]["kind"]) for h in hits] == [
        ("CONSTRUCTOR", "Circle(double)", "construction"), ("CLASS", "Circle", "construction")]


def test_a_library_symbol_has_a_key_and_references_like_any_other(ks):
    add = ok(ks, "symbol_at", {"path": KITCHEN, "line": 37, "character": 15})["symbol"]
    assert add["symbol"] == "scip-java maven . . java/util/List#add()."
    assert add["external"] is True and add["declaration"] is None and add["module"] is None
    refs = ok(ks, "find_references", {"symbolKey": add["symbolKey"]})
    assert [(r["path"].rsplit("/", 1)[-1], start(r), refs["containers"][r["container"]]["name"])
            for r in refs["references"]] == [
        ("Greeter.java", (62, 31), "Greeter.greetAll(List)"), ("Kitchen.java", (37, 15), "Kitchen.shapes()"),
        ("Kitchen.java", (38, 15), "Kitchen.shapes()"), ("Kitchen.java", (39, 15), "Kitchen.shapes()"),
        ("Kitchen.java", (40, 15), "Kitchen.shapes()")]
    assert refs["meta"]["total"] == 5


# find_references ---------------------------------------------------------------------------


def test_references_to_counter_count_have_exact_kinds_containers_and_context(ks, kitchen):
    root, _ = kitchen
    result = ok(ks, "find_references", {"symbolKey": key_of(ks, "Counter.count")})
    refs = result["references"]
    containers = result["containers"]
    assert [(start(r), r["kind"], containers[r["container"]]["name"]) for r in refs] == [
        ((16, 8), "read_write", "Counter.add(int)"), ((39, 8), "read_write", "Counter.step(int)"),
        ((40, 8), "read_write", "Counter.step(int)"), ((41, 10), "read_write", "Counter.step(int)"),
        ((42, 20), "read", "Counter.step(int)"), ((61, 15), "read", "Counter.getCount()")]
    assert _line(root, COUNTER, 16) == "        count += n;" and refs[0]["context"] == "count += n;"
    # the module and scope every row has are said once; the flags appear when true
    assert result["shared"] == {"module": KS, "scope": "main"}
    assert all(r["path"] == COUNTER and not {"module", "scope", "javadoc", "import"} & r.keys() for r in refs)
    add = ok(ks, "describe", {"symbolKey": containers[refs[0]["container"]]["symbolKey"]})
    assert add["symbol"]["dottedPath"] == "com.acme.kitchen.Counter.add"
    assert set(containers[0]) == {"symbolKey", "name"}
    assert len(containers) == 3   # add, step, getCount: each once, however many rows name it
    meta = result["meta"]
    assert (meta["generation"], meta["total"], meta["referenceCoverage"], meta["callerCoverage"]) == \
        (1, 6, True, None)
    assert meta["coverageBlockers"] == {"count": 0, "places": []}
    assert "reflection_not_tracked" in [lim["kind"] for lim in meta["limitations"]]
    assert "nextCursor" not in result and ENVELOPE <= result.keys()
    assert result["symbol"]["dottedPath"] == "com.acme.kitchen.Counter.count"


def test_references_report_relations_in_both_directions(ks):
    name = ok(ks, "find_references", {"symbolKey": key_of(ks, "Circle.name")})
    assert [r["dottedPath"] for r in name["relations"]["overrides"]] == [
        "com.acme.kitchen.BaseShape.name", "com.acme.kitchen.Shape.name"]
    area = ok(ks, "find_references", {"symbolKey": key_of(ks, "Shape.area")})
    assert [r["dottedPath"] for r in area["relations"]["overriddenBy"]] == [
        "com.acme.kitchen.Circle.area", "com.acme.kitchen.Kitchen.shapes.<anonymous>.area"]
    base = ok(ks, "find_references", {"symbolKey": key_of(ks, "BaseShape", kind="CLASS")})
    assert [r["dottedPath"] for r in base["relations"]["implements"]] == ["com.acme.kitchen.Shape"]
    assert "com.acme.kitchen.Circle" in [r["dottedPath"] for r in base["relations"]["extendedBy"]]


def test_zero_references_keep_the_whole_answer_and_prove_absence(ks):
    result = ok(ks, "find_references", {"symbolKey": key_of(ks, "Circle.name")})
    assert result["references"] == [] and result["meta"]["total"] == 0
    assert result["meta"]["referenceCoverage"] is True and result["meta"]["callerCoverage"] is True
    assert ENVELOPE <= result.keys() and result["symbol"]["kind"] == "METHOD"


def test_a_syntax_error_blocks_the_names_in_the_member_it_damaged_and_names_each_place(served):
    twice = ok(served, "find_references", {"symbolKey": key_of(served, "Helper.twice", "broken")})
    meta = twice["meta"]
    assert meta["referenceCoverage"] is False and meta["callerCoverage"] is False
    assert meta["coverageBlockers"] == {"count": 1, "places": [{
        "path": "src/main/java/com/acme/broken/Syntax.java", "line": 12, "column": 24,
        "name": "twice", "reason": "`twice` here is in code that a syntax error damaged"}]}
    assert "classpath_unresolved" in [lim["kind"] for lim in meta["limitations"]]
    # the same file's other members, untouched by the error, keep their certificates
    after = ok(served, "find_references", {"symbolKey": key_of(served, "Syntax.after", "broken")})
    assert after["references"] == [] and after["meta"]["referenceCoverage"] is True


def test_a_member_called_through_an_unresolved_type_blocks_only_its_own_name(served):
    unresolved = ok(served, "find_references", {"symbolKey": key_of(served, "Helper.describe", "broken")})
    assert unresolved["meta"]["referenceCoverage"] is True     # every `describe` token is bound
    places = ok(served, "find_references", {"symbolKey": key_of(served, "MissingDep.haunt", "broken")})
    assert places["meta"]["referenceCoverage"] is True         # `boo` and `Ghost` block other names


def test_find_references_filters_by_module_and_scope(served):
    key = key_of(served, "com.acme.core.Greeter", "reactor")
    whole = ok(served, "find_references", {"symbolKey": key})
    everywhere = whole["references"]
    # a row names its module and scope only where they differ from the page's `shared` ones
    modules = [r.get("module", whole["shared"]["module"]) for r in everywhere]
    assert len(set(modules)) == 2 and modules.count(whole["shared"]["module"]) >= len(modules) / 2
    assert all(r["module"] != whole["shared"]["module"] for r in everywhere if "module" in r)
    service = ok(served, "find_references", {"symbolKey": key, "module": "service"})
    assert service["shared"]["module"] == "dev.pybridge.samples:service"
    assert not any("module" in r for r in service["references"])
    assert service["meta"]["total"] == len(service["references"]) < len(everywhere)
    tests = ok(served, "find_references", {"symbolKey": key, "scope": "test"})
    assert tests["references"] and tests["shared"]["scope"] == "test"
    assert not any("scope" in r for r in tests["references"])
    err(served, "find_references", {"symbolKey": key, "module": "nope"}, "invalid_argument")


def test_find_references_filters_by_kind_javadoc_and_imports_and_counts_what_it_keeps(ks):
    for query in ("Shape.describe", "Shape"):
        key = key_of(ks, query, kind="METHOD" if "." in query else "INTERFACE")
        everything = ok(ks, "find_references", {"symbolKey": key})
        rows = everything["references"]
        assert everything["meta"]["total"] == len(rows)
        for args, keep in (({"include_imports": False}, lambda r: not r.get("import", False)),
                           ({"include_javadoc": False}, lambda r: not r.get("javadoc", False)),
                           ({"kinds": ["invocation"]}, lambda r: r["kind"] == "invocation"),
                           ({"kinds": ["type_use", "read"], "include_imports": False, "include_javadoc": False},
                            lambda r: r["kind"] in ("type_use", "read") and "import" not in r and "javadoc" not in r)):
            page = ok(ks, "find_references", {"symbolKey": key, **args})
            assert [(r["path"], start(r), r["kind"]) for r in page["references"]] == \
                [(r["path"], start(r), r["kind"]) for r in rows if keep(r)], (query, args)
            assert page["meta"]["total"] == len(page["references"]), (query, args)
    describe = ok(ks, "find_references", {"symbolKey": key_of(ks, "Shape.describe")})["references"]
    assert any(r.get("javadoc", False) for r in describe)       # the filters above did leave something out
    err(ks, "find_references", {"symbolKey": key, "kinds": ["call"]}, "invalid_argument")
    err(ks, "find_references", {"symbolKey": key, "kinds": []}, "invalid_argument")


def test_a_find_references_page_holds_its_limit_whatever_its_bytes_and_name_tools_cut_only_a_default(ks):
    """find_references pages (seed 001) hold `limit` references, exactly: no byte bound cuts them
    (before issue 21 a default page was cut at 32 KB: 78 rows on StringUtils). The name tools cut an
    answer given no limit by bytes, and say so (`truncated`); a limit given is honoured."""
    from pybridge.query import view

    key = key_of(ks, "Counter.count")
    original = view.ANSWER_BUDGET
    try:
        view.ANSWER_BUDGET = view.size(ok(ks, "find_references", {"symbolKey": key, "limit": 2}))
        default = ok(ks, "find_references", {"symbolKey": key})
        assert len(default["references"]) == 6 == default["meta"]["total"] and "nextCursor" not in default
        two = ok(ks, "find_references", {"symbolKey": key, "limit": 2})
        assert len(two["references"]) == 2 and two["nextCursor"]
        rest = ok(ks, "find_references", {"symbolKey": key, "limit": 2, "cursor": two["nextCursor"]})
        assert [start(r) for r in two["references"] + rest["references"]] == \
            [start(r) for r in default["references"]][:4]
        named = ok(ks, "findReferences", {"symbol": "Counter.count"})
        assert named["truncated"] is True and len(named["references"]) < 7 and named["total"] == 7
        given = ok(ks, "findReferences", {"symbol": "Counter.count", "limit": 100})   # a limit given is honoured
        assert len(given["references"]) == 7 and given["truncated"] is False
    finally:
        view.ANSWER_BUDGET = original


def test_a_row_shows_its_source_line_without_indentation_and_cut_around_the_reference():
    from pybridge.query.source import SNIPPET_MAX, snippet

    assert snippet("        count += n;\t", 8) == "count += n;" and snippet(None) is None
    line = "    x = " + "a" * 200 + ".call(y);"
    cut = snippet(line, line.index("call"))
    assert cut.startswith("…") and cut.endswith("call(y);") and len(cut) == SNIPPET_MAX + 1
    head = snippet(line, 4)
    assert head.startswith("x = aaa") and head.endswith("…") and len(head) == SNIPPET_MAX + 1
    wide = "😀" * 150 + " target();"          # UTF-16 positions: each emoji is two units
    assert snippet(wide, 301).endswith("target();")


def test_relation_lists_are_cut_and_counted(ks):
    from pybridge.query.tools_exact import relations
    from pybridge.query.view import viewing

    ws = ks.spaces.served[0]
    with viewing(ws) as v:
        [decl] = v.r.declarations(dotted="com.acme.kitchen.Shape.area")
        full = relations(v, decl.symbol_id)
        cut = relations(v, decl.symbol_id, shown=1)
    assert len(full["overriddenBy"]) == 2 and "totals" not in full
    assert cut["overriddenBy"] == full["overriddenBy"][:1]
    assert cut["totals"] == {"overriddenBy": 2}


# name tools --------------------------------------------------------------------------------


def test_find_references_by_name_includes_the_definition(ks):
    result = ok(ks, "findReferences", {"repo": "kitchen-sink", "symbol": "Counter.count"})
    assert [(start(r), r["kind"]) for r in result["references"]][:2] == [
        ((11, 16), "definition"), ((16, 8), "read_write")]
    assert result["total"] == 7 and result["truncated"] is False
    # seed 000: `symbol` echoes the name asked, `resolvedSymbol` is the SCIP symbol it resolved to
    assert result["symbol"] == "Counter.count"
    assert result["resolvedSymbol"] == KS_SCIP + "com/acme/kitchen/Counter#count." == result["symbolInfo"]["symbol"]
    assert result["symbolInfo"]["dottedPath"] == "com.acme.kitchen.Counter.count"
    # rows name their container in place (a seed tool's rows point into no table)
    assert result["references"][0]["container"] is None and "containers" not in result
    assert result["references"][1]["container"]["name"] == "Counter.add(int)"
    assert result["references"][1]["context"] == "count += n;"
    exact = ok(ks, "findReferences", {"repo": "kitchen-sink", "symbol": KS_SCIP + "com/acme/kitchen/Counter#count."})
    assert "resolvedSymbol" not in exact and exact["total"] == 7
    assert exact["symbol"] == KS_SCIP + "com/acme/kitchen/Counter#count."
    dotted = ok(ks, "findReferences", {"symbol": "com.acme.kitchen.Counter.count"})   # not the SCIP string
    assert dotted["resolvedSymbol"] == KS_SCIP + "com/acme/kitchen/Counter#count."


def test_go_to_definition_of_an_overload_lands_on_its_name(ks, kitchen):
    root, _ = kitchen
    result = ok(ks, "goToDefinition", {"repo": "kitchen-sink", "symbol": "Greeter.greet(String)"})
    [site] = result["definitions"]
    assert site["path"] == "src/main/java/com/acme/kitchen/Greeter.java"
    assert site["range"] == {"start": {"line": 14, "character": 18}, "end": {"line": 14, "character": 23}}
    assert site["context"] == "public String greet(String name) {" == _line(root, site["path"], 14).strip()
    assert result["symbol"] == "Greeter.greet(String)"
    assert result["resolvedSymbol"] == KS_SCIP + "com/acme/kitchen/Greeter#greet()."
    assert result["symbolInfo"]["symbol"] == KS_SCIP + "com/acme/kitchen/Greeter#greet()."
    assert result["symbolInfo"]["display"] == "greet(String)"


@pytest.mark.parametrize("name, dotted, display", [
    ("Greeter.greet(String, int)", "com.acme.kitchen.Greeter.greet", "greet(String, int)"),
    ("greet(java.lang.String,int)", "com.acme.kitchen.Greeter.greet", "greet(String, int)"),
    ("Box(T)", "com.acme.kitchen.Box.Box", "Box(T)"),
    ("sum(int...)", "com.acme.kitchen.Counter.sum", "sum(int...)"),
    ("sum(int[])", "com.acme.kitchen.Counter.sum", "sum(int...)"),
    ("Circle", "com.acme.kitchen.Circle", "Circle"),
    ("Greeter$Config", "com.acme.kitchen.Greeter.Config", "Config"),
    ("Greeter#start", "com.acme.kitchen.Greeter.start", "start(String)"),
    ("src/main/java/com/acme/kitchen/Greeter.java#greet(String)", "com.acme.kitchen.Greeter.greet",
     "greet(String)"),
    ("src/main/java/com/acme/kitchen/Greeter.java", "com.acme.kitchen.Greeter", "Greeter"),
    ("kitchen/Counter.java#count", "com.acme.kitchen.Counter.count", "count"),
    ("com/acme/kitchen/Greeter#greet(+1).", "com.acme.kitchen.Greeter.greet", "greet(String, int)"),
    (KS_SCIP + "com/acme/kitchen/Counter#count.", "com.acme.kitchen.Counter.count", "count"),
    ("scip-java maven . . com/acme/kitchen/Counter#count.", "com.acme.kitchen.Counter.count", "count"),
    ("größe", "com.acme.kitchen.Counter.größe", "größe"),
])
def test_names_resolve_in_every_form(ks, name, dotted, display):
    symbol = ok(ks, "goToDefinition", {"symbol": name})["symbolInfo"]
    assert (symbol["dottedPath"], symbol["display"]) == (dotted, display)


def test_an_ambiguous_name_lists_candidates_and_their_total(ks):
    result = err(ks, "findReferences", {"repo": "kitchen-sink", "symbol": "greet"}, "ambiguous")
    assert result["candidateTotal"] == 2
    assert [(c["symbol"], c["dottedPath"], c["kind"]) for c in result["candidates"]] == [
        (KS_SCIP + "com/acme/kitchen/Greeter#greet().", "com.acme.kitchen.Greeter.greet", "METHOD"),
        (KS_SCIP + "com/acme/kitchen/Greeter#greet(+1).", "com.acme.kitchen.Greeter.greet", "METHOD")]
    assert [c["display"] for c in result["candidates"]] == [
        "com.acme.kitchen.Greeter.greet(String)", "com.acme.kitchen.Greeter.greet(String, int)"]


def test_no_match_is_not_found_never_an_empty_list(ks):
    for tool in ("findReferences", "goToDefinition", "callHierarchy", "get_callers"):
        err(ks, tool, {"symbol": "NoSuchThing"}, "not_found")
    err(ks, "goToDefinition", {"symbol": "local 3"}, "not_found")
    err(ks, "goToDefinition", {"symbol": "no such thing"}, "invalid_argument")


def test_call_hierarchy_lists_incoming_and_outgoing_calls_with_their_sites(ks):
    result = ok(ks, "callHierarchy", {"repo": "kitchen-sink", "symbol": "Kitchen.counting"})
    assert result["symbol"] == "Kitchen.counting" and "symbols" not in result
    assert result["resolvedSymbol"] == KS_SCIP + "com/acme/kitchen/Kitchen#counting()."
    [main] = result["incomingCalls"]
    assert main["symbol"] == {"symbol": KS_SCIP + "com/acme/kitchen/Kitchen#main().", "displayName": "main",
                              "kind": "METHOD", "symbolKey": main["symbol"]["symbolKey"],
                              "dottedPath": "com.acme.kitchen.Kitchen.main", "display": "main(String[])"}
    assert main["location"] == {"path": KITCHEN, "range": {"start": {"line": 29, "character": 27},
                                                           "end": {"line": 29, "character": 35}}}
    assert main["kind"] == "invocation"
    out = [(c["symbol"]["dottedPath"], c["symbol"]["display"], start(c["location"]), c["kind"])
           for c in result["outgoingCalls"]]
    assert ("com.acme.kitchen.Counter.add", "add(int)", (75, 16), "invocation") in out
    assert ("com.acme.kitchen.Counter.add", "add(int, int)", (76, 16), "invocation") in out
    assert ("com.acme.kitchen.Counter", "Counter", (74, 30), "construction") in out  # default ctor
    assert result["outgoingCalls"][1]["context"] == "counter.add(5);"
    assert result["incomingTotal"] == 1 and result["truncated"] is False


def test_call_hierarchy_names_the_constructor_as_callee_of_new(ks):
    result = ok(ks, "callHierarchy", {"symbol": "Kitchen.shapes"})
    at_38 = [(c["symbol"]["displayName"], c["symbol"]["kind"], c["symbol"]["display"])
             for c in result["outgoingCalls"] if start(c["location"]) == (37, 23)]
    assert at_38 == [("Circle", "CONSTRUCTOR", "Circle(double)")]


def test_call_queries_leave_javadoc_mentions_out(ks):
    # Shape's Javadoc says {@link Shape#describe()}; Kitchen.main calls it once
    callers = ok(ks, "get_callers", {"symbol": "Shape.describe"})
    assert [(c["path"].rsplit("/", 1)[-1], c["line"]) for c in callers["callers"]] == [("Kitchen.java", 26)]
    everything = ok(ks, "findReferences", {"symbol": "Shape.describe"})["references"]
    assert any(r.get("javadoc", False) for r in everything)


def test_get_callers_searches_across_modules_with_editor_positions(served, reactor):
    root, _ = reactor
    result = ok(served, "get_callers", {"symbol": "com.acme.core.Greeter.greet"})
    app_test = "app/src/test/java/com/acme/app/AppTest.java"
    service = "service/src/main/java/com/acme/service/GreetingService.java"
    app_line, service_line = _line(root, app_test, 30), _line(root, service, 20)
    # seed 002: `repo` is the workspace root; pybridge's slug stands beside it
    assert result["callers"] == [
        {"path": app_test, "line": 31, "column": app_line.index("greet(null)") + 1,
         "caller_fn": "com.acme.app.AppTest.coreGreeterThroughService()", "repo": str(root),
         "snippet": app_line.strip(), "slug": "reactor"},
        {"path": service, "line": 21, "column": service_line.index("greet(name)") + 1,
         "caller_fn": "com.acme.service.GreetingService.welcome(String)", "repo": str(root),
         "snippet": "return new Message(greeter.greet(name));", "slug": "reactor"}]
    assert result["symbol"] == "com.acme.core.Greeter.greet" and result["total"] == 2
    assert result["truncated"] is False
    assert ENVELOPE <= result.keys() and [(w["repo"], w["slug"]) for w in result["workspaces"]] == [
        (str(root), "reactor")]
    main_only = ok(served, "get_callers", {"symbol": "com.acme.core.Greeter.greet",
                                           "include_tests": False, "repo": "reactor"})
    assert [c["path"] for c in main_only["callers"]] == [service]
    anywhere = err(served, "get_callers", {"symbol": "greet"}, "ambiguous")
    assert anywhere["candidateTotal"] == 4
    assert [c["repo"] for c in anywhere["candidates"]] == ["kitchen-sink", "kitchen-sink", "reactor",
                                                           "reactor"]
    one = ok(served, "get_callers", {"symbol": "com.acme.core.Greeter.greet", "max_results": 1})
    assert len(one["callers"]) == 1 and one["total"] == 2 and one["truncated"] is True


def test_get_callers_names_the_calling_function_with_its_parameters(ks):
    result = ok(ks, "get_callers", {"symbol": "Greeter.greet(String)"})
    assert [(c["line"], c["caller_fn"]) for c in result["callers"]] == [
        (23, "com.acme.kitchen.Greeter.greet(String, int)"),
        (47, "com.acme.kitchen.Greeter.Session.open()"),
        (63, "com.acme.kitchen.Greeter.greetAll(List)"),
        (68, "com.acme.kitchen.Kitchen.methodReferences()")]


# errors --------------------------------------------------------------------------------------


def test_repos_are_named_by_slug_or_root_path_and_unknown_ones_are_listed(served, reactor):
    root, _ = reactor
    assert ok(served, "status", {"repo": str(root)})["repo"] == "reactor"
    assert ok(served, "status", {"repo": str(root) + "/"})["repo"] == "reactor"
    result = err(served, "status", {"repo": "nope"}, "unknown_repo")
    assert result["served"] == ["kitchen-sink", "reactor", "broken"]
    every = ok(served, "status", {})
    assert [w["repo"] for w in every["workspaces"]] == ["kitchen-sink", "reactor", "broken"]
    assert ENVELOPE <= every.keys() and every["commit"] is None
    err(served, "find_symbol", {"query": "Greeter"}, "invalid_argument")


def test_slugs_are_made_unique_among_served_workspaces(tmp_path):
    (tmp_path / "a" / "core").mkdir(parents=True)
    (tmp_path / "b" / "core").mkdir(parents=True)
    with Facade([tmp_path / "a" / "core", tmp_path / "b" / "core"],
                {tmp_path / "a" / "core": tmp_path / "s1", tmp_path / "b" / "core": tmp_path / "s2"}) as f:
        assert ok(f, "status", {"repo": "core-2"})["root"] == str(tmp_path / "b" / "core")


def test_a_never_synced_workspace_has_a_status_and_refuses_queries(tmp_path):
    root = tmp_path / "fresh"
    shutil.copytree(ROOT / "samples" / "kitchen-sink", root)
    with Facade([root], {root: tmp_path / "state"}) as f:
        status = ok(f, "status", {})
        assert status["synced"] is False and status["generation"] is None and "sync" in status["hint"]
        assert status["stale"] is True and ENVELOPE <= status.keys()
        for tool, args in (("find_symbol", {"query": "Counter"}), ("findReferences", {"symbol": "x"}),
                           ("get_callers", {"symbol": "x"})):
            err(f, tool, args, "not_synced")
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize("tool, args, field", [
    ("find_symbol", {}, "query"),
    ("find_symbol", {"query": "x", "limit": 0}, "limit"),
    ("find_symbol", {"query": "x", "limit": 501}, "limit"),
    ("find_symbol", {"query": "x", "limit": "10"}, "limit"),
    ("find_symbol", {"query": "x", "kind": "LOCAL"}, "kind"),
    ("find_symbol", {"query": "x", "surprise": 1}, "surprise"),
    ("find_references", {"symbolKey": "k", "limit": 10**30}, "limit"),
    ("get_callers", {"symbol": "x", "include_tests": "yes"}, "include_tests"),
    ("symbol_at", {"path": COUNTER, "line": -1, "character": 0}, "line"),
    ("symbol_at", {"path": COUNTER, "line": 65, "character": 0}, "line"),
    ("symbol_at", {"path": COUNTER, "line": 16, "character": 20}, "character"),
    ("symbol_at", {"path": COUNTER, "line": 10**20, "character": 0}, "line"),
    ("symbol_at", {"path": "/etc/passwd", "line": 0, "character": 0}, "path"),
    ("symbol_at", {"path": "../reactor/pom.xml", "line": 0, "character": 0}, "path"),
])
def test_invalid_arguments_name_the_field(ks, tool, args, field):
    assert err(ks, tool, args, "invalid_argument")["field"] == field


def test_position_errors_name_the_valid_range(ks):
    lines = err(ks, "symbol_at", {"path": COUNTER, "line": 99, "character": 0}, "invalid_argument")
    assert "from 0 to 64" in lines["error"]
    chars = err(ks, "symbol_at", {"path": COUNTER, "line": 16, "character": 99}, "invalid_argument")
    assert "from 0 to 19" in chars["error"]
    err(ks, "symbol_at", {"path": "src/main/java/Nope.java", "line": 0, "character": 0}, "not_found")


def test_malformed_calls_are_errors_not_exceptions(ks):
    assert err(ks, "nope", {}, "invalid_argument")["field"] == "tool"
    err(ks, "find_symbol", ["query"], "invalid_argument")
    err(ks, "find_symbol", {"query": "\ud800"}, "invalid_argument")
    err(ks, None, None, "invalid_argument")


def test_forged_garbled_and_truncated_keys_are_invalid(ks):
    key = key_of(ks, "Counter.count")
    flipped = key[:-3] + ("A" if key[-3] != "A" else "B") + key[-2:]
    for bad in ("garbage", key[:-2], flipped, key + "A", "!" * 20, "AQ", key.upper()):
        err(ks, "find_references", {"symbolKey": bad}, "invalid_key")


def test_cursors_are_bound_to_their_arguments(ks):
    key = key_of(ks, "Counter.count")
    page = ok(ks, "find_references", {"symbolKey": key, "limit": 2})
    cursor = page["nextCursor"]
    assert ok(ks, "find_references", {"symbolKey": key, "limit": 2, "cursor": cursor}) == \
        ok(ks, "find_references", {"symbolKey": key, "limit": 2, "cursor": cursor})
    err(ks, "find_references", {"symbolKey": key, "limit": 3, "cursor": cursor}, "invalid_cursor")
    err(ks, "find_references", {"symbolKey": key, "limit": 2, "cursor": cursor[:-4]}, "invalid_cursor")
    other = ok(ks, "find_symbol", {"query": "greet", "limit": 1})["nextCursor"]
    err(ks, "find_references", {"symbolKey": key, "limit": 2, "cursor": other}, "invalid_cursor")
    err(ks, "find_symbol", {"query": "greet", "limit": 1, "cursor": cursor}, "invalid_cursor")


def test_every_tool_has_an_argument_model_with_described_fields():
    assert set(TOOLS) == set(TOOL_NAMES)
    for name, t in TOOLS.items():
        assert t.description and t.result is not None, name
        schema = t.args.model_json_schema()
        assert schema.get("additionalProperties") is False, name
        for field, spec in schema["properties"].items():
            assert spec.get("description"), (name, field)


def test_the_query_layer_imports_no_jpype_mcp_or_cli():
    code = ("import sys, pybridge.query; bad = [m for m in sys.modules if m == 'jpype' or "
            "m.startswith(('jpype.', 'pybridge.mcp', 'pybridge.cli', 'mcp'))]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_answers_are_json_with_known_error_codes(served):
    for tool in TOOL_NAMES:
        result, is_error = served.call(tool, {"repo": "kitchen-sink", "bogus": True})
        assert is_error and result["code"] in CODES
        json.dumps(result, ensure_ascii=False).encode("utf-8")


def test_find_references_latency_over_every_symbol_of_the_kitchen_sink(ks, capsys):
    from pybridge.query import keys

    ws = ks.spaces.served[0]
    with ws.reader() as r:      # every symbol the generation knows, library ones included
        infos = r.symbols(range(1, 10_000))
    tokens = [keys.make_key(ws.secret(), i, info.key) for i, info in sorted(infos.items())]
    assert key_of(ks, "Counter.count") in tokens
    times = []
    for token in tokens:
        t = time.perf_counter()
        ok(ks, "find_references", {"symbolKey": token})
        times.append(time.perf_counter() - t)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    with capsys.disabled():
        print(f"\nfind_references over {len(times)} kitchen-sink symbols: "
              f"p50 {statistics.median(times) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms")
