"""What every tool shares, said once: the MCP server's instructions and the CLI's `pybridge tool` help
carry it (through `pybridge.query.CONVENTIONS`), so the tool descriptions do not repeat it, and
the arguments several tools share (`SHARED_ARGUMENTS`) are described here, not in each tool's
input schema (`pybridge.mcp.schemas` leaves out a description that is `argument_doc(name)`).

A leaf module (no imports): `pybridge serve` answers `initialize`, whose instructions hold this text,
before Python has imported the query layer (`pybridge.mcp.handshake`).
"""

SHARED_ARGUMENTS = {
    "repo": "a workspace's slug (as status lists it) or its root path; optional when one workspace is served "
            "(get_callers without it: every served workspace)",
    "symbolKey": "a key from find_symbol or symbol_at",
    "symbol": "a name (see Names) or a SCIP symbol",
    "path": "a source file (a path as said above)",
    "module": "only this module (its id, or its last part)",
    "scope": "only `main` or `test` sources (test: all but main)",
    "cursor": "the previous page's `nextCursor`",
}
"""The arguments of the same name and meaning in several tools, described once (in CONVENTIONS)."""


def argument_doc(name: str) -> str:
    """A shared argument's description as its argument models carry it (a sentence)."""
    text = SHARED_ARGUMENTS[name]
    return text[0].upper() + text[1:] + "."


CONVENTIONS = (
    "Positions: a `range` or `position` object is 0-based (LSP: line, character in UTF-16 code "
    "units, end exclusive); every flat `line` or `column` field is 1-based, as an editor shows it "
    "(the column in code points). Paths are relative to the workspace root (in arguments, absolute "
    "paths inside it work too).\n"
    "Arguments several tools share: "
    + "; ".join(f"`{name}`: {text}" for name, text in SHARED_ARGUMENTS.items()) + ".\n"
    "Names (the name tools, find_symbol): exact and case-sensitive, among types, methods, "
    "constructors, fields, enum constants and record components: `greet`, `Greeter.greet`, "
    "`com.acme.Greeter.greet`, one overload `greet(String)`, a path form "
    "`src/main/java/com/acme/Greeter.java#greet`, or a SCIP symbol; several matches are "
    "`ambiguous`. Parameters and locals are reached with symbol_at.\n"
    "Every answer carries the freshness envelope: `commit` (git HEAD at the sync, or null), "
    "`generated_at`, `stale` and `freshness` (`fresh` or `stale`: files changed since the sync, "
    "the first of them in `changed`), `checked_at`.\n"
    "Name tools answer in their seed documents' shapes: `symbol` is the name asked, "
    "`resolvedSymbol` the SCIP symbol it resolved to (only when the name was not that), "
    "`symbolInfo` the symbol with its symbolKey; callHierarchy calls are {symbol: {symbol, "
    "displayName, kind}, location: {path, range}}; get_callers rows name the workspace root in "
    "`repo`. find_references rows are compact: `container` indexes `containers`, and `module` and "
    "`scope` are said once in `shared` (a row that differs has its own).\n"
    "Every list is bounded: paged with `nextCursor` (keep the other arguments unchanged; a "
    "find_references page holds `limit` references, default 100) or cut with `total` and "
    "`truncated` (given no limit, also at about 32 KB).\n"
    "Errors: an error result carries `error` (what to do) and `code`: `not_synced` -> call sync; "
    "`indexing` -> the first sync runs (`filesDone` of `filesTotal`, `etaSeconds`): ask again soon; "
    "`stale_key` -> use `replacement` or repeat discovery; `stale_base` -> the files in `changed` differ "
    "from your `base` digests: read them again; `rename_refused` -> `reason` (invalid_name, collision, "
    "capture, library_member, generated_member) and `places` say why: pick another name; "
    "`stale_snapshot` -> files in `changed` "
    "changed since the last sync: call sync, then repeat; `ambiguous` -> pick one of `candidates` "
    "(`candidateTotal` in all) and ask again with its `display` or `symbol`; `not_found` -> check "
    "the spelling or search with find_symbol; `invalid_cursor`/`stale_cursor` -> restart without a "
    "cursor; `invalid_key` -> get a key from find_symbol or symbol_at; `invalid_argument` -> fix "
    "`field`; `unknown_repo` -> use one of `served`."
)
"""What every tool shares: said once (MCP server instructions, CLI help)."""
