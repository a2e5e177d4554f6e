"""The shapes of an edit check (DESIGN section 10): the change asked about, and its binding diff.

A leaf module: pydantic models only, so that the query layer (the `check_edit` and
`rename` tools) and the check itself (`pybridge.edits.check`) share them.

- `FileChange`: one file of a proposed change. `path` is workspace-relative
  (posix); `text` is the whole new content, or None to delete the file; a path
  the workspace does not hold adds a file.
- `EditCheck`: what the change does to the compiler's view of the workspace,
  compared with the current generation:
  - `diagnostics.added` / `.removed`: compiler errors, matched through the
    edit (an error that only moved with the edited text is neither);
  - `rebound`: references outside the edited text whose declaration changed
    (`to: null`: it no longer resolves);
  - `relations.gained` / `.lost`: overrides, implements, extends;
  - `declarations.added` / `.removed` / `.changed` (signature);
  - `verdict`: `breaks_build` when an error was added, else `changes_meaning`
    when a reference rebound or a relation changed, else `clean`.

Positions are 0-based (LSP: line, UTF-16 character, end exclusive); a range
in a changed file is in its new text, except for what the change removed
(`diagnostics.removed`, `declarations.removed`, `relations.lost`), which is in
the text before.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

STALE_BASE = "stale_base"
"""The error code of a check (or a rename's write) whose `base` digests no longer match the disk."""

Verdict = Literal["clean", "breaks_build", "changes_meaning"]
VERDICTS: tuple[Verdict, ...] = ("clean", "breaks_build", "changes_meaning")
RelationKind = Literal["overrides", "implements", "extends"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FileChange(_Model):
    # One file of a proposed change: `path` workspace-relative (absolute inside it works too), `text`
    # its whole new content or None to delete it. (No docstring and no field descriptions: the
    # tool's input schema inlines this model, and `changes` describes it once.)
    path: str
    text: str | None


class Position(_Model):
    line: int
    character: int


class Range(_Model):
    start: Position
    end: Position

    @classmethod
    def of(cls, span: tuple[int, int, int, int]) -> "Range":
        return cls(start=Position(line=span[0], character=span[1]), end=Position(line=span[2], character=span[3]))


class SymbolRef(_Model):
    """A declaration: its symbolKey (null when the current generation does not declare it: a
    declaration the change adds), its SCIP symbol and its display name."""

    symbolKey: str | None = None
    symbol: str
    display: str


class Diagnostic(_Model):
    path: str
    range: Range
    kind: str                     # syntax, unresolved_type, … (pybridge.facts.PROBLEM_KINDS)
    message: str
    name: str | None = None       # the unresolved simple name, when the compiler names one


class Rebound(_Model):
    path: str
    range: Range
    kind: str                     # the reference kind (DESIGN section 6)
    from_: SymbolRef = Field(alias="from")
    to: SymbolRef | None


class RelationChange(_Model):
    kind: RelationKind
    from_: SymbolRef = Field(alias="from")
    to: SymbolRef
    path: str                     # the file that holds the relation (the subtype's or overrider's)


class DeclarationChange(_Model):
    path: str
    range: Range                  # the name
    kind: str                     # CLASS, METHOD, … (pybridge.facts.DECL_KINDS)
    symbol: SymbolRef
    before: str | None = None     # `changed`: the signature before (display), when it differs


class DiagnosticsDiff(_Model):
    added: list[Diagnostic] = Field(default_factory=list)
    removed: list[Diagnostic] = Field(default_factory=list)


class RelationsDiff(_Model):
    gained: list[RelationChange] = Field(default_factory=list)
    lost: list[RelationChange] = Field(default_factory=list)


class DeclarationsDiff(_Model):
    added: list[DeclarationChange] = Field(default_factory=list)
    removed: list[DeclarationChange] = Field(default_factory=list)
    changed: list[DeclarationChange] = Field(default_factory=list)


class Checked(_Model):
    """What was compiled: the changed files and those whose bindings could change."""

    generation: int               # the generation compared against
    changed: list[str]            # the changed paths (added and deleted included)
    compiled: int                 # files compiled with the overlay (changed ones included)
    rounds: int                   # the incremental planner's rounds


class EditCheck(_Model):
    """The binding diff of a change (see the module doc)."""

    verdict: Verdict
    diagnostics: DiagnosticsDiff = Field(default_factory=DiagnosticsDiff)
    rebound: list[Rebound] = Field(default_factory=list)
    relations: RelationsDiff = Field(default_factory=RelationsDiff)
    declarations: DeclarationsDiff = Field(default_factory=DeclarationsDiff)
    checked: Checked


def verdict_of(diagnostics: DiagnosticsDiff, rebound: list[Rebound], relations: RelationsDiff) -> Verdict:
    """breaks_build if any error was added; else changes_meaning if a reference rebound or a relation
    changed; else clean. (Every diagnostic is an error: the indexer keeps errors only.)"""
    if diagnostics.added:
        return "breaks_build"
    if rebound or relations.gained or relations.lost:
        return "changes_meaning"
    return "clean"
