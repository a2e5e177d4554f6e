"""Seed 002 (`../shared/seeds/002_64d81e31907cc2a8.txt`): `get_callers`, replayed against `toy-repo`
(tests/support/seeds.py; a second served workspace, `other-repo`, declares nothing of the kind) through every
client and transport: the example request, `include_tests`, `max_results` (its default, its maximum,
a cut), `repo` as a workspace root, the path form of a name, dead code, and an unknown name, each
compared field by field with the document's example and output schema.

`caller_fn`: the seed's example shows `OrderController.submit`; pybridge names the enclosing method
by its qualified name and parameter types (`shop.controllers.OrderController.submit(Order)`), which
tells overloads apart and can be passed back as `symbol`.
"""

from __future__ import annotations

import pytest

from tests.support.mcp_session import replay
from tests.support.seeds import SCIP, TOY, channels, conforms, err, ok, seed_home, synced

CALLER = {"path": "src/controllers/OrderController.ts", "line": 142, "column": 18,
          "caller_fn": "OrderController.submit", "repo": "/Users/me/my-project",
          "snippet": "await this.paymentService.charge(order.amount, order.card);"}
EXAMPLE = {"symbol": "PaymentService.charge", "callers": [CALLER], "total": 2, "truncated": False}
CONTROLLER = "src/main/java/shop/controllers/OrderController.java"
JOB = "src/main/java/shop/jobs/BillingJob.java"
TEST = "src/test/java/shop/services/PaymentServiceTest.java"
CHARGE = "PaymentService.charge"


@pytest.fixture(scope="module")
def toy(tmp_path_factory, worker):
    return synced(TOY, tmp_path_factory, worker)


@pytest.fixture(scope="module")
def other(tmp_path_factory, worker):
    return synced("other-repo", tmp_path_factory, worker)


@pytest.fixture(scope="module", params=channels())
def answers(request, tmp_path_factory, toy, other):
    steps = [{"label": label, "tool": "get_callers", "args": args} for label, args in [
        ("example", {"symbol": CHARGE, "include_tests": False}),
        ("with_tests", {"symbol": CHARGE}),
        ("cut", {"symbol": CHARGE, "max_results": 1}),
        ("most", {"symbol": CHARGE, "max_results": 500}),
        ("too_many", {"symbol": CHARGE, "max_results": 501}),
        ("none", {"symbol": CHARGE, "max_results": 0}),
        ("root", {"symbol": CHARGE, "include_tests": False, "repo": str(toy)}),
        ("elsewhere", {"symbol": CHARGE, "repo": str(other)}),
        ("path_form", {"symbol": "src/main/java/shop/services/PaymentService.java#charge", "include_tests": False}),
        ("dead", {"symbol": "Greeter.unusedHelper", "include_tests": False}),
        ("not_found", {"symbol": "NoSuchSymbol"}),
    ]]
    return replay(request.param, [toy, other], seed_home(tmp_path_factory), steps, {"PYBRIDGE_NO_WATCH": "1"})


def site(root, rel: str, call: str) -> tuple[int, int, str]:
    """The 1-based line and column of `charge` in the line holding `call`, and that line trimmed."""
    for i, line in enumerate((root / rel).read_text(encoding="utf-8").split("\n")):
        if call in line:
            return i + 1, line.index("charge(") + 1, line.strip()
    raise AssertionError(f"{call} is not in {rel}")


def expected(root, *rows: tuple[str, str, str]) -> list[dict]:
    out = []
    for rel, call, fn in rows:
        line, column, snippet = site(root, rel, call)
        out.append({"path": rel, "line": line, "column": column, "caller_fn": fn, "repo": str(root.resolve()),
                    "snippet": snippet})
    return out


def seed_fields(answer: dict) -> list[dict]:
    return [{k: c[k] for k in CALLER} for c in answer["callers"]]


def test_the_example_request_answers_in_the_example_shape(answers, toy):
    answer = ok(answers, "example")
    conforms(answer, EXAMPLE)
    assert answer["symbol"] == CHARGE and answer["total"] == 2 and answer["truncated"] is False
    assert seed_fields(answer) == expected(
        toy, (CONTROLLER, "this.paymentService.charge(", "shop.controllers.OrderController.submit(Order)"),
        (JOB, "paymentService.charge(sub", "shop.jobs.BillingJob.run(Subscription)"))
    assert seed_fields(answer)[0]["snippet"] == "return this.paymentService.charge(order.amount, order.card);"


def test_pybridge_fields_stand_beside_the_seed_fields(answers, toy):
    answer = ok(answers, "example")
    assert {c["slug"] for c in answer["callers"]} == {TOY}
    assert answer["resolvedSymbol"] == SCIP + "shop/services/PaymentService#charge()."
    assert [(w["repo"], w["slug"]) for w in answer["workspaces"]] == [(str(toy.resolve()), TOY)]
    assert answer["stale"] is False and answer["freshness"] == "fresh"


def test_include_tests_defaults_to_true_and_false_leaves_test_sources_out(answers, toy):
    answer = ok(answers, "with_tests")
    conforms(answer, EXAMPLE)
    assert [c["path"] for c in answer["callers"]] == [CONTROLLER, JOB, TEST] and answer["total"] == 3
    assert seed_fields(answer)[2] == expected(
        toy, (TEST, "new PaymentService().charge(", "shop.services.PaymentServiceTest.chargesAPositiveAmount()"))[0]


def test_max_results_cuts_with_total_and_truncated_and_is_at_most_500(answers):
    cut = ok(answers, "cut")
    conforms(cut, EXAMPLE)
    assert len(cut["callers"]) == 1 and cut["total"] == 3 and cut["truncated"] is True
    assert ok(answers, "most")["callers"] == ok(answers, "with_tests")["callers"]
    for label in ("too_many", "none"):
        assert err(answers, label, "invalid_argument")["field"] == "max_results"


def test_repo_restricts_the_search_to_one_workspace_root(answers):
    assert ok(answers, "root")["callers"] == ok(answers, "example")["callers"]
    assert "other-repo" in err(answers, "elsewhere", "not_found")["error"]


def test_a_qualified_path_names_the_symbol_too(answers):
    answer = ok(answers, "path_form")
    assert answer["symbol"] == "src/main/java/shop/services/PaymentService.java#charge"
    assert answer["callers"] == ok(answers, "example")["callers"]


def test_dead_code_has_total_0(answers):
    answer = ok(answers, "dead")
    conforms(answer, EXAMPLE)
    assert (answer["callers"], answer["total"], answer["truncated"]) == ([], 0, False)


def test_a_name_with_no_match_is_an_error(answers):
    payload = err(answers, "not_found", "not_found")
    conforms(payload, {"error": "no symbol named 'NoSuchSymbol' in this index"})
