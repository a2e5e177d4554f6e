"""Input and output JSON schemas of the MCP tools, derived from the tool registry.

Inputs are the tools' argument models (`pybridge.query.TOOLS[name].args`: their
field descriptions are the parameter docs), inlined (no `$ref`: hosts hand
input schemas to models, and some of them do not resolve references).

Outputs are the tools' result models (`TOOLS[name].result`), the types the
handlers return, so the schema is what the answers are. Error results must
validate too: TypeScript SDK hosts check `structuredContent` against the
`outputSchema` even when `isError` is true, and refuse the whole result when it
does not match (the agent then sees "Structured content does not match the
tool's output schema" instead of the error). So every output schema:

- declares `error` and `code` (strings), and admits fields it does not
  declare at its top level (the error object's `candidates`, `candidateTotal`, `replacement`, `changed`,
  `hint`, `served`, `field`, `cause`; the server instructions describe them
  once, for every tool);
- requires, through `anyOf`, either the fields every answer of the tool has
  (the result model's required fields, but the freshness envelope's) or
  `error` and `code`.

The answer's fields are named, not typed, and its optional fields
(`nextCursor`, `hint`, `resolvedSymbol`, ...) and the envelope
(`results.ENVELOPE_FIELDS`, described once in the instructions) are left to
the open top level. Full nested schemas of nine tools made `tools/list` 20 KB
without a single description (the budget is 16 KB for everything), and
clients validate every row of every answer against them; with fifteen tools,
even each top-level field's JSON type, the envelope repeated in every schema
and the optional fields took 5 KB of the 16. Hosts hand the model a tool's
description and input schema, not its output schema, which clients use to
check answers (the answers are the result models, checked by pydantic when
the handler builds them): so the output schemas are what was cut.
"""

from __future__ import annotations

from typing import Any

from pybridge.query import TOOLS
from pybridge.query.results import ENVELOPE_FIELDS

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


def _not_null(node: Any) -> Any:
    """An optional argument written as its type alone: null means "not given", and leaving the
    argument out says the same."""
    if isinstance(node, dict):
        alts = node.get("anyOf")
        if isinstance(alts, list) and len(alts) == 2 and {"type": "null"} in alts:
            [kept] = [a for a in alts if a != {"type": "null"}]
            node = {**{k: v for k, v in node.items() if k not in ("anyOf", "default")}, **kept}
        return {k: _not_null(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_not_null(v) for v in node]
    return node


def input_schema(name: str) -> dict[str, Any]:
    """The argument model's schema (its docstring left out: the tool's description says it)."""
    schema: dict[str, Any] = _not_null(_untitled(_inline(TOOLS[name].args.model_json_schema())))
    schema.pop("description", None)
    schema.setdefault("type", "object")
    return schema


def output_schema(name: str) -> dict[str, Any]:
    """The answer's required fields, or the error object (see above)."""
    full = TOOLS[name].result.model_json_schema(by_alias=True, mode="serialization")
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"error": {"type": "string"}, "code": {"type": "string"}},
    }
    required = [k for k in full.get("required", []) if k not in ENVELOPE_FIELDS]
    if required:      # with nothing required, the error object validates as it is
        schema["anyOf"] = [{"required": required}, {"required": ["error", "code"]}]
    return schema
