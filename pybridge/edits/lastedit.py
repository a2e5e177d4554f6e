"""The binding diff of the last edit, after the fact: what a live catch-up's publish changed.

Computed from the facts the catch-up already staged, not by compiling again: the files whose
stored version differs between the generation before and the one it published are diffed as
`check_edit` diffs them (`check.diff_facts`). The text before the write is gone, so a file whose
content changed is compared without matching positions through the edit: its references are not
candidates for `rebound` (only files the catch-up re-indexed because of the edit, unchanged
themselves, are), and its problems are matched by kind, name and message. Relations,
declarations and diagnostics are diffed as in `check_edit`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from pybridge.facts import Declaration, FileFacts, Problem, Reference, Relation
from pybridge.store import Reader
from pybridge.sync.meta import GenerationMeta, scip_coordinates, scip_symbol

from .check import RELATION_KINDS, Names, diff_facts, stored_facts
from .model import Checked, EditCheck
from .textmap import TextMap

MAX_FILES = 300
"""A catch-up that re-indexed more files than this (a build change, a full index) gets no diff: the diff
reads every such file's facts twice on the catch-up's thread, before its wait ends."""


def scip_namer(meta: GenerationMeta) -> Callable[[str | None, str | None], str | None]:
    """Full SCIP symbols from descriptors, with the modules' coordinates (as the query layer's View)."""
    coords = scip_coordinates(meta)
    return lambda descriptor, module: scip_symbol(descriptor, module, coords)


def _facts(reader: Reader, rel: str) -> FileFacts:
    decls = [Declaration(d.key, d.kind, d.name, d.display, d.dotted, d.scip, d.name_span, d.span, d.modifiers,
                         d.container_key or "") for d in reader.file_declarations(rel)]
    refs = [Reference(r.target_key, "", r.span, r.kind, r.container_key or "", r.flags)
            for r in reader.file_references(rel)]
    relations = [Relation(x.kind, x.from_key, x.to_key) for x in reader.file_relations(rel) if x.kind in RELATION_KINDS]
    problems = [Problem(p.kind, p.name, p.message, p.span, True) for p in reader.problems(path=rel, errors_only=True)]
    return FileFacts(rel, True, decls, refs, relations, problems)


def last_edit(before: Reader, after: Reader, symbol_key: Callable[[int, str], str]) -> EditCheck | None:
    """The diff between two generations' facts (None when too many files differ to say cheaply).
    Symbols are named in `after`'s generation (their keys answer there)."""
    old_files = before.files_by_path()
    new_files = after.files_by_path()
    touched = sorted(rel for rel in old_files.keys() | new_files.keys()
                     if rel not in old_files or rel not in new_files
                     or old_files[rel].file_version_id != new_files[rel].file_version_id)
    if len(touched) > MAX_FILES:
        return None
    edited = [rel for rel in touched if rel not in old_files or rel not in new_files
              or old_files[rel].content_sha256 != new_files[rel].content_sha256]
    olds = {rel: stored_facts(before, rel) for rel in touched if rel in old_files}
    news = {rel: _facts(after, rel) for rel in touched if rel in new_files}
    maps = {rel: TextMap.opaque() if rel in edited else TextMap("", "") for rel in touched
            if rel in olds and rel in news}
    names = Names(after, symbol_key, scip_namer(GenerationMeta.of(after.generation)), news,
                   {rel: new_files[rel].module for rel in news})
    return diff_facts(olds, news, maps, names, Checked(generation=after.generation.number, changed=edited,
                                                       compiled=len(touched), rounds=0))


SHOWN = 10
"""Rows of each list that `status` and `diagnostics` show of the last edit (`total` counts them all)."""


def summary(check: EditCheck, previous: int, at: str) -> dict[str, Any]:
    """The last edit as `status` (under `live`) and `diagnostics` show it: bounded lists, full counts."""
    def rows(items: Sequence[BaseModel]) -> list[dict[str, Any]]:
        return [x.model_dump(mode="json", by_alias=True) for x in items[:SHOWN]]

    return {
        "generation": check.checked.generation, "previous": previous, "at": at, "verdict": check.verdict,
        "changed": check.checked.changed[:SHOWN], "reindexed": check.checked.compiled,
        "rebound": rows(check.rebound), "relationsGained": rows(check.relations.gained),
        "relationsLost": rows(check.relations.lost), "diagnosticsAdded": rows(check.diagnostics.added),
        "total": {"rebound": len(check.rebound), "relationsGained": len(check.relations.gained),
                  "relationsLost": len(check.relations.lost), "diagnosticsAdded": len(check.diagnostics.added),
                  "diagnosticsRemoved": len(check.diagnostics.removed),
                  "declarationsAdded": len(check.declarations.added),
                  "declarationsRemoved": len(check.declarations.removed),
                  "declarationsChanged": len(check.declarations.changed)},
    }
