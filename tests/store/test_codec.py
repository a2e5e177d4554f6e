"""The file version digest (pybridge.store.codec): equal facts give equal digests whatever
their order, and any change of any stored field gives another."""

from __future__ import annotations

from dataclasses import replace

from pybridge.facts import FileFacts, Reference, Span
from pybridge.store.codec import canonicalize
from tests.worker.test_decode import EXPECTED


def _facts() -> FileFacts:
    """Two of each fact (test_decode's facts), and no failure."""
    return replace(EXPECTED, failure=None)


def _digest(facts: FileFacts, path: str = "src/A.java") -> bytes:
    return canonicalize("m", "main", path, "ab" * 32, facts).digest


def test_the_same_facts_in_another_order_have_the_same_digest() -> None:
    f = _facts()
    shuffled = replace(f, declarations=f.declarations[::-1], references=f.references[::-1])
    assert _digest(shuffled) == _digest(f)
    assert len(_digest(f)) == 32


def test_every_field_of_every_fact_counts() -> None:
    f = _facts()
    base = _digest(f)
    seen = {base}
    tables = {"declarations": f.declarations, "references": f.references, "relations": f.relations,
              "problems": f.problems, "blocked": f.blocked}
    for table, rows in tables.items():
        for field in rows[0]._fields:
            value = getattr(rows[0], field)
            if isinstance(value, Span):
                other: object = Span(value.start_line, value.start_char, value.end_line, value.end_char + 1)
            elif isinstance(value, bool):
                other = not value
            elif isinstance(value, int):
                other = value + 1
            elif field in ("kind", "reason"):
                choices = {"declarations": ("INTERFACE", "CLASS"), "references": ("read", "write"),
                           "relations": ("implements", "extends"), "problems": ("syntax", "other_error"),
                           "blocked": ("syntax", "unbound")}[table]
                other = choices[0] if value != choices[0] else choices[1]
            else:
                other = value + "x"
            changed = replace(f, **{table: [rows[0]._replace(**{field: other}), *rows[1:]]})
            digest = _digest(changed)
            assert digest not in seen, (table, field)
            seen.add(digest)
    for changed in (replace(f, binding_complete=False), replace(f, failure="boom"),
                    replace(f, external={"Ljava/lang/String;": ("CLASS", "java.lang.Strin", "java/lang/String#")}),
                    replace(f, references=f.references[:1]), replace(f, problems=[])):
        digest = _digest(changed)
        assert digest not in seen
        seen.add(digest)
    assert _digest(f, "src/B.java") not in seen


def test_strings_cannot_shift_between_facts() -> None:
    """A NUL inside a key does not let two different columns hash alike (lengths go in too)."""
    f = _facts()
    a, b = f.references
    one = replace(f, references=[a._replace(target_key="x\0y"), b._replace(target_key="z")])
    two = replace(f, references=[a._replace(target_key="x"), b._replace(target_key="y\0z")])
    assert _digest(one) != _digest(two)


def test_a_value_of_an_unexpected_make_up_still_hashes_and_counts() -> None:
    f = _facts()
    odd = replace(f, problems=[f.problems[0]._replace(name=None)])   # type: ignore[arg-type]
    huge = replace(f, declarations=[f.declarations[0]._replace(modifiers=1 << 70), f.declarations[1]])
    assert len({_digest(f), _digest(odd), _digest(huge)}) == 3
    assert _digest(odd) == _digest(replace(f, problems=[f.problems[0]._replace(name=None)]))  # type: ignore[arg-type]


def test_the_digest_hashes_the_columns_as_the_module_doc_says() -> None:
    """Pins the encoding (codec's module doc) on one reference: a change of it changes every stored
    digest, so it has to be deliberate."""
    import hashlib
    import json
    import struct

    ref = Reference("Lp/A;", "p/A#", Span(3, 4, 3, 5), "type_use", "", 1)
    facts = FileFacts(path="/ws/src/A.java", binding_complete=True, references=[ref])
    h = hashlib.sha256(b"pybridge-facts/2\0")
    h.update(json.dumps(["m", "main", "src/A.java", "ab" * 32, True, None], separators=(",", ":")).encode())
    h.update(b"\0T0,0;")                                              # declarations
    h.update(b"\0T1,6;")                                              # references: 1 row of 6
    h.update(b"S" + struct.pack("<q", 5))
    h.update(b"Lp/A;")
    h.update(b"S" + struct.pack("<q", 4))
    h.update(b"p/A#")
    h.update(b"P4;" + struct.pack("<4q", 3, 4, 3, 5))
    h.update(b"S" + struct.pack("<q", 8))
    h.update(b"type_use")
    h.update(b"S" + struct.pack("<q", 0))
    h.update(b"")
    h.update(b"I" + struct.pack("<q", 1))
    for _table in ("relations", "problems", "external", "blocked"):
        h.update(b"\0T0,0;")
    assert _digest(facts) == h.digest()
