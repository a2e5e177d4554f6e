"""What the indexer finds in the bundled samples, asserted directly (the goldens show the rest)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pybridge.facts import REF_KINDS
from tests.support.indexing import index_roots


@pytest.fixture(scope="module")
def kitchen(worker, samples):
    return index_roots(worker, [samples / "kitchen-sink" / "src/main/java"])


@pytest.fixture(scope="module")
def broken(worker, samples):
    return {Path(f.path).name: f for f in index_roots(worker, [samples / "broken" / "src/main/java"]).files}


def test_the_kitchen_sink_shows_all_seven_reference_kinds(kitchen):
    kinds = Counter(r.kind for f in kitchen.files for r in f.references)
    assert set(kinds) == set(REF_KINDS), kinds


def test_every_kitchen_sink_file_compiles_with_full_bindings(kitchen):
    assert [f.path for f in kitchen.files if not f.binding_complete or f.problems or f.failure] == []


def test_every_reference_in_the_kitchen_sink_spans_exactly_its_simple_name_token(kitchen):
    """The span's text is the token DESIGN section 6 names: an identifier, or `this`/`super`/`new`."""
    bad = []
    for f in kitchen.files:
        lines = Path(f.path).read_text(encoding="utf-8").split("\n")
        for r in f.references:
            line = lines[r.span.start_line].encode("utf-16-le")
            text = line[r.span.start_char * 2:r.span.end_char * 2].decode("utf-16-le")
            assert r.span.start_line == r.span.end_line
            if not (text.isidentifier() or text in ("this", "super", "new")):
                bad.append((f.path, r))
    assert bad == []


def test_every_kitchen_sink_reference_names_its_container(kitchen):
    assert [r for f in kitchen.files for r in f.references if not r.container_key] == []


def test_library_targets_carry_their_scip_symbol(kitchen):
    externals = {key: v for f in kitchen.files for key, v in f.external.items()}
    assert externals["Ljava/lang/String;"] == ("CLASS", "java.lang.String", "java/lang/String#")


def test_scip_symbols_follow_scip_java_for_overloads_constructors_and_fields(kitchen):
    scip = {d.display: d.scip for f in kitchen.files for d in f.declarations
            if d.dotted.startswith("com.acme.kitchen.Greeter.") and d.kind in ("METHOD", "CONSTRUCTOR", "FIELD")}
    assert scip["greet(String)"] == "com/acme/kitchen/Greeter#greet()."
    assert scip["greet(String, int)"] == "com/acme/kitchen/Greeter#greet(+1)."
    assert scip["Greeter(String)"] == "com/acme/kitchen/Greeter#`<init>`()."
    assert scip["greeting"] == "com/acme/kitchen/Greeter#greeting."


def test_the_broken_sample_lists_its_problems_per_file_and_marks_broken_files(broken):
    assert {name: f.binding_complete for name, f in broken.items()} == {
        "Helper.java": True, "Syntax.java": False, "MissingDep.java": False, "Unresolved.java": False}
    assert {p.kind for p in broken["Syntax.java"].problems} == {"syntax"}
    assert {(p.kind, p.name) for p in broken["MissingDep.java"].problems} == {
        ("unresolved_import", "Ghost"), ("unresolved_type", "Ghost")}
    assert [(p.kind, p.name) for p in broken["Unresolved.java"].problems] == [("unresolved_method", "noSuchMethod")]
    assert broken["Helper.java"].problems == []


def test_code_after_a_syntax_error_is_still_indexed(broken):
    methods = {d.name for d in broken["Syntax.java"].declarations if d.kind == "METHOD"}
    assert methods == {"before", "broken", "after"}


LAMBDAS = """package p;

import java.util.function.Function;

public class Lambdas {
    static int above(int v) {
        return v;
    }

    static final Function<String, Integer> LENGTH = text -> { int n = text.length(); return n; };

    static int below() {
        Function<Integer, Integer> f = x -> { int twice = x * 2; return twice; };
        return f.apply(1);
    }
}
"""


def test_a_lambdas_keys_outlive_an_edit_of_another_declaration(worker, tmp_path):
    """A lambda's parameters and locals are keyed by the enclosing declaration and the lambda's place
    among its lambdas: a lambda added to a method above (JDT's `lambda$N` shift) leaves them as they were."""
    source = tmp_path / "src/p/Lambdas.java"
    source.parent.mkdir(parents=True)

    def keys(text: str) -> set[str]:
        source.write_text(text, encoding="utf-8")
        [facts] = index_roots(worker, [tmp_path / "src"]).files
        return {d.key for d in facts.declarations if d.kind in ("LOCAL", "PARAMETER") and ".lambda$" in d.key}

    before = keys(LAMBDAS)
    assert "Lp/Lambdas;.below()I.lambda$0#0#twice" in before, sorted(before)
    edited = LAMBDAS.replace("return v;", "java.util.function.IntUnaryOperator g = w -> w + 1;\n"
                                          "        return g.applyAsInt(v);")
    after = keys(edited)
    assert before <= after and len(after - before) == 1, sorted(after - before)


BOX = """package p;

public class Box<T> {
    public Box(T value) {
    }
}
"""

DIAMONDS = """package p;

import java.util.HashMap;

public class Diamonds {
    static void take(Object o) {
    }

    void call(String value) {
        take(new HashMap<>());
        take(new Box<>(value));
        undefinedMethod(new HashMap<>());
        undefined(new Box<>(value));
    }
}
"""


def test_a_diamond_passed_to_a_call_that_does_not_resolve_constructs_its_constructor(worker, tmp_path):
    """JDT's recovery leaves such a diamond on its synthetic `<factory>` method (a key that declares
    nothing): the facts name the constructor, as in a compiling call, and `<factory>` nowhere."""
    for name, text in (("Box", BOX), ("Diamonds", DIAMONDS)):
        (tmp_path / "src/p").mkdir(parents=True, exist_ok=True)
        (tmp_path / f"src/p/{name}.java").write_text(text, encoding="utf-8")
    files = index_roots(worker, [tmp_path / "src"]).files
    [facts] = [f for f in files if f.path.endswith("Diamonds.java")]
    constructions = {line: [r.target_key for r in facts.references if r.span.start_line == line
                            and r.kind == "construction" and "(" in r.target_key] for line in (9, 10, 11, 12)}
    assert constructions == {9: ["Ljava/util/HashMap;.()V"], 10: ["Lp/Box;.(TT;)V"],
                             11: ["Ljava/util/HashMap;.()V"], 12: ["Lp/Box;.(TT;)V"]}
    strings = [s for f in files for s in (
        *(k for d in f.declarations for k in (d.key, d.scip, d.declaring_key)),
        *(k for r in f.references for k in (r.target_key, r.target_scip, r.container_key)),
        *(k for r in f.relations for k in (r.from_key, r.to_key)),
        *(k for key, v in f.external.items() for k in (key, *v)))]
    assert [s for s in strings if "<factory>" in s] == []
