"""The argument and result models of `rename` (DESIGN section 10).

Result (plus the freshness envelope)::

    {"symbol": summary (what is renamed), "newName",
     "files": [{"path", "edits": [{"range" (0-based), "newText"}]}],   (paged by file: nextCursor)
     "filesTotal", "editsTotal", "moves": [{"from", "to"}],
     "base": {path: SHA-256 of the bytes read},   (pass back with apply to write only those bytes)
     "check": the check_edit answer of exactly these edits,
     "applied", "symbolKey"? (applied: the renamed declaration's key in the new generation),
     "generation"? (applied: the generation that holds the rename), "nextCursor"?}

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

    symbolKey: Annotated[str | None, Field(max_length=KEY_MAX, description="The declaration (or give path, "
                                                                          "line, character).")] = None
    repo: Repo = None
    path: Annotated[str | None, Field(max_length=PATH_MAX, description="With line and character: the name "
                                                                      "there, as symbol_at.")] = None
    line: Annotated[int | None, Field(strict=True, ge=0)] = None
    character: Annotated[int | None, Field(strict=True, ge=0)] = None
    newName: Annotated[str, _text(NAME_MAX, "The new simple name."), UNICODE]
    apply: Annotated[bool, Field(strict=True, description="Write the files (default: a preview).")] = False
    base: Annotated[dict[str, Annotated[str, Field(max_length=64)]] | None, Field(
        max_length=10_000, description="The preview's `base`: apply writes only over those bytes.")] = None
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
    symbol: Summary
    newName: str
    files: list[FileEdit]
    filesTotal: int
    editsTotal: int
    moves: list[FileMove]
    base: dict[str, str]
    check: EditCheck
    applied: bool
    symbolKey: str | None = None
    generation: int | None = None
    nextCursor: str | None = None
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True, by_alias=True)
