"""check_edit's hazard corpus (issue 24, DESIGN section 10) on samples/edits, with real JDT: each case's
expected answer was reviewed by hand.

- an added overload `show(String)` captures `printer.show("text")` (no error: changes_meaning);
- a parameter type change `twice(int)` -> `twice(long)`: the call still binds to the same declaration
  (clean; the declaration is `changed`, its call is not rebound);
- a deleted method still called: breaks_build, the call's error added, the call rebound to null;
- a field in a subclass hides the inherited one: `count` in Derived.next() rebinds;
- a field added to a superclass hides the outer class's: `limit` in Outer.Inner rebinds (a file the
  edit does not touch, found by the planner), and a method added there is overridden by accident;
- stale_base, a patch input (the same answer as its changes), a patch that does not apply;
- nothing is written: the workspace's bytes and the current generation stay as they were;
- a long answer (a new file of 400 fields) comes in pages within 32 KB;
- over MCP under `serve`: the check, then the same edit written: the live catch-up's diff names the
  rebound call in `status` (under `live`) and `diagnostics`.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import shutil

import pytest

from pybridge.edits import EditSession, FileChange, check_edit
from pybridge.edits import check as check_module
from pybridge.edits.overlay import MIRRORS_ENV, forget_mirrors
from pybridge.edits.plan import (
    FIELD_SUBTYPES_ENV,
    IMPLICIT_ARITY_ENV,
    IMPORT_USES_ENV,
    IMPORTS_BY_NAME_ENV,
    OBJECT_OVERLOAD_ENV,
    PLAN_ENV,
    PLANS,
    STATIC_IMPORT_TEXT_ENV,
    PlanError,
    may_capture,
    member_shape,
    plan_kind,
)
from pybridge.store import Store
from pybridge.sync import default_state_dir, sync
from pybridge.sync.planner import forget_placements
from pybridge.sync.state import store_path
from tests.live.test_live import ENV
from tests.live.test_live import ok as live_ok
from tests.support.mcp_session import serve
from tests.support.query_support import SAMPLES, err, facade_for, ok, synced_sample

P = "src/main/java/com/acme/edits/"
SCIP = "scip-java maven dev.pybridge.samples/edits 1.0 com/acme/edits/"


@pytest.fixture(scope="module")
def edits(tmp_path_factory, worker):
    root, state = synced_sample("edits", tmp_path_factory, worker)
    facade = facade_for((root, state), worker=worker)
    yield facade, root, state
    facade.close()


def _changed(root, name: str, old: str, new: str) -> dict:
    text = (root / P / name).read_text(encoding="utf-8")
    assert old in text
    return {"path": P + name, "text": text.replace(old, new, 1)}


def _check(facade, *changes, **extra) -> dict:
    return ok(facade, "check_edit", {"changes": list(changes), **extra})


def _rows(answer: dict) -> list[tuple]:
    return [(r["path"].removeprefix(P), r["range"]["start"]["line"], r["range"]["start"]["character"], r["kind"],
             r["from"]["symbol"].removeprefix(SCIP), r["to"] and r["to"]["symbol"].removeprefix(SCIP))
            for r in answer["rebound"]]


def _decls(rows: list[dict]) -> list[tuple]:
    return [(r["path"].removeprefix(P), r["kind"], r["symbol"]["display"], r.get("before")) for r in rows]


OVERLOAD = ("    public int twice",
            "    public String show(String s) {\n        return s;\n    }\n\n    public int twice")


def test_an_added_overload_that_captures_a_call_changes_meaning(edits):
    facade, root, _ = edits
    answer = _check(facade, _changed(root, "Printer.java", *OVERLOAD))
    assert answer["verdict"] == "changes_meaning"
    assert _rows(answer) == [("Client.java", 6, 27, "invocation", "Printer#show().", "Printer#show(+1).")]
    [row] = answer["rebound"]
    assert row["from"]["symbolKey"] and row["from"]["display"] == "show(Object)"
    assert row["to"]["symbolKey"] is None and row["to"]["display"] == "show(String)"   # not declared before
    assert answer["diagnostics"] == {"added": [], "removed": []}
    assert answer["relations"] == {"gained": [], "lost": []}
    assert _decls(answer["declarations"]["added"]) == [("Printer.java", "METHOD", "show(String)", None)]
    assert answer["declarations"]["removed"] == answer["declarations"]["changed"] == []
    assert answer["total"]["rebound"] == 1 and "nextCursor" not in answer
    assert answer["checked"]["changed"] == [P + "Printer.java"] and answer["checked"]["generation"] == 1


def test_a_parameter_type_change_keeps_its_calls_on_the_same_declaration(edits):
    facade, root, _ = edits
    answer = _check(facade, _changed(root, "Printer.java", "twice(int n) {\n        return n * 2;",
                                     "twice(long n) {\n        return (int) (n * 2);"))
    assert answer["verdict"] == "clean"
    assert answer["rebound"] == [] and answer["diagnostics"]["added"] == []
    assert _decls(answer["declarations"]["changed"]) == [("Printer.java", "METHOD", "twice(long)", "twice(int)")]
    assert answer["declarations"]["added"] == answer["declarations"]["removed"] == []


def test_a_deleted_method_still_called_breaks_the_build(edits):
    facade, root, _ = edits
    answer = _check(facade, _changed(root, "Printer.java", "    public String name() {\n        return \"printer\";\n"
                                     "    }\n", ""))
    assert answer["verdict"] == "breaks_build"
    [added] = answer["diagnostics"]["added"]
    assert (added["path"], added["range"]["start"], added["kind"], added["name"]) == \
        (P + "Client.java", {"line": 9, "character": 35}, "unresolved_method", "name")
    assert _rows(answer) == [("Client.java", 9, 35, "invocation", "Printer#name().", None)]
    assert _decls(answer["declarations"]["removed"]) == [("Printer.java", "METHOD", "name()", None)]


def test_a_subclass_field_that_hides_the_inherited_one_rebinds_its_reads(edits):
    facade, root, _ = edits
    answer = _check(facade, _changed(root, "Derived.java", "    public int next",
                                     "    private int count = 5;\n\n    public int next"))
    assert answer["verdict"] == "changes_meaning"
    # the read in next() is outside the edited text (two lines down now)
    assert _rows(answer) == [("Derived.java", 6, 15, "read", "Base#count.", "Derived#count.")]
    assert _decls(answer["declarations"]["added"]) == [("Derived.java", "FIELD", "count", None)]


def test_an_inherited_field_that_hides_an_outer_one_and_an_accidental_override(edits):
    facade, root, _ = edits
    answer = _check(facade, _changed(root, "Base.java", "    protected int count = 1;",
                                     "    protected int count = 1;\n    protected int limit = 7;\n\n"
                                     "    public String describe() {\n        return \"base\";\n    }"))
    assert answer["verdict"] == "changes_meaning"
    assert _rows(answer) == [("Outer.java", 7, 19, "read", "Outer#limit.", "Base#limit.")]
    [gained] = answer["relations"]["gained"]
    assert (gained["kind"], gained["from"]["symbol"].removeprefix(SCIP), gained["to"]["symbol"].removeprefix(SCIP),
            gained["path"]) == ("overrides", "Derived#describe().", "Base#describe().", P + "Derived.java")
    assert answer["relations"]["lost"] == []
    assert sorted(_decls(answer["declarations"]["added"])) == [("Base.java", "FIELD", "limit", None),
                                                             ("Base.java", "METHOD", "describe()", None)]


def test_a_dependent_that_binds_as_before_is_compiled_but_its_old_facts_are_not_read(edits, worker, monkeypatch):
    """An overload `name(int)` sends Client.java (it calls `name()`) to the second round; its new facts
    digest to its stored version's (an overload added before `name()` would not: the call's SCIP symbol
    would change), so the diff skips it without reading its stored facts, and the planner takes its stored summary."""
    _, root, state = edits
    end = "        return \"printer\";\n    }\n"                   # after name(): it keeps its SCIP symbol
    overload = "\n    public String name(int n) {\n        return \"p\" + n;\n    }\n"
    change = _changed(root, "Printer.java", end, end + overload)
    read: list[str] = []
    summarized: list[str] = []
    signatures = check_module.declaration_signatures
    monkeypatch.setattr(check_module, "declaration_signatures",
                        lambda text, ff, scip=None: summarized.append(ff.path.rsplit("/", 1)[-1])
                        or signatures(text, ff, scip))
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        file_references = reader.file_references
        files_rows = reader.files_rows
        monkeypatch.setattr(reader, "file_references", lambda path: read.append(path) or file_references(path))
        monkeypatch.setattr(reader, "files_rows", lambda paths, **kw: read.extend(paths) or files_rows(paths, **kw))
        # The broad plan: the narrow one leaves Client out (its call `name()` has no argument; the
        # overload takes one, so it is no candidate for it).
        session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="broad")
        check = check_edit(session, [FileChange(**change)])
    assert check.verdict == "clean" and check.rebound == []
    assert check.checked.compiled == 2 and check.checked.rounds == 2            # Printer, then Client
    assert [d.symbol.display for d in check.declarations.added] == ["name(int)"]
    assert read == [P + "Printer.java"]
    assert summarized == ["Printer.java"]       # Client's summary is its stored version's: not computed again


def _both_plans(root, state, worker, changes: list[dict]) -> dict:
    """The check of `changes` with the narrow and with the broad plan, on one reader."""
    out = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for plan in PLANS:
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan=plan)
            out[plan] = check_edit(session, [FileChange(**c) for c in changes])
    return out


def _answer(check) -> dict:
    answer = check.model_dump()
    del answer["checked"]["compiled"], answer["checked"]["rounds"]
    return answer


def test_the_narrow_plan_keeps_a_call_captured_through_a_subclass_that_never_names_the_superclass(edits, worker):
    """Shape gains `draw(String)`: `new Circle().draw("text")` in Canvas.java (which names Circle, never
    Shape; Circle overrides `draw(Object)`) now binds to the inherited overload. The narrow plan must
    compile Canvas (a reference to a `draw` of Circle, a subtype of Shape) and Circle (a subtype), and
    may leave Sketch.java out (its own `draw`, in a type unrelated to Shape); the broad plan compiles
    every file that mentions `draw`. Both answer the same."""
    _, root, state = edits
    body = "        return \"shape \" + o;\n    }\n"
    overload = "\n    public String draw(String s) {\n        return s;\n    }\n"
    change = _changed(root, "Shape.java", body, body + overload)
    checks = _both_plans(root, state, worker, [change])
    narrow, broad = checks["narrow"], checks["broad"]
    assert narrow.verdict == "changes_meaning"
    assert [(r.path.removeprefix(P), r.range.start.line, r.kind, r.from_.display, r.to and r.to.display)
            for r in narrow.rebound] == [("Canvas.java", 4, "invocation", "draw(Object)", "draw(String)")]
    assert _answer(narrow) == _answer(broad)
    assert (narrow.checked.compiled, broad.checked.compiled) == (3, 4)     # Shape, then Circle, Canvas (+ Sketch)


@pytest.mark.parametrize("new, target, kind, flags, expected", [
    ("Lp/T;.m(Ljava/lang/Object;)V", "Lp/T;.m(Z)V", "invocation", 0, True),          # the same arity
    ("Lp/T;.m(I)V", "Lp/T;.m()V", "invocation", 0, False),                         # another arity
    ("Lp/T;.m([I)V", "Lp/T;.m()V", "invocation", 0, True),                         # maybe varargs
    ("Lp/T;.m(I)V", "Lp/T;.m([Ljava/lang/Object;)V", "invocation", 0, True),       # the call's arity unknown
    ("Lp/T;.m(I)V", "Lp/T;.m()V", "method_reference", 0, True),
    ("Lp/T;.m(I)V", "Lp/T;.m()V", "invocation", 2, True),                          # a Javadoc link
    ("Lp/T;.m(I)V", "Lp/T;.m)I", "read", 0, False),                                # a field: apart
    ("Lp/T;.m)I", "Lp/T;.m()V", "invocation", 0, False),
    ("Lp/T;.m)I", "Lp/T;.m)J", "read", 0, True),                                   # hiding
    ("Lp/T;.m)I", "Lp/T$m;", "type_use", 0, True),                                 # obscuring a member type
    ("Lp/T;.m(I)V", "Lp/T;.m(Q)V", "invocation", 0, True),                         # a key that does not parse
    ("Lp/T;.m<T:Ljava/lang/Object;>(Ljava/util/Map<TK;[TV;>;I)V", "Lp/T;.m(I)V", "invocation", 0, False),
    # An overload taking Object against a call bound to reference parameters only: more specific, kept.
    ("Lp/T;.m(Ljava/lang/Object;)V", "Lp/T;.m(Ljava/lang/String;)V", "invocation", 0, False),
    ("Lp/T;.m(Ljava/lang/Object;Ljava/lang/Object;)V", "Lp/T;.m(Ljava/util/List<TE;>;[I)V", "invocation", 0, True),
    ("Lp/T;.m(Ljava/lang/Object;Ljava/lang/Object;)V", "Lp/T;.m([ILjava/util/List<TE;>;)V", "invocation", 0, False),
    ("Lp/T;.m(Ljava/lang/Object;)V", "Lp/T;.m(Ljava/lang/Integer;)V", "invocation", 0, False),
    ("Lp/T;.m(Ljava/lang/Object;)V", "Lp/T;.m(TT;)V", "invocation", 0, True),          # erases to Object
    ("Lp/T;.m(Ljava/lang/Object;)V", "Lp/T;.m(Ljava/lang/Object;)V", "invocation", 0, True),
    ("Lp/T;.m(Ljava/lang/Object;I)V", "Lp/T;.m(Ljava/lang/String;I)V", "invocation", 0, True),  # a primitive
    ("Lp/T;.m(Ljava/lang/String;)V", "Lp/T;.m(Ljava/lang/Integer;)V", "invocation", 0, True),
])
def test_which_references_a_new_member_may_capture(new, target, kind, flags, expected):
    assert may_capture(member_shape(new), member_shape(target), kind, flags) is expected


def test_an_object_overload_captures_every_call_of_its_arity_with_its_switch_off(monkeypatch):
    monkeypatch.setenv(OBJECT_OVERLOAD_ENV, "0")
    new, target = member_shape("Lp/T;.m(Ljava/lang/Object;)V"), member_shape("Lp/T;.m(Ljava/lang/String;)V")
    assert may_capture(new, target, "invocation", 0) is True


def test_the_check_plan_is_named_in_the_environment(monkeypatch):
    monkeypatch.setenv(PLAN_ENV, "broad")
    assert plan_kind() == "broad" and plan_kind("narrow") == "narrow"
    monkeypatch.setenv(PLAN_ENV, "wide")
    with pytest.raises(PlanError, match="PYBRIDGE_CHECK_PLAN='wide' is not a check plan; use one of narrow, broad"):
        plan_kind()


def test_stale_base_compiles_nothing_and_a_matching_base_is_accepted(edits):
    facade, root, _ = edits
    change = _changed(root, "Printer.java", *OVERLOAD)
    digest = hashlib.sha256((root / P / "Printer.java").read_bytes()).hexdigest()
    answer = err(facade, "check_edit", {"changes": [change], "base": {P + "Printer.java": "0" * 64}}, "stale_base")
    assert answer["changed"] == [P + "Printer.java"]
    assert _check(facade, change, base={P + "Printer.java": digest})["verdict"] == "changes_meaning"


def test_a_patch_gives_the_answer_of_its_changes_and_one_that_does_not_apply_is_refused(edits):
    facade, root, _ = edits
    change = _changed(root, "Printer.java", *OVERLOAD)
    old = (root / P / "Printer.java").read_text(encoding="utf-8")
    patch = "".join(difflib.unified_diff(old.splitlines(keepends=True), change["text"].splitlines(keepends=True),
                                         "a/" + P + "Printer.java", "b/" + P + "Printer.java"))
    by_patch = ok(facade, "check_edit", {"patch": patch})
    by_changes = _check(facade, change)
    for answer in (by_patch, by_changes):
        answer.pop("checked_at", None)
    assert by_patch == by_changes
    refused = err(facade, "check_edit", {"patch": patch.replace(" public int twice", " public int thrice")},
                  "invalid_argument")
    assert refused["field"] == "patch" and "does not apply" in refused["error"]
    err(facade, "check_edit", {}, "invalid_argument")                      # neither changes nor patch


def test_nothing_is_written(edits):
    facade, root, state = edits
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with Store.open(store_path(state), readonly=True) as store:
        generation = store.current_generation().number
    _check(facade, _changed(root, "Printer.java", *OVERLOAD),
           {"path": P + "Added.java", "text": "package com.acme.edits;\n\nclass Added {}\n"},
           {"path": P + "Outer.java", "text": None})
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    with Store.open(store_path(state), readonly=True) as store:
        assert store.current_generation().number == generation


def test_over_mcp_under_serve_a_check_then_the_written_edit_names_what_it_rebound(tmp_path, samples, worker):
    """Part 3: the agent checks the change over MCP (the live index's warm worker), writes it anyway; the
    catch-up publishes it and `status` (under `live`) and `diagnostics` name the call it rebound."""
    root, home = tmp_path / "edits", tmp_path / "home"
    shutil.copytree(samples / "edits", root)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYBRIDGE_STATE_HOME", str(home))
        sync(root, state_dir=default_state_dir(root), worker=worker)
    change = _changed(root, "Printer.java", *OVERLOAD)
    with serve([root], home, ENV) as client:
        [run] = live_ok(client, "find_symbol", {"query": "Client.run"})["symbols"]
        checked = live_ok(client, "check_edit", {"changes": [change]})
        assert checked["verdict"] == "changes_meaning", checked
        assert _rows(checked) == [("Client.java", 6, 27, "invocation", "Printer#show().", "Printer#show(+1).")]
        assert live_ok(client, "status", {})["generation"] == 1           # nothing was published
        (root / change["path"]).write_text(change["text"], encoding="utf-8")
        live_ok(client, "find_references", {"symbolKey": run["symbolKey"]})   # waits for the catch-up
        status = live_ok(client, "status", {})
        assert status["generation"] == 2
        edit = status["live"]["lastEdit"]
        assert (edit["generation"], edit["previous"], edit["verdict"]) == (2, 1, "changes_meaning")
        [row] = edit["rebound"]
        assert (row["path"], row["range"]["start"], row["from"]["display"], row["to"]["display"]) == \
            (P + "Client.java", {"line": 6, "character": 27}, "show(Object)", "show(String)")
        assert row["to"]["symbolKey"]                                     # declared in generation 2: a key
        assert live_ok(client, "diagnostics", {})["lastEdit"] == edit


def test_a_long_answer_is_paged_within_the_budget(edits):
    facade, root, _ = edits
    fields = "".join(f"    int field{i:03d}WithALongNameThatFillsTheAnswer;\n" for i in range(400))
    change = {"path": P + "Many.java", "text": "package com.acme.edits;\n\nclass Many {\n" + fields + "}\n"}
    page = _check(facade, change)
    assert page["verdict"] == "clean" and page["total"]["declarationsAdded"] == 401    # the class and its fields
    rows = []
    while True:
        assert len(json.dumps(page, separators=(",", ":")).encode()) <= 32 * 1024
        rows += [r["symbol"]["display"] for r in page["declarations"]["added"]]
        if "nextCursor" not in page:
            break
        page = _check(facade, change, cursor=page["nextCursor"])
    assert len(rows) == len(set(rows)) == 401


@pytest.mark.parametrize("args, field", [
    ({"changes": [{"path": "\ud800", "text": "x"}]}, "path"),
    ({"changes": [{"path": P + "Client.java", "text": "\ud800"}]}, "changes"),
    ({"base": {"\ud800": "0"}, "changes": [{"path": P + "Client.java", "text": "x"}]}, "base"),
    ({"changes": [{"path": "../etc/passwd.java", "text": "x"}]}, "path"),
    ({"changes": [{"path": "pom.xml", "text": "x"}]}, "changes"),
    ({"changes": [{"path": "Top.java", "text": "class Top {}"}]}, "changes"),
    ({"changes": [{"path": P + "Nope.java", "text": None}]}, "changes"),
    ({"patch": f"--- a/{P}Outer.java\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-x\n"}, "patch"),
    ({"patch": "@@ garbage"}, "patch"),
])
def test_changes_that_cannot_be_checked_are_refused_naming_the_field(edits, args, field):
    facade, _, _ = edits
    assert err(facade, "check_edit", args, "invalid_argument")["field"] == field


def test_repeated_checks_reuse_the_environment_and_the_shadow_and_answer_the_same(edits, worker, monkeypatch):
    """The second check of a session's reader takes the generation's environment read by the first
    (PYBRIDGE_CHECK_ENV_CACHE) and the shadow source root the first one made (PYBRIDGE_CHECK_MIRRORS):
    it links again only the file the first one wrote; the answers are those of a check with both
    switches off, which makes and removes a whole shadow each time."""
    _, root, state = edits
    change = [FileChange(**_changed(root, "Printer.java", *OVERLOAD))]
    forget_mirrors()
    forget_placements()
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d)
        env = check_module.environment(session.root, reader, {})
        assert check_module.environment(session.root, reader, {}).stored is env.stored        # read once
        answers, counts = [], []
        for setting in ("1", "1", "0", "0"):
            for name in (MIRRORS_ENV, check_module.ENV_CACHE_ENV):
                monkeypatch.setenv(name, setting)
            session.phases = check_module.Phases()
            answers.append(check_edit(session, change).model_dump())
            counts.append(session.phases.counts)
        assert check_module.environment(session.root, reader, {}).stored is not env.stored   # switched off
    assert answers[1] == answers[0] == answers[2] == answers[3]
    files = len(list((root / P).iterdir())) - 1                           # all but Printer.java
    assert counts[2]["linked"] == counts[3]["linked"] >= files            # each check links the folder anew
    assert counts[3]["removed"] >= files
    assert counts[1]["linked"] == 1 and counts[1]["removed"] == 2         # Printer.java: its link, then its text
    assert counts[1]["compiled"] == counts[3]["compiled"]


TOOLS = """package com.acme.edits;

public final class Tools {
    private Tools() {
    }

    public static int pick(int n) {
        return n;
    }

    public static int pick(int a, int b) {
        return a + b;
    }
}
"""
IMPORTER = """package com.acme.edits;

import static com.acme.edits.Tools.pick;

public class Importer {
    public int use() {
        return pick(1);
    }
}
"""
PAIR = """package com.acme.edits;

public class Pair {
    public int both() {
        return Tools.pick(1, 2);
    }
}
"""
LABELS = """package com.acme.edits;

public final class Labels {
    private Labels() {
    }

    public static String label(String s) {
        return s;
    }

    public static String label(String a, String b) {
        return a + b;
    }
}
"""
OTHER = """package com.acme.edits;

public final class Other {
    private Other() {
    }

    public static String label(int n) {
        return "n" + n;
    }
}
"""
LABEL_USER = """package com.acme.edits;

import static com.acme.edits.Labels.label;

public class LabelUser {
    public String one() {
        return label("x") + label("a", "b");
    }
}
"""
LABEL_CAPTURE = """package com.acme.edits;

import static com.acme.edits.Labels.label;
import static com.acme.edits.Other.label;

public class LabelCapture {
    public String boxed() {
        return label(Integer.valueOf(1));
    }
}
"""
PLAIN = """package com.acme.edits;

import com.acme.edits.Labels;

public class Plain {
    public String both() {
        return Labels.label("x") + Other.label(1);
    }
}
"""
LABEL_OBJECT = ("        return a + b;\n    }\n",
                "        return a + b;\n    }\n\n"
                "    public static String label(Object o) {\n        return \"o\";\n    }\n")
# An overload before the others: `pick(int)` becomes `Tools#pick(+1).`, `pick(int, int)` `Tools#pick(+2).`.
PICK_LONG = ("    public static int pick(int n) {",
             "    public static int pick(long n) {\n        return 0;\n    }\n\n    public static int pick(int n) {")


@pytest.fixture(scope="module")
def overloads(tmp_path_factory, worker):
    """samples/edits and more files, synced: Tools with two overloads of `pick`, Importer (a static import
    of `pick`, a call of arity 1) and Pair (`Tools.pick(1, 2)`); Labels with `label(String)` and
    `label(String, String)`, Other with `label(int)`, LabelUser (a static import of Labels' `label`, calls
    `label("x")` and `label("a", "b")`) and LabelCapture (static imports of both classes' `label`, a call
    `label(Integer.valueOf(1))` bound to Other's `label(int)` by unboxing), Plain (a plain `import` of
    Labels, calls `Labels.label("x")` and `Other.label(1)`)."""
    root = tmp_path_factory.mktemp("overloads") / "edits"
    shutil.copytree(SAMPLES / "edits", root)
    for name, text in (("Tools.java", TOOLS), ("Importer.java", IMPORTER), ("Pair.java", PAIR),
                       ("Labels.java", LABELS), ("Other.java", OTHER), ("LabelUser.java", LABEL_USER),
                       ("LabelCapture.java", LABEL_CAPTURE), ("Plain.java", PLAIN)):
        (root / P / name).write_text(text, encoding="utf-8")
    state = root.parent / "state"
    sync(root, state_dir=state, worker=worker)
    return root, state


def _overload_checks(root, state, worker, monkeypatch, switch: str) -> dict[str, tuple]:
    """The check of PICK_LONG (narrow plan) with `switch` on and off: (answer, files compiled, phase counts)."""
    change = [FileChange(**_changed(root, "Tools.java", *PICK_LONG))]
    out = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for setting in ("1", "0"):
            monkeypatch.setenv(switch, setting)
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="narrow")
            check = check_edit(session, change)
            out[setting] = (_answer(check), check, session.phases.counts)
    return out


def test_an_overload_added_before_others_does_not_send_the_callers_of_their_moved_symbols(overloads, worker,
                                                                                          monkeypatch):
    """`pick(long)` added before `pick(int)` and `pick(int, int)` moves their SCIP symbols' overload
    index: the sync planner counts them changed, so every call of either (Pair's `pick(1, 2)`) would be
    compiled. With PYBRIDGE_CHECK_STABLE_SCIP the check digests their stored symbols: only the new
    overload counts, a method of arity 1, and Pair's call of arity 2 is no candidate for it. Importer
    (a call of arity 1) is compiled either way; the answers are equal."""
    root, state = overloads
    checks = _overload_checks(root, state, worker, monkeypatch, check_module.STABLE_SCIP_ENV)
    (on, check, _), (off, check_off, _) = checks["1"], checks["0"]
    assert on == off
    assert check.verdict == "clean" and check.rebound == []
    assert [d.symbol.display for d in check.declarations.added] == ["pick(long)"]
    assert (check.checked.compiled, check_off.checked.compiled) == (2, 3)    # Tools, Importer (+ Pair)


def test_a_file_that_only_gains_an_import_target_and_moved_symbols_is_not_diffed(overloads, worker, monkeypatch):
    """Importer, compiled in the second round, binds as before; its new facts differ from its stored ones
    only in its static import naming the new `pick(long)` too and in the moved SCIP symbols of its
    targets: with PYBRIDGE_CHECK_SKIP_GAINED it counts as `same` (its stored facts are not read, its diff
    would be empty); without, it is read and diffed. The answers are equal."""
    root, state = overloads
    checks = _overload_checks(root, state, worker, monkeypatch, check_module.SKIP_GAINED_ENV)
    (on, check, counts), (off, _, counts_off) = checks["1"], checks["0"]
    assert on == off and check.checked.compiled == 2 and check.verdict == "clean"
    assert (counts["same"], counts["stored_facts"]) == (1, 1)            # Importer same; Tools read
    assert (counts_off["same"], counts_off["stored_facts"]) == (0, 2)


def test_an_added_object_overload_sends_the_static_importers_that_can_bind_to_it_not_the_others(overloads, worker,
                                                                                                 monkeypatch):
    """`label(Object)` added to Labels. LabelCapture's `label(Integer.valueOf(1))` now binds to it (phase 1
    of overload resolution, no unboxing): changes_meaning. LabelUser's calls cannot move: `label("x")`
    is bound to `label(String)`, more specific than any `label(Object)` (PYBRIDGE_CHECK_OBJECT_OVERLOAD),
    `label("a", "b")` has another arity, and its static import only gains a target
    (PYBRIDGE_CHECK_IMPORT_USES: a file that imports N statically is judged on its uses of N; LabelCapture
    has one bound outside Labels, so it is kept). With either switch off LabelUser is compiled too; every
    setting, and the broad plan, answers the same."""
    root, state = overloads
    change = [FileChange(**_changed(root, "Labels.java", *LABEL_OBJECT))]
    runs = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for plan, off in (("narrow", None), ("narrow", OBJECT_OVERLOAD_ENV), ("narrow", IMPORT_USES_ENV),
                          ("broad", None)):
            for name in (OBJECT_OVERLOAD_ENV, IMPORT_USES_ENV, IMPORTS_BY_NAME_ENV):
                monkeypatch.setenv(name, "0" if name == off else "1")
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan=plan)
            runs[(plan, off)] = check_edit(session, change)
    check = runs[("narrow", None)]
    assert check.verdict == "changes_meaning"
    assert [(r.path.removeprefix(P), r.range.start.line, r.from_.display, r.to and r.to.display)
            for r in check.rebound] == [("LabelCapture.java", 7, "label(int)", "label(Object)")]
    assert all(_answer(other) == _answer(check) for other in runs.values())
    assert {key: c.checked.compiled for key, c in runs.items()} == {
        ("narrow", None): 2, ("narrow", OBJECT_OVERLOAD_ENV): 4, ("narrow", IMPORT_USES_ENV): 3,
        ("broad", None): 5}     # Labels, LabelCapture (+ LabelUser) (+ Plain's `label("x")`) (+ Other: `label`)


def test_a_static_importer_is_sent_for_the_names_of_the_types_it_imports_from_not_for_others(overloads, worker,
                                                                                            monkeypatch):
    """One change adds `label(Object)` to Tools and a field `pick` to Labels. Importer imports from Tools
    and says `pick`; LabelUser and LabelCapture import from Labels and say `label`: none imports from a
    type that gained a member of a name it says. PYBRIDGE_CHECK_IMPORTS_BY_NAME takes rule 4 name by
    name and compiles the two changed files; off, the importers of either type that say either name
    are compiled too. The answers are equal."""
    root, state = overloads
    changes = [FileChange(**_changed(root, "Tools.java", "    private Tools() {",
                                     "    public static String label(Object o) {\n        return \"t\";\n    }\n\n"
                                     "    private Tools() {")),
               FileChange(**_changed(root, "Labels.java", "    private Labels() {",
                                     "    public static int pick;\n\n    private Labels() {"))]
    runs = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for setting in ("1", "0"):
            monkeypatch.setenv(IMPORTS_BY_NAME_ENV, setting)
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="narrow")
            runs[setting] = check_edit(session, changes)
    assert _answer(runs["1"]) == _answer(runs["0"]) and runs["1"].verdict == "clean"
    assert sorted(d.symbol.display for d in runs["1"].declarations.added) == ["label(Object)", "pick"]
    assert (runs["1"].checked.compiled, runs["0"].checked.compiled) == (2, 6)     # (+ Plain: imports Labels)


def test_a_field_added_to_a_superclass_sends_only_the_subtype_files_that_say_its_name(edits, worker, monkeypatch):
    """A field `zz` added to Shape: Circle (a subtype) never says `zz`, so no binding, error or relation
    of it can change (PYBRIDGE_CHECK_FIELD_SUBTYPES: for a type whose only changes are fields, the subtype
    files that mention one of their names); with the switch off it is compiled as the sync planner
    would. The answers are equal. (A subtype file that uses the name is kept: the hiding cases above.)"""
    _, root, state = edits
    change = [FileChange(**_changed(root, "Shape.java", "public class Shape {\n",
                                    "public class Shape {\n    public int zz;\n\n"))]
    runs = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for setting in ("1", "0"):
            monkeypatch.setenv(FIELD_SUBTYPES_ENV, setting)
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="narrow")
            runs[setting] = check_edit(session, change)
    assert _answer(runs["1"]) == _answer(runs["0"]) and runs["1"].verdict == "clean"
    assert [d.symbol.display for d in runs["1"].declarations.added] == ["zz"]
    assert (runs["1"].checked.compiled, runs["0"].checked.compiled) == (1, 2)     # Shape (+ Circle)


def test_an_iterator_method_that_takes_an_argument_does_not_send_the_whole_module(edits, worker, monkeypatch):
    """A for-each calls `iterator()` and try-with-resources `close()` without naming them, so the sync
    planner re-indexes every file that can see a changed `close` or `iterator`. A static `iterator(Object)`
    added to Printer cannot be such a call's (no argument): with PYBRIDGE_CHECK_IMPLICIT_ARITY the check
    compiles Printer alone; off, the whole module. The answers are equal."""
    _, root, state = edits
    body = "        return \"printer\";\n    }\n"
    method = "\n    public static java.util.Iterator<Object> iterator(Object o) {\n        return null;\n    }\n"
    change = [FileChange(**_changed(root, "Printer.java", body, body + method))]
    runs = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for setting in ("1", "0"):
            monkeypatch.setenv(IMPLICIT_ARITY_ENV, setting)
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="narrow")
            runs[setting] = check_edit(session, change)
    assert _answer(runs["1"]) == _answer(runs["0"]) and runs["1"].verdict == "clean"
    files = len(list((root / P).iterdir()))
    assert (runs["1"].checked.compiled, runs["0"].checked.compiled) == (1, files)


def test_a_plain_import_of_the_type_is_no_static_import_of_its_new_member(overloads, worker, monkeypatch):
    """`label(Object)` added to Labels. Plain imports Labels with a plain `import` (the store records it
    as Labels' static importers are recorded: an import reference to the type) and says `label`, one of
    its calls bound outside Labels (`Other.label(1)`): rule 4 would keep it, but only `import static
    ...Labels.label` or `...Labels.*` brings the new member in. With PYBRIDGE_CHECK_STATIC_IMPORT_TEXT the
    plan reads the importers' `import static` lines and leaves Plain out; off, it is compiled. The answers
    are equal."""
    root, state = overloads
    change = [FileChange(**_changed(root, "Labels.java", *LABEL_OBJECT))]
    runs = {}
    with Store.open(store_path(state), readonly=True) as store, store.reader() as reader:
        for setting in ("1", "0"):
            monkeypatch.setenv(STATIC_IMPORT_TEXT_ENV, setting)
            session = EditSession(root.resolve(), reader, worker, lambda i, k: str(i), lambda d, m: d, plan="narrow")
            runs[setting] = check_edit(session, change)
    assert _answer(runs["1"]) == _answer(runs["0"]) and runs["1"].verdict == "changes_meaning"
    assert (runs["1"].checked.compiled, runs["0"].checked.compiled) == (2, 3)     # Labels, LabelCapture (+ Plain)
