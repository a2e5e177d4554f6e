"""`Facade`: the one entry point of the query layer; `call` never raises.

    facade = Facade(["samples/reactor"])
    result, is_error = facade.call("find_symbol", {"query": "Greeter.greet"})

`call` looks the tool up in the registry (`registry.tools()`), validates the
arguments with its argument model, runs its handler against the published
generation, and returns the handler's result model serialized to JSON, or an
error object `{"error", "code", ...}` with `is_error` true.
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

from . import registry
from .errors import QueryError, clean, invalid, show
from .freshness import LiveHook, WouldWait, answer_fresh
from .registry import Call, Tool
from .workspace import Workspaces

log = logging.getLogger("pybridge.query")

TOOLS = registry.tools()
TOOL_NAMES = tuple(TOOLS)

Progress = Callable[[float, "float | None", str], None]


def _validation_error(t: Tool, exc: ValidationError) -> QueryError:
    tool = t.name
    err = exc.errors(include_url=False)[0]
    loc = [str(x) for x in err.get("loc", ()) if x != "__root__"]
    field = ".".join(loc) or None
    fields = ", ".join(t.args.model_fields)
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
                 wait: bool = True, build_tool: str = "auto") -> None:
        """`repos`: the workspace roots served. `state_dirs` maps a root (as given or
        resolved) to its state folder (default `pybridge.sync.state_dir_for(root)`).
        `allow_online`, `heap` and `wait` (queue behind a running sync, or fail at once) go to
        `sync`, as does `build_tool` (`--build-tool`: auto, maven, gradle; in auto, a workspace
        keeps the build tool its current generation was read with); `worker` (a started
        `pybridge.worker.Worker`) is reused by every sync instead of one per sync."""
        self.spaces = Workspaces(repos, state_dirs)
        self.allow_online = allow_online
        self.heap = heap
        self.worker = worker
        self.wait = wait
        self.build_tool = build_tool
        self._closed = False
        self._lock = threading.Lock()

    def call(self, tool: Any, args: Any, progress: Progress | None = None) -> tuple[dict[str, Any], bool]:
        """Run one tool: `(result, False)` or `(error object, True)`. Never raises."""
        answer = self._answer(tool, args, progress, patient=True)
        assert answer is not None
        return answer

    def try_call(self, tool: Any, args: Any) -> tuple[dict[str, Any], bool] | None:
        """Run one tool if it can answer without blocking: as `call`, or None for a tool that reports
        progress (`sync`) or an exact tool that would wait for the live index's catch-up. A server
        runs this on its event loop (no thread hop for the millisecond answers) and hands the None
        cases to a thread, which calls `call`."""
        t = TOOLS.get(tool) if isinstance(tool, str) else None
        if t is not None and t.progress:
            return None
        return self._answer(tool, args, None, patient=False)

    def _answer(self, tool: Any, args: Any, progress: Progress | None,
                patient: bool) -> tuple[dict[str, Any], bool] | None:
        try:
            return self._call(tool, args, progress, patient), False
        except WouldWait:
            return None
        except QueryError as exc:
            return exc.to_json(), True
        except PybridgeError as exc:      # a store failure while reading, and the like
            code = "not_synced" if getattr(exc, "code", "") == "sync_failed" else "invalid_argument"
            return clean({"error": exc.message, "code": code}), True
        except RecursionError:
            return {"error": "The arguments are nested too deeply; pass a flat JSON object.",
                    "code": "invalid_argument"}, True
        except Exception as exc:  # the contract: no input raises through
            log.exception("tool %r failed", tool)
            return clean({"error": f"pybridge failed on this request ({type(exc).__name__}: {exc}). "
                                   f"This is a bug; check the arguments, retry, and report it.",
                          "code": "invalid_argument", "internal": True}), True

    def _call(self, tool: Any, args: Any, progress: Progress | None, patient: bool = True) -> dict[str, Any]:
        if self._closed:
            raise invalid("This query facade is closed; create a new one.")
        t = TOOLS.get(tool) if isinstance(tool, str) else None
        if t is None:
            raise invalid(f"There is no tool named {show(tool)}; the tools are: "
                          f"{', '.join(TOOL_NAMES)}.", field="tool")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise invalid(f"{tool} takes one JSON object of arguments (got {type(args).__name__}); "
                          f"its arguments are: {', '.join(t.args.model_fields)}.")
        try:
            parsed = t.args.model_validate(args)
        except ValidationError as exc:
            raise _validation_error(t, exc) from None
        call = Call(self.spaces, progress if t.progress else None, allow_online=self.allow_online,
                    heap=self.heap, worker=self.worker, wait=self.wait, build_tool=self.build_tool)
        if t.name == "sync":
            return t.handler(call, parsed).to_json()
        return answer_fresh(lambda: t.handler(call, parsed).to_json(), patient=patient)

    def attach_live(self, live: LiveHook, worker: Any = None) -> None:
        """Let a live index (`pybridge.live`) keep the served workspaces fresh: exact tools wait for
        its catch-ups, `status` shows its fields; `worker` (its warm worker) serves every sync."""
        for ws in self.spaces.served:
            ws.freshness.live = live
        if worker is not None:
            self.worker = worker

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self.spaces.close()

    def __enter__(self) -> Facade:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

