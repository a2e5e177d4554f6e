"""The worker's flat batch (dev.pybridge.indexer.Batch) decoded into FileFacts, and staged into
the store's rows: every column lands where it belongs (a dropped or swapped column fails here)."""

from __future__ import annotations

import sqlite3
from array import array

from pybridge.facts import (
    Blocked,
    Declaration,
    FileFacts,
    Problem,
    Reference,
    Relation,
    Span,
)
from pybridge.store import Store
from pybridge.worker.decode import (
    BLOCK_WIDTH,
    DECL_WIDTH,
    EXT_WIDTH,
    FILE_WIDTH,
    PROB_WIDTH,
    REF_WIDTH,
    REL_WIDTH,
    SIG_WIDTH,
    decode,
)

STRINGS = ["/w/A.java", "Lp/A;", "A", "A", "p.A", "scip A", "Lp/A;.m()V", "m", "m()", "p.A.m", "scip m",
           "Ljava/lang/String;", "scip String", "java.lang.String", "cannot resolve X", "X", "boom", "Y"]
S = {s: i for i, s in enumerate(STRINGS)}


def _payload(strings: list[str] = STRINGS) -> dict:
    decls = [S["Lp/A;"], 0, S["A"], S["A"], S["p.A"], S["scip A"], 1, 13, 1, 14, 0, 0, 9, 1, 1, -1,
             S["Lp/A;.m()V"], 5, S["m"], S["m()"], S["p.A.m"], S["scip m"], 2, 7, 2, 8, 2, 2, 4, 3, 9, S["Lp/A;"]]
    refs = [S["Ljava/lang/String;"], S["scip String"], 3, 4, 3, 10, 6, S["Lp/A;.m()V"], 2,
            S["Lp/A;.m()V"], S["scip m"], 5, 6, 7, 8, 3, -1, 17]
    rels = [1, S["Lp/A;"], S["Ljava/lang/String;"]]
    probs = [1, S["X"], S["cannot resolve X"], 4, 2, 4, 3, 1]
    exts = [S["Ljava/lang/String;"], 0, S["java.lang.String"], S["scip String"]]
    blocks = [S["Y"], 2, 6, 1, 6, 2, 41, 1]
    sigs = [S["X"], S["Y"], -1, -1]     # A's supertypes digest and digest; m without a signature
    files = [S["/w/A.java"], 1, 0, 2, 0, 2, 0, 1, 0, 1, 0, 1, S["boom"], 0, 1, 1]
    assert (len(decls), len(refs), len(rels), len(probs), len(exts), len(blocks), len(sigs), len(files)) == (
        2 * DECL_WIDTH, 2 * REF_WIDTH, REL_WIDTH, PROB_WIDTH, EXT_WIDTH, BLOCK_WIDTH, 2 * SIG_WIDTH, FILE_WIDTH)
    return {"strings": "\0".join(strings).encode("utf-8", "surrogatepass"), "elapsed_ms": 1,
            **{k: array("i", v).tobytes() for k, v in (("files", files), ("decls", decls), ("refs", refs),
                                                        ("rels", rels), ("probs", probs), ("exts", exts),
                                                        ("blocks", blocks), ("sigs", sigs))}}


EXPECTED = FileFacts(
    path="/w/A.java", binding_complete=True, failure="boom",
    declarations=[
        Declaration("Lp/A;", "CLASS", "A", "A", "p.A", "scip A", Span(1, 13, 1, 14), Span(0, 0, 9, 1), 1, ""),
        Declaration("Lp/A;.m()V", "METHOD", "m", "m()", "p.A.m", "scip m", Span(2, 7, 2, 8),
                    Span(2, 2, 4, 3), 9, "Lp/A;"),
    ],
    references=[
        Reference("Ljava/lang/String;", "scip String", Span(3, 4, 3, 10), "type_use", "Lp/A;.m()V", 2),
        Reference("Lp/A;.m()V", "scip m", Span(5, 6, 7, 8), "invocation", "", 17),
    ],
    relations=[Relation("implements", "Lp/A;", "Ljava/lang/String;")],
    problems=[Problem("unresolved_type", "X", "cannot resolve X", Span(4, 2, 4, 3), True)],
    external={"Ljava/lang/String;": ("CLASS", "java.lang.String", "scip String")},
    blocked=[Blocked("Y", "incomplete_hierarchy", Span(6, 1, 6, 2), 41, 1)],
)


def test_every_column_of_the_flat_batch_decodes_into_its_field():
    [ff] = decode(_payload())
    assert ff == EXPECTED
    # the indexer's signatures (summary.signatures' entries): the declaration's own fields and the two digests
    assert ff.signatures == {"Lp/A;": ["CLASS", "A", "", "X", "Y", 1]}
    # NamedTuples all the way down (the store and the goldens read them by name)
    assert all(type(r) is Reference and type(r.span) is Span for r in ff.references)
    assert all(type(d) is Declaration and type(d.name_span) is Span and type(d.span) is Span
               for d in ff.declarations)
    assert type(ff.problems[0].span) is Span and type(ff.blocked[0].span) is Span
    assert decode({**_payload(), "strings": b"", **{k: b"" for k in ("files", "decls", "refs", "rels", "probs",
                                                                      "exts", "blocks", "sigs")}}) == []


def test_the_string_table_comes_as_utf8_with_lone_surrogates_in_three_bytes():
    # dev.pybridge.indexer.PythonUtf8 writes what str.encode("utf-8", "surrogatepass") does (the Java
    # side's test, PythonUtf8Test, checks the same bytes): every string comes back as the JVM held it.
    odd = "cannot resolve \ud800X \U0001f600 \u00e9 \udc01"
    [ff] = decode(_payload([odd if s == "cannot resolve X" else s for s in STRINGS]))
    assert ff.problems[0].message == odd
    assert ff.declarations == EXPECTED.declarations


def test_decoded_facts_stage_into_rows_with_every_column(tmp_path):
    [ff] = decode(_payload())
    with Store.open(tmp_path / "s.sqlite") as store:
        with store.stage({"files": {}}, {}) as staging:
            staging.add_file("g:a", "main", "A.java", "ab" * 32, 42, ff)
            staging.publish({})
    conn = sqlite3.connect(tmp_path / "s.sqlite")
    sym = {key: i for i, key in conn.execute("SELECT id, binding_key FROM symbols")}
    assert conn.execute("SELECT target_id, container_id, line, col, dline, end_col, kind, flags FROM refs"
                        " ORDER BY ord").fetchall() == [
        (sym["Ljava/lang/String;"], sym["Lp/A;.m()V"], 3, 4, 0, 10, 6, 2),
        (sym["Lp/A;.m()V"], None, 5, 6, 2, 8, 3, 17),
    ]
    assert conn.execute("SELECT symbol_id, kind, container_id, line, col, dline, end_col, full_line, full_col,"
                        " full_dline, full_end_col, modifiers FROM declarations ORDER BY ord").fetchall() == [
        (sym["Lp/A;"], 0, None, 1, 13, 0, 14, 0, 0, 9, 1, 1),
        (sym["Lp/A;.m()V"], 5, sym["Lp/A;"], 2, 7, 0, 8, 2, 2, 2, 3, 9),
    ]
    assert conn.execute("SELECT binding_key, kind, name, display, dotted, scip, external FROM symbols"
                        " ORDER BY binding_key").fetchall() == [
        ("Ljava/lang/String;", 0, "String", None, "java.lang.String", "scip String", 1),
        ("Lp/A;", 0, "A", "A", "p.A", "scip A", 0),
        ("Lp/A;.m()V", 5, "m", "m()", "p.A.m", "scip m", 0),
    ]
    assert conn.execute("SELECT kind, from_id, to_id FROM relations").fetchall() == [
        (1, sym["Lp/A;"], sym["Ljava/lang/String;"])]
    assert conn.execute("SELECT kind, name, message, line, col, dline, end_col, is_error FROM problems").fetchall() \
        == [(1, "X", "cannot resolve X", 4, 2, 0, 3, 1)]
    assert conn.execute("SELECT name, reason, line, col, dline, end_col, count, can_name, arity"
                        " FROM blocked_names").fetchall() == [("Y", 2, 6, 1, 0, 2, 1, 41, 1)]
    assert conn.execute("SELECT path, size, binding_complete, failure, n_declarations, n_references, n_relations,"
                        " n_problems FROM file_versions").fetchall() == [("A.java", 42, 1, "boom", 2, 2, 1, 1)]
    conn.close()
