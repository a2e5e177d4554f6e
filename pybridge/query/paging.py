"""Opening keys and cursors against a workspace: the checks and their error codes.

- A key that does not decode, or whose MAC fails against every served
  workspace's secret (with the binding key of the symbol id it names), is
  `invalid_key`. A key names a declaration, not a generation: it answers
  while the current generation declares its symbol (or, for a library
  symbol or a member the language declares implicitly, an array's `length`
  or an enum's `values()`, still refers or relates to it). Otherwise it is `stale_key` with
  `replacement`: the key of the evident successor (the one symbol left with
  the same dotted path, e.g. after a signature change or with one overload
  left; else a renamed member: the one newer member of the same declaring
  type with the same kind and descriptor), or null.
- A cursor that does not decode or verify, or was issued for another tool
  or workspace, is `invalid_cursor`; one issued for other arguments is
  `invalid_cursor` too, saying so; one of another generation is `stale_cursor`.
"""

from __future__ import annotations

from typing import Any

from pybridge.store import DeclRow, Reader, SymbolInfo

from . import keys
from .errors import QueryError
from .library import implicit
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
    """A key answers in every generation that still declares its symbol (or, for a library symbol or
    a member the language declares implicitly, such as an array's `length`, still refers or relates
    to it); otherwise `stale_key` with the evident successor, if any."""
    if v.first_decls([info.id])[info.id] is not None or (
            (info.external or implicit(info)) and (v.r.referenced([info.id]) or v.r.relations(info.id))):
        return
    successor = _successor(v, info)
    replacement = v.key(successor.symbol_id, successor.key) if successor is not None else None
    what = (f"its evident successor {successor.dotted} ({successor.display}) is `replacement`; use it, or "
            f"repeat discovery") if successor is not None else "repeat discovery"
    raise QueryError(
        "stale_key",
        f"This symbolKey names {info.dotted or info.name or 'a symbol'}, which generation {v.gen.number} of "
        f"{v.ws.slug} no longer declares (it was removed, renamed or its signature changed): {what} "
        f"(find_symbol or symbol_at).",
        replacement=replacement, hint="repeat discovery with find_symbol or symbol_at",
    )


def _successor(v: View, info: SymbolInfo) -> DeclRow | None:
    """The evident successor of a declaration gone from the current generation: the one
    symbol left with the same dotted path (a signature change, the one overload left); else,
    in the same declaring type, the one member of the same kind and descriptor that is newer
    than the old symbol (symbol ids only grow: a rename) and that no stored file version
    declared beside it (a sibling written after it in the file is older than the rename)."""
    if info.kind is None:
        return None
    family = {"METHOD", "CONSTRUCTOR"} if info.kind in ("METHOD", "CONSTRUCTOR") else {info.kind}
    if info.dotted:
        same = {d.symbol_id: d for d in v.r.declarations(dotted=info.dotted, kinds=family)
                if d.dotted == info.dotted}
        if len(same) == 1:
            return next(iter(same.values()))
        newer = [d for d in same.values() if d.symbol_id > info.id]
        if len(newer) == 1:
            return newer[0]
        if same:
            return None
    owner, sep, member = info.key.partition(";.")
    if not sep or not info.name or not member.startswith(info.name) or info.kind == "CONSTRUCTOR":
        return None
    descriptor = member[len(info.name):]
    owners = v.r.declarations(key=owner + ";")
    if not owners:
        return None
    beside = v.r.declared_beside(info.id)     # members that lived beside it are not its successor
    found = {d.symbol_id: d for d in v.r.declarations_in(owners[0].path)
             if d.container_key == owner + ";" and d.kind in family and d.symbol_id > info.id
             and d.symbol_id not in beside and d.key.partition(";.")[2][len(d.name or ""):] == descriptor}
    return next(iter(found.values())) if len(found) == 1 else None


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


def cursor_offset(v: View, tool: str, args: dict[str, Any], token: str | None) -> int:
    """The list offset a cursor of an offset-paged tool carries (0 without a cursor)."""
    if token is None:
        return 0
    start = cursor_position(v, tool, args, token)
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        raise QueryError("invalid_cursor", "This cursor is garbled; repeat the query without a cursor.")
    return start
