"""Short commands for people over the structure tools: `hierarchy`, `impls`, `graph`,
`outline`, `diagnostics`, `describe`.

Each prints readable text, or the tool's exact JSON with `--json`; an error
prints as text on stderr (with `--json`, as JSON), exit status 1, like the
other short commands. TARGET is a symbolKey or a name as `find_symbol` takes
it (`Greeter`, `Greeter.greet`, `greet(String)`, `java.util.List` for a
library type the code uses); a name matching several declarations prints the
candidates.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from pybridge.cli import main
from pybridge.cli.commands_tools import _facade
from pybridge.cli.commands_tools import repo_option as _repo_option
from pybridge.cli.options import state_dir_option as _state_dir_option
from pybridge.cli.render import error as _error_text

Decorator = Callable[[Any], Any]
repo_option: Decorator = _repo_option
state_dir_option: Decorator = _state_dir_option

_KEY = re.compile(r"^[A-Za-z0-9_-]{16,}$")


def _at(node: dict[str, Any]) -> str:
    if node.get("external"):
        return node.get("symbol") or ""
    return f"{node.get('path')}:{node.get('line')}"


def _name(node: dict[str, Any]) -> str:
    dotted = node.get("dottedPath") or node.get("display") or "?"
    if node.get("kind") in ("METHOD", "CONSTRUCTOR") and "(" in (node.get("display") or ""):
        dotted = dotted.rsplit(".", 1)[0] + "." + node["display"]
    return dotted


def _tree(items: list[dict[str, Any]], depth: int, out: list[str]) -> None:
    for item in items:
        marks = "".join([" (shown above)" if item.get("seen") else "",
                         f" [{item['beyond']}: not followed]" if item.get("beyond") else ""])
        out.append(f"{'  ' * depth}{item.get('relation', '')} {item.get('kind')} {_name(item)}  "
                   f"{_at(item)}{marks}")
        _tree(item.get("children", []), depth + 1, out)


def render_hierarchy(r: dict[str, Any]) -> str:
    out = [f"{r['root']['kind']} {_name(r['root'])}  {_at(r['root'])}"]
    for side in ("supertypes", "subtypes"):
        if side in r:
            out.append(f"{side}:" + ("" if r[side] else " (none)"))
            _tree(r[side], 1, out)
    cov = r.get("subtypeCoverage")
    if cov is not None and not cov["complete"]:
        out.append(f"subtypes may be incomplete: {cov['blockers']} problem(s) could hide one")
    if r.get("truncated"):
        out.append("(cut at --limit)")
    return "\n".join(out)


def render_impls(r: dict[str, Any]) -> str:
    out = [f"{r['root']['kind']} {_name(r['root'])}: {r['total']} implementation(s)"]
    for item in r["implementations"]:
        out.append(f"  {'direct  ' if item['direct'] else 'indirect'} {item['kind']} {_name(item)}  {_at(item)}")
    for item in r.get("overrides") or []:
        out.append(f"  overrides {_name(item)}  {_at(item)}")
    if r.get("truncated"):
        out.append(f"  ... {r['total'] - len(r['implementations'])} more (--limit)")
    if not r["coverage"]["complete"]:
        out.append(f"may be incomplete: {r['coverage']['blockers']} problem(s) could hide one")
    return "\n".join(out)


def render_graph(r: dict[str, Any]) -> str:
    nodes = {n["id"]: n for n in r["nodes"]}
    arrow = "<-" if r["direction"] == "in" else "->"
    out = [f"{_name(nodes[r['root']])} ({'callers' if r['direction'] == 'in' else 'callees'})"]
    for e in r["edges"]:
        a, b = (e["to"], e["from"]) if r["direction"] == "in" else (e["from"], e["to"])
        through = f" through {_name(nodes[e['through']])}" if "through" in e else ""
        cycle = " (cycle)" if e.get("cycle") else ""
        out.append(f"  {'  ' * (nodes[b]['depth'] - 1)}{_name(nodes[a])} {arrow} {_name(nodes[b])}  "
                   f"{e['path']}:{e['line']}:{e['column']} {e['kind']}{through}{cycle}")
    if r.get("affectedTests") is not None:
        out.append(f"affected tests ({len(r['affectedTests'])}):")
        out.extend(f"  {_name(nodes[i])}  {_at(nodes[i])}" for i in r["affectedTests"])
    if r.get("callerCoverage") is False:
        out.append(f"callers may be incomplete: {r.get('coverageBlockers')} problem(s) could hide one")
    if r.get("truncated"):
        out.append("(cut at --limit)")
    return "\n".join(out)


def render_outline(r: dict[str, Any]) -> str:
    out = [f"{r['path']} ({r['module']}, {r['scope']}"
           f"{'' if r['bindingComplete'] else ', not binding-complete'})"]

    def walk(items: list[dict[str, Any]], depth: int) -> None:
        for item in items:
            out.append(f"{item['line']:>5}  {'  ' * depth}{item['kind']} "
                       f"{item.get('signature') or item['name']}")
            walk(item.get("children", []), depth + 1)

    walk(r["declarations"], 0)
    if r.get("truncated"):
        out.append(f"(showing part of {r['total']} declarations; raise --limit)")
    return "\n".join(out)


def render_diagnostics(r: dict[str, Any]) -> str:
    out = []
    for f in r["files"]:
        out.append(f"{f['path']}{'' if f['bindingComplete'] else '  (not binding-complete)'}")
        if f.get("failure"):
            out.append(f"  indexer failure: {f['failure']}")
        for p in f["problems"]:
            out.append(f"  {p['line']}:{p['column']} {p['kind']}: {p['message']}")
    out.append(f"{r['total']} problem(s); {r['filesNotBindingComplete']} file(s) not binding-complete")
    if r.get("nextCursor"):
        out.append("(more: use --json and page with the tool's cursor)")
    return "\n".join(out)


def render_describe(r: dict[str, Any]) -> str:
    s = r["symbol"]
    out = [f"{s['kind']} {_name(s)}  {_at(s)}"]
    if r.get("javadoc"):
        out.append(r["javadoc"])
    out.extend(r["annotations"])
    if r.get("signature"):
        out.append(r["signature"])
    if r.get("declaringType"):
        out.append(f"declared in {_name(r['declaringType'])}")
    for o in r["overrides"]:
        out.append(f"overrides {_name(o)}")
    c = r["counts"]
    parts = [f"{c['references']} reference(s)"]
    if c.get("callers") is not None:
        parts.append(f"{c['callers']} call site(s)")
    if c.get("implementations") is not None:
        parts.append(f"{c['implementations']} implementation(s)")
    out.append(", ".join(parts))
    return "\n".join(out)


def _print(result: dict[str, Any], is_error: bool, as_json: bool, render: Callable[[dict[str, Any]], str]) -> None:
    if as_json:
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    elif is_error:
        click.echo(_error_text(result), err=True)
    else:
        click.echo(render(result))
    if is_error:
        sys.exit(1)


TYPES = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")
CALLABLES = ("METHOD", "CONSTRUCTOR")


def _key(facade: Any, target: str, kinds: tuple[str, ...] = ()) -> tuple[str | None, dict[str, Any] | None]:
    """A symbolKey for TARGET (a key, or a name find_symbol resolves to one declaration;
    among several, the one of `kinds` when only one is)."""
    result, is_error = facade.call("find_symbol", {"query": target, "limit": 20})
    if not is_error and result.get("total") == 1:
        return result["symbols"][0]["symbolKey"], None
    fitting = [s for s in result.get("symbols", []) if s.get("kind") in kinds] if not is_error else []
    if len(fitting) == 1 and result.get("total", 0) <= 20:
        return fitting[0]["symbolKey"], None
    if _KEY.match(target):
        return target, None
    if is_error:
        return None, result
    if not result.get("total"):
        return None, {"error": f"No declaration is named {target!r}; try find_symbol spellings "
                               f"(Greeter, Greeter.greet, greet(String)).", "code": "not_found"}
    return None, {"error": f"{target!r} names {result['total']} declarations; pass one's symbolKey or a "
                           f"longer name.", "code": "ambiguous",
                  "candidates": [_candidate(c) for c in result["symbols"]]}


def _candidate(s: dict[str, Any]) -> dict[str, Any]:
    out = {"symbolKey": s["symbolKey"], "dottedPath": s.get("dottedPath"), "display": s.get("display"),
           "kind": s.get("kind")}
    decl = s.get("declaration")
    if decl:
        out.update(path=decl["path"], line=decl["range"]["start"]["line"] + 1)
    return out


def _keyed(name: str, tool: str, help_text: str, render: Callable[[dict[str, Any]], str],
           options: list[Callable[[Any], Any]], build: Callable[..., dict[str, Any]],
           kinds: tuple[str, ...] = ()) -> None:
    def command(repos: tuple[str, ...], state_dir: Path | None, as_json: bool, target: str,
                **extra: Any) -> None:
        facade = _facade(repos, state_dir)
        try:
            key, error = _key(facade, target, kinds)
            if error is not None:
                _print(error, True, as_json, render)
            result, is_error = facade.call(tool, {"symbolKey": key, **build(**extra)})
        finally:
            facade.close()
        _print(result, is_error, as_json, render)

    command.__name__ = f"{name}_command"
    for option in reversed(options):
        command = option(command)
    command = click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON result.")(command)
    command = state_dir_option(command)
    command = repo_option(command)
    command = click.argument("target")(command)
    main.command(name, help=help_text)(command)


_keyed("hierarchy", "type_hierarchy", "Supertypes and subtypes of the type TARGET (a name or symbolKey).",
       render_hierarchy,
       [click.option("--direction", type=click.Choice(["super", "sub", "both"]), default="both",
                     show_default=True, help="Which way to walk."),
        click.option("--depth", type=int, default=None, help="Levels to follow (default all)."),
        click.option("--limit", type=int, default=200, show_default=True, help="Nodes per tree.")],
       lambda direction, depth, limit: {"direction": direction, "depth": depth, "limit": limit}, TYPES)
_keyed("impls", "find_implementations", "Classes implementing the type TARGET, or methods overriding the "
       "method TARGET, at any depth.", render_impls,
       [click.option("--limit", type=int, default=100, show_default=True, help="At most this many.")],
       lambda limit: {"limit": limit}, TYPES)
_keyed("graph", "call_graph", "Transitive callers (or --out: callees) of the method TARGET, with the tests "
       "affected.", render_graph,
       [click.option("--out", "outgoing", is_flag=True, help="Callees instead of callers."),
        click.option("--depth", type=int, default=2, show_default=True, help="Levels, 1 to 5."),
        click.option("--no-tests", is_flag=True, help="Leave test code out."),
        click.option("--limit", type=int, default=60, show_default=True, help="At most this many edges.")],
       lambda outgoing, depth, no_tests, limit: {"direction": "out" if outgoing else "in", "depth": depth,
                                                 "include_tests": not no_tests, "limit": limit},
       CALLABLES)
_keyed("describe", "describe", "Signature, modifiers, annotations, Javadoc and counts of the symbol TARGET.",
       render_describe, [], lambda: {})


@main.command("outline", help="The declarations of the file PATH as a tree, with signatures and lines.")
@click.argument("path")
@repo_option
@state_dir_option
@click.option("--limit", type=int, default=100, show_default=True, help="At most this many declarations.")
@click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON result.")
def outline_command(path: str, repos: tuple[str, ...], state_dir: Path | None, limit: int, as_json: bool) -> None:
    facade = _facade(repos, state_dir)
    try:
        result, is_error = facade.call("outline", {"path": path, "limit": limit})
    finally:
        facade.close()
    _print(result, is_error, as_json, render_outline)


@main.command("diagnostics", help="The compiler's errors at the last sync, per file (optionally of PATH).")
@click.argument("path", required=False)
@repo_option
@state_dir_option
@click.option("--module", default=None, help="Only this module (id or artifactId).")
@click.option("--scope", type=click.Choice(["main", "test"]), default=None,
              help="Only main or test sources (test: every scope but main).")
@click.option("--limit", type=int, default=100, show_default=True, help="At most this many problems.")
@click.option("--json", "as_json", is_flag=True, help="Print the tool's JSON result.")
def diagnostics_command(path: str | None, repos: tuple[str, ...], state_dir: Path | None, module: str | None,
                        scope: str | None, limit: int, as_json: bool) -> None:
    facade = _facade(repos, state_dir)
    try:
        result, is_error = facade.call("diagnostics", {"path": path, "module": module, "scope": scope,
                                                       "limit": limit})
    finally:
        facade.close()
    _print(result, is_error, as_json, render_diagnostics)
