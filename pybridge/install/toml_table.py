"""Writing one table into a TOML file without touching the rest of it.

The standard library reads TOML (`tomllib`) but does not write it, and a rewrite of the
whole document from parsed data would drop the user's comments and layout. So the table is
written as text: `render_table` spells `[a.b]` with its scalar, array and sub-table values;
`replace_table` removes the sections of an existing document whose header is that table or
one of its sub-tables, and appends the new text. Every result is parsed again with tomllib
and compared with what was meant: the other tables exactly as before, this one exactly as
given. A document where that cannot be had (the table also defined inline or with dotted
keys elsewhere, a header-like line inside a multi-line array) raises `TomlMergeError`
instead of writing something else.

Values: strings, booleans, integers, floats, lists of those, and nested mappings (each a
sub-table, written after the table's own keys).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_HEADER = re.compile(r"^\s*\[(?!\[)(.+?)\]\s*(#.*)?$")


class TomlMergeError(ValueError):
    """The table cannot be written into the document as text; the message says why."""


def key(part: str) -> str:
    return part if _BARE.match(part) else string(part)


def string(value: str) -> str:
    out = []
    for ch in value:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise TypeError(f"TOML has no spelling here for {v!r}")
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, Sequence):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"no TOML value for {type(v).__name__}")


def render_table(path: Sequence[str], data: Mapping[str, Any]) -> str:
    """`[path]` with the scalar and array values of `data`, then a `[path.sub]` for each mapping."""
    lines = ["[" + ".".join(key(p) for p in path) + "]"]
    subs = []
    for k, v in data.items():
        if isinstance(v, Mapping):
            subs.append((k, v))
        else:
            lines.append(f"{key(k)} = {value(v)}")
    text = "\n".join(lines) + "\n"
    for k, v in subs:
        text += "\n" + render_table([*path, k], v)
    return text


def _header_parts(inner: str) -> list[str] | None:
    """The dotted key of a table header's inside, or None when it cannot be read."""
    try:
        parsed = tomllib.loads(f"[{inner}]\n")
    except tomllib.TOMLDecodeError:
        return None
    parts = []
    node: Any = parsed
    while isinstance(node, dict) and len(node) == 1:
        [(name, node)] = node.items()
        parts.append(name)
    return parts


def _get(data: Mapping[str, Any], path: Sequence[str]) -> Any:
    node: Any = data
    for p in path:
        if not isinstance(node, Mapping) or p not in node:
            return None
        node = node[p]
    return node


def _without(data: Mapping[str, Any], path: Sequence[str]) -> dict[str, Any]:
    """A copy of `data` without the table at `path` (and without parents it leaves empty)."""
    out = dict(data)
    if len(path) == 1:
        out.pop(path[0], None)
        return out
    child = out.get(path[0])
    if isinstance(child, Mapping):
        rest = _without(child, path[1:])
        if rest:
            out[path[0]] = rest
        else:
            out.pop(path[0])
    return out


def replace_table(document: str, path: Sequence[str], data: Mapping[str, Any]) -> str:
    """`document` with the table at `path` (and its sub-tables) replaced by `data`, appended at
    the end; everything else kept as it was, comments included. Raises TomlMergeError (see the
    module doc) or tomllib.TOMLDecodeError for a document that is no TOML."""
    before = tomllib.loads(document)
    kept: list[str] = []
    dropping = False
    for line in document.splitlines(keepends=True):
        m = _HEADER.match(line)
        if m:
            parts = _header_parts(m.group(1))
            dropping = parts is not None and parts[:len(path)] == list(path)
        if not dropping:
            kept.append(line)
    text = "".join(kept).rstrip("\n")
    text = (text + "\n\n" if text else "") + render_table(path, data)
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlMergeError(f"the file would no longer be TOML after replacing [{'.'.join(path)}] ({exc})") from None
    if _without(after, path) != _without(before, path):
        raise TomlMergeError(f"[{'.'.join(path)}] is also defined in a way this writer does not replace "
                             "(inline, or with dotted keys)")
    if _get(after, path) != _plain(data):
        raise TomlMergeError(f"[{'.'.join(path)}] did not read back as written")
    return text


def _plain(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_plain(v) for v in data]
    return data
