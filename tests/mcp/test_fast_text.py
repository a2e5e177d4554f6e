"""The stdio fast path serializes a find_references answer once (PYBRIDGE_TEXT_FROM_STRUCTURED): its
text content is its structured content's JSON, byte for byte what `result_text` (json.dumps) writes."""

from __future__ import annotations

import json

from pybridge.mcp import transport
from pybridge.mcp.server import result_text
from pybridge.query import TOOLS


def tricky_answer() -> dict:
    every_char = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c <= 0xDFFF)
    return {"symbol": {"symbolKey": "k\"\\/", "name": every_char, "external": True, "generated": False,
                       "declaration": None},
            "references": [{"path": "a/\U0001F600\u2028\u2029.java",
                            "range": {"start": {"line": 0, "character": 2**62}},
                            "context": "\x00\x1f\x7f\t\n\r\b\f", "container": -1}] * 3,
            "meta": {"total": 0, "empty": [], "nested": [[[]], {}], "limitations": [{"kind": "é", "module": None}]}}


def test_the_text_taken_from_the_structured_content_is_json_dumps_byte_for_byte(monkeypatch):
    answer = tricky_answer()
    made: list[dict] = []

    def counted(result: dict, is_error: bool) -> str:
        made.append(result)
        return result_text(result, is_error)

    monkeypatch.setattr(transport, "result_text", counted)
    once = transport.call_result_line(7, answer, False, tool="find_references")
    assert made == []                                 # json.dumps never ran: one serialization
    monkeypatch.setenv("PYBRIDGE_TEXT_FROM_STRUCTURED", "0")
    twice = transport.call_result_line(7, answer, False, tool="find_references")
    assert made == [answer]
    assert once == twice and once is not None
    text = json.loads(once)["result"]["content"][0]["text"]
    assert text == json.dumps(answer, ensure_ascii=False, separators=(",", ":"))


def test_errors_and_other_tools_keep_json_dumps_and_a_lone_surrogate_goes_to_the_sdk(monkeypatch):
    made: list[dict] = []
    monkeypatch.setattr(transport, "result_text", lambda result, is_error: made.append(result) or "{}")
    transport.call_result_line(1, {"error": "x", "code": "not_found"}, True, tool="find_references")
    transport.call_result_line(2, {"durationSeconds": 1e-07}, False, tool="sync")
    assert len(made) == 2
    assert transport.call_result_line(3, {"path": "\udc80"}, False, tool="find_references") is None


def test_the_floatless_tools_results_hold_no_number_and_no_untyped_value():
    """FLOATLESS_TOOLS: their result models' JSON schemas name no `number` (a float would be written
    `1e-7` by pydantic_core, `1e-07` by json.dumps) and no value of any type."""
    for name in transport.FLOATLESS_TOOLS:
        schema = TOOLS[name].result.model_json_schema()

        def walk(node: object, where: str) -> None:
            if isinstance(node, dict):
                assert node.get("type") != "number" and not (isinstance(node.get("type"), list)
                                                              and "number" in node["type"]), where
                if "properties" in node or "items" in node or "additionalProperties" in node:
                    assert node.get("additionalProperties", False) is not True, where
                for k, v in node.items():
                    walk(v, f"{where}.{k}")
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, f"{where}[{i}]")
        walk(schema, name)
