"""`Facade`: the one entry point of the query layer; `call` never raises.

    facade = Facade(["samples/reactor"])
    result, is_error = facade.call("find_symbol", {"query": "Greeter.greet"})

`call` validates the arguments with the tool's model (`models.ARG_MODELS`),
runs the tool against the published generation, and returns the result
object, or an error object `{"error", "code", ...}` with `is_error` true.
Whatever the input (a non-object, wrong types, huge numbers, garbage text),
the answer is one of the two; an unexpected failure is reported as an error
object too (logged on `pybridge.query`), never raised.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pybridge.errors import PybridgeError

from . import tools_admin, tools_exact, tools_names, tools_structure
from .errors import QueryError, clean, invalid, show
from .models import ARG_MODELS
from .workspace import Workspaces

log = logging.getLogger("pybridge.query")

TOOL_NAMES = ("sync", "status", "find_symbol", "symbol_at", "find_references", "get_callers",
              "findReferences", "goToDefinition", "callHierarchy",
              *tools_structure.HANDLERS)

Progress = Callable[[float, "float | None", str], None]


def _validation_error(tool: str, exc: ValidationError) -> QueryError:
    err = exc.errors(include_url=False)[0]
    loc = [str(x) for x in err.get("loc", ()) if x != "__root__"]
    field = ".".join(loc) or None
    fields = ", ".join(ARG_MODELS[tool].model_fields)
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        message = f"{tool} has no argument {show(field)}; its arguments are: {fields}."
    elif kind == "missing":
        message = f"{tool} needs the argument {show(field)} ({fields} are its arguments)."
    elif kind == "model_type" or field is None:
        message = f"{tool} takes one JSON object of arguments ({fields})."
    else:
        text = err.get("msg", "is not valid").removeprefix("Value error, ")
        got = err.get("input")
        message = f"Argument {show(field)} of {tool}: {text} (got {show(got, 40)})."
    return invalid(message, field=field)


class Facade:
    """The query tools over the workspaces served (DESIGN section 7)."""

    def __init__(self, repos: list[str | Path], state_dirs: Mapping[str | Path, Path] | None = None,
                 *, allow_online: bool = True, heap: str | None = None, worker: Any = None,
                 wait: bool = True) -> None:
        """`repos`: the workspace roots served. `state_dirs` maps a root (as given or
        resolved) to its state folder (default `pybridge.sync.state_dir_for(root)`).
        `allow_online`, `heap` and `wait` (queue behind a running sync, or fail at once) go to
        `sync`; `worker` (a started
        `pybridge.worker.Worker`) is reused by every sync instead of one per sync."""
        self.spaces = Workspaces(repos, state_dirs)
        self.allow_online = allow_online
        self.heap = heap
        self.worker = worker
        self.wait = wait
        self._closed = False
        self._lock = threading.Lock()

    def call(self, tool: Any, args: Any, progress: Progress | None = None) -> tuple[dict, bool]:
        """Run one tool: `(result, False)` or `(error object, True)`. Never raises."""
        try:
            return self._call(tool, args, progress), False
        except QueryError as exc:
            return exc.to_json(), True
        except PybridgeError as exc:      # a store failure while reading, and the like
            code = "not_synced" if getattr(exc, "code", "") == "sync_failed" else "invalid_argument"
            return clean({"error": exc.message, "code": code}), True
        except RecursionError:
            return {"error": "The arguments are nested too deeply; pass a flat JSON object.",
                    "code": "invalid_argument"}, True
        except Exception as exc:  # noqa: BLE001 - the contract: no input raises through
            log.exception("tool %r failed", tool)
            return clean({"error": f"pybridge failed on this request ({type(exc).__name__}: {exc}). "
                                   f"This is a bug; check the arguments, retry, and report it.",
                          "code": "invalid_argument", "internal": True}), True

    def _call(self, tool: Any, args: Any, progress: Progress | None) -> dict:
        if self._closed:
            raise invalid("This query facade is closed; create a new one.")
        if not isinstance(tool, str) or tool not in ARG_MODELS:
            raise invalid(f"There is no tool named {show(tool)}; the tools are: "
                          f"{', '.join(TOOL_NAMES)}.", field="tool")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise invalid(f"{tool} takes one JSON object of arguments (got {type(args).__name__}); "
                          f"its arguments are: {', '.join(ARG_MODELS[tool].model_fields)}.")
        try:
            parsed = ARG_MODELS[tool].model_validate(args)
        except ValidationError as exc:
            raise _validation_error(tool, exc) from None
        if tool == "sync":
            return tools_admin.sync_tool(self.spaces, parsed, progress, allow_online=self.allow_online,
                                         heap=self.heap, worker=self.worker, wait=self.wait)
        return _HANDLERS[tool](self.spaces, parsed)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self.spaces.close()

    def __enter__(self) -> Facade:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_HANDLERS = {
    "status": tools_admin.status,
    "find_symbol": tools_exact.find_symbol,
    "symbol_at": tools_exact.symbol_at,
    "find_references": tools_exact.find_references,
    "get_callers": tools_names.get_callers,
    "findReferences": tools_names.find_references_by_name,
    "goToDefinition": tools_names.go_to_definition,
    "callHierarchy": tools_names.call_hierarchy,
    **tools_structure.HANDLERS,
}
