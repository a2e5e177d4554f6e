"""Turns the flat batch the JVM returned into `FileFacts` (parent side).

The layout is `dev.pybridge.indexer.Batch`'s: a NUL-separated string table
and int rows of fixed width. Decoding is one `array.frombytes` per table and
one `str.split` for the strings.
"""

from __future__ import annotations

from array import array
from typing import Any

from pybridge.facts import (
    BLOCK_REASONS,
    DECL_KINDS,
    PROBLEM_KINDS,
    REF_KINDS,
    RELATION_KINDS,
    Blocked,
    Declaration,
    FileFacts,
    Problem,
    Reference,
    Relation,
    Span,
)

FILE_WIDTH, DECL_WIDTH, REF_WIDTH, REL_WIDTH, PROB_WIDTH, EXT_WIDTH, BLOCK_WIDTH = 15, 16, 9, 3, 8, 4, 7


def _ints(data: bytes) -> array[int]:
    a = array("i")
    a.frombytes(data)
    return a


def decode(payload: dict[str, Any]) -> list[FileFacts]:
    strings = payload["strings"].split("\0") if payload["strings"] else []

    def s(i: int) -> str:
        return "" if i < 0 else strings[i]

    files = _ints(payload["files"])
    decls = _ints(payload["decls"])
    refs = _ints(payload["refs"])
    rels = _ints(payload["rels"])
    probs = _ints(payload["probs"])
    exts = _ints(payload["exts"])
    blocks = _ints(payload["blocks"])
    out: list[FileFacts] = []
    for f in range(0, len(files), FILE_WIDTH):
        row = files[f:f + FILE_WIDTH]
        ff = FileFacts(path=s(row[0]), binding_complete=bool(row[1]), failure=s(row[12]) or None)
        for i in range(row[2], row[3]):
            d = decls[i * DECL_WIDTH:(i + 1) * DECL_WIDTH]
            ff.declarations.append(Declaration(
                s(d[0]), DECL_KINDS[d[1]], s(d[2]), s(d[3]), s(d[4]), s(d[5]),
                Span(d[6], d[7], d[8], d[9]), Span(d[10], d[11], d[12], d[13]), d[14], s(d[15])))
        for i in range(row[4], row[5]):
            r = refs[i * REF_WIDTH:(i + 1) * REF_WIDTH]
            ff.references.append(Reference(
                s(r[0]), s(r[1]), Span(r[2], r[3], r[4], r[5]), REF_KINDS[r[6]], s(r[7]), r[8]))
        for i in range(row[6], row[7]):
            r = rels[i * REL_WIDTH:(i + 1) * REL_WIDTH]
            ff.relations.append(Relation(RELATION_KINDS[r[0]], s(r[1]), s(r[2])))
        for i in range(row[8], row[9]):
            p = probs[i * PROB_WIDTH:(i + 1) * PROB_WIDTH]
            ff.problems.append(Problem(PROBLEM_KINDS[p[0]], s(p[1]), s(p[2]), Span(p[3], p[4], p[5], p[6]), bool(p[7])))
        for i in range(row[10], row[11]):
            e = exts[i * EXT_WIDTH:(i + 1) * EXT_WIDTH]
            ff.external[s(e[0])] = (DECL_KINDS[e[1]] if e[1] >= 0 else "", s(e[2]), s(e[3]))
        for i in range(row[13], row[14]):
            b = blocks[i * BLOCK_WIDTH:(i + 1) * BLOCK_WIDTH]
            ff.blocked.append(Blocked(s(b[0]), BLOCK_REASONS[b[1]], Span(b[2], b[3], b[4], b[5]), b[6]))
        out.append(ff)
    return out
