"""rename, step two: the compiler's word on a rename plan (`check_edit` on exactly its edits).

The plan's edits are compiled as `check_edit` compiles any change (the changed files and every
file the incremental planner says could bind differently, on an overlay, nothing written), and the
new facts are compared with the generation's through the rename (`rename_verify`): a rename is
clean only when no compiler error is new, every reference (renamed tokens included) binds to the
same declaration, mapped through the rename, no other reference binds to a renamed declaration,
and no relation is gained or lost. Otherwise it is refused:
- `collision` when the edit breaks the build (a duplicate declaration, a clash the compiler names);
- `capture` when it compiles but a binding moves (an overload chosen instead, a local or member
  that hides the renamed one, an accidental override).

The answer's `check` is `check_edit`'s diff of the same edits, with what the rename itself
explains left out: a reference that follows its declaration to the new name (`this(…)` to a
renamed constructor) is not `rebound`, a relation of a renamed method that holds under its new
name is neither gained nor lost, and an error that was there before at the same (mapped) place is
not added (its message may name the new name); the verdict is then recomputed.
"""

from __future__ import annotations

from .check import EditSession, compile_overlay, diff, environment, verify_base
from .model import EditCheck, FileChange, RelationsDiff, verdict_of
from .rename import RenamePlan, RenameRefused
from .rename_verify import Verdict, verify


def changes_of(plan: RenamePlan) -> list[FileChange]:
    """The plan as whole-file changes: the edited texts (a moved file at its new path) and the
    moved files' old paths deleted."""
    out = [FileChange(path=path, text=text) for path, text in sorted(plan.new_texts().items())]
    out += [FileChange(path=m.source, text=None) for m in plan.moves]
    return out


def base_of(plan: RenamePlan) -> dict[str, str]:
    """path -> SHA-256 of the bytes the plan read (every file it edits or moves)."""
    touched = {f.path for f in plan.files} | {m.source for m in plan.moves}
    return {path: src.sha256 for path, src in sorted(plan.sources.items()) if path in touched}


def check(plan: RenamePlan, session: EditSession) -> EditCheck:
    """The check of the plan's edits; RenameRefused unless the rename keeps every binding."""
    verify_base(session.root, base_of(plan))
    changes = {c.path: c.text for c in changes_of(plan)}
    reader = session.reader
    env = environment(session.root, reader, changes)
    compiled = compile_overlay(session, env, changes)
    result = diff(session, env, compiled, changes, {f.path: f for f in reader.files()})
    verdict = verify(plan, reader, compiled.facts)
    refuse_unless_clean(plan, verdict)
    return explained(result, verdict)


def explained(result: EditCheck, verdict: Verdict) -> EditCheck:
    """`result` without the rebinds and relation changes the rename explains."""
    flagged = {(p.path, p.span.start_line, p.span.start_char) for p in verdict.moved if p.span is not None}
    rebound = [r for r in result.rebound if (r.path, r.range.start.line, r.range.start.character) in flagged]
    relations = result.relations if verdict.relations else RelationsDiff()
    errors = {(p.path, p.span.start_line, p.span.start_char) for p in verdict.errors if p.span is not None}
    added = [d for d in result.diagnostics.added if (d.path, d.range.start.line, d.range.start.character) in errors]
    diagnostics = result.diagnostics.model_copy(update={"added": added})
    return result.model_copy(update={"rebound": rebound, "relations": relations, "diagnostics": diagnostics,
                                     "verdict": verdict_of(diagnostics, rebound, relations)})


def refuse_unless_clean(plan: RenamePlan, verdict: Verdict) -> None:
    what = f"Renaming `{plan.target.dotted}` to `{plan.new_name}`"
    if verdict.errors:
        raise RenameRefused("collision", f"{what} does not compile: {verdict.errors[0].what} (places lists "
                            f"every new error); pick another name.", verdict.errors)
    places = verdict.moved + verdict.relations
    if places:
        raise RenameRefused("capture", f"{what} compiles but changes what code means: {places[0].what} "
                            f"(places lists each); pick another name.", places)
