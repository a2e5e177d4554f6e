"""What each tool is for, written for an agent: when to call it, what to call
first, and what each error asks it to do. These become the MCP tool
descriptions and the CLI help."""

ERRORS = (
    "Errors come back as an error result with `error` (what to do) and `code`: "
    "`not_synced` -> call sync; `stale_key` -> use `replacement` or repeat discovery; "
    "`stale_snapshot` -> files changed since the last sync: call sync, then repeat; "
    "`ambiguous` -> pick one of `candidates` and ask again with its dottedPath or symbolKey; "
    "`not_found` -> check the spelling or search with find_symbol; "
    "`invalid_cursor`/`stale_cursor` -> restart paging without a cursor."
)

TOOLS = {
    "sync": (
        "Compile the Java workspace with the Eclipse compiler and publish a new generation of facts. "
        "Call it first (status says when it is needed), and again after the code changes. "
        "Reports progress while it runs; returns the generation number, counts, duration, per-module "
        "coverage and limitations. The previous generation keeps answering until this one is published."
    ),
    "status": (
        "What is indexed: generation, freshness (whether files changed since the last sync), modules, "
        "scopes, counts and limitations. Cheap; call it to decide whether to sync."
    ),
    "find_symbol": (
        "Find declarations by name (simple, qualified like Greeter.greet, or with parameter types like "
        "greet(String)); returns symbolKey, SCIP symbol, dotted path, kind, declaration location, module "
        "and scope. Use the symbolKey with find_references."
    ),
    "symbol_at": (
        "The symbol at a position in a file (0-based line, 0-based UTF-16 character, as in LSP): the "
        "declaration or reference under the cursor. The way to reach parameters and locals."
    ),
    "find_references": (
        "Every reference to a symbol, exact: path, range, kind (read, write, read_write, invocation, "
        "construction, method_reference, type_use), container and the source line, plus the compiler's "
        "overrides/extends/implements facts and coverage flags: referenceCoverage true means an empty "
        "or short list is proof that nothing else refers to the symbol. Takes the symbolKey from "
        "find_symbol or symbol_at; pages with limit (1-500, default 100) and nextCursor, keeping the "
        "other arguments unchanged."
    ),
    "get_callers": (
        "Who calls a method or constructor, by name: call sites with path, 1-based line and column, the "
        "calling function and a snippet. Searches every served workspace when repo is omitted; "
        "include_tests=false leaves test code out."
    ),
    "findReferences": (
        "Every occurrence of a named symbol, its definition included (LSP-style). For paging, exact "
        "kinds and coverage use find_references with a symbolKey."
    ),
    "goToDefinition": "Where a named symbol is defined: the declaration sites (path and range).",
    "callHierarchy": (
        "One level of the call hierarchy of a named method: incomingCalls (who calls it, with the call "
        "site) and outgoingCalls (what it calls, with the call site)."
    ),
}

from pybridge.query.structure_models import DESCRIPTIONS as _STRUCTURE  # noqa: E402

TOOLS.update(_STRUCTURE)


def describe(name: str) -> str:
    return f"{TOOLS[name]}\n\n{ERRORS}"
