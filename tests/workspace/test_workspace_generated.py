"""Generated sources (target/generated-sources, target/generated-test-sources) are indexed when
present and marked as generated in the facts and the answers."""

from __future__ import annotations

import shutil

from pybridge.sync import sync
from pybridge.workspace import load_workspace
from pybridge.workspace.generated import generated_roots
from tests.support.query_support import SAMPLES, facade_for, key_of, ok, start

GEN = "target/generated-sources/annotations/com/acme/kitchen/gen/CounterFactory.java"
GEN_TEST = "target/generated-test-sources/test-annotations/com/acme/kitchen/gen/CounterCheck.java"


def test_generated_sources_are_indexed_and_marked_generated_in_the_answers(tmp_path, worker):
    root = tmp_path / "kitchen-sink"
    shutil.copytree(SAMPLES / "kitchen-sink", root)
    for rel, body in ((GEN, "public final class CounterFactory {\n"
                            "    public static Counter make() {\n"
                            "        return new Counter();\n"
                            "    }\n}\n"),
                      (GEN_TEST, "public final class CounterCheck {\n"
                                 "    public static boolean check() {\n"
                                 "        return CounterFactory.make() != null;\n"
                                 "    }\n}\n")):
        path = root / rel
        path.parent.mkdir(parents=True)
        path.write_text("package com.acme.kitchen.gen;\n\nimport com.acme.kitchen.Counter;\n\n" + body,
                        encoding="utf-8")
    assert {p.name for p in generated_roots(load_workspace(root))} == {"annotations", "test-annotations"}
    sync(root, state_dir=tmp_path / "state", worker=worker)
    with facade_for((root, tmp_path / "state")) as facade:
        [factory] = ok(facade, "find_symbol", {"query": "CounterFactory.make"})["symbols"]
        assert factory["generated"] is True and factory["declaration"]["path"] == GEN
        assert factory["scope"] == "main"
        [counter] = ok(facade, "find_symbol", {"query": "com.acme.kitchen.Counter", "kind": "CLASS"})["symbols"]
        assert "generated" not in counter      # flags appear only when true
        page = ok(facade, "find_references", {"symbolKey": key_of(facade, "CounterFactory.make")})
        refs, shared = page["references"], page["shared"]    # a row's scope: its own, or the page's
        assert [(r["path"], start(r), r.get("scope", shared["scope"]), r.get("generated", False)) for r in refs] == [
            (GEN_TEST, (6, 30), "test", True)]
        counter_refs = ok(facade, "find_references", {"symbolKey": counter["symbolKey"]})["references"]
        by_origin = {(r["path"].startswith("target/"), r.get("generated", False)) for r in counter_refs}
        assert by_origin == {(True, True), (False, False)}
