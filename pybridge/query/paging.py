"""Opening keys and cursors against a workspace: the checks and their error codes.

- A key that does not decode, or whose MAC fails against every served
  workspace's secret (with the binding key of the symbol id it names), is
  `invalid_key`. A key of another generation is `stale_key` with
  `replacement`: the key of the same symbol in the current generation when
  it still declares it (or, for a library symbol, still refers to it), else
  null.
- A cursor that does not decode or verify, or was issued for another tool
  or workspace, is `invalid_cursor`; one issued for other arguments is
  `invalid_cursor` too, saying so; one of another generation is `stale_cursor`.
"""

from __future__ import annotations

from typing import Any

from pybridge.store import Reader, SymbolInfo

from . import keys
from .errors import QueryError
from .view import View
from .workspace import Served, Workspaces


def _invalid_key() -> QueryError:
    return QueryError("invalid_key", "This symbolKey is not one this server issued (it is garbled, "
                      "truncated, or from a workspace that is not served); get a fresh key with "
                      "find_symbol or symbol_at.")


def open_key(spaces: Workspaces, token: str) -> tuple[Served, Reader, keys.ParsedKey, SymbolInfo]:
    """The workspace, a reader on its current generation, the parsed key and its symbol.
    The caller closes the reader."""
    try:
        parsed = keys.parse_key(token)
    except keys.TokenError:
        raise _invalid_key() from None
    for ws in spaces.by_tag(parsed.tag):
        reader = ws.reader()
        try:
            info = reader.symbol(parsed.symbol_id) if parsed.symbol_id < 2**63 else None
            if info is not None and parsed.verify(ws.secret(), info.key):
                return ws, reader, parsed, info
        except BaseException:
            reader.close()
            raise
        reader.close()
    raise _invalid_key()


def check_generation(v: View, parsed: keys.ParsedKey, info: SymbolInfo) -> None:
    """stale_key when the key names another generation than the current one."""
    if parsed.generation == v.gen.number:
        return
    present = v.first_decls([info.id])[info.id] is not None or bool(
        v.r.references(info.id, limit=1))
    replacement = v.key(info.id, info.key) if present else None
    what = (f"`replacement` is the key of the same symbol in generation {v.gen.number}; use it, "
            f"or repeat discovery") if present else \
        f"the symbol no longer exists in generation {v.gen.number}; repeat discovery"
    raise QueryError(
        "stale_key",
        f"This symbolKey is from generation {parsed.generation} of {v.ws.slug}, which is now at "
        f"generation {v.gen.number}: {what} (find_symbol or symbol_at).",
        replacement=replacement, hint="repeat discovery with find_symbol or symbol_at",
    )


def new_cursor(v: View, tool: str, args: dict[str, Any], position: Any) -> str:
    return keys.make_cursor(v.ws.secret(), tool, v.gen.number, keys.args_hash(tool, args), position)


def cursor_position(v: View, tool: str, args: dict[str, Any], token: str) -> Any:
    """The position a cursor carries, after every check."""
    try:
        parsed = keys.parse_cursor(token)
    except keys.TokenError:
        parsed = None
    if (parsed is None or parsed.tag != v.ws.tag() or not parsed.verify(v.ws.secret())
            or parsed.tool != keys.TOOL_CODES[tool]):
        raise QueryError("invalid_cursor", f"This cursor is not one {tool} issued for {v.ws.slug} "
                         f"(it is garbled or truncated); repeat the query without a cursor to start "
                         f"over.")
    if parsed.args != keys.args_hash(tool, args):
        raise QueryError("invalid_cursor", f"This cursor was issued for other arguments of {tool}; "
                         f"keep every argument unchanged while paging, or drop the cursor to start "
                         f"over.")
    if parsed.generation != v.gen.number:
        raise QueryError("stale_cursor", f"This cursor belongs to generation {parsed.generation}, and "
                         f"{v.ws.slug} is now at generation {v.gen.number}; repeat the query without "
                         f"a cursor (and rediscover keys) to page the current generation.")
    return parsed.position
