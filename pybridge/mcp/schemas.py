"""Input and output JSON schemas of the MCP tools.

Inputs come from the query layer's pydantic argument models
(`pybridge.query.models.ARG_MODELS`: their field descriptions are the
parameter docs). Outputs are the pydantic models in `pybridge.mcp.outputs`,
which describe successful results (an error result carries `error` and
`code` instead, and clients validate only successful results).
"""

from __future__ import annotations

from typing import Any


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline `$defs` references: some MCP clients do not resolve `$ref`."""
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

    return walk(schema)


def input_schema(name: str) -> dict[str, Any]:
    from pybridge.query.models import ARG_MODELS

    schema = _inline(ARG_MODELS[name].model_json_schema())
    schema.setdefault("type", "object")
    return schema


def output_schema(name: str) -> dict[str, Any]:
    from pybridge.mcp.outputs import OUTPUT_MODELS

    schema = _inline(OUTPUT_MODELS[name].model_json_schema())
    schema.setdefault("type", "object")
    return schema
