"""`pybridge serve` through the official MCP TypeScript SDK client (tests/ts/client.mjs), over stdio and
streamable HTTP: every tool answers, and every error code reaches the client as an error object.

The TypeScript client validates `structuredContent` against the tool's `outputSchema` even on error results,
which the Python client does not; so this is the test that proves what agent hosts see. Needs `node` and
`npm ci` in tests/ts (scripts/setup runs it); skipped with the reason when `node` is absent.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from pybridge.query import Facade
from pybridge.sync import default_state_dir, sync
from tests.mcp.test_mcp_http import http_serve
from tests.support.mcp_session import NODE, TS, run_ts_client, serve_args, server_env

ROOT = Path(__file__).resolve().parent.parent.parent
TOKEN = "ts-client-token"

# Every error code the scenario provokes; before issue 9 the output schemas did not admit error objects and the
# TypeScript client rejected each of these results with MCP error -32602.
ERROR_CODES = {"invalid_argument", "not_synced", "not_found", "ambiguous", "invalid_key",
                  "stale_key", "stale_snapshot", "invalid_cursor", "stale_cursor", "sync_failed", "stale_base",
                  "rename_refused"}

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed: the TypeScript SDK client cannot run"),
]


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _ok(facade: Facade, tool: str, args: dict) -> dict:
    result, is_error = facade.call(tool, args)
    assert not is_error, result
    return result


@pytest.fixture(scope="module")
def scenario(tmp_path_factory, samples, worker):
    """Six workspaces prepared so that each error code can be provoked, and the calls that provoke them."""
    if not (TS / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("tests/ts/node_modules is missing: run scripts/setup (it runs `npm ci` in tests/ts)")
    base = tmp_path_factory.mktemp("ts")
    home = base / "state-home"
    roots = {name: base / name for name in ("reactor", "resync", "kitchen", "drifted", "fresh", "broken")}
    for name, root in roots.items():
        shutil.copytree(samples / ("reactor" if name in ("reactor", "resync") else "kitchen-sink"), root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        for name in ("reactor", "resync", "kitchen", "drifted", "broken"):
            sync(roots[name], state_dir=default_state_dir(roots[name]), worker=worker)
        facade = Facade([roots["reactor"], roots["kitchen"], roots["drifted"]])
        try:
            greeter = _ok(facade, "find_symbol", {"query": "Greeter", "repo": "reactor"})["symbols"][0]
            greet = _ok(facade, "find_symbol", {"query": "Greeter.greet", "repo": "reactor"})["symbols"][0]
            old_key = _ok(facade, "find_symbol", {"query": "Counter.measure", "repo": "kitchen"})["symbols"][0]
            old_cursor = _ok(facade, "find_symbol", {"query": "add", "repo": "kitchen", "limit": 1})["nextCursor"]
            drift_key = _ok(facade, "find_symbol", {"query": "Counter.count", "repo": "drifted"})["symbols"][0]
        finally:
            facade.close()
        counter = "src/main/java/com/acme/kitchen/Counter.java"
        path = roots["kitchen"] / counter     # rename the method: its old key names a declaration gone
        path.write_text(re.sub(r"\bmeasure\b", "gauge", path.read_text(encoding="utf-8")), encoding="utf-8")
        sync(roots["kitchen"], state_dir=default_state_dir(roots["kitchen"]), worker=worker)
    shape = roots["drifted"] / "src/main/java/com/acme/kitchen/Shape.java"
    shape.write_text(shape.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (roots["broken"] / "pom.xml").write_text("<project>", encoding="utf-8")

    declared = greeter["declaration"]
    greeter_text = (roots["reactor"] / declared["path"]).read_text(encoding="utf-8")
    start = declared["range"]["start"]
    calls = [
        ("sync", "sync", {"repo": "resync"}),  # its own copy: a sync may publish a new generation
        ("status", "status", {"repo": "reactor"}),
        ("find_symbol", "find_symbol", {"query": "Greeter", "repo": "reactor"}),
        ("symbol_at", "symbol_at", {"repo": "reactor", "path": declared["path"], "line": start["line"],
                                    "character": start["character"]}),
        ("find_references", "find_references", {"symbolKey": greeter["symbolKey"]}),
        ("get_callers", "get_callers", {"symbol": "Greeter.greet", "repo": "reactor"}),
        ("findReferences", "findReferences", {"repo": "reactor", "symbol": "Greeter"}),
        ("goToDefinition", "goToDefinition", {"repo": "reactor", "symbol": "Greeter"}),
        ("callHierarchy", "callHierarchy", {"repo": "reactor", "symbol": "Greeter.greet"}),
        ("type_hierarchy", "type_hierarchy", {"symbolKey": greeter["symbolKey"]}),
        ("find_implementations", "find_implementations", {"symbolKey": greeter["symbolKey"]}),
        ("call_graph", "call_graph", {"symbolKey": greet["symbolKey"]}),
        ("outline", "outline", {"repo": "reactor", "path": declared["path"]}),
        ("diagnostics", "diagnostics", {"repo": "reactor"}),
        ("describe", "describe", {"symbolKey": greet["symbolKey"]}),
        ("library_symbol", "find_symbol", {"query": "org.apache.commons.lang3.StringUtils", "repo": "reactor"}),
        ("library_definition", "goToDefinition", {"repo": "reactor", "symbol": "java.lang.String.trim()"}),
        ("check_edit", "check_edit", {"repo": "reactor", "changes": [{"path": declared["path"], "text": greeter_text
                                                                     + "\n// edited\n"}]}),
        ("rename", "rename", {"symbolKey": greeter["symbolKey"], "newName": "Welcomer"}),
        ("invalid_argument", "find_references", {"symbolKey": greeter["symbolKey"], "limit": 501}),
        ("unknown_repo", "status", {"repo": "nowhere"}),
        ("not_synced", "find_symbol", {"query": "Counter", "repo": "fresh"}),
        ("not_found", "goToDefinition", {"repo": "reactor", "symbol": "NoSuchThing"}),
        ("ambiguous", "goToDefinition", {"repo": "kitchen", "symbol": "add"}),
        ("invalid_key", "find_references", {"symbolKey": "AAAAAAAAAAAAAAAAAAAAAA"}),
        ("stale_key", "find_references", {"symbolKey": old_key["symbolKey"]}),
        ("stale_snapshot", "find_references", {"symbolKey": drift_key["symbolKey"]}),
        ("invalid_cursor", "find_references", {"symbolKey": greeter["symbolKey"], "cursor": "garbage"}),
        ("stale_cursor", "find_symbol", {"query": "add", "repo": "kitchen", "limit": 1, "cursor": old_cursor}),
        ("sync_failed", "sync", {"repo": "broken"}),
        ("stale_base", "check_edit", {"repo": "reactor", "base": {declared["path"]: "0" * 64},
                                      "changes": [{"path": declared["path"], "text": greeter_text}]}),
        ("rename_refused", "rename", {"symbolKey": greeter["symbolKey"], "newName": "class"}),
    ]
    return {"roots": roots, "home": home, "calls": [{"label": a, "tool": b, "args": c} for a, b, c in calls],
            "greeter": greeter}


@pytest.fixture(scope="module", params=["stdio", "http"])
def answers(request, scenario) -> dict:
    roots, home = scenario["roots"], scenario["home"]
    # the drifted copy must stay drifted (the live index would catch up)
    env = server_env(home, {"PYBRIDGE_NO_WATCH": "1", "PYBRIDGE_NO_AUTO_SYNC": "1"})    # fresh stays not_synced
    repos = list(roots.values())
    if request.param == "stdio":
        out = run_ts_client({"transport": "stdio", "command": sys.executable, "args": serve_args(repos),
                             "env": env, "cwd": str(ROOT), "calls": scenario["calls"]})
    else:
        with http_serve(serve_args(repos)[3:], {**env, "PYBRIDGE_TOKEN": TOKEN}) as (url, _proc, _line):
            out = run_ts_client({"transport": "http", "url": url, "token": TOKEN, "calls": scenario["calls"]})
    out["byLabel"] = {row["label"]: row for row in out["calls"]}
    out["transport"] = request.param
    return out


SUCCESS = ["sync", "status", "find_symbol", "symbol_at", "find_references", "get_callers", "findReferences",
           "goToDefinition", "callHierarchy", "type_hierarchy", "find_implementations", "call_graph", "outline",
           "diagnostics", "describe", "check_edit", "rename"]


def test_the_client_lists_every_tool(answers):
    assert set(SUCCESS) <= set(answers["tools"])
    assert answers["server"]["name"] == "pybridge"


@pytest.mark.parametrize("label", SUCCESS)
def test_every_tool_answers_and_validates_in_the_typescript_client(answers, label):
    row = answers["byLabel"][label]
    assert row["thrown"] is None, (row["thrown"], row.get("raw"))
    assert row["isError"] is False, row["structuredContent"]
    assert isinstance(row["structuredContent"], dict) and row["text"] == row["structuredContent"]


def test_the_seed_tools_answer_the_typescript_client_in_their_seeds_shapes(answers, scenario):
    """The seed fields by name and type (issue 21): what the client validated against the output
    schemas, which type them, is the seeds' shape (tests/test_seed_*.py replay each seed document)."""
    by_label = {label: answers["byLabel"][label]["structuredContent"] for label in SUCCESS}
    for label, symbol in (("findReferences", "Greeter"), ("callHierarchy", "Greeter.greet"),
                          ("get_callers", "Greeter.greet")):
        assert by_label[label]["symbol"] == symbol                          # echoes the input
    assert by_label["findReferences"]["resolvedSymbol"].startswith("scip-java maven ")
    assert all(set(r) >= {"path", "range"} for r in by_label["findReferences"]["references"])
    calls = by_label["callHierarchy"]["incomingCalls"]
    assert calls and all(isinstance(c["symbol"]["displayName"], str) and set(c["location"]) == {"path", "range"}
                         for c in calls)
    callers = by_label["get_callers"]
    assert {c["repo"] for c in callers["callers"]} == {str(scenario["roots"]["reactor"].resolve())}
    assert isinstance(callers["total"], int) and isinstance(callers["truncated"], bool)
    assert len(by_label["find_references"]["references"]) <= 100 and "meta" in by_label["find_references"]
    assert by_label["check_edit"]["verdict"] == "clean"        # a comment added: nothing moved
    renamed = by_label["rename"]           # a preview: nothing written
    assert renamed["applied"] is False and renamed["check"]["verdict"] == "clean" and renamed["moves"]


def test_library_symbols_reach_the_typescript_client_with_external_origin_and_their_source_view(answers):
    """Issue 26 parts 1-2: the new fields pass the client's output-schema validation."""
    rows = {label: answers["byLabel"][label] for label in ("library_symbol", "library_definition")}
    for row in rows.values():
        assert row["thrown"] is None and row["isError"] is False, (row["thrown"], row["structuredContent"])
    [symbol] = rows["library_symbol"]["structuredContent"]["symbols"]
    assert (symbol["external"], symbol["origin"]) == (True, "org.apache.commons:commons-lang3:3.14.0")
    answer = rows["library_definition"]["structuredContent"]
    assert answer["symbolInfo"]["origin"] == "jdk:java.base"
    [definition] = answer["definitions"]
    assert definition["view"] in ("sources", "class_file") and definition["module"] is None


EXTRA = {"ambiguous": ("candidates", "candidateTotal"), "stale_key": ("replacement",),
         "stale_snapshot": ("changed",), "unknown_repo": ("served",), "stale_base": ("changed",),
         "rename_refused": ("reason", "places", "placesTotal")}


@pytest.mark.parametrize("code", sorted(ERROR_CODES))
def test_every_error_code_reaches_the_typescript_client_as_an_error_object(answers, code):
    row = answers["byLabel"][code]
    assert row["thrown"] is None, f"the client rejected the error result: {row['thrown']}; sent: {row.get('raw')}"
    assert row["isError"] is True
    payload = row["structuredContent"] if row["structuredContent"] is not None else row["text"]
    assert isinstance(payload, dict) and payload["code"] == code and payload["error"], payload
    for field in EXTRA.get(code, ()):
        assert field in payload, (field, payload)
    if code == "ambiguous":
        assert payload["candidateTotal"] >= 2 and {"symbol", "dottedPath", "kind"} <= set(payload["candidates"][0])
    if code == "stale_key":
        assert payload["replacement"], payload
