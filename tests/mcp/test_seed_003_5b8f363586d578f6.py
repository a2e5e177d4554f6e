"""Seed 003 (`../shared/seeds/003_5b8f363586d578f6.txt`): `callHierarchy`, replayed against `toy-repo`
(tests/support/seeds.py) through every client and transport: the example call (`sayHi`: one outgoing call to
`greet`, no incoming call), the other direction (`greet`), a full SCIP symbol, the per-direction
`limit`, and an unknown name, each compared field by field with the document's example.
"""

from __future__ import annotations

import pytest

from tests.support.mcp_session import replay
from tests.support.seeds import (
    ENVELOPE,
    SCIP,
    TICK_REFERENCES,
    TOY,
    at,
    channels,
    conforms,
    err,
    head,
    ok,
    seed_home,
    synced,
)

RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
CALL = {"symbol": {"symbol": "scip-typescript npm @toy/pkg 0.0.1 src/`greeter.ts`/Greeter#greet().",
                   "displayName": "greet", "kind": "METHOD"},
        "location": {"path": "toy/greeter.ts", "range": RANGE}}
EXAMPLE = {"symbol": "sayHi", "resolvedSymbol": "scip-typescript npm @toy/pkg 0.0.1 src/`greeter.ts`/Greeter#sayHi().",
           "incomingCalls": [], "outgoingCalls": [CALL], **ENVELOPE}
SHAPE = {**EXAMPLE, "incomingCalls": [CALL]}       # the shape of the Returns section: both lists alike
NOT_FOUND = {"error": "no symbol named 'NoSuchSymbol' in this index"}
SAY_HI = SCIP + "toy/Greeter#sayHi()."
GREET = SCIP + "toy/Greeter#greet()."
GREETER = "src/main/java/toy/Greeter.java"
CONSTANTS = "src/main/java/toy/Constants.java"

STEPS = [{"label": label, "tool": "callHierarchy", "args": args} for label, args in [
    ("example", {"repo": TOY, "symbol": "sayHi"}),
    ("scip", {"repo": TOY, "symbol": SAY_HI}),
    ("greet", {"repo": TOY, "symbol": "greet"}),
    ("tick", {"repo": TOY, "symbol": "Counter.tick"}),
    ("tick_limited", {"repo": TOY, "symbol": "Counter.tick", "limit": 7}),
    ("tick_most", {"repo": TOY, "symbol": "Counter.tick", "limit": 500}),
    ("not_found", {"repo": TOY, "symbol": "NoSuchSymbol"}),
]]


@pytest.fixture(scope="module")
def toy(tmp_path_factory, worker):
    return synced(TOY, tmp_path_factory, worker)


@pytest.fixture(scope="module", params=channels())
def answers(request, tmp_path_factory, worker, toy):
    other = synced("other-repo", tmp_path_factory, worker)
    return replay(request.param, [toy, other], seed_home(tmp_path_factory), STEPS, {"PYBRIDGE_NO_WATCH": "1"})


def test_the_example_call_answers_in_the_example_shape(answers, toy):
    answer = ok(answers, "example")
    conforms(answer, EXAMPLE)
    assert answer["symbol"] == "sayHi" and answer["resolvedSymbol"] == SAY_HI
    assert answer["incomingCalls"] == []      # nothing calls sayHi(): a real, honest empty array
    [call] = answer["outgoingCalls"]          # sayHi()'s body calls greet()
    assert {k: call["symbol"][k] for k in ("symbol", "displayName", "kind")} == {
        "symbol": GREET, "displayName": "greet", "kind": "METHOD"}
    assert call["location"] == {"path": GREETER, "range": at(toy, GREETER, "return greet(", "greet")}
    assert (answer["commit"], answer["stale"], answer["freshness"]) == (head(toy), False, "fresh")
    assert "symbols" not in answer            # no index table: each call names its symbol in place


def test_pybridge_fields_stand_beside_the_seed_fields(answers):
    [call] = ok(answers, "example")["outgoingCalls"]
    assert call["symbol"]["symbolKey"] and call["symbol"]["dottedPath"] == "toy.Greeter.greet"
    assert call["symbol"]["display"] == "greet(String)"
    assert (call["kind"], call["context"]) == ("invocation", 'return greet("world");')
    answer = ok(answers, "example")
    assert answer["symbolInfo"]["symbol"] == SAY_HI and answer["symbolInfo"]["symbolKey"]
    assert (answer["incomingTotal"], answer["outgoingTotal"], answer["truncated"]) == (0, 1, False)


def test_a_full_scip_symbol_is_echoed_and_not_resolved_again(answers):
    answer = ok(answers, "scip")
    assert answer["symbol"] == SAY_HI and "resolvedSymbol" not in answer
    assert answer["outgoingCalls"] == ok(answers, "example")["outgoingCalls"]


def test_incoming_calls_are_single_level_each_with_its_caller_and_site(answers, toy):
    answer = ok(answers, "greet")
    conforms(answer, SHAPE)
    assert [(c["symbol"]["displayName"], c["symbol"]["kind"], c["location"]) for c in answer["incomingCalls"]] == [
        ("GREETING", "FIELD", {"path": CONSTANTS, "range": at(toy, CONSTANTS, "::greet", "greet")}),
        ("sayHi", "METHOD", {"path": GREETER, "range": at(toy, GREETER, "return greet(", "greet")})]
    assert [c["kind"] for c in answer["incomingCalls"]] == ["method_reference", "invocation"]
    assert answer["outgoingCalls"] == []      # greet's body calls nothing (string concatenation)


def test_the_limit_per_direction_keeps_answers_bounded_and_says_so(answers):
    default, limited, most = (ok(answers, label) for label in ("tick", "tick_limited", "tick_most"))
    assert (len(default["incomingCalls"]), default["incomingTotal"], default["truncated"]) == (
        50, TICK_REFERENCES, True)
    assert (len(limited["incomingCalls"]), limited["incomingTotal"], limited["truncated"]) == (
        7, TICK_REFERENCES, True)
    assert (len(most["incomingCalls"]), most["truncated"]) == (TICK_REFERENCES, False)
    assert {c["symbol"]["displayName"] for c in most["incomingCalls"]} == {"later", "ticks0", "ticks1", "ticks2"}
    for answer in (default, limited, most):
        conforms(answer, SHAPE)


def test_a_name_with_no_match_is_an_error(answers):
    payload = err(answers, "not_found", "not_found")
    conforms(payload, NOT_FOUND)
    assert "incomingCalls" not in payload
