"""Turns the flat batch the JVM returned into `FileFacts` (parent side).

The layout is `dev.pybridge.indexer.Batch`'s: a NUL-separated string table
in UTF-8 and int rows of fixed width. Decoding is one `array.frombytes` per table and
one `str.split` for the strings.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
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

FILE_WIDTH, DECL_WIDTH, REF_WIDTH, REL_WIDTH, PROB_WIDTH, EXT_WIDTH, BLOCK_WIDTH, SIG_WIDTH = 16, 16, 9, 3, 8, 4, 8, 2


def _ints(data: bytes) -> array[int]:
    a = array("i")
    a.frombytes(data)
    return a


def _rows(table: array[int], start: int, end: int, width: int) -> Iterator[tuple[int, ...]]:
    """Rows start..end of a flat table, as tuples of `width` ints (one slice per column)."""
    seg = table[start * width:end * width]
    return zip(*(seg[j::width] for j in range(width)), strict=True)


def decode(payload: dict[str, Any]) -> list[FileFacts]:
    # The table comes as UTF-8 (dev.pybridge.indexer.PythonUtf8: a lone surrogate in three bytes).
    # "" appended: a string column's -1 (none) reads as "" without a test per value.
    table: bytes = payload["strings"]
    strings = table.decode("utf-8", "surrogatepass").split("\0") if table else []
    strings.append("")
    s = strings
    files = _ints(payload["files"])
    decls = _ints(payload["decls"])
    refs = _ints(payload["refs"])
    rels = _ints(payload["rels"])
    probs = _ints(payload["probs"])
    exts = _ints(payload["exts"])
    blocks = _ints(payload["blocks"])
    sigs = _ints(payload["sigs"])
    # tuple.__new__ skips the NamedTuples' Python-level __new__ (a few hundred thousand facts a batch).
    new = tuple.__new__
    out: list[FileFacts] = []
    for f in range(0, len(files), FILE_WIDTH):
        row = files[f:f + FILE_WIDTH]
        ff = FileFacts(path=s[row[0]], binding_complete=bool(row[1]), failure=s[row[12]] or None)
        ff.declarations = [
            new(Declaration, (s[key], DECL_KINDS[kind], s[name], s[display], s[dotted], s[scip],
                              new(Span, (l1, c1, e1, f1)), new(Span, (l2, c2, e2, f2)), mods, s[parent]))
            for key, kind, name, display, dotted, scip, l1, c1, e1, f1, l2, c2, e2, f2, mods, parent
            in _rows(decls, row[2], row[3], DECL_WIDTH)]
        ff.references = [
            new(Reference, (s[target], s[scip], new(Span, (line, col, end_line, end_col)), REF_KINDS[kind],
                            s[container], flags))
            for target, scip, line, col, end_line, end_col, kind, container, flags
            in _rows(refs, row[4], row[5], REF_WIDTH)]
        ff.relations = [new(Relation, (RELATION_KINDS[kind], s[a], s[b]))
                        for kind, a, b in _rows(rels, row[6], row[7], REL_WIDTH)]
        ff.problems = [new(Problem, (PROBLEM_KINDS[kind], s[name], s[message], new(Span, (l1, c1, e1, f1)),
                                     bool(error)))
                       for kind, name, message, l1, c1, e1, f1, error in _rows(probs, row[8], row[9], PROB_WIDTH)]
        for key, kind, dotted, scip in _rows(exts, row[10], row[11], EXT_WIDTH):
            ff.external[s[key]] = (DECL_KINDS[kind] if kind >= 0 else "", s[dotted], s[scip])
        ff.blocked = [new(Blocked, (s[name], BLOCK_REASONS[reason], new(Span, (l1, c1, e1, f1)), can_name, arity))
                      for name, reason, l1, c1, e1, f1, can_name, arity
                      in _rows(blocks, row[13], row[14], BLOCK_WIDTH)]
        if row[15]:      # the indexer's signatures (summary.signatures' entries), one row per declaration
            signatures: dict[str, list[Any]] = {}
            for d, (sup, digest) in zip(ff.declarations, _rows(sigs, row[2], row[3], SIG_WIDTH), strict=True):
                if digest >= 0:
                    signatures[d.key] = [d.kind, d.name, d.declaring_key, s[sup], s[digest], d.modifiers]
            ff.signatures = signatures
        out.append(ff)
    return out
