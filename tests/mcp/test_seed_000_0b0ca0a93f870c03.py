"""Seed 000 (`../shared/seeds/000_0b0ca0a93f870c03.txt`): `findReferences`, and the resolution rung it
shares with `goToDefinition`, replayed against `toy-repo` (tests/support/seeds.py) through every client and
transport: the example call, a qualified name and a full SCIP symbol string, zero references, an
unknown name and an ambiguous one, each compared field by field with the document's examples.

Zero references: the seed's example answers `references: []` for `unusedHelper`, while it also says
the references include the definition site. A Java symbol that a name resolves to is declared, so
its definition is always an occurrence: the answer keeps the envelope intact and lists that
definition and nothing else.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.support.mcp_session import replay
from tests.support.seeds import ENVELOPE, SCIP, TOY, at, channels, conforms, err, head, ok, seed_home, synced

RANGE = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 20}}
EXAMPLE = {"symbol": "greet", "resolvedSymbol": "scip-typescript npm @toy/pkg 0.0.1 src/`greeter.ts`/Greeter#greet().",
           "references": [{"path": "toy/constants.ts", "range": RANGE}], **ENVELOPE}
ZERO = {"symbol": "unusedHelper", "references": [], **ENVELOPE}
NOT_FOUND = {"error": "no symbol named 'NoSuchSymbol' in this index"}
AMBIGUOUS = {"error": "'dup' is ambiguous in toy-repo (2 matches). Retry with a qualifier, e.g. 'a.C.dup'.",
             "candidates": [{"symbol": "sym-a", "dottedPath": "a.C.dup", "kind": "METHOD"},
                            {"symbol": "sym-b", "dottedPath": "b.D.dup", "kind": "METHOD"}],
             "candidateTotal": 2}
GREET = SCIP + "toy/Greeter#greet()."
GREETER = "src/main/java/toy/Greeter.java"
CONSTANTS = "src/main/java/toy/Constants.java"

STEPS = [{"label": label, "tool": tool, "args": args} for label, tool, args in [
    ("example", "findReferences", {"repo": TOY, "symbol": "greet"}),
    ("qualified", "findReferences", {"repo": TOY, "symbol": "toy.Greeter.greet"}),
    ("scip", "findReferences", {"repo": TOY, "symbol": GREET}),
    ("zero", "findReferences", {"repo": TOY, "symbol": "unusedHelper"}),
    ("not_found", "findReferences", {"repo": TOY, "symbol": "NoSuchSymbol"}),
    ("ambiguous", "findReferences", {"repo": TOY, "symbol": "dup"}),
    ("qualifier", "findReferences", {"repo": TOY, "symbol": "a.C.dup"}),
    ("candidate", "findReferences", {"repo": TOY, "symbol": {"$ref": ["ambiguous", "candidates", 1, "symbol"]}}),
    ("definition", "goToDefinition", {"repo": TOY, "symbol": "greet"}),
    ("definition_scip", "goToDefinition", {"repo": TOY, "symbol": GREET}),
    ("definition_not_found", "goToDefinition", {"repo": TOY, "symbol": "NoSuchSymbol"}),
    ("definition_ambiguous", "goToDefinition", {"repo": TOY, "symbol": "dup"}),
]]


@pytest.fixture(scope="module")
def toy(tmp_path_factory, worker):
    return synced(TOY, tmp_path_factory, worker)


@pytest.fixture(scope="module", params=channels())
def answers(request, tmp_path_factory, worker, toy):
    other = synced("other-repo", tmp_path_factory, worker)     # two served: `repo` names the slug
    return replay(request.param, [toy, other], seed_home(tmp_path_factory), STEPS, {"PYBRIDGE_NO_WATCH": "1"})


def greet_references(toy) -> list[dict]:
    return [{"path": CONSTANTS, "range": at(toy, CONSTANTS, "::greet", "greet")},
            {"path": GREETER, "range": at(toy, GREETER, "String greet(", "greet")},
            {"path": GREETER, "range": at(toy, GREETER, "return greet(", "greet")}]


def test_the_example_call_answers_in_the_example_shape(answers, toy):
    answer = ok(answers, "example")
    conforms(answer, EXAMPLE)
    assert answer["symbol"] == "greet"                   # echoes the input
    assert answer["resolvedSymbol"] == GREET             # the SCIP symbol string it resolved to
    assert [{"path": r["path"], "range": r["range"]} for r in answer["references"]] == greet_references(toy)
    assert (answer["commit"], answer["stale"], answer["freshness"]) == (head(toy), False, "fresh")
    for clock in ("generated_at", "checked_at"):
        assert datetime.fromisoformat(answer[clock]).tzinfo is not None, answer[clock]


def test_references_include_the_definition_site_no_role_filter(answers):
    kinds = [r["kind"] for r in ok(answers, "example")["references"]]
    assert kinds == ["method_reference", "definition", "invocation"]


def test_a_qualified_name_resolves_the_same_and_a_full_scip_symbol_is_not_resolved_again(answers):
    example, qualified, scip = (ok(answers, label) for label in ("example", "qualified", "scip"))
    assert qualified["symbol"] == "toy.Greeter.greet" and qualified["resolvedSymbol"] == GREET
    assert scip["symbol"] == GREET and "resolvedSymbol" not in scip   # resolution did not change the input
    conforms(scip, {k: v for k, v in EXAMPLE.items() if k != "resolvedSymbol"})
    assert qualified["references"] == scip["references"] == example["references"]


def test_zero_references_keep_the_envelope_intact(answers, toy):
    answer = ok(answers, "zero")
    conforms(answer, ZERO)
    assert answer["symbol"] == "unusedHelper" and answer["resolvedSymbol"] == SCIP + "toy/Greeter#unusedHelper()."
    assert [(r["kind"], r["path"], r["range"]) for r in answer["references"]] == [
        ("definition", GREETER, at(toy, GREETER, "void unusedHelper(", "unusedHelper"))]
    assert answer["total"] == 1 and answer["truncated"] is False
    assert set(ENVELOPE) <= answer.keys()


def test_a_name_with_no_match_is_an_error_not_an_empty_array(answers):
    for label in ("not_found", "definition_not_found"):
        payload = err(answers, label, "not_found")
        conforms(payload, NOT_FOUND)
        assert "NoSuchSymbol" in payload["error"] and "references" not in payload


def test_an_ambiguous_name_carries_structured_candidates_and_their_total(answers):
    for label in ("ambiguous", "definition_ambiguous"):
        payload = err(answers, label, "ambiguous")
        conforms(payload, AMBIGUOUS)
        assert [(c["symbol"], c["dottedPath"], c["kind"]) for c in payload["candidates"]] == [
            (SCIP + "a/C#dup().", "a.C.dup", "METHOD"), (SCIP + "b/D#dup().", "b.D.dup", "METHOD")]
        assert payload["candidateTotal"] == 2 and "`dup`" in payload["error"]


def test_a_retry_with_a_qualifier_or_a_candidate_symbol_resolves(answers):
    qualifier, candidate = ok(answers, "qualifier"), ok(answers, "candidate")
    assert qualifier["symbol"] == "a.C.dup" and qualifier["resolvedSymbol"] == SCIP + "a/C#dup()."
    assert candidate["symbol"] == SCIP + "b/D#dup()." and "resolvedSymbol" not in candidate
    assert [r["path"] for r in candidate["references"]] == ["src/main/java/b/D.java"]


def test_go_to_definition_shares_the_resolution_rung(answers, toy):
    answer, scip = ok(answers, "definition"), ok(answers, "definition_scip")
    assert answer["symbol"] == "greet" and answer["resolvedSymbol"] == GREET
    assert scip["symbol"] == GREET and "resolvedSymbol" not in scip
    assert [(d["path"], d["range"]) for d in answer["definitions"]] == [
        (GREETER, at(toy, GREETER, "String greet(", "greet"))]
    assert answer["symbolInfo"]["symbol"] == GREET and answer["symbolInfo"]["symbolKey"]
