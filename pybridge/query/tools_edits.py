"""check_edit: the binding diff of a change before it is written (DESIGN section 10).

Result (plus the freshness envelope of the generation compared against)::

    {"verdict": "clean" | "breaks_build" | "changes_meaning",
     "diagnostics": {"added": [...], "removed": [...]},  "rebound": [{path, range, kind, from, to}],
     "relations": {"gained": [...], "lost": [...]},
     "declarations": {"added": [...], "removed": [...], "changed": [...]},
     "checked": {generation, changed, compiled, rounds},
     "total": {...: every list's full length}, "nextCursor"?}

The rows of every list, in that order, are paged together: a page stays within the answer budget
(about 32 KB), and `nextCursor` continues where it stopped (the check is memoised per generation
and arguments, so a next page compiles nothing). Under `serve` the check uses the live index's
warm worker and answers against the generation its envelope names (it waits for a catch-up the
workspace needs first, like the exact tools); from the CLI a worker is started for the call.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from pybridge.edits import (
    EditCheck,
    EditSession,
    FileChange,
    PatchError,
    StaleBaseError,
    changes_from_patch,
    check_edit,
)
from pybridge.edits.check import EditError, WorkspaceMovedError
from pybridge.edits.model import (
    Checked,
    DeclarationsDiff,
    DiagnosticsDiff,
    Rebound,
    RelationsDiff,
    Verdict,
)
from pybridge.sync.meta import GenerationMeta
from pybridge.worker import Worker
from pybridge.workspace.lombok import lombok_jar, newest

from .errors import QueryError, invalid
from .models import Cursor, Repo, ToolArgs
from .paging import cursor_offset, new_cursor
from .registry import Call, tool
from .results import Envelope, Model
from .view import View, fit, viewing
from .workspace import Served

TEXT_MAX = 4 * 1024 * 1024      # one file's new text, or the patch
CHANGES_MAX = 200               # files in one check


class CheckEditArgs(ToolArgs):
    """The binding diff of a change before it is written."""

    repo: Repo = None
    changes: Annotated[list[FileChange] | None, Field(max_length=CHANGES_MAX, description=(
        "[{path, text}]: whole new text; null text deletes."))] = None
    patch: Annotated[str | None, Field(max_length=TEXT_MAX, description="Or a unified diff.")] = None
    base: Annotated[dict[str, str] | None, Field(description=(
        "path -> SHA-256 you read; a mismatch is stale_base."))] = None
    cursor: Cursor = None


class Totals(Model):
    diagnosticsAdded: int
    diagnosticsRemoved: int
    rebound: int
    relationsGained: int
    relationsLost: int
    declarationsAdded: int
    declarationsRemoved: int
    declarationsChanged: int


class CheckEditResult(Envelope):
    verdict: Verdict = Field(description="clean, breaks_build (an error added) or changes_meaning (a rebind or "
                                         "relation change, no new error).")
    diagnostics: DiagnosticsDiff
    rebound: list[Rebound] = Field(description="References outside the edited text whose declaration changes.")
    relations: RelationsDiff
    declarations: DeclarationsDiff
    checked: Checked
    total: Totals = Field(description="Every list's full length (a page may hold fewer).")
    nextCursor: str | None = None


_SECTIONS = (("diagnostics", "added"), ("diagnostics", "removed"), ("rebound", None), ("relations", "gained"),
             ("relations", "lost"), ("declarations", "added"), ("declarations", "removed"),
             ("declarations", "changed"))


def _rows(check: EditCheck) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    for i, (part, sub) in enumerate(_SECTIONS):
        value = getattr(check, part)
        rows = value if sub is None else getattr(value, sub)
        out += [(i, row) for row in rows]
    return out


def _page(check: EditCheck, rows: list[tuple[int, Any]]) -> dict[str, Any]:
    lists: list[list[Any]] = [[] for _ in _SECTIONS]
    for i, row in rows:
        lists[i].append(row)
    d = DiagnosticsDiff(added=lists[0], removed=lists[1])
    r = RelationsDiff(gained=lists[3], lost=lists[4])
    decl = DeclarationsDiff(added=lists[5], removed=lists[6], changed=lists[7])
    return {"verdict": check.verdict, "diagnostics": d.model_dump(mode="json", by_alias=True),
            "rebound": [x.model_dump(mode="json", by_alias=True) for x in lists[2]],
            "relations": r.model_dump(mode="json", by_alias=True),
            "declarations": decl.model_dump(mode="json", by_alias=True),
            "checked": check.checked.model_dump(mode="json")}


def _totals(check: EditCheck) -> Totals:
    return Totals(diagnosticsAdded=len(check.diagnostics.added), diagnosticsRemoved=len(check.diagnostics.removed),
                  rebound=len(check.rebound), relationsGained=len(check.relations.gained),
                  relationsLost=len(check.relations.lost), declarationsAdded=len(check.declarations.added),
                  declarationsRemoved=len(check.declarations.removed),
                  declarationsChanged=len(check.declarations.changed))


@contextmanager
def edit_session(call: Call, ws: Served, v: View) -> Iterator[EditSession]:
    """An `EditSession` on the view's generation: the live index's warm worker under `serve` (the
    facade's worker), else a worker started for this call and closed after it."""
    worker = call.worker
    own = worker is None
    if own:
        worker = Worker(call.heap) if call.heap else Worker()
        # Lombok's agent, as a sync settles it (its jar on a recorded processor path or classpath);
        # the live index's warm worker has what its last sync settled.
        worker.use_agents(newest(jar for s in GenerationMeta.of(v.gen).scopes if (jar := (
            lombok_jar(map(Path, s.processor_path)) or lombok_jar(map(Path, s.classpath)))) is not None))
    try:
        yield EditSession(ws.root, v.r, worker, v.key, v.scip)
    finally:
        if own:
            worker.close()


def run_check(call: Call, ws: Served, v: View, changes: list[FileChange], base: dict[str, str] | None) -> EditCheck:
    """`check_edit` with its errors as tool errors (the rename tool calls this too)."""
    try:
        with edit_session(call, ws, v) as session:
            return check_edit(session, changes, base)
    except StaleBaseError as exc:
        raise QueryError("stale_base", exc.message, changed=exc.changed,
                         hint="read the files again (their SHA-256 in base), then redo the change") from exc
    except WorkspaceMovedError as exc:
        raise QueryError("stale_snapshot", exc.message, changed=exc.changed,
                         hint="wait until the edits are done, then repeat the check") from exc
    except EditError as exc:
        raise invalid(exc.message, **exc.details) from exc


def _changes(ws: Served, a: CheckEditArgs) -> list[FileChange]:
    if (a.changes is None) == (a.patch is None):
        raise invalid("Give exactly one of changes ([{path, text}]) and patch (a unified diff).", field="changes")
    if a.changes is not None:
        if not a.changes:
            raise invalid("changes is empty; give at least one {path, text}.", field="changes")
        return a.changes
    assert a.patch is not None
    try:
        return changes_from_patch(ws.root, a.patch)
    except PatchError as exc:
        raise invalid(exc.message, field="patch") from exc


@tool("check_edit", args=CheckEditArgs, result=CheckEditResult, progress=True, description="""
    Compile a change without writing it: errors added/removed, references that would bind elsewhere
    (rebound), relations gained/lost, declarations changed, and a verdict.""")
def check_edit_tool(call: Call, a: CheckEditArgs) -> CheckEditResult:
    ws = call.spaces.pick(a.repo)
    with viewing(ws) as v:
        v.require_fresh()
        args = a.model_dump(exclude={"cursor"})
        start = cursor_offset(v, "check_edit", args, a.cursor)
        changes = _changes(ws, a)
        digest = hashlib.sha256(json.dumps(args, sort_keys=True, default=str).encode()).hexdigest()
        if a.cursor is None:
            check = run_check(call, ws, v, changes, a.base)
            v.ws.memo(v.gen.number)(("check_edit", digest), lambda: check)
        else:
            check = v.ws.memo(v.gen.number)(("check_edit", digest),
                                            lambda: run_check(call, ws, v, changes, a.base))
        rows = _rows(check)[start:]
        total = _totals(check)

        def build(k: int) -> dict[str, Any]:
            return {**_page(check, rows[:k]), "total": total.model_dump(), **v.envelope()}

        answer, k = fit(build, len(rows), limit_given=False)
        out = CheckEditResult.model_validate(answer)
        if start + k < start + len(rows):
            out.nextCursor = new_cursor(v, "check_edit", args, start + k)
        return out

