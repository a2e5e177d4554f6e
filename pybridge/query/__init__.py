"""The query layer: the one facade that the MCP server and the CLI call (DESIGN section 7).

    from pybridge.query import Facade, TOOL_NAMES
    facade = Facade(["samples/reactor"], state_dirs=None, allow_online=True, heap=None)
    result, is_error = facade.call("find_symbol", {"query": "Greeter.greet"})
    facade.close()

`call(tool, args, progress=None)` never raises. Errors are
`{"error": <what to do>, "code": <stable code>, ...}` (see `errors`).
Argument models for every tool, with their defaults and limits, are
`models.ARG_MODELS`. Answers are read from the published generation without
a JVM; every successful answer carries the freshness envelope (`freshness`).

Modules, one responsibility each:

- `facade`      dispatch, validation, the never-raise guard
- `models`      the tools' argument models (pydantic), limits and defaults
- `errors`      QueryError and the error codes
- `workspace`   served workspaces, `repo` resolution, stores, secrets, coordinates
- `keys`        symbol keys and cursors (authenticated tokens) and the secret
- `paging`      opening keys and cursors: invalid_key, stale_key, invalid/stale_cursor
- `freshness`   the cached stat check and the envelope; stale_snapshot
- `source`      paths, LSP positions (checked in one place), source lines
- `view`        one call's pinned reader and the JSON shapes (symbol, summary, reference)
- `resolve`     names to symbols for the name tools and find_symbol
- `coverage`    referenceCoverage, callerCoverage, coverageBlockers
- `tools_admin` sync, status
- `tools_exact` find_symbol, symbol_at, find_references
- `tools_names` findReferences, goToDefinition, callHierarchy, get_callers

Choices where DESIGN is silent are documented in the module they concern.
"""

from .errors import CODES, QueryError
from .facade import TOOL_NAMES, Facade
from .models import ARG_MODELS

__all__ = ["ARG_MODELS", "CODES", "Facade", "QueryError", "TOOL_NAMES"]
