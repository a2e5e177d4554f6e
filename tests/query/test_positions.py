"""Positions that two declarations share: symbol_at names the one a person means."""

from __future__ import annotations

import pytest

from tests.support.query_support import facade_for, ok, start, synced_sample

SIZE = "src/main/java/com/acme/kitchen/Size.java"
KITCHEN = "src/main/java/com/acme/kitchen/Kitchen.java"
POINT = "src/main/java/com/acme/kitchen/Point.java"


@pytest.fixture(scope="module")
def ks(tmp_path_factory, worker):
    with facade_for(synced_sample("kitchen-sink", tmp_path_factory, worker)) as facade:
        yield facade


def test_symbol_at_on_an_enum_constant_with_a_body_names_the_constant_and_finds_every_reference(ks):
    answer = ok(ks, "symbol_at", {"path": SIZE, "line": 6, "character": 4})
    constant = answer["symbol"]
    assert (constant["kind"], constant["dottedPath"]) == ("ENUM_CONSTANT", "com.acme.kitchen.Size.LARGE")
    assert constant["occurrence"]["role"] == "definition"
    # the body class and the constructor call the constant makes come after it
    assert [a["dottedPath"] for a in answer["alternatives"]] == \
        ["com.acme.kitchen.Size.Size", "com.acme.kitchen.Size.LARGE.<anonymous>"]
    refs = ok(ks, "find_references", {"symbolKey": constant["symbolKey"]})
    assert [(r["path"], start(r), r["kind"]) for r in refs["references"]] == [
        (KITCHEN, (30, 40), "read"), (KITCHEN, (92, 17), "read")]


def test_symbol_at_on_new_with_a_class_body_names_the_constructor_then_the_class_then_the_body(ks):
    answer = ok(ks, "symbol_at", {"path": KITCHEN, "line": 40, "character": 24})
    hits = [answer["symbol"], *answer["alternatives"]]
    assert [(h["kind"], h["dottedPath"]) for h in hits] == [
        ("CONSTRUCTOR", "com.acme.kitchen.BaseShape.BaseShape"),
        ("CLASS", "com.acme.kitchen.BaseShape"),
        ("CLASS", "com.acme.kitchen.Kitchen.shapes.<anonymous>")]


def test_symbol_at_on_a_record_name_and_its_compact_constructor_names_each_once(ks):
    record = ok(ks, "symbol_at", {"path": POINT, "line": 3, "character": 14})
    assert (record["symbol"]["kind"], record["alternatives"]) == ("RECORD", [])
    compact = ok(ks, "symbol_at", {"path": POINT, "line": 4, "character": 11})
    assert compact["symbol"]["kind"] == "CONSTRUCTOR" and compact["alternatives"] == []
    component = ok(ks, "symbol_at", {"path": POINT, "line": 3, "character": 24})
    assert (component["symbol"]["kind"], component["alternatives"]) == ("RECORD_COMPONENT", [])
