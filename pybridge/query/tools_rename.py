"""rename (DESIGN section 10): the edits that rename a declaration and keep every binding, checked by
the compiler, or the refusal that says why. Models and the answer's shape: `rename_models`.

The work is `pybridge.edits`: `rename.plan` reads the edits from the published generation,
`rename_check.check` compiles exactly those edits on the worker (`check_edit`), and
`rename_apply.write` writes them all or nothing. This module turns a key or a position into the
declaration, shapes the answer (paged by file, 32 KB), and after a write waits for the new
generation: the live index's catch-up under `serve`, else a sync of its own.

`files` pages: a page holds whole files, as many as fit the answer's budget (at least one). The plan
and its check are memoised per generation, target and new name, so a next page (its `nextCursor`)
or the apply that follows a preview compiles nothing (the files are the generation's, and the writer
checks their digests again). An applied
rename wrote every file; its answer lists the files that fit and says `truncated`.
"""

from __future__ import annotations

from typing import Any

from pybridge.edits import StaleBaseError
from pybridge.edits import rename as planner
from pybridge.edits.model import EditCheck
from pybridge.edits.rename_apply import write
from pybridge.edits.rename_check import base_of, check
from pybridge.facts import Span
from pybridge.store import DeclRow

from .errors import QueryError
from .paging import check_generation, cursor_offset, new_cursor, open_key
from .registry import Call, tool
from .rename_models import RenameArgs, RenameResult
from .source import check_position, workspace_path
from .tools_admin import build_tool_of, sync_served
from .tools_edits import edit_session
from .view import View, fit, rng
from .workspace import Served

PLACES_SHOWN = 20
APPLY_WAIT_S = 120.0     # how long an applied rename waits for the live index to publish it


@tool("rename", args=RenameArgs, result=RenameResult, read_only=False, progress=True, description="""
    Rename a declaration everywhere (references, overrides, its file), compiled first;
    rename_refused says why not. A preview unless apply.""")
def rename(call: Call, a: RenameArgs) -> RenameResult:
    ws, v, decl = _target(call, a)
    try:
        v.require_fresh()
        def checked() -> tuple[planner.RenamePlan, dict[str, str], EditCheck]:
            plan = planner.plan(v.r, ws.root, decl, a.newName, lambda m: ws.encoding(v.gen, m))
            with edit_session(call, ws, v) as session:    # with Lombok's agent when the generation needs it
                return plan, base_of(plan), check(plan, session)

        try:
            # a preview's next page, or the apply after a preview, compiles nothing: the files are still
            # the generation's (require_fresh), and the writer checks their digests again
            plan, base, result = ws.memo(v.gen.number)(("rename", decl.key, a.newName), checked)
            if a.base is not None:
                _compare_base(plan, base, a.base)
        except planner.RenameRefused as exc:
            raise _refused(exc) from None
        except StaleBaseError as exc:
            raise QueryError("stale_base", exc.message, changed=exc.changed) from None
        answer = _answer(v, plan, base, result, a)
        if not a.apply:
            return RenameResult.model_validate(answer)
        new_decl_at = _new_position(plan)
    finally:
        v.r.close()
    try:
        write(ws.root, plan, base)
    except StaleBaseError as exc:
        raise QueryError("stale_base", exc.message, changed=exc.changed) from None
    ws.freshness.invalidate()
    answer.update(applied=True, **_published(call, ws, new_decl_at))
    return RenameResult.model_validate(answer)


def _target(call: Call, a: RenameArgs) -> tuple[Served, View, DeclRow]:
    """The workspace, a view of its current generation (the caller closes its reader) and the declaration."""
    if a.symbolKey is not None:
        ws, reader, parsed, info = open_key(call.spaces, a.symbolKey)
        v = View(ws, reader)
        try:
            check_generation(v, parsed, info)
            decl = v.first_decls([info.id])[info.id]
            if decl is None:
                raise _refused(planner.RenameRefused(
                    "library_member", f"`{info.dotted}` is declared in a library or the JDK, not in the workspace; "
                    f"only the workspace's own declarations can be renamed."))
            return ws, v, decl
        except BaseException:
            reader.close()
            raise
    ws = call.spaces.pick(a.repo)
    assert a.path is not None and a.line is not None and a.character is not None
    rel = workspace_path(ws.spellings, a.path)
    reader = ws.reader()
    v = View(ws, reader)
    try:
        v.require_fresh()
        info = reader.file(rel)
        if info is None:
            raise QueryError("not_found", f"{rel} is not a source file of generation {v.gen.number} of {ws.slug}; "
                             f"pass the path of an indexed .java file.")
        check_position(rel, ws.sources.lines(rel, ws.encoding(v.gen, info.module)), a.line, a.character)
        hits = reader.at(rel, a.line, a.character)
        decls = [h for h in hits if isinstance(h, DeclRow) and h.kind != "INITIALIZER" and h.name]
        targets = [h.target_id for h in hits if not isinstance(h, DeclRow)]
        if not decls and targets:
            decls = [d for d in (v.first_decls(targets).values()) if d is not None]
            if not decls:
                raise _refused(planner.RenameRefused(
                    "library_member", "The name there refers to a library or JDK declaration, which cannot "
                    "be renamed; point at a declaration of the workspace."))
        if not decls:
            raise QueryError("not_found", f"No name is declared or referenced at line {a.line}, character "
                             f"{a.character} of {rel} (0-based, UTF-16, as in LSP); point at a name's token.")
        return ws, v, decls[0]
    except BaseException:
        reader.close()
        raise


def _compare_base(plan: planner.RenamePlan, read: dict[str, str], given: dict[str, str]) -> None:
    differs = sorted(p for p, sha in read.items() if given.get(p) not in (None, sha))
    if differs:
        raise StaleBaseError(differs)


def _refused(exc: planner.RenameRefused) -> QueryError:
    places = [{**({"path": p.path} if p.path is not None else {}),
               **({"range": rng(p.span)} if p.span is not None else {}), "what": p.what}
              for p in exc.places[:PLACES_SHOWN]]
    return QueryError("rename_refused", exc.message, reason=exc.reason, places=places,
                      placesTotal=len(exc.places))


def _answer(v: View, plan: planner.RenamePlan, base: dict[str, str], result: EditCheck,
            a: RenameArgs) -> dict[str, Any]:
    files = [{"path": f.path, "edits": [{"range": rng(e.span), "newText": e.new_text} for e in f.edits]}
             for f in plan.files]
    args = a.model_dump(exclude={"cursor", "apply", "base"})
    start = cursor_offset(v, "rename", args, a.cursor) if a.cursor is not None else 0
    t = plan.target
    head: dict[str, Any] = {
        "symbol": {"symbolKey": v.key(t.symbol_id, t.key), "symbol": v.scip(t.scip, t.module),
                   "dottedPath": t.dotted, "display": t.display or t.name, "kind": t.kind},
        "newName": plan.new_name, "filesTotal": len(files), "editsTotal": sum(len(f.edits) for f in plan.files),
        "moves": [{"from": m.source, "to": m.target} for m in plan.moves], "base": base,
        "check": result.model_dump(mode="json", by_alias=True, exclude_defaults=False), "applied": False,
        **v.envelope()}
    rest = files[start:]

    def build(k: int) -> dict[str, Any]:
        out = {**head, "files": rest[:k]}
        if start + k < len(files):
            if a.apply:            # written whole: the answer shows what fits, and says it is cut
                out["truncated"] = True
            else:
                out["nextCursor"] = new_cursor(v, "rename", args, start + k)
        return out

    return fit(build, len(rest), limit_given=False)[0]


def _new_position(plan: planner.RenamePlan) -> tuple[str, int, int, str]:
    """Where the renamed declaration's name starts after the edit, and its kind: (path, line,
    character, kind)."""
    t = plan.target
    span: Span = t.name_span
    shift = sum(len(plan.new_name) - len(plan.old_name) for f in plan.files if f.path == t.path
                for e in f.edits if e.span.start_line == span.start_line and e.span.start_char < span.start_char)
    path = next((m.target for m in plan.moves if m.source == t.path), t.path)
    return path, span.start_line, span.start_char + shift, t.kind


def _published(call: Call, ws: Served, at: tuple[str, int, int, str]) -> dict[str, Any]:
    """Wait for a generation that holds the rename (the live index's catch-up, else a sync), and the
    renamed declaration's key in it."""
    live = ws.freshness.live
    hint = None
    if live is not None:
        outcome = live.wait_fresh(ws.root, max(live.bound(), APPLY_WAIT_S))
        if outcome.state != "fresh":
            hint = (f"The files are written; the live index has not published them yet ({outcome.state}): "
                    f"call sync, then find the new key with symbol_at.")
    else:
        try:
            sync_served(ws, None, allow_online=call.allow_online, heap=call.heap, worker=call.worker, wait=True,
                  build_tool=build_tool_of(ws, call.build_tool))
        except QueryError as exc:
            hint = f"The files are written, but the sync after them failed: {exc.message}"
    ws.freshness.invalidate()
    reader = ws.reader()
    try:
        path, line, char, kind = at
        found = [h for h in reader.at(path, line, char) if isinstance(h, DeclRow) and h.kind == kind
                 and (h.name_span.start_line, h.name_span.start_char) == (line, char)]
        out: dict[str, Any] = {"generation": reader.generation.number}
        if found:
            out["symbolKey"] = View(ws, reader).key(found[0].symbol_id, found[0].key)
        elif hint is None:
            hint = "The files are written; find the renamed declaration's key with symbol_at."
        if hint is not None:
            out["hint"] = hint
        return out
    finally:
        reader.close()
