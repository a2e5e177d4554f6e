"""The argument and result models of `rename` (DESIGN section 10).

Result (plus the freshness envelope)::

    {"symbol": summary (what is renamed), "newName",
     "files": [{"path", "edits": [{"range" (0-based), "newText"}]}],   (paged by file: nextCursor)
     "filesTotal", "editsTotal", "moves": [{"from", "to"}],
     "base": {path: SHA-256 of the bytes read},   (pass back with apply to write only those bytes)
     "check": the check_edit answer of exactly these edits,
     "applied", "symbolKey"? (applied: the renamed declaration's key in the new generation),
     "generation"? (applied: the generation that holds the rename), "nextCursor"? (a preview's next
     files), "truncated"? (applied: not every file written is listed), "hint"?}

A refusal is the error `rename_refused` with `reason` (invalid_name, collision, capture,
library_member, generated_member), `places` ([{path, range, what}], at most 20) and `placesTotal`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from pybridge.edits.model import EditCheck

from .models import KEY_MAX, NAME_MAX, PATH_MAX, UNICODE, Cursor, Repo, ToolArgs, _text
from .results import Envelope, Model, Range, Summary


class RenameArgs(ToolArgs):
    """Rename a declaration everywhere, or refuse and say why."""

    symbolKey: Annotated[str | None, Field(max_length=KEY_MAX, description="Or path, line, character.")] = None
    repo: Repo = None
    path: Annotated[str | None, Field(max_length=PATH_MAX, description="As symbol_at.")] = None
    line: Annotated[int | None, Field(strict=True, ge=0, description="0-based.")] = None
    character: Annotated[int | None, Field(strict=True, ge=0, description="0-based.")] = None
    newName: Annotated[str, _text(NAME_MAX, "The new simple name."), UNICODE]
    apply: Annotated[bool, Field(strict=True, description="Write it (default: preview).")] = False
    base: Annotated[dict[str, str] | None, Field(description="The preview's base.")] = None
    cursor: Cursor = None

    @model_validator(mode="after")
    def _target(self) -> RenameArgs:
        at = (self.path, self.line, self.character)
        if self.symbolKey is None and None in at:
            raise ValueError("give symbolKey, or path, line and character")
        if self.symbolKey is not None and any(x is not None for x in at):
            raise ValueError("give symbolKey or a position (path, line, character), not both")
        if self.apply and self.cursor is not None:
            raise ValueError("apply writes every file at once; drop the cursor")
        if self.base is not None and (len(self.base) > 10_000 or any(len(v) > 64 for v in self.base.values())):
            raise ValueError("base maps paths to SHA-256 digests (64 hex digits), as the preview gave it")
        return self



class TextEdit(Model):
    range: Range
    newText: str


class FileEdit(Model):
    path: str
    edits: list[TextEdit]


class FileMove(Model):
    from_: str = Field(alias="from", serialization_alias="from")
    to: str


class RenameResult(Envelope):
    files: list[FileEdit]
    check: EditCheck
    applied: bool
    symbol: Summary | None = None
    newName: str | None = None
    filesTotal: int = 0
    editsTotal: int = 0
    moves: list[FileMove] = Field(default_factory=list)
    base: dict[str, str] = Field(default_factory=dict)
    symbolKey: str | None = None
    generation: int | None = None
    nextCursor: str | None = None
    truncated: bool | None = None
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)
