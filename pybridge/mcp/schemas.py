"""Input and output JSON schemas of the MCP tools, derived from the tool registry.

Inputs are the tools' argument models (`pybridge.query.TOOLS[name].args`: their
field descriptions are the parameter docs), inlined (no `$ref`: hosts hand
input schemas to models, and some of them do not resolve references). An
argument several tools share (`repo`, `symbolKey`, `symbol`, `path`, `module`,
`scope`, `cursor`: `pybridge.conventions.SHARED_ARGUMENTS`) is described once,
in the server's instructions, not in each schema.

Outputs are for clients that check answers (hosts hand the model a tool's
description and input schema, not its output schema). Error results must
validate too: TypeScript SDK hosts check `structuredContent` against the
`outputSchema` even when `isError` is true, and refuse the whole result when it
does not match (the agent then sees "Structured content does not match the
tool's output schema" instead of the error). So every output schema declares
`error` and `code` (strings) and admits fields it does not declare at its top
level (the error object's `candidates`, `candidateTotal`, `replacement`,
`changed`, `hint`, `served`, `field`, `cause`; the server instructions describe
them once, for every tool). That is all a tool without a seed says: its answers
are its result model (`TOOLS[name].result`), checked by pydantic when the
handler builds them.

The seed tools' fields that their seed documents show (`results.Model.seed_fields`)
are typed, all the way down, so that a client that checks answers checks the
seed's shape (issue 21): `symbol` and `resolvedSymbol`, the rows' `path` and
`range`, callHierarchy's `{symbol: {symbol, displayName, kind}, location}`,
get_callers' rows, find_references' coverage flags and `nextCursor`; and
`anyOf` requires either the fields every answer has (the seed's fields and
envelope, or the result model's required fields but the envelope's) or `error`
and `code`. A shape met twice is said once in the schema's `$defs` (the
TypeScript SDK's validator and jsonschema resolve it). pybridge's own fields
are left to the open top level.

The budget is 16 KB for the whole `tools/list` (tests/mcp/test_mcp.py). Full
nested schemas of nine tools took 20 KB; with fifteen tools, naming each
answer's required fields, describing the shared arguments in every schema,
`additionalProperties: false` and text lengths (which the argument models
enforce, answering `invalid_argument` with the field) took 16,364 bytes; without
them the listing is 13,208 bytes (`python -c` over `tool_list`, or the test).
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from pybridge.conventions import SHARED_ARGUMENTS, argument_doc
from pybridge.query import TOOLS
from pybridge.query.results import ENVELOPE_FIELDS, ENVELOPE_SEED, Model

_KEEP_TITLE_UNDER = ("properties", "$defs")   # there `title` is a field or model name, not a title


def _untitled(node: Any, parent: str | None = None, drop: tuple[str, ...] = ("title",)) -> Any:
    """`node` without titles (and the other keys in `drop`) and with `anyOf: [{type: T},
    {type: null}]` written `type: [T, null]`."""
    if isinstance(node, dict):
        out = {k: _untitled(v, k, drop) for k, v in node.items()
               if not (k in drop and parent not in _KEEP_TITLE_UNDER)}
        alts = out.get("anyOf")
        if (isinstance(alts, list) and len(alts) == 2 and {"type": "null"} in alts
                and all(set(a) == {"type"} and isinstance(a["type"], str) for a in alts)):
            del out["anyOf"]
            out["type"] = [a["type"] for a in alts if a["type"] != "null"] + ["null"]
        return out
    if isinstance(node, list):
        return [_untitled(v, None, drop) for v in node]
    return node


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline `$defs` references."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = dict(defs[ref.split("/")[-1]])
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**target, **rest})
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    inlined: dict[str, Any] = walk(schema)
    return inlined


def _not_null(node: Any, keep: bool = False) -> Any:
    """An optional argument written as its type alone: null means "not given", and leaving the
    argument out says the same. A required one that admits null (check_edit's `text: null`, which
    deletes a file) keeps null (`keep`)."""
    if isinstance(node, dict):
        alts = node.get("anyOf")
        if not keep and isinstance(alts, list) and len(alts) == 2 and {"type": "null"} in alts:
            [kept] = [a for a in alts if a != {"type": "null"}]
            node = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}, **kept}
        required = set(node.get("required", ())) if isinstance(node.get("properties"), dict) else set()
        out = {k: _not_null(v) for k, v in node.items() if k != "properties"}
        if "properties" in node:
            out["properties"] = {k: _not_null(v, keep=k in required) for k, v in node["properties"].items()} \
                if isinstance(node["properties"], dict) else node["properties"]
        return out
    if isinstance(node, list):
        return [_not_null(v) for v in node]
    return node


def input_schema(name: str) -> dict[str, Any]:
    """The argument model's schema (its docstring left out: the tool's description says it; text
    lengths left out: the argument models still refuse an empty or overlong text as
    `invalid_argument` naming the field; `additionalProperties: false` left out: they refuse an
    unknown argument the same way; a shared argument's description left out: the instructions
    say it, `pybridge.conventions.SHARED_ARGUMENTS`)."""
    schema: dict[str, Any] = _untitled(_not_null(_inline(TOOLS[name].args.model_json_schema())),
                                       drop=("title", "maxLength", "minLength"))
    schema.pop("description", None)
    schema.pop("additionalProperties", None)
    for arg, prop in schema.get("properties", {}).items():
        if arg in SHARED_ARGUMENTS and prop.get("description") == argument_doc(arg):
            del prop["description"]
    schema.setdefault("type", "object")
    return schema


_JSON_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}


class _SeedSchema:
    """The typed schema of a seed tool's fields (`results.Model.seed_fields`): JSON types all the
    way down, no descriptions (the seed documents say what the fields mean). A model is an object
    of its seed fields (all its fields when it names none); `X | None` admits null; an optional
    seed field is absent, never null. A model met twice (a range's two positions, callHierarchy's
    two lists of calls) is said once, in `$defs`."""

    def __init__(self, result: type[Model]) -> None:
        self.uses: dict[type[Model], int] = {}
        self.defs: dict[str, Any] = {}
        self._count(result)
        self.uses[result] = 0              # the answer itself is the schema, never a reference
        self.properties, self.required = self._fields(result)

    def _models(self, annotation: Any) -> list[type[Model]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            assert issubclass(annotation, Model), annotation
            return [annotation]
        return [m for a in get_args(annotation) for m in self._models(a)]

    def _count(self, model: type[Model]) -> None:
        self.uses[model] = self.uses.get(model, 0) + 1
        if self.uses[model] == 1:
            for name in model.seed_fields or tuple(model.model_fields):
                for inner in self._models(model.model_fields[name].annotation):
                    self._count(inner)

    def _typed(self, annotation: Any) -> dict[str, Any]:
        origin = get_origin(annotation)
        if origin in (Union, types.UnionType):
            kept = [a for a in get_args(annotation) if a is not type(None)]
            if len(kept) != 1:
                raise TypeError(f"a seed field is one type, or that type | None; not {annotation}")
            inner = self._typed(kept[0])
            return {"anyOf": [inner, {"type": "null"}]} if "$ref" in inner else \
                {**inner, "type": [inner["type"], "null"]}
        if origin is list:
            return {"type": "array", "items": self._typed(get_args(annotation)[0])}
        if origin is Literal:
            return {"type": "string"}
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            assert issubclass(annotation, Model), annotation
            return self._object(annotation)
        return {"type": _JSON_TYPES[annotation]}

    def _object(self, model: type[Model]) -> dict[str, Any]:
        if self.uses.get(model, 1) < 2:
            properties, required = self._fields(model)
            return {"type": "object", "properties": properties, "required": required}
        if model.__name__ not in self.defs:
            self.defs[model.__name__] = {}          # taken before its fields are typed
            properties, required = self._fields(model)
            self.defs[model.__name__] = {"type": "object", "properties": properties, "required": required}
        return {"$ref": f"#/$defs/{model.__name__}"}

    def _fields(self, model: type[Model]) -> tuple[dict[str, Any], list[str]]:
        properties, required = {}, []
        for name in model.seed_fields or tuple(model.model_fields):
            field = model.model_fields[name]
            typed = self._typed(field.annotation)
            if name in model.seed_optional and isinstance(typed.get("type"), list):
                typed = {**typed, "type": typed["type"][0]}
            alias = field.serialization_alias or name
            properties[alias] = typed
            if name not in model.seed_optional:
                required.append(alias)
        return properties, required


def output_schema(name: str) -> dict[str, Any]:
    """The error object's fields, typed; for a seed tool also its answer's required fields and the
    fields its seed document shows, typed (see above)."""
    result = TOOLS[name].result
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"error": {"type": "string"}, "code": {"type": "string"}},
    }
    if result.seed is None:
        return schema
    full = result.model_json_schema(by_alias=True, mode="serialization")
    required = [k for k in full.get("required", []) if k not in ENVELOPE_FIELDS]
    seed = _SeedSchema(result)
    schema["properties"].update(seed.properties)
    if result.seed_shape:     # the seed's answer: its fields (pybridge's stand beside them, open)
        required = seed.required + list(ENVELOPE_SEED if result.seed_envelope else ())
    else:
        required += [k for k in seed.required if k not in required]
    if seed.defs:
        schema["$defs"] = seed.defs
    if required:      # with nothing required, the error object validates as it is
        schema["anyOf"] = [{"required": required}, {"required": ["error", "code"]}]
    return schema
