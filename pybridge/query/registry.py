"""The one tool registry: each tool is declared once, beside its handler.

    @tool("find_symbol", args=FindSymbolArgs, result=FindSymbolResult,
          description="Find declarations by name ...")
    def find_symbol(call: Call, a: FindSymbolArgs) -> FindSymbolResult: ...

A declaration names the tool, its argument model (`models`), its result model
(`results`), its handler, its description (written for an agent) and its
annotations (`read_only`, `progress`). Everything else is derived from it:
the facade's dispatch and validation, the MCP tool list (input and output
schemas, descriptions, read-only hints), and the CLI's `pybridge tool` help.

Tools live in families, one module per family (`tools_admin`, `tools_exact`,
`tools_names`, ...), listed in FAMILIES in the order the tools are listed.
Adding a tool: declare it in its family's module (a new family: a new
`tools_<family>.py` and its name in FAMILIES); argument and result models go
beside it or in `models`/`results`.

What every tool shares (positions, errors, the seed shapes, bounds) is said once, in
CONVENTIONS (kept in the leaf module `pybridge.conventions`): the MCP server's instructions and
the CLI help carry it, so the tool descriptions do not repeat it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pybridge.workspace.registry import AUTO, BUILD_SYSTEMS
from pybridge.workspace.registry import names as build_tool_names

from .models import ToolArgs
from .results import Result

BUILD_TOOLS = build_tool_names()
"""What `--build-tool` takes: auto, then each build system's name (the CLI's choices)."""
BUILD_TOOL_HELP = ("Which build system reads the workspace. auto: "
                   + ", else ".join(f"{s.wording.tool} when the root has {s.wording.root_files}" for s in BUILD_SYSTEMS)
                   + " (a workspace keeps the one its last sync used).")

FAMILIES = ("tools_admin", "tools_exact", "tools_names", "tools_structure", "tools_edits", "tools_rename")

Progress = Callable[[float, "float | None", str], None]


@dataclass
class Call:
    """What a handler gets besides its arguments: the served workspaces and the facade's options."""

    spaces: Any                        # workspace.Workspaces
    progress: Progress | None = None
    allow_online: bool = True
    heap: str | None = None
    worker: Any = None
    wait: bool = True
    build_tool: str = AUTO             # `--build-tool`: auto, or a build system's name


@dataclass(frozen=True)
class Tool:
    name: str
    args: type[ToolArgs]
    result: type[Result]
    handler: Callable[[Call, Any], Result]
    description: str
    read_only: bool = True
    progress: bool = False            # reports progress while it runs (MCP progress notifications)

    @property
    def summary(self) -> str:
        """The description's first sentence up to its first colon or semicolon (CLI listings)."""
        first = self.description.split(". ", 1)[0]
        for mark in (": ", "; ", " ("):
            first = first.split(mark, 1)[0]
        return first.rstrip(".") + "."


_TOOLS: dict[str, Tool] = {}


Handler = Callable[[Call, Any], Result]


def tool(name: str, *, args: type[ToolArgs], result: type[Result], description: str,
         read_only: bool = True, progress: bool = False) -> Callable[[Handler], Handler]:
    """Declare a tool; decorates its handler `(call: Call, args) -> result`."""

    def register(handler: Handler) -> Handler:
        if name in _TOOLS and _TOOLS[name].handler is not handler:
            raise ValueError(f"tool {name!r} is declared twice")
        _TOOLS[name] = Tool(name, args, result, handler, " ".join(description.split()),
                            read_only, progress)
        return handler

    return register


def tools() -> dict[str, Tool]:
    """Every tool, in FAMILIES order, then in declaration order (the families are imported on
    first use)."""
    for family in FAMILIES:
        importlib.import_module(f"{__package__}.{family}")
    order = {f"{__package__}.{family}": i for i, family in enumerate(FAMILIES)}
    ranked = sorted(_TOOLS.values(), key=lambda t: order.get(t.handler.__module__, len(order)))
    return {t.name: t for t in ranked}


def names() -> tuple[str, ...]:
    return tuple(tools())
