"""Seed 001 (`../shared/seeds/001_c4f6831c1dc53aab.txt`): `find_references` with a `symbolKey`, replayed
against `toy-repo` and two copies of it (tests/support/seeds.py) through every client and transport: the
illustrative arguments (a key from exact discovery, `scope: main`), pages of the default 100 and of
every `limit` from 1 to 500 followed by `nextCursor` with unchanged arguments, the seven reference
kinds, containers, contexts, `module`, coverage before an absence claim (certified and not),
`stale_key` (repeat discovery in the current generation, or take the `replacement`, without another
sync) and `stale_snapshot` (call sync, repeat discovery, retry).

The seed shows no answer, only its fields' names in the notes (`nextCursor`, `meta.referenceCoverage`,
`meta.callerCoverage`): those are compared by name and type. "Maven TEST source is parser-only in this
preview" does not hold for pybridge, which binds test sources like main ones.
"""

from __future__ import annotations

import pytest

from tests.support.mcp_session import replay
from tests.support.seeds import (
    GROUP,
    TICK_REFERENCES,
    TOY,
    channels,
    conforms,
    copy_synced,
    edit,
    err,
    keys,
    ok,
    seed_home,
    sync_in,
    synced,
)

KINDS = {"read", "write", "read_write", "invocation", "construction", "type_use", "method_reference"}
NOTES = {"references": [{"path": "", "range": {"start": {"line": 0, "character": 0},
                                               "end": {"line": 0, "character": 0}}}],
         "meta": {"referenceCoverage": True}, "nextCursor": ""}
"""What the seed's notes name: exact references with source spans, coverage, pagination."""
RENAMED, DRIFTED = "renamed-repo", "drifted-repo"
GREETER = "src/main/java/toy/Greeter.java"


def discover(label: str, query: str, repo: str = TOY, **extra) -> dict:
    return {"label": label, "tool": "find_symbol", "args": {"query": query, "repo": repo, **extra}}


def refs(label: str, key, **args) -> dict:
    return {"label": label, "tool": "find_references", "args": {"symbolKey": key, **args}}


def key_of(label: str) -> dict:
    return {"$ref": [label, "symbols", 0, "symbolKey"]}


def cursor_of(label: str) -> dict:
    return {"$ref": [label, "nextCursor"]}


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory, worker):
    """toy-repo; renamed-repo, whose generation 2 renamed `unusedHelper` to `spareHelper`, changed
    `orphan()` to `orphan(int)` and removed `Counter.reset()` (their keys from generation 1 kept);
    drifted-repo, edited after each sync."""
    home = seed_home(tmp_path_factory)
    toy = synced(TOY, tmp_path_factory, worker)
    renamed = copy_synced(tmp_path_factory, RENAMED, worker)
    old = dict(zip(("helper", "orphan", "reset"),
                   keys(home, renamed, "Greeter.unusedHelper", "Lonely.orphan", "Counter.reset"), strict=True))
    edit(renamed, GREETER, "unusedHelper", "spareHelper")
    edit(renamed, "src/main/java/toy/Lonely.java", "orphan()", "orphan(int times)")
    edit(renamed, "src/main/java/toy/Counter.java", "    public void reset() {\n        count = 0;\n    }\n\n", "")
    sync_in(home, renamed, worker)
    drifted = copy_synced(tmp_path_factory, DRIFTED, worker)
    return {"home": home, "roots": [toy, renamed, drifted], "drifted": drifted, "old": old}


@pytest.fixture(scope="module", params=channels())
def answers(request, workspaces):
    # the previous channel synced the drifted copy: drift it again
    (workspaces["drifted"] / GREETER).write_text((workspaces["drifted"] / GREETER).read_text() + "\n")
    tick = key_of("tick")
    steps = [
        discover("tick", "Counter.tick"),
        refs("illustrative", tick, scope="main"),
        refs("page_2", tick, scope="main", cursor=cursor_of("illustrative")),
        refs("other_scope", tick, cursor=cursor_of("illustrative")),
        refs("other_limit", tick, scope="main", limit=50, cursor=cursor_of("illustrative")),
        refs("limit_1", tick, limit=1),
        refs("limit_500", tick, limit=500),
        refs("limit_0", tick, limit=0),
        refs("limit_501", tick, limit=501),
        refs("module", tick, module=f"{GROUP}:{TOY}", limit=500),
        refs("no_module", tick, module="nope"),
        discover("counter", "toy.Counter", kind="CLASS"),
        refs("counter_refs", key_of("counter")),
        discover("count", "Counter.count"),
        refs("count_refs", key_of("count")),
        discover("helper", "Greeter.unusedHelper"),
        refs("certified", key_of("helper")),
        discover("orphan", "Lonely.orphan"),
        refs("uncertified", key_of("orphan")),
        refs("stale_key", workspaces["old"]["reset"]),
        refs("stale_key_renamed", workspaces["old"]["helper"]),
        discover("rediscovered", "Greeter.spareHelper", RENAMED),
        refs("retried", key_of("rediscovered")),
        refs("stale_key_replaced", workspaces["old"]["orphan"]),
        refs("replacement", {"$ref": ["stale_key_replaced", "replacement"]}),
        discover("drifted_tick", "Counter.tick", DRIFTED),
        refs("stale_snapshot", key_of("drifted_tick"), scope="main"),
        {"label": "sync", "tool": "sync", "args": {"repo": DRIFTED}},
        discover("drifted_again", "Counter.tick", DRIFTED),
        refs("after_sync", key_of("drifted_again"), scope="main"),
    ]
    return replay(request.param, workspaces["roots"], workspaces["home"], steps, {"PYBRIDGE_NO_WATCH": "1"})


def positions(answer: dict) -> list[tuple]:
    return [(r["path"], r["range"]["start"]["line"], r["range"]["start"]["character"]) for r in answer["references"]]


def test_the_illustrative_arguments_answer_a_default_page_of_100(answers):
    page = ok(answers, "illustrative")
    conforms(page, NOTES)
    assert len(page["references"]) == 100 and page["meta"]["total"] == TICK_REFERENCES
    assert page["shared"] == {"module": f"{GROUP}:{TOY}", "scope": "main"}
    assert all(isinstance(page["meta"][flag], bool) for flag in ("referenceCoverage", "callerCoverage"))


def test_next_cursor_with_unchanged_arguments_pages_through_every_reference_once(answers):
    first, second = ok(answers, "illustrative"), ok(answers, "page_2")
    assert len(second["references"]) == TICK_REFERENCES - 100 and "nextCursor" not in second
    joined = positions(first) + positions(second)
    assert len(set(joined)) == TICK_REFERENCES and joined == sorted(joined)
    assert joined == positions(ok(answers, "limit_500"))


def test_changed_arguments_while_paging_are_refused(answers):
    for label in ("other_scope", "other_limit"):
        assert "cursor" in err(answers, label, "invalid_cursor")["error"]


def test_a_limit_from_1_to_500_is_honoured_exactly(answers):
    one, most = ok(answers, "limit_1"), ok(answers, "limit_500")
    assert len(one["references"]) == 1 and one["nextCursor"]
    assert len(most["references"]) == TICK_REFERENCES and "nextCursor" not in most
    for label in ("limit_0", "limit_501"):
        assert err(answers, label, "invalid_argument")["field"] == "limit"


def test_module_is_an_exact_module_identifier(answers):
    assert positions(ok(answers, "module")) == positions(ok(answers, "limit_500"))
    assert err(answers, "no_module", "invalid_argument")["field"] == "module"


def test_references_have_the_seven_kinds_containers_and_contexts(answers):
    pages = [ok(answers, label) for label in ("limit_500", "counter_refs", "count_refs")]
    assert {r["kind"] for page in pages for r in page["references"]} == KINDS
    for page in pages:
        for r in page["references"]:
            container = page["containers"][r["container"]]
            assert container["symbolKey"] and container["name"].startswith(("Ticks", "Counter")), container
            assert isinstance(r["context"], str) and r["context"]
        assert [lim["kind"] for lim in page["meta"]["limitations"]] == ["reflection_not_tracked"]
    tick = ok(answers, "limit_500")
    assert {page["containers"][r["container"]]["name"] for page in [tick] for r in tick["references"]} == {
        "Ticks.later()", "Ticks.ticks0()", "Ticks.ticks1()", "Ticks.ticks2()"}
    assert {r["context"] for r in tick["references"]} == {"counter.tick();", "return counter::tick;"}


def test_an_empty_result_certifies_absence_only_when_its_coverage_flag_is_true(answers):
    certified, uncertified = ok(answers, "certified"), ok(answers, "uncertified")
    conforms(certified, {k: v for k, v in NOTES.items() if k != "nextCursor"})
    assert certified["references"] == [] and certified["meta"]["total"] == 0
    assert certified["meta"]["referenceCoverage"] is True and certified["meta"]["callerCoverage"] is True
    assert uncertified["references"] == [] and uncertified["meta"]["referenceCoverage"] is False
    assert uncertified["meta"]["callerCoverage"] is False
    [place] = uncertified["meta"]["coverageBlockers"]["places"]
    assert place["path"] == "src/main/java/toy/Unbound.java" and place["name"] == "orphan"


def test_stale_key_repeat_discovery_in_the_current_generation_without_another_sync(answers):
    removed = err(answers, "stale_key", "stale_key")         # Counter.reset() is gone: no successor
    assert removed["replacement"] is None and "discovery" in removed["hint"]
    renamed = err(answers, "stale_key_renamed", "stale_key")
    retried = ok(answers, "retried")       # discovery again in the current (fresh) generation, no sync
    assert retried["symbol"]["dottedPath"] == "toy.Greeter.spareHelper" and retried["meta"]["generation"] == 2
    assert retried["freshness"] == "fresh" and renamed["replacement"] == retried["symbol"]["symbolKey"]
    replaced = err(answers, "stale_key_replaced", "stale_key")    # orphan() became orphan(int)
    assert isinstance(replaced["replacement"], str)
    assert ok(answers, "replacement")["symbol"]["display"] == "orphan(int)"


def test_stale_snapshot_call_sync_then_repeat_discovery_and_retry(answers):
    stale = err(answers, "stale_snapshot", "stale_snapshot")
    assert GREETER in stale["changed"] and "sync" in stale["error"]
    assert ok(answers, "drifted_tick")["stale"] is True         # discovery by name answered, marked stale
    synced_now = ok(answers, "sync")
    assert synced_now["repo"] == DRIFTED and synced_now["published"] is True
    after = ok(answers, "after_sync")
    assert after["freshness"] == "fresh" and len(after["references"]) == 100
    assert after["meta"]["generation"] == synced_now["generation"]
