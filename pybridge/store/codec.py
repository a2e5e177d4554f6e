"""Canonical form of one file's facts, and the digest that names a file version.

A file version is content-addressed: its digest is the sha256 of (module,
scope, relative path, content sha256, canonical facts). The canonical facts
are the facts in a fixed order (the order their rows are stored in, so equal
digests mean equal rows), serialized as compact JSON. The absolute
`FileFacts.path` is left out: moving the workspace does not change a version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pybridge.errors import StoreError
from pybridge.facts import Blocked, Declaration, FileFacts, Problem, Reference, Relation

from .schema import BLOCK_REASON_CODES, DECL_KIND_CODES, PROBLEM_KIND_CODES, REF_KIND_CODES, RELATION_KIND_CODES


@dataclass(frozen=True, slots=True)
class CanonicalFacts:
    declarations: list[Declaration]
    references: list[Reference]
    relations: list[Relation]
    problems: list[Problem]
    external: list[tuple[str, tuple[str, str, str]]]
    blocked: list[Blocked]
    digest: bytes


def _check(facts: FileFacts, relpath: str) -> None:
    """Refuse broken facts before anything is written."""
    def bad(what: str, kind: str) -> StoreError:
        return StoreError(
            f"The facts of {relpath} carry an unknown {what} kind {kind!r}; the indexer "
            f"and pybridge.facts disagree, so rebuild the indexer and sync again.",
            path=relpath,
        )

    def keyless(what: str) -> StoreError:
        return StoreError(
            f"A {what} in {relpath} has no binding key; the indexer emitted a broken fact, "
            f"so report it with the file.", path=relpath,
        )

    for d in facts.declarations:
        if d.kind not in DECL_KIND_CODES:
            raise bad("declaration", d.kind)
        if not d.key:
            raise keyless("declaration")
    for r in facts.references:
        if r.kind not in REF_KIND_CODES:
            raise bad("reference", r.kind)
        if not r.target_key:
            raise keyless("reference")
    for rel in facts.relations:
        if rel.kind not in RELATION_KIND_CODES:
            raise bad("relation", rel.kind)
        if not rel.from_key or not rel.to_key:
            raise keyless("relation")
    for p in facts.problems:
        if p.kind not in PROBLEM_KIND_CODES:
            raise bad("problem", p.kind)
    names = set()
    for b in facts.blocked:
        if b.reason not in BLOCK_REASON_CODES:
            raise bad("blocked-name", b.reason)
        if not b.name or b.name in names:
            raise StoreError(f"The blocked names of {relpath} hold an empty or repeated name "
                             f"{b.name!r}; the indexer emitted a broken fact, so report it with "
                             f"the file.", path=relpath)
        names.add(b.name)
    for kind, _dotted, _scip in facts.external.values():
        if kind and kind not in DECL_KIND_CODES:
            raise bad("library declaration", kind)


def _ref_order(r: Reference) -> tuple[tuple[int, ...], int, str, str, int, str]:
    return (tuple(r.span), REF_KIND_CODES[r.kind], r.target_key, r.container_key, r.flags,
            r.target_scip)


def _decl_order(d: Declaration) -> tuple[tuple[int, ...], str, tuple[int, ...], str, str, str, str, str, int, str]:
    return (tuple(d.name_span), d.key, tuple(d.span), d.kind, d.name, d.display, d.dotted,
            d.scip, d.modifiers, d.declaring_key)


def _problem_order(p: Problem) -> tuple[tuple[int, ...], int, str, str, bool]:
    return (tuple(p.span), PROBLEM_KIND_CODES[p.kind], p.name, p.message, p.is_error)


def canonicalize(module: str, scope: str, relpath: str, content_sha256: str,
                 facts: FileFacts) -> CanonicalFacts:
    """Sort the facts into storage order and compute the file version digest."""
    _check(facts, relpath)
    decls = sorted(facts.declarations, key=_decl_order)
    refs = sorted(facts.references, key=_ref_order)
    rels = sorted(set(facts.relations))
    probs = sorted(facts.problems, key=_problem_order)
    external = sorted(facts.external.items())
    blocked = sorted(facts.blocked)
    # "blocked" tags the layout that records blocked names: no version written
    # before it (whose names are unknown) can share a digest with one after.
    payload = json.dumps(
        [module, scope, relpath, content_sha256, bool(facts.binding_complete), facts.failure,
         decls, refs, rels, probs, external, "blocked", blocked],
        ensure_ascii=False, separators=(",", ":"),
    )
    digest = hashlib.sha256(payload.encode("utf-8", "surrogatepass")).digest()
    return CanonicalFacts(decls, refs, rels, probs, external, blocked, digest)
