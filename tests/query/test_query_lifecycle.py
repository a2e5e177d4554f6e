"""Generations over time: sync through the facade, edits after a sync, old keys and cursors.

One copy of the kitchen-sink goes through: sync (generation 1) -> an edit
(stale) -> sync (generation 2) -> a broken POM (a failed sync). The steps
run in order, each test starting where the previous one left off.
"""

from __future__ import annotations

import shutil

import pytest

from tests.support.query_support import ENVELOPE, ROOT, err, facade_for, key_of, ok

COUNTER = "src/main/java/com/acme/kitchen/Counter.java"
KITCHEN = "src/main/java/com/acme/kitchen/Kitchen.java"


@pytest.fixture(scope="module")
def life(tmp_path_factory, worker):
    base = tmp_path_factory.mktemp("life")
    root = base / "kitchen-sink"
    shutil.copytree(ROOT / "samples" / "kitchen-sink", root)
    state = base / "state"
    with facade_for((root, state), worker=worker) as facade:
        yield {"root": root, "state": state, "facade": facade, "worker": worker}


def test_sync_through_the_facade_reports_progress_counts_and_coverage(life):
    events = []
    result, is_error = life["facade"].call("sync", {}, lambda done, total, msg: events.append(
        (done, total, msg)))
    assert not is_error, result
    assert result["generation"] == 1 and result["repo"] == "kitchen-sink"
    assert result["counts"]["files"] == 12 and result["counts"]["filesNotBindingComplete"] == 0
    assert result["coverage"] == {"bindingComplete": True, "scopes": [{
        "module": "dev.pybridge.samples:kitchen-sink", "scope": "main", "files": 12,
        "bindingComplete": 12, "problems": 0}]}
    assert [lim["kind"] for lim in result["limitations"]] == ["reflection_not_tracked"]
    assert ENVELOPE <= result.keys() and result["stale"] is False
    assert events and all(isinstance(m, str) and m for _, _, m in events)
    dones = [d for d, _, _ in events]
    assert dones == sorted(dones) and events[-1][0] == events[-1][1] == 12


def test_an_edit_after_sync_fails_exact_tools_and_marks_name_tools_stale(life):
    facade = life["facade"]
    life["count_key"] = key_of(facade, "Counter.count")
    life["get_count_key"] = key_of(facade, "Counter.getCount")
    assert (life["state"] / "secret").stat().st_mode & 0o777 == 0o600
    life["cursor"] = ok(facade, "find_symbol", {"query": "greet", "limit": 1})["nextCursor"]
    life["refs_cursor"] = ok(facade, "find_references", {"symbolKey": life["count_key"],
                                                         "limit": 2})["nextCursor"]
    root = life["root"]
    for path, old, new in ((COUNTER, "public int getCount()", "public int currentCount()"),
                           (KITCHEN, "counter.getCount()", "counter.currentCount()")):
        text = (root / path).read_text(encoding="utf-8")
        (root / path).write_text(text.replace(old, new), encoding="utf-8")
    with facade_for((root, life["state"])) as fresh:   # a new facade: no cached freshness check
        stale = err(fresh, "find_references", {"symbolKey": life["count_key"]}, "stale_snapshot")
        assert stale["changed"] == [COUNTER, KITCHEN] and "sync" in stale["error"]
        err(fresh, "symbol_at", {"path": COUNTER, "line": 11, "character": 16}, "stale_snapshot")
        by_name = ok(fresh, "findReferences", {"symbol": "Counter.count"})
        assert by_name["stale"] is True and by_name["freshness"] == "stale"
        assert by_name["changed"] == [COUNTER, KITCHEN]
        assert ok(fresh, "find_symbol", {"query": "Counter.count"})["stale"] is True
        assert ok(fresh, "get_callers", {"symbol": "Counter.add(int)"})["stale"] is True
        status = ok(fresh, "status", {})
        assert status["stale"] is True and "sync" in status["hint"]


def test_a_key_from_generation_1_answers_in_generation_2_while_its_declaration_survives(life):
    facade = life["facade"]
    assert ok(facade, "sync", {})["generation"] == 2
    refs = ok(facade, "find_references", {"symbolKey": life["count_key"]})
    assert refs["symbol"]["dottedPath"] == "com.acme.kitchen.Counter.count"
    assert refs["meta"]["generation"] == 2 and refs["meta"]["total"] == 6
    assert key_of(facade, "Counter.count") == life["count_key"]


def test_a_key_of_a_renamed_method_is_stale_with_the_renamed_method_as_replacement(life):
    gone = err(life["facade"], "find_references", {"symbolKey": life["get_count_key"]}, "stale_key")
    assert gone["replacement"] == key_of(life["facade"], "Counter.currentCount")
    assert "no longer declares" in gone["error"] and "hint" in gone


def test_a_cursor_from_generation_1_is_stale_in_generation_2(life):
    facade = life["facade"]
    err(facade, "find_symbol", {"query": "greet", "limit": 1, "cursor": life["cursor"]}, "stale_cursor")
    err(facade, "find_references", {"symbolKey": life["count_key"], "limit": 2, "cursor": life["refs_cursor"]},
        "stale_cursor")


def test_a_failed_sync_is_sync_failed_and_the_previous_generation_stays_served(life):
    facade, root = life["facade"], life["root"]
    (root / "pom.xml").write_text("<project><this is not xml", encoding="utf-8")
    failed = err(facade, "sync", {}, "sync_failed")
    assert "pom.xml" in failed["error"] and "still served" in failed["error"]
    answer = ok(facade, "find_symbol", {"query": "Counter.currentCount"})
    assert answer["symbols"][0]["symbolKey"] and answer["stale"] is True
    assert ok(facade, "status", {})["generation"] == 2
