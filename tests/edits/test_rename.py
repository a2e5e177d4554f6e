"""rename: the hazard corpus (issue 24) on samples/renames, two modules, real JDT, real SQLite.

Each clean case lists its exact edits, reviewed by hand against the source (the comment beside each
line quotes the token); each refused case its reason and the place that causes it. Four clean cases
are then applied, one after the other, to a copy: the re-synced references of the renamed
declaration are the old ones with the name substituted (positions shifted on their lines, paths
through the file move), and the copy compiles with no error.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from pybridge.edits import StaleBaseError
from pybridge.edits import rename as planner
from pybridge.edits.names import why_invalid
from pybridge.edits.rename_apply import write
from pybridge.edits.rename_check import base_of
from pybridge.store import Store
from pybridge.sync import store_path, sync
from tests.support.mcp_session import checked_call, serve
from tests.support.query_support import SAMPLES, err, facade_for, key_of, ok, start, synced_sample

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bench"))
import mass_rename  # bench/ is not a package

LIB = "lib/src/main/java/com/acme/lib/"
APP = "app/src/main/java/com/acme/app/"


@pytest.fixture(scope="module")
def renames(tmp_path_factory, worker):
    return synced_sample("renames", tmp_path_factory, worker)


@pytest.fixture(scope="module")
def rf(renames, worker):
    with facade_for(renames, worker=worker) as facade:
        yield facade


def at(path: str, line: int, character: int, new: str, **extra) -> dict:
    return {"path": path, "line": line, "character": character, "newName": new, **extra}


def edits_of(answer: dict) -> dict[str, list[tuple[int, int, int]]]:
    out = {}
    for f in answer["files"]:
        assert {e["newText"] for e in f["edits"]} == {answer["newName"]}
        assert all(e["range"]["start"]["line"] == e["range"]["end"]["line"] for e in f["edits"])
        out[f["path"]] = [(e["range"]["start"]["line"], e["range"]["start"]["character"],
                           e["range"]["end"]["character"]) for e in f["edits"]]
    return out


# The clean cases: (where, new name, the exact edits by file, the moves).
CLEAN = {
    # a Javadoc {@link #foo(Object)} and two calls in the other module; no overload named print
    "method_with_javadoc_link": (at(LIB + "Printer.java", 9, 19, "print"), {
        APP + "App.java": [(22, 35, 38),      # printer.[foo]("x")
                           (22, 54, 57)],     # printer.[foo](1)
        LIB + "Printer.java": [(2, 27, 30),   # {@link #[foo](Object)}
                               (9, 18, 21)],  # public String [foo](Object value)
    }, []),
    # eclipse.jdt.ls #802: the family across modules, an anonymous class, a method reference, a call
    "interface_method_family_across_modules": (at(LIB + "Shape.java", 4, 12, "size"), {
        APP + "App.java": [(27, 26, 30),      # anonymous new Shape() { public double [area]() }
                           (31, 47, 51),      # Shape::[area]
                           (32, 34, 38)],     # square.[area]()
        APP + "Square.java": [(12, 18, 22)],  # public double [area]() (override in module app)
        LIB + "Shape.java": [(2, 21, 25),     # {@link #[area]()}
                             (4, 11, 15),     # double [area]();
                             (7, 25, 29)],    # "area " + [area]() in the default method
    }, []),
    # a public top-level type: its file moves, the import, Javadoc, constructors and `new` follow;
    # `Widget::new`, `this("plain")` keep their text (and their binding)
    "type_moves_its_file": (at(LIB + "Widget.java", 3, 14, "Gadget"), {
        APP + "App.java": [(12, 20, 26),      # import com.acme.lib.[Widget];
                           (18, 33, 39),      # {@link [Widget]}
                           (52, 17, 23),      # Supplier<[Widget]>
                           (52, 35, 41),      # [Widget]::new
                           (53, 8, 14),       # [Widget] widget
                           (53, 28, 34)],     # new [Widget](head)
        LIB + "Widget.java": [(2, 29, 35),    # {@link [Widget]#Widget(String)}
                              (2, 36, 42),    # {@link Widget#[Widget](String)}
                              (3, 13, 19),    # public class [Widget]
                              (6, 11, 17),    # public [Widget]() (constructor)
                              (10, 11, 17),   # public [Widget](String label)
                              (14, 11, 17),   # public [Widget] copy()
                              (15, 19, 25)],  # new [Widget](label)
    }, [{"from": LIB + "Widget.java", "to": LIB + "Gadget.java"}]),
    # a record component, reached from a call of its accessor: the compact constructor's uses too
    "record_component_from_its_accessor_call": (at(APP + "App.java", 49, 33, "first"), {
        APP + "App.java": [(49, 32, 36)],     # pair.[left]()
        LIB + "Pair.java": [(2, 23, 27),      # record Pair(int [left], ...)
                            (4, 12, 16),      # compact constructor: if ([left] > right)
                            (10, 15, 19)],    # return [left] + right;
    }, []),
    # a canonical constructor written out and an explicit accessor: its parameter and the accessor follow
    "record_component_with_explicit_accessor": (at(LIB + "Bounds.java", 3, 26, "min"), {
        LIB + "Bounds.java": [(3, 25, 28),    # record Bounds(int [low], ...)
                              (4, 22, 25),    # public Bounds(int [low], int high)
                              (5, 13, 16),    # this.[low] = ...
                              (5, 28, 31),    # Math.min([low], high)
                              (6, 29, 32),    # Math.max([low], high)
                              (10, 15, 18),   # public int [low]()
                              (11, 15, 18),   # return [low];
                              (15, 28, 31)],  # b.[low]()
    }, []),
    "enum_constant_with_a_body": (at(LIB + "Level.java", 3, 18, "TOP"), {
        APP + "App.java": [(18, 58, 62),      # {@link Level#[HIGH]}
                           (41, 17, 21),      # case [HIGH]:
                           (42, 57, 61)],     # Level.[HIGH].label()
        LIB + "Level.java": [(3, 17, 21),     # LOW, MEDIUM, [HIGH] {
                             (15, 23, 27)],   # n > 5 ? [HIGH] : LOW
    }, []),
    # the override in the constant's body is renamed with the enum's method
    "enum_method_overridden_in_a_constant_body": (at(LIB + "Level.java", 10, 19, "title"), {
        APP + "App.java": [(42, 41, 46),      # level.[label]()
                           (42, 62, 67)],     # Level.HIGH.[label]()
        LIB + "Level.java": [(5, 22, 27),     # HIGH { public String [label]() }
                             (10, 18, 23)],   # public String [label]()
    }, []),
    # an interface method with an implementor, a lambda (nothing to rename) and a method reference
    "interface_method_with_lambda_and_method_reference": (at(LIB + "Metric.java", 4, 9, "score"), {
        APP + "App.java": [(36, 64, 71),      # Metric::[measure]
                           (37, 34, 41),      # lambda.[measure]("a")
                           (37, 56, 63)],     # length.[measure]("bb")
        LIB + "LengthMetric.java": [(4, 15, 22)],   # public int [measure](String text)
        LIB + "Metric.java": [(4, 8, 15)],    # int [measure](String text);
    }, []),
    "local": (at(LIB + "Counter.java", 12, 13, "twiceStep"), {
        LIB + "Counter.java": [(12, 12, 17),  # int [delta] = step * 2;
                               (14, 17, 22)],  # count += [delta] + extra;
    }, []),
    "parameter_with_its_javadoc_param_tag": (at(LIB + "Counter.java", 11, 25, "amount"), {
        LIB + "Counter.java": [(9, 14, 18),   # @param [step] how much
                               (11, 24, 28),  # inc(int [step])
                               (12, 20, 24)],  # int delta = [step] * 2;
    }, []),
    # a static method imported statically in the other module
    "statically_imported_method": (at(LIB + "Util.java", 6, 23, "doubled"), {
        APP + "App.java": [(2, 32, 37),       # import static com.acme.lib.Util.[twice];
                           (39, 31, 36)],     # Level.of([twice](3))
        LIB + "Util.java": [(6, 22, 27)],     # public static int [twice](int x)
    }, []),
    # an enum whose implicit values() and valueOf(String) are called: their keys follow the type's
    # name (`Lcom/acme/lib/Phase;.values()[Lcom/acme/lib/Phase;`), so the check maps them too
    "enum_with_implicit_values_and_value_of": (at(LIB + "Phase.java", 2, 14, "Stage"), {
        LIB + "Phase.java": [(2, 12, 17),     # public enum [Phase]
                             (5, 11, 16),     # public [Phase] next()
                             (6, 8, 13)],     # [Phase][] all = values();
        LIB + "Phases.java": [(9, 15, 20),    # [Phase].values().length
                              (12, 18, 23),   # public static [Phase] parse(String name)
                              (13, 15, 20),   # [Phase].valueOf(name)
                              (16, 26, 31),   # EnumSet<[Phase]>
                              (17, 29, 34)],  # EnumSet.allOf([Phase].class)
    }, [{"from": LIB + "Phase.java", "to": LIB + "Stage.java"}]),
    "type_parameter": (at(LIB + "Lists.java", 9, 19, "E"), {
        LIB + "Lists.java": [(9, 19, 20),     # <[T]>
                             (9, 22, 23),     # [T] first(
                             (9, 35, 36),     # List<[T]>
                             (10, 8, 9)],     # [T] head = ...
    }, []),
    "generic_method": (at(LIB + "Lists.java", 9, 25, "head"), {
        APP + "App.java": [(51, 36, 41)],     # Lists.<String>[first](...)
        LIB + "Lists.java": [(9, 24, 29)],    # T [first](List<T> items)
    }, []),
}


@pytest.mark.parametrize("case", sorted(CLEAN))
def test_a_clean_rename_previews_exactly_these_edits_and_a_clean_check(rf, renames, case):
    where, edits, moves = CLEAN[case]
    answer = ok(rf, "rename", where)
    assert edits_of(answer) == edits
    assert answer["moves"] == moves
    assert answer["filesTotal"] == len(edits) and answer["editsTotal"] == sum(map(len, edits.values()))
    check = answer["check"]
    assert check["verdict"] == "clean", check
    assert check["rebound"] == [] and check["relations"] == {"gained": [], "lost": []}
    assert check["diagnostics"]["added"] == []
    assert answer["applied"] is False and "nextCursor" not in answer
    root = renames[0]
    touched = set(edits) | {m["from"] for m in moves}
    assert answer["base"] == {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in touched}


# The refused cases: (where, new name, reason, the first place's path and start, what it says).
REFUSED = {
    # vscode-java #3616: printer.foo("x") would silently call bar(String) instead
    "overload_capture": (at(LIB + "Printer.java", 9, 19, "bar"), "capture",
                         (APP + "App.java", (22, 35)), "bar(Object) would bind to com.acme.lib.Printer.bar(String)"),
    # child.greet() called Base.greet; a Child.greet would override it and take the call
    "inherited_member": (at(APP + "Child.java", 5, 19, "greet"), "capture",
                         (APP + "Child.java", (10, 15)), "Base.greet() would bind to com.acme.app.Child.greet()"),
    # max(a, b) is Util.max through a static import; a member named max hides it
    "statically_imported_member": (at(APP + "Stats.java", 9, 16, "max"), "capture",
                                   (APP + "Stats.java", (6, 15)),
                                   "Util.max(int, int) would bind to com.acme.app.Stats.max(int, int)"),
    # `count += delta` would read the local instead of the field
    "local_that_would_shadow_a_field": (at(LIB + "Counter.java", 12, 13, "count"), "capture",
                                        (LIB + "Counter.java", (14, 8)), "bind to com.acme.lib.Counter.inc.count"),
    "another_local_of_the_same_method": (at(LIB + "Counter.java", 13, 13, "delta"), "collision",
                                         (LIB + "Counter.java", (13, 12)), "Duplicate local variable delta"),
    "field_of_the_same_class": (at(LIB + "Counter.java", 3, 17, "limit"), "collision",
                                (LIB + "Counter.java", (4, 16)), "com.acme.lib.Counter.limit"),
    "method_with_the_same_parameters": (at(LIB + "Util.java", 6, 23, "half"), "collision",
                                        (LIB + "Util.java", (10, 22)), "com.acme.lib.Util.half"),
    "type_of_the_same_package": (at(LIB + "Widget.java", 3, 14, "Pair"), "collision",
                                 (LIB + "Pair.java", (2, 14)), "com.acme.lib.Pair"),
    "implements_a_jdk_method": (at(LIB + "Job.java", 4, 17, "go"), "library_member",
                                None, "java.lang.Runnable.run"),
    "overrides_object_to_string": (at(LIB + "Job.java", 9, 20, "show"), "library_member",
                                   None, "java.lang.Object.toString"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_rename_that_would_not_keep_every_binding_is_refused_with_its_reason_and_places(rf, case):
    where, reason, place, what = REFUSED[case]
    refusal = err(rf, "rename", where, "rename_refused")
    assert refusal["reason"] == reason, refusal
    assert refusal["placesTotal"] >= 1 and refusal["places"]
    first = refusal["places"][0]
    if place is not None:
        assert (first["path"], start(first)) == place, refusal
    assert what in first["what"], refusal


@pytest.mark.parametrize("name", ["class", "1abc", "var", "_", "true", "null", "a-b", "two words"])
def test_a_name_that_is_not_a_java_identifier_or_is_a_keyword_is_invalid_name(rf, name):
    refusal = err(rf, "rename", at(LIB + "Printer.java", 9, 19, name), "rename_refused")
    assert refusal["reason"] == "invalid_name" and refusal["places"] == []


def test_type_names_refuse_the_restricted_identifiers_that_methods_may_take():
    assert why_invalid("record", "CLASS") is not None and why_invalid("record", "METHOD") is None
    assert why_invalid("sealed", "INTERFACE") is not None and why_invalid("sealed", "LOCAL") is None
    assert why_invalid("$tmp", "LOCAL") is None and why_invalid("ünïcödé", "FIELD") is None


def test_renaming_one_overload_of_a_static_import_keeps_the_import_and_adds_one_of_the_new_name(rf):
    # `import static com.acme.lib.Texts.pad;` imports pad(int) and pad(String); only pad(int) is renamed
    answer = ok(rf, "rename", at(LIB + "Texts.java", 6, 26, "padded"))
    files = {f["path"]: [(start(e), e["range"]["end"]["character"], e["newText"]) for e in f["edits"]]
             for f in answer["files"]}
    assert files == {
        APP + "Padding.java": [((2, 37), 37, " import static com.acme.lib.Texts.padded;"),   # after `pad;`
                               ((6, 15), 18, "padded")],                                    # [pad](1)
        LIB + "Texts.java": [((6, 25), 28, "padded")],                                      # String [pad](int n)
    }
    assert answer["check"]["verdict"] == "clean" and answer["check"]["rebound"] == [], answer["check"]


def test_a_symbol_key_and_a_constructor_name_rename_the_type(rf):
    by_key = ok(rf, "rename", {"symbolKey": key_of(rf, "Widget", kind="CLASS"), "newName": "Gadget"})
    by_constructor = ok(rf, "rename", at(LIB + "Widget.java", 10, 12, "Gadget"))
    assert by_key["symbol"]["dottedPath"] == by_constructor["symbol"]["dottedPath"] == "com.acme.lib.Widget"
    assert edits_of(by_key) == edits_of(by_constructor) == CLEAN["type_moves_its_file"][1]


def test_a_base_that_differs_from_the_files_read_is_stale_base_and_nothing_is_written(rf, renames):
    root = renames[0]
    before = (root / (LIB + "Util.java")).read_bytes()
    wrong = {LIB + "Util.java": "0" * 64}
    answer = err(rf, "rename", at(LIB + "Util.java", 6, 23, "doubled", apply=True, base=wrong), "stale_base")
    assert answer["changed"] == [LIB + "Util.java"]
    assert (root / (LIB + "Util.java")).read_bytes() == before


def test_the_writer_writes_nothing_when_one_file_changed_after_the_plan_read_it(tmp_path, renames):
    root = tmp_path / "renames"
    shutil.copytree(renames[0], root)
    with Store.open(store_path(renames[1]), readonly=True) as store, store.reader() as reader:
        [decl] = reader.declarations(dotted="com.acme.lib.Widget", kinds=["CLASS"])
        plan = planner.plan(reader, root, decl, "Gadget", lambda m: "UTF-8")
    app = root / (APP + "App.java")
    app.write_text(app.read_text(encoding="utf-8") + "// edited meanwhile\n", encoding="utf-8")
    widget = (root / (LIB + "Widget.java")).read_bytes()
    with pytest.raises(StaleBaseError) as raised:
        write(root, plan, base_of(plan))
    assert raised.value.changed == [APP + "App.java"]
    assert (root / (LIB + "Widget.java")).read_bytes() == widget and not (root / (LIB + "Gadget.java")).exists()
    assert not [p for p in root.rglob("*.pybridge-rename")]


def _expected(before: list[dict], preview: dict) -> list[tuple[str, int, int, int, str]]:
    """The old references with the name substituted: positions shifted by the edits before them on
    their line, paths through the moves."""
    delta = len(preview["newName"]) - len(preview["symbol"]["display"].split("(")[0])
    starts: dict[tuple[str, int], list[int]] = {}
    for f in preview["files"]:
        for e in f["edits"]:
            starts.setdefault((f["path"], e["range"]["start"]["line"]), []).append(e["range"]["start"]["character"])
    moved = {m["from"]: m["to"] for m in preview["moves"]}
    out = []
    for r in before:
        line, char = start(r)
        shift = delta * sum(1 for c in starts.get((r["path"], line), []) if c < char)
        width = r["range"]["end"]["character"] - char
        renamed = char in starts.get((r["path"], line), [])
        out.append((moved.get(r["path"], r["path"]), line, char + shift, width + (delta if renamed else 0), r["kind"]))
    return sorted(out)


def _rows(answer: dict) -> list[tuple[str, int, int, int, str]]:
    return sorted((r["path"], *start(r), r["range"]["end"]["character"] - start(r)[1], r["kind"])
                  for r in answer["references"])


def test_applied_renames_resync_to_the_old_references_with_the_name_substituted(tmp_path, worker, renames):
    root = tmp_path / "renames"
    shutil.copytree(SAMPLES / "renames", root)
    state = tmp_path / "state"
    sync(root, state_dir=state, worker=worker)
    with facade_for((root, state), worker=worker) as facade:
        steps = [("Widget", "CLASS", "Gadget"), ("Shape.area", "METHOD", "size"), ("Pair.left", None, "first"),
                 ("Level.HIGH", "ENUM_CONSTANT", "TOP")]
        for name, kind, new in steps:
            key = key_of(facade, name, kind=kind)
            before = ok(facade, "find_references", {"symbolKey": key, "limit": 500})
            preview = ok(facade, "rename", {"symbolKey": key, "newName": new})
            applied = ok(facade, "rename", {"symbolKey": key, "newName": new, "apply": True,
                                            "base": preview["base"]})
            assert applied["applied"] is True and applied["symbolKey"] and "hint" not in applied, applied
            after = ok(facade, "find_references", {"symbolKey": applied["symbolKey"], "limit": 500})
            assert after["symbol"]["name"] == new
            assert after["symbol"]["dottedPath"].rsplit(".", 1)[0] == before["symbol"]["dottedPath"].rsplit(".", 1)[0]
            assert _rows(after) == _expected(before["references"], preview), name
            assert err(facade, "find_references", {"symbolKey": key}, "stale_key")
        status = ok(facade, "status", {})
        assert [s["problems"] for s in status["scopes"]] == [0, 0]
    assert (root / (LIB + "Gadget.java")).exists() and not (root / (LIB + "Widget.java")).exists()


def test_under_serve_an_applied_rename_answers_once_the_live_index_has_published_it(tmp_path):
    root = tmp_path / "renames"
    shutil.copytree(SAMPLES / "renames", root)
    with serve([root], tmp_path / "home") as client:
        synced, is_error, _ = checked_call(client, "sync", {})
        assert not is_error, synced
        applied, is_error, _ = checked_call(client, "rename", at(LIB + "Util.java", 6, 23, "doubled", apply=True))
        assert not is_error, applied
        assert applied["applied"] is True and applied["generation"] > synced["generation"], applied
        refs, is_error, _ = checked_call(client, "find_references", {"symbolKey": applied["symbolKey"]})
        assert not is_error and refs["freshness"] == "fresh", refs
        assert refs["symbol"]["dottedPath"] == "com.acme.lib.Util.doubled"
        assert [(r["path"], start(r)) for r in refs["references"]] == [(APP + "App.java", (2, 32)),
                                                                       (APP + "App.java", (39, 31))]
    assert "Util.doubled;" in (root / (APP + "App.java")).read_text(encoding="utf-8")


def test_twenty_random_renames_are_clean_or_refused_for_real_by_javacs_judgement(tmp_path, worker):
    # issue 24's CI variant of bench/mass_rename.py (25 s idle): every rename is applied to a copy and
    # judged by javac; the thousand-rename runs are the bench's
    root = tmp_path / "renames"
    shutil.copytree(SAMPLES / "renames", root)
    sync(root, state_dir=tmp_path / "state", worker=worker)
    result = mass_rename.run(root, tmp_path / "state", 20, 7, tmp_path / "work", worker, say=lambda _: None)
    counts = result["counts"]
    assert sum(counts.values()) == 20
    assert counts.get("failed", 0) == counts.get("error", 0) == counts.get("refused_unproven", 0) == 0, \
        [c for c in result["cases"] if c["result"] in ("failed", "error", "refused_unproven")]
    assert counts.get("clean", 0) > 0 and any(k.startswith("refused:") for k in counts)


def test_a_preview_larger_than_the_answer_budget_pages_by_whole_files(tmp_path, worker):
    root = tmp_path / "renames"
    shutil.copytree(SAMPLES / "renames", root)
    calls = "\n".join(f"        total += Util.twice({i});" for i in range(12))
    for n in range(40):
        (root / APP / f"Use{n:02d}.java").write_text(
            f"package com.acme.app;\n\nimport com.acme.lib.Util;\n\npublic class Use{n:02d} {{\n"
            f"    public int run() {{\n        int total = 0;\n{calls}\n        return total;\n    }}\n}}\n",
            encoding="utf-8")
    sync(root, state_dir=tmp_path / "state", worker=worker)
    with facade_for((root, tmp_path / "state"), worker=worker) as facade:
        where = at(LIB + "Util.java", 6, 23, "doubled")
        first = ok(facade, "rename", where)
        assert first["filesTotal"] == 42 and first["editsTotal"] == 3 + 40 * 12
        assert 1 <= len(first["files"]) < 42 and first["nextCursor"]
        assert len(json.dumps(first, separators=(",", ":")).encode("utf-8")) <= 32 * 1024
        pages, cursor = [first], first["nextCursor"]
        while cursor:
            page = ok(facade, "rename", {**where, "cursor": cursor})
            pages.append(page)
            cursor = page.get("nextCursor")
        paths = [f["path"] for p in pages for f in p["files"]]
        assert len(paths) == len(set(paths)) == 42 and len(pages) >= 2
        assert sum(len(f["edits"]) for p in pages for f in p["files"]) == 3 + 40 * 12
