"""Certificates on a broken workspace (DESIGN section 8): the reactor sample with
one module removed, so that its dependants' dependency is unresolvable.

Truth is the full reactor's own facts: every reference, made from a file that
the broken variant still has, to a declaration the broken variant still has.
A certificate (referenceCoverage true) is false when the broken variant's
answer misses one of those references.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.query.coverage import coverage
from pybridge.store import DeclRow, Store
from pybridge.sync import sync
from pybridge.sync.state import store_path
from tests.support.query_support import SAMPLES


def _facts(state: Path) -> dict:
    """(path, name span, kind) -> (declaration, its references as (path, span, kind), reader)."""
    store = Store.open(store_path(state))
    r = store.reader()
    out = {}
    for f in r.files():
        for d in r.file_declarations(f.path):
            if d.kind != "INITIALIZER":
                refs = {(x.path, tuple(x.span), x.kind) for x in r.references(d.symbol_id)}
                out[(d.path, tuple(d.name_span), d.kind)] = (d, refs, r)
    return out


def _measure(tmp: Path, worker, drop: str) -> tuple[int, int, list]:
    full, broken = tmp / "full", tmp / "broken"
    shutil.copytree(SAMPLES / "reactor", full)
    shutil.copytree(SAMPLES / "reactor", broken)
    shutil.rmtree(broken / drop)
    pom = broken / "pom.xml"
    pom.write_text(pom.read_text().replace(f"<module>{drop}</module>", ""))
    sync(full, state_dir=tmp / "full-state", worker=worker)
    sync(broken, state_dir=tmp / "broken-state", worker=worker)
    truth, found = _facts(tmp / "full-state"), _facts(tmp / "broken-state")
    files = {key[0] for key in found}
    referenced = certified = 0
    false = []
    for key, (decl, refs, r) in found.items():
        expected = {x for x in truth[key][1] if x[0] in files}
        if not expected:
            continue
        referenced += 1
        if coverage(r, r.symbol(decl.symbol_id), decl, None, None)["referenceCoverage"]:
            certified += 1
            if not expected <= refs:
                false.append((decl.dotted, sorted(expected - refs)))
    return referenced, certified, false


def test_with_the_core_module_unresolvable_every_referenced_declaration_stays_certified_and_none_falsely(
        tmp_path, worker):
    referenced, certified, false = _measure(tmp_path, worker, "core")
    assert referenced >= 25
    assert certified / referenced >= 0.95, (certified, referenced)
    assert false == []


@pytest.mark.parametrize("drop", ["service"])
def test_with_a_middle_module_dropped_no_certificate_is_false(tmp_path, worker, drop):
    # app reaches core only through service: without service, app's uses of core are
    # unresolvable, so core's declarations are honestly uncertified there
    referenced, certified, false = _measure(tmp_path, worker, drop)
    assert referenced >= 20 and certified >= referenced // 2
    assert false == []


MASK_SOURCES = {
    "Box.java": """package m;
public class Box {
    public Box(Object value) {}
    public Box(Integer value) {}
    public void take(Object o) {}
    public void take(Integer o) {}
    public void pack(Object o) {}
    public void pack(Integer o) {}
}
""",
    "Use.java": """package m;
import com.example.nonexistent.Ghost;
class Use {
    /** See {@link Ghost#value}. */
    void run(Ghost g) {
        Box b = new Box(g);
        b.take(g);
        int value = 1;
        b.take(value);
        b.pack(g);
        b.pack(g);
    }
}
""",
    # a hierarchy with a missing interface (Gen) and one with a missing superclass (Gen2)
    "Base.java": """package m;
public class Base {
    public void reset(int seed) {}
}
""",
    "Other.java": """package m;
public class Other {
    public void reset(int seed) {}
    public void tick(int n) {}
}
""",
    "Last.java": """package m;
public final class Last {
    public void tick(int n) {}
}
""",
    "Resettable.java": """package m;
public interface Resettable {
    default void reset(int seed) {}
    default void reset(int seed, int stream) {}
}
""",
    "Gen.java": """package m;
import com.example.nonexistent.Ghost;
public class Gen extends Base implements Ghost {
    void again() {
        reset(1);
        reset(2);
    }
}
""",
    "Gen2.java": """package m;
import com.example.nonexistent.GhostBase;
public class Gen2 extends GhostBase {
    Other partner;
    public void tick(int n) {}
}
""",
    "UseGen2.java": """package m;
class UseGen2 {
    void run(Gen2 g) {
        g.tick(1);
    }
}
""",
}


@pytest.fixture(scope="module")
def masked(tmp_path_factory, worker):
    """The reader of a one-module workspace whose only dependency is missing (MASK_SOURCES)."""
    tmp = tmp_path_factory.mktemp("masked")
    root = tmp / "ws"
    (root / "src/main/java/m").mkdir(parents=True)
    (root / "pom.xml").write_text((SAMPLES / "broken/pom.xml").read_text())
    for name, text in MASK_SOURCES.items():
        (root / "src/main/java/m" / name).write_text(text)
    sync(root, state_dir=tmp / "state", worker=worker)
    return Store.open(store_path(tmp / "state")).reader()


def _certified(r, d: DeclRow) -> bool:
    return coverage(r, r.symbol(d.symbol_id), d, None, None)["referenceCoverage"]


def _decls(r, file: str, kind: str, name: str | None = None) -> list[DeclRow]:
    return [d for d in r.file_declarations(f"src/main/java/m/{file}")
            if d.kind == kind and (name is None or d.name == name)]


def test_a_lone_uncertain_call_does_not_block_the_overload_it_is_recorded_to(masked):
    # the per-token mask (DESIGN section 8): `new Box(g)` and `b.take(g)` are calls whose
    # overload was chosen with an unresolved argument type; the overload each is recorded to has
    # the call in its answer, and the rival may be the one javac chooses
    r = masked
    reasons = {b.name: b.reason for b in r.blocked(["Box", "take"])}
    assert reasons == {"Box": "uncertain_call", "take": "uncertain_call"}
    # the unresolved Javadoc reference `value` cannot name the local `value`
    assert [b.reason for b in r.blocked(["value"], path="src/main/java/m/Use.java")] == ["javadoc"]
    local = next(d for d in r.file_declarations("src/main/java/m/Use.java") if d.name == "value")
    assert _certified(r, local)
    assert sorted(_certified(r, d) for d in _decls(r, "Box.java", "CONSTRUCTOR")) == [False, True]
    assert sorted(_certified(r, d) for d in _decls(r, "Box.java", "METHOD", "take")) == [False, True]


def test_every_occurrence_of_a_blocked_name_is_its_own_fact(masked):
    # `b.pack(g)` twice in one file: each call is recorded to pack(Object), so neither hides a
    # reference to it; one row per name (with the first occurrence's place) could not tell
    r = masked
    rows = r.blocked(["pack"], path="src/main/java/m/Use.java")
    assert [(b.reason, b.span.start_line, b.count, b.arity) for b in rows] == [
        ("uncertain_call", 9, 1, 1), ("uncertain_call", 10, 1, 1)]
    assert sorted(_certified(r, d) for d in _decls(r, "Box.java", "METHOD", "pack")) == [False, True]


def test_a_missing_supertype_blocks_only_what_it_could_make_a_lookup_find(masked):
    # Gen's `reset(1)` and `reset(2)` are looked up in a class whose interface Ghost is missing:
    # javac binds them to Base.reset or to a method Ghost has, which can be a method of an
    # interface Ghost extends (Resettable.reset(int)), never a method of a class that Gen does
    # not extend (Other.reset), nor one that takes two arguments
    r = masked
    rows = r.blocked(["reset"], path="src/main/java/m/Gen.java")
    assert [(b.reason, b.arity) for b in rows] == [("incomplete_hierarchy", 1)] * 2
    assert _certified(r, _decls(r, "Base.java", "METHOD", "reset")[0])
    assert _certified(r, _decls(r, "Other.java", "METHOD", "reset")[0])
    one, two = sorted(_decls(r, "Resettable.java", "METHOD", "reset"), key=lambda d: d.display)
    assert not _certified(r, one) and _certified(r, two)
    # but a call javac binds to a method of Ghost may dispatch to Other.reset (in a subclass of
    # Other that implements Ghost): its callers are not certified
    other = _decls(r, "Other.java", "METHOD", "reset")[0]
    assert coverage(r, r.symbol(other.symbol_id), other, None, None)["callerCoverage"] is False
    # Gen2's superclass is missing, so it may be any class: javac may bind `g.tick(1)` to a
    # method of any class that can be extended (Other.tick), not of a final one (Last.tick)
    [row] = r.blocked(["tick"], path="src/main/java/m/UseGen2.java")
    assert (row.reason, row.arity) == ("incomplete_hierarchy", 1)
    assert _certified(r, _decls(r, "Gen2.java", "METHOD", "tick")[0])
    assert not _certified(r, _decls(r, "Other.java", "METHOD", "tick")[0])
    assert _certified(r, _decls(r, "Last.java", "METHOD", "tick")[0])
    # `Other` in Gen2 may name a member type of GhostBase, never another top-level class
    assert [b.reason for b in r.blocked(["Other"], path="src/main/java/m/Gen2.java")] == ["incomplete_hierarchy"]
    assert _certified(r, _decls(r, "Other.java", "CLASS")[0])


# ecj 3.46.100 finds the second of two identical calls "not applicable" (javac 17 compiles both,
# binding them to m(Iterable)); JDT records its guess as the call's binding: here m(Iterable), in
# guava's ClosingFuture.java the varargs overload (bench/RESULTS.md), which left the overload javac
# binds certified with no reference to it: a false certificate
ECJ_INFERENCE = """package m;
import java.util.List;
interface I<V> {}
class A<V> implements I<V> {}
class B<V> extends A<V> {}
public class Repro {
    static <V> void m(Iterable<? extends I<? extends V>> f) {}
    static <V> void m(I<? extends V>... f) {}
    static void k(List<B<?>> l) {
        m(l);
        m(l);
    }
}
"""


def test_a_call_the_compiler_rejects_blocks_the_overloads_it_is_not_recorded_to(tmp_path, worker):
    root = tmp_path / "ws"
    (root / "src/main/java/m").mkdir(parents=True)
    (root / "pom.xml").write_text((SAMPLES / "edits/pom.xml").read_text())
    (root / "src/main/java/m/Repro.java").write_text(ECJ_INFERENCE)
    sync(root, state_dir=tmp_path / "state", worker=worker)
    r = Store.open(store_path(tmp_path / "state")).reader()
    problems = r.problems(path="src/main/java/m/Repro.java", errors_only=True)
    assert [(p.name, p.span.start_line) for p in problems] == [("m", 10)]
    assert [(b.reason, b.span.start_line, b.arity) for b in r.blocked(["m"], path="src/main/java/m/Repro.java")
            ] == [("uncertain_call", 10, 1)]
    overloads = {d.display: d for d in r.file_declarations("src/main/java/m/Repro.java") if d.name == "m"}
    assert set(overloads) == {"m(Iterable)", "m(I...)"}
    # the rejected call is recorded to m(Iterable), so it hides nothing from m(Iterable)'s answer;
    # the varargs overload, which one argument fits, is what it may bind to instead
    assert _certified(r, overloads["m(Iterable)"])
    assert not _certified(r, overloads["m(I...)"])
