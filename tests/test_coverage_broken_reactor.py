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

from .test_query_support import SAMPLES


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
    }
}
""",
}


def test_a_lone_uncertain_call_does_not_block_the_overload_it_is_recorded_to(tmp_path, worker):
    # the per-token mask (DESIGN section 8): `new Box(g)` and `b.take(g)` are calls whose
    # overload was chosen with an unresolved argument type; the overload each is recorded to has
    # the call in its answer, and the rival may be the one javac chooses
    root = tmp_path / "ws"
    (root / "src/main/java/m").mkdir(parents=True)
    (root / "pom.xml").write_text((SAMPLES / "broken/pom.xml").read_text())
    for name, text in MASK_SOURCES.items():
        (root / "src/main/java/m" / name).write_text(text)
    sync(root, state_dir=tmp_path / "state", worker=worker)
    r = Store.open(store_path(tmp_path / "state")).reader()
    reasons = {b.name: b.reason for b in r.blocked(["Box", "take"])}
    assert reasons == {"Box": "uncertain_call", "take": "uncertain_call"}
    # the unresolved Javadoc reference `value` cannot name the local `value`
    assert [b.reason for b in r.blocked(["value"], path="src/main/java/m/Use.java")] == ["javadoc"]
    local = next(d for d in r.file_declarations("src/main/java/m/Use.java") if d.name == "value")
    assert coverage(r, r.symbol(local.symbol_id), local, None, None)["referenceCoverage"]

    def certified(d: DeclRow) -> bool:
        return coverage(r, r.symbol(d.symbol_id), d, None, None)["referenceCoverage"]

    by_kind: dict[str, list[DeclRow]] = {}
    for d in r.file_declarations("src/main/java/m/Box.java"):
        by_kind.setdefault(d.kind, []).append(d)
    assert sorted(certified(d) for d in by_kind["CONSTRUCTOR"]) == [False, True]
    assert sorted(certified(d) for d in by_kind["METHOD"]) == [False, True]
