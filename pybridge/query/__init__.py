"""The query layer: the one facade that the MCP server and the CLI call (DESIGN section 7).

    from pybridge.query import Facade, TOOLS
    facade = Facade(["samples/reactor"], state_dirs=None, allow_online=True, heap=None)
    result, is_error = facade.call("find_symbol", {"query": "Greeter.greet"})
    facade.close()

`call(tool, args, progress=None)` never raises. Errors are
`{"error": <what to do>, "code": <stable code>, ...}` (see `errors`).
Every tool is declared once in the registry (`registry`: name, argument
model, result model, handler, description, annotations); `TOOLS` maps names
to those declarations, in the order they are listed. Answers are read from
the published generation without a JVM; every successful answer carries the
freshness envelope (`freshness`).

Modules, one responsibility each:

- `facade`      dispatch, validation, the never-raise guard (and `find_root`, the workspace
  root above a folder, from the workspace layer: what `serve` serves without `--repo`)
- `registry`    the tool declarations (what all tools share, CONVENTIONS, is the leaf `pybridge.conventions`)
- `models`      the tools' argument models (pydantic), limits and defaults
- `results`     the tools' result models (pydantic): the output schemas
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
- `tools_structure` type_hierarchy, find_implementations, call_graph, outline, diagnostics,
  describe (`structure_models`: their argument and result models; `structure_source`:
  declaration headers read from the source)
- `tools_rename` rename (`rename_models`: its argument and result models; the work is
  `pybridge.edits.rename`, `rename_check`, `rename_verify`, `rename_apply`)

Choices where DESIGN is silent are documented in the module they concern.
"""

from pybridge.conventions import CONVENTIONS
from pybridge.workspace.root import find_root

from .errors import CODES, QueryError
from .facade import TOOL_NAMES, TOOLS, Facade
from .registry import BUILD_TOOL_HELP, BUILD_TOOLS, Tool

__all__ = ["BUILD_TOOLS", "BUILD_TOOL_HELP", "CODES", "CONVENTIONS", "Facade", "QueryError", "TOOLS", "TOOL_NAMES",
           "Tool", "find_root"]
