"""Every tool through a real MCP client session (the SDK's client over stdio) against `pybridge serve`."""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import time

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from pybridge.conventions import SHARED_ARGUMENTS
from pybridge.mcp import transport
from pybridge.mcp.server import INSTRUCTIONS
from pybridge.mcp.transport import run_stdio
from pybridge.query import TOOL_NAMES, Facade
from pybridge.query.keys import load_secret, make_key
from pybridge.query.library import described, display_of, implicit
from pybridge.store import SymbolInfo
from pybridge.sync import default_state_dir, sync
from pybridge.sync.state import store_location
from tests.mcp.test_handshake import initialize
from tests.query.test_query_paging import _write_project
from tests.support.mcp_session import checked_call, serve

ENVELOPE = {"commit", "generated_at", "stale", "freshness", "checked_at"}
CODES = {"invalid_argument", "unknown_repo", "not_synced", "not_found", "ambiguous", "invalid_key", "stale_key",
         "stale_snapshot", "invalid_cursor", "stale_cursor", "sync_failed", "indexing"}


@pytest.fixture(scope="module")
def served(tmp_path_factory, samples, worker):
    """One server over five workspaces: kitchen-sink, reactor, broken and many (synced), fresh (never synced)."""
    base = tmp_path_factory.mktemp("mcp")
    home = base / "state-home"
    roots = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        for name in ("kitchen-sink", "reactor", "broken"):
            roots[name] = base / name
            shutil.copytree(samples / name, roots[name])
        roots["many"] = base / "many"
        _write_project(roots["many"])
        for name, root in roots.items():
            sync(root, state_dir=default_state_dir(root), worker=worker, allow_online=name != "broken")
        roots["fresh"] = base / "fresh"
        shutil.copytree(samples / "kitchen-sink", roots["fresh"])
    with serve(list(roots.values()), home, {"PYBRIDGE_NO_AUTO_SYNC": "1"}) as client:     # fresh stays not_synced
        yield client, roots


SCHEMAS: dict = {}


def call(client, name, args):
    if not SCHEMAS:
        SCHEMAS.update({t.name: t.output_schema for t in client.list_tools()})
    payload, is_error, _text = checked_call(client, name, args, SCHEMAS)
    return payload, is_error


def ok(client, name, args):
    payload, is_error = call(client, name, args)
    assert not is_error, payload
    return payload


def err(client, name, args, code):
    payload, is_error = call(client, name, args)
    assert is_error, payload
    assert payload["code"] == code, payload
    assert payload["error"]
    return payload


def key(client, query, repo="kitchen-sink", **extra):
    [symbol] = ok(client, "find_symbol", {"query": query, "repo": repo, **extra})["symbols"]
    return symbol["symbolKey"]


def test_the_server_lists_every_tool_with_a_description_and_input_and_output_schemas(served):
    client, _ = served
    tools = {t.name: t for t in client.list_tools()}
    assert set(tools) == {"sync", "status", "find_symbol", "symbol_at", "find_references", "get_callers",
                          "findReferences", "goToDefinition", "callHierarchy", "type_hierarchy",
                          "find_implementations", "call_graph", "outline", "diagnostics", "describe",
                          "check_edit", "rename"}
    for tool in tools.values():
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.input_schema.get("type") == "object" and tool.input_schema.get("properties") is not None
        assert tool.output_schema and tool.output_schema.get("type") == "object", tool.name
        for name, prop in tool.input_schema["properties"].items():   # a shared one: in the instructions
            assert prop.get("description") or f"`{name}`: {SHARED_ARGUMENTS[name]}" in INSTRUCTIONS, \
                f"{tool.name}.{name} has no description"


def test_tools_list_fits_the_budget_and_the_shared_rules_are_said_once_in_the_instructions(served):
    client, _ = served
    listing = client.portal.call(client.session.list_tools)
    size = len(listing.model_dump_json(by_alias=True, exclude_none=True).encode("utf-8"))
    # The ceiling is 16 KB for the whole listing. Fifteen tools take 13,208 bytes (16,364 before the
    # shared arguments were described once, in the instructions, and the output schemas of the tools
    # without a seed shrank to the error object: hosts hand models the descriptions and input schemas,
    # not the output schemas). That leaves about 3 KB for the three tools coming (check_edit, rename,
    # read_source: about 1 KB each). A tool that does not fit shares more (pybridge.conventions).
    assert size <= 16 * 1024, f"tools/list is {size} bytes, over the 16 KB budget"
    descriptions = [t.description for t in listing.tools]
    assert not any("stale_key" in d or "0-based" in d and "1-based" in d for d in descriptions)
    assert "1-based" in INSTRUCTIONS and "0-based" in INSTRUCTIONS and "`stale_key`" in INSTRUCTIONS


def test_every_error_object_validates_against_the_output_schema_of_every_tool(served):
    import jsonschema

    client, _ = served
    schemas = {t.name: t.output_schema for t in client.list_tools()}
    errors = [
        {"error": "x.", "code": "ambiguous", "candidates": [{"symbol": "s", "dottedPath": "a.b", "kind": "METHOD",
                                                            "display": "a.b()", "path": "A.java", "line": 3,
                                                            "repo": "r"}], "candidateTotal": 30},
        {"error": "x.", "code": "stale_key", "replacement": None, "hint": "repeat discovery"},
        {"error": "x.", "code": "stale_key", "replacement": "AAAA", "hint": "repeat discovery"},
        {"error": "x.", "code": "stale_snapshot", "changed": ["a/B.java"], "hint": "call sync"},
        {"error": "x.", "code": "unknown_repo", "served": ["a", "b"]},
        {"error": "x.", "code": "invalid_argument", "field": "limit"},
        {"error": "x.", "code": "sync_failed", "cause": "crashed"},
        {"error": "x.", "code": "indexing", "filesDone": 3, "filesTotal": 9, "etaSeconds": None, "phase": "index"},
        {"error": "x.", "code": "not_synced", "syncError": {"error": "y.", "code": "sync_failed"}},
    ]
    for schema in schemas.values():
        for error in errors:
            jsonschema.validate(error, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"error": 1, "code": "x"}, schema)
        if schema.get("anyOf"):     # neither an answer nor an error
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate({"unrelated": 1}, schema)


def test_the_seed_tools_output_schemas_type_the_seed_fields_and_refuse_the_old_shapes(served):
    """Issue 21: the output schemas of the seed tools check the fields the seeds show by name and type
    (before, they named a few required fields and typed none, so these old answers passed)."""
    import jsonschema

    client, _ = served
    schemas = {t.name: t.output_schema for t in client.list_tools()}
    env = {"commit": None, "generated_at": "t", "stale": False, "freshness": "fresh", "checked_at": "t"}
    span = {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}
    peer = {"symbol": "scip-java maven g/a 1 A#m().", "displayName": "m", "kind": "METHOD"}
    good = {
        "findReferences": {"symbol": "m", "references": [{"path": "A.java", "range": span}], **env},
        "callHierarchy": {"symbol": "m", "incomingCalls": [], "outgoingCalls": [
            {"symbol": peer, "location": {"path": "A.java", "range": span}}], **env},
        "get_callers": {"symbol": "m", "callers": [{"path": "A.java", "line": 2, "column": 3, "caller_fn": "A.n()",
                                                    "repo": "/w", "snippet": "m();"}], "total": 1, "truncated": False},
        "find_references": {"symbol": {}, "references": [], "containers": [], "relations": {},
                            "meta": {"referenceCoverage": True, "callerCoverage": None}},
    }
    old = {    # the shapes before issue 21, one field each
        "findReferences": [{"symbol": {"symbolKey": "k"}}, {"resolvedSymbol": "a.B.m()", "symbol": 1},
                           {"references": [{"path": "A.java", "range": {"start": {"line": "1"}}}]}],
        "callHierarchy": [{"outgoingCalls": [{"callee": 0, "callSite": {"path": "A.java", "range": span}}]},
                          {"outgoingCalls": [{"symbol": {"symbol": "s", "kind": "METHOD"},
                                              "location": {"path": "A.java", "range": span}}]}],
        "get_callers": [{"symbol": None}, {"callers": [{"path": "A.java", "line": "2", "column": 3,
                                                        "caller_fn": "A.n()", "repo": "/w", "snippet": "m();"}]}],
        "find_references": [{"meta": {"referenceCoverage": "yes", "callerCoverage": None}}, {"nextCursor": 7}],
    }
    for tool, answer in good.items():
        jsonschema.validate(answer, schemas[tool])
        for change in old[tool]:
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate({**answer, **change}, schemas[tool])
    for tool in ("findReferences", "callHierarchy", "get_callers"):   # every field the seed shows is required
        for field in good[tool]:
            with pytest.raises(jsonschema.ValidationError):
                jsonschema.validate({k: v for k, v in good[tool].items() if k != field}, schemas[tool])


def test_navigation_tools_are_read_only_and_sync_is_not(served):
    client, _ = served
    hints = {t.name: t.annotations.read_only_hint for t in client.list_tools()}
    assert hints.pop("sync") is False
    assert hints.pop("rename") is False          # apply: true writes the workspace
    assert hints["check_edit"] is True           # compiles an overlay: writes nothing
    assert all(hints.values()), hints


def test_every_tool_answers_through_the_client(served):
    client, roots = served
    status = ok(client, "status", {"repo": "kitchen-sink"})
    assert status["generation"] == 1 and ENVELOPE <= set(status)
    symbols = ok(client, "find_symbol", {"query": "Counter.count", "repo": "kitchen-sink"})["symbols"]
    assert [s["dottedPath"] for s in symbols] == ["com.acme.kitchen.Counter.count"]
    at = ok(client, "symbol_at", {"repo": "kitchen-sink", "path": "src/main/java/com/acme/kitchen/Counter.java",
                                  "line": 16, "character": 9})
    assert at["symbol"]["dottedPath"] == "com.acme.kitchen.Counter.count"
    refs = ok(client, "find_references", {"symbolKey": symbols[0]["symbolKey"]})
    assert {refs["containers"][r["container"]]["name"] for r in refs["references"]} >= {"Counter.add(int)"}
    kinds = {r["kind"] for r in refs["references"]}
    assert kinds == {"read", "read_write"}
    assert refs["meta"]["referenceCoverage"] is True and ENVELOPE <= set(refs)
    callers = ok(client, "get_callers", {"symbol": "com.acme.core.Greeter.greet", "repo": "reactor"})
    assert callers["total"] >= 2 and callers["symbol"] == "com.acme.core.Greeter.greet"
    assert {(c["repo"], c["slug"]) for c in callers["callers"]} == {(str(roots["reactor"]), "reactor")}
    assert all(c["line"] >= 1 and c["column"] >= 1 for c in callers["callers"])
    by_name = ok(client, "findReferences", {"repo": "kitchen-sink", "symbol": "Counter.count"})
    assert len(by_name["references"]) == len(refs["references"]) + 1
    definition = ok(client, "goToDefinition", {"repo": "kitchen-sink", "symbol": "Greeter.greet(String)"})
    [site] = definition["definitions"]
    assert site["path"] == "src/main/java/com/acme/kitchen/Greeter.java"
    assert site["range"]["start"] == {"line": 14, "character": 18}
    hierarchy = ok(client, "callHierarchy", {"repo": "kitchen-sink", "symbol": "Kitchen.counting"})
    callees = json.dumps([c["symbol"] for c in hierarchy["outgoingCalls"]])
    assert "com.acme.kitchen.Counter.add" in callees and hierarchy["incomingCalls"]
    assert hierarchy["incomingCalls"][0]["symbol"]["displayName"] == "main"


def test_every_error_code_comes_back_as_an_error_result_carrying_its_code(served):
    client, _ = served
    seen = set()
    seen.add(err(client, "find_references", {"symbolKey": "x", "limit": 501}, "invalid_argument")["code"])
    seen.add(err(client, "status", {"repo": "nowhere"}, "unknown_repo")["code"])
    seen.add(err(client, "find_symbol", {"query": "Counter", "repo": "fresh"}, "not_synced")["code"])
    seen.add(err(client, "goToDefinition", {"repo": "kitchen-sink", "symbol": "NoSuchThing"}, "not_found")["code"])
    amb = err(client, "goToDefinition", {"repo": "kitchen-sink", "symbol": "add"}, "ambiguous")
    assert amb["candidateTotal"] == len(amb["candidates"]) >= 2
    assert {"symbol", "dottedPath", "kind"} <= set(amb["candidates"][0])
    text = client.call("goToDefinition", {"repo": "kitchen-sink", "symbol": "add"}).content[0].text
    assert "- METHOD com.acme.kitchen.Counter.add(int) at src/main/java/com/acme/kitchen/Counter.java:16" in text
    seen.add(amb["code"])
    seen.add(err(client, "find_references", {"symbolKey": "AAAAAAAAAAAAAAAAAAAAAA"}, "invalid_key")["code"])
    k = key(client, "Counter.count")
    seen.add(err(client, "find_references", {"symbolKey": k, "cursor": "garbage"}, "invalid_cursor")["code"])
    assert seen == CODES - {"stale_key", "stale_snapshot", "stale_cursor", "sync_failed", "indexing"}


def test_a_sync_that_cannot_read_the_workspace_fails_with_sync_failed_and_keeps_the_old_generation(
        tmp_path, samples):
    root = tmp_path / "kitchen"
    shutil.copytree(samples / "kitchen-sink", root)
    home = tmp_path / "home"
    with serve([root], home) as client:
        assert ok(client, "sync", {})["generation"] == 1
        (root / "pom.xml").write_text("<project>", encoding="utf-8")
        failed = err(client, "sync", {}, "sync_failed")
        assert "pom.xml" in failed["error"]
        assert ok(client, "status", {})["generation"] == 1


def test_paging_through_600_references_joins_to_exactly_the_full_set(served):
    client, _ = served
    k = key(client, "Target.hit", repo="many")
    seen, cursor, pages = [], None, 0
    while True:
        page = ok(client, "find_references", {"symbolKey": k, "limit": 500, **({"cursor": cursor} if cursor else {})})
        pages += 1
        seen += [(r["path"], r["range"]["start"]["line"], r["range"]["start"]["character"])
                 for r in page["references"]]
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert pages == 2 and len(seen) == len(set(seen)) == 600


def test_a_key_from_the_previous_generation_answers_while_its_declaration_survives(tmp_path, samples):
    root = tmp_path / "kitchen"
    shutil.copytree(samples / "kitchen-sink", root)
    # Without watching (--no-watch): the edit reaches the index through this test's sync call alone.
    with serve([root], tmp_path / "home", {"PYBRIDGE_NO_WATCH": "1"}) as client:
        progress = []
        first = client.call("sync", {}, progress=lambda done, total, message: progress.append((done, total)))
        assert not first.is_error and first.structured_content["generation"] == 1
        assert progress, "sync sent no progress notifications"
        old = key(client, "Counter.count", repo=None)
        page = ok(client, "find_references", {"symbolKey": old, "limit": 1})
        listing = ok(client, "find_symbol", {"query": "add", "limit": 1})
        counter = root / "src/main/java/com/acme/kitchen/Counter.java"
        counter.write_text(counter.read_text(encoding="utf-8").replace("public class Counter {",
                                                                        "public class Counter {\n    int added;"),
                           encoding="utf-8")
        assert ok(client, "sync", {})["generation"] == 2
        fresh = ok(client, "find_references", {"symbolKey": old})
        assert fresh["symbol"]["dottedPath"] == "com.acme.kitchen.Counter.count"
        assert fresh["symbol"]["symbolKey"] == old and fresh["meta"]["generation"] == 2
        err(client, "find_references", {"symbolKey": old, "cursor": page["nextCursor"], "limit": 1}, "stale_cursor")
        err(client, "find_symbol", {"query": "add", "limit": 1, "cursor": listing["nextCursor"]}, "stale_cursor")


def test_an_edit_after_sync_fails_exact_tools_with_the_path_and_marks_name_tools_stale(tmp_path, samples):
    root = tmp_path / "kitchen"
    shutil.copytree(samples / "kitchen-sink", root)
    # The freshness check is cached for a second; this server checks every time, and does not watch
    # (--no-watch: with watching on, the exact tool would wait for the catch-up; see tests/live/test_live.py).
    with serve([root], tmp_path / "home", {"PYBRIDGE_FRESHNESS_TTL": "0", "PYBRIDGE_NO_WATCH": "1"}) as client:
        ok(client, "sync", {})
        k = key(client, "Counter.count", repo=None)
        shape = root / "src/main/java/com/acme/kitchen/Shape.java"
        shape.write_text(shape.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        failed = err(client, "find_references", {"symbolKey": k}, "stale_snapshot")
        assert "src/main/java/com/acme/kitchen/Shape.java" in failed["changed"]
        named = ok(client, "findReferences", {"symbol": "Counter.count"})
        assert named["stale"] is True and named["freshness"] == "stale"


def test_an_empty_answer_proves_absence_when_coverage_is_true(served):
    client, _ = served
    k = key(client, "Greeter.Config.DEFAULT")
    refs = ok(client, "find_references", {"symbolKey": key(client, "Counter.getCount"), "scope": "test"})
    assert refs["references"] == [] and ENVELOPE <= set(refs)
    assert refs["meta"]["total"] == 0
    assert ok(client, "find_references", {"symbolKey": k})["meta"]["referenceCoverage"] is True


def test_an_unresolved_name_like_the_symbol_makes_coverage_false_and_is_named_as_the_blocker(served):
    client, _ = served
    refs = ok(client, "find_references", {"symbolKey": key(client, "Target.hit", repo="many")})
    assert refs["meta"]["referenceCoverage"] is False
    blocker = refs["meta"]["coverageBlockers"]
    assert "Other.java" in json.dumps(blocker)


def test_find_references_by_name_includes_the_definition(served):
    client, _ = served
    refs = ok(client, "findReferences", {"repo": "kitchen-sink", "symbol": "Circle.unit"})
    starts = {(r["path"], r["range"]["start"]["line"]) for r in refs["references"]}
    assert ("src/main/java/com/acme/kitchen/Circle.java", 17) in starts


NAMES = st.sampled_from(["Counter", "add", "Greeter.greet(String)", "com.acme", "", " ", "#", "()", "a" * 300,
                         "src/main/java/com/acme/kitchen/Counter.java#add", "scip-java maven . . x#", "\x00"])
VALUES = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.text(max_size=40),
                   NAMES, st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(),
                                                                                 max_size=2))
ARG_NAMES = ["repo", "query", "symbol", "symbolKey", "cursor", "limit", "path", "line", "character", "kind",
             "module", "scope", "include_tests", "max_results", "bogus"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(["status", "find_symbol", "symbol_at", "find_references", "get_callers",
                             "findReferences", "goToDefinition", "callHierarchy"]),
       args=st.dictionaries(st.sampled_from(ARG_NAMES), VALUES, max_size=5))
def test_random_arguments_to_any_tool_give_a_known_error_code_or_an_answer_never_an_exception(served, tool, args):
    """(The SDK's client refuses non-object arguments itself; the facade's own fuzz test covers those.)"""
    client, _ = served
    result = client.call(tool, args)
    payload = result.structured_content
    assert isinstance(payload, dict)
    if result.is_error:
        assert payload["code"] in CODES and payload["error"]
    else:
        assert ENVELOPE <= set(payload) or tool == "status"


def test_streamable_http_serves_the_same_tools_on_loopback(served, tmp_path):
    import socket
    import subprocess
    import sys

    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    _, roots = served
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**__import__("os").environ, "PYBRIDGE_STATE_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([sys.executable, "-m", "pybridge.cli", "serve", "--repo", str(roots["fresh"]), "--http",
                             "--port", str(port), "--no-auto-sync"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        for line in proc.stderr:
            if "running on http://127.0.0.1:" in line:
                break
        else:
            raise AssertionError("the HTTP server never said it was listening")

        async def ask():
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return await session.call_tool("status", {})

        result = anyio.run(ask)
        assert not result.is_error
        assert result.structured_content["synced"] is False and result.structured_content["hint"]
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()


class Feed:
    """A server's stdin: these lines, then the end of input once `out` holds `answers` lines (an end
    read earlier would close the session before the SDK answered the last requests)."""

    def __init__(self, lines: list[bytes], out: io.BytesIO, answers: int) -> None:
        self.lines, self.out, self.answers = list(lines), out, answers

    def readline(self, _limit: int = -1) -> bytes:
        if self.lines:
            return self.lines.pop(0)
        deadline = time.monotonic() + 60
        while self.out.getvalue().count(b"\n") < self.answers and time.monotonic() < deadline:
            time.sleep(0.01)
        return b""


def test_the_stdio_fast_path_writes_the_sdks_bytes_for_every_protocol_version(served, monkeypatch):
    """`transport.StdioFastCalls` answers plain tools/call requests itself: the same lines, byte for byte,
    as the SDK's own path (`PYBRIDGE_STDIO_FAST=0`), for every handshake protocol version, for answers,
    error results, an unknown tool and malformed arguments; a call with a progress token and a call sent
    before `initialize` go to the SDK. It fails when the pinned SDK shapes a result otherwise."""
    client, roots = served
    symbol_key, hot_key = key(client, "Counter.count"), key(client, "Target.hit", repo="many")
    monkeypatch.setenv("PYBRIDGE_STATE_HOME", str(roots["kitchen-sink"].parent / "state-home"))
    facade = Facade([roots["kitchen-sink"], roots["reactor"], roots["many"]])
    calls = [("find_references", {"symbolKey": symbol_key}), ("find_references", {"symbolKey": hot_key}),
             ("find_references", {"symbolKey": hot_key, "limit": 1}),
             ("find_symbol", {"query": "Greeter", "repo": "kitchen-sink"}), ("find_symbol", {"query": 5}),
             ("status", {}), ("describe", {"symbolKey": "garbled"}), ("no_such_tool", {}),
             ("symbol_at", {"repo": "reactor", "path": "nowhere.java", "line": 0, "character": 0})]

    def line(message: dict) -> bytes:
        return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"

    def run(version: str, switch: str) -> tuple[dict, int]:
        monkeypatch.setenv("PYBRIDGE_STDIO_FAST", switch)
        made: list[transport.StdioFastCalls] = []

        class Recorded(transport.StdioFastCalls):
            def __init__(self, *args) -> None:
                super().__init__(*args)
                made.append(self)
        monkeypatch.setattr(transport, "StdioFastCalls", Recorded)
        lines = [line({"id": "early", "method": "tools/call", "params": {"name": "status", "arguments": {}}}),
                 initialize(version, rid="init"), line({"method": "notifications/initialized"})]
        lines += [line({"id": i, "method": "tools/call", "params": {"name": name, "arguments": args}})
                  for i, (name, args) in enumerate(calls)]
        lines.append(line({"id": "progress", "method": "tools/call",
                           "params": {"name": "status", "arguments": {}, "_meta": {"progressToken": 1}}}))
        out = io.BytesIO()
        anyio.run(lambda: run_stdio(facade, TOOL_NAMES, stdin=Feed(lines, out, len(calls) + 3), stdout=out))
        clock = re.compile(rb'(\\?"checked_at\\?":\\?")[^"\\]*')    # the one clock reading in an answer
        replies = {json.loads(r)["id"]: clock.sub(rb"\1T", r) for r in out.getvalue().splitlines()}
        return replies, made[0].served

    try:
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            sdk, none = run(version, "0")
            fast, served_fast = run(version, "1")
            assert none == 0 and served_fast >= len(calls) - 1, version   # the first may follow "early" to the SDK
            assert set(fast) == set(sdk) == {"early", "init", "progress", *range(len(calls))}
            for rid in sdk:
                assert fast[rid] == sdk[rid], (version, rid)
            assert b'"error":{"code":-32602' in fast["early"]      # the SDK's refusal before initialize
    finally:
        facade.close()


def referenced_keys(root, most: int) -> list[str]:
    """Keys of the `most` symbols with the most references in the workspace's current generation."""
    state = default_state_dir(root)
    conn = sqlite3.connect(f"file:{store_location(state).path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT s.id, s.binding_key FROM symbols s JOIN (SELECT r.target_id, count(*) AS n FROM refs r"
            " JOIN manifest m ON m.file_version_id = r.file_version_id"
            " AND m.generation_id = (SELECT max(id) FROM generations)"
            " GROUP BY r.target_id) t ON t.target_id = s.id ORDER BY t.n DESC, s.id LIMIT ?", (most,)).fetchall()
    finally:
        conn.close()
    secret = load_secret(state)
    return [make_key(secret, sid, binding) for sid, binding in rows]


def test_prebuilt_find_references_answers_equal_the_models_round_trip_byte_for_byte(served, monkeypatch):
    """find_references builds its answer in its model's shape and skips the model's round trip
    (`Result.prebuilt`): for the most referenced symbols of every workspace, with paging and filters,
    the answer is the same JSON, byte for byte (key order included), as with the round trip
    (`PYBRIDGE_PREBUILT_RESULTS=0`)."""
    _client, roots = served
    monkeypatch.setenv("PYBRIDGE_STATE_HOME", str(roots["kitchen-sink"].parent / "state-home"))
    synced = [roots[name] for name in ("kitchen-sink", "reactor", "broken", "many")]
    calls = [{"symbolKey": k, **extra} for root in synced for k in referenced_keys(root, 40)
             for extra in ({}, {"limit": 2}, {"include_javadoc": False, "scope": "main"})]
    answers: dict[str, list[str]] = {}
    for switch in ("0", "1"):
        monkeypatch.setenv("PYBRIDGE_PREBUILT_RESULTS", switch)
        with Facade(synced) as facade:
            answers[switch] = [json.dumps({k: v for k, v in facade.call("find_references", args)[0].items()
                                           if k != "checked_at"}, ensure_ascii=False) for args in calls]
    assert len(calls) > 300
    assert sum(bool(json.loads(a).get("references")) for a in answers["1"]) > 200
    for args, validated, prebuilt in zip(calls, answers["0"], answers["1"], strict=True):
        assert prebuilt == validated, args


def test_a_key_of_an_arrays_length_answers_find_references_like_a_library_member(served):
    """The `length` of arrays is declared by the language, not by a source or a class file: its key
    (symbol_at mints it) answered stale_key (the 13th hottest symbol of bench/p99.py's reactor). It
    answers while the generation refers to it, named as its binding key says."""
    client, roots = served
    path = "app/src/main/java/com/acme/app/App.java"
    [line] = [n for n, text in enumerate((roots["reactor"] / path).read_text().splitlines()) if "args.length" in text]
    character = (roots["reactor"] / path).read_text().splitlines()[line].index("args.length") + len("args.")
    at = ok(client, "symbol_at", {"repo": "reactor", "path": path, "line": line, "character": character})
    symbol = at["symbol"]
    assert (symbol["name"], symbol["kind"], symbol["dottedPath"], symbol["symbol"], symbol["declaration"]) == \
        ("length", "FIELD", None, None, None)
    refs = ok(client, "find_references", {"symbolKey": symbol["symbolKey"]})
    assert refs["symbol"]["symbolKey"] == symbol["symbolKey"] and refs["symbol"]["name"] == "length"
    assert {"path": path, "line": line, "character": character} in [
        {"path": r["path"], "line": r["range"]["start"]["line"], "character": r["range"]["start"]["character"]}
        for r in refs["references"]]
    assert refs["meta"]["total"] == len(refs["references"]) >= 1


def test_an_enums_implicit_methods_are_described_by_their_binding_keys():
    """`values()` and `valueOf(String)` of a source enum: referenced, declared by no source (JLS 8.9.3)."""
    values = SymbolInfo(1, "Lcom/acme/Size;.values()[Lcom/acme/Size;", None, None, None, None,
                        "com/acme/Size#values().", False)
    value_of = values._replace(key="Lcom/acme/Outer$Size;.valueOf(Ljava/lang/String;)Lcom/acme/Outer$Size;")
    assert implicit(values) and not implicit(values._replace(external=True))
    assert (described(values).kind, described(values).dotted, display_of(described(values))) == \
        ("METHOD", "com.acme.Size.values", "values()")
    assert (described(value_of).dotted, display_of(described(value_of))) == \
        ("com.acme.Outer.Size.valueOf", "valueOf(String)")
