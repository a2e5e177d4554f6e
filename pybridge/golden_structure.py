"""Renders the structure facts of a synced workspace as text, for golden files:
the type hierarchy of every type it declares, and the outline of every file.

Both go through the query facade (the same tools agents call), so a golden
checks the stored relations, the derived enum-body subtypes, the
source-derived signatures and modifiers, and the tree building at once.

    hierarchy:  one block per declared type, in file order:
        com.acme.kitchen.BaseShape  CLASS  src/main/java/com/acme/kitchen/BaseShape.java:4
          super implements com.acme.kitchen.Shape
          sub   extends com.acme.kitchen.Circle
          sub   extends com.acme.kitchen.Kitchen.shapes.<anonymous>
        (indirect ones indented under the type they come through; a library
        type reads `[library]`, a repeat `[seen]`)

    outline:  one block per file, one line per declaration, nested by indent:
        == src/main/java/com/acme/kitchen/Size.java (main, binding-complete)
           4  ENUM Size | public enum Size | [public] @3:0-26:1
"""

from __future__ import annotations

from typing import Any

TYPE_KINDS = ("CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION")


def _call(facade: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result, is_error = facade.call(tool, args)
    if is_error:
        raise AssertionError(f"{tool} {args}: {result}")
    return dict(result)


def _files(facade: Any, repo: str | None) -> list[str]:
    ws = facade.spaces.pick(repo)
    reader = ws.reader()
    try:
        return [f.path for f in reader.files()]
    finally:
        reader.close()


def _at(r: dict[str, Any]) -> str:
    s, e = r["start"], r["end"]
    return f"@{s['line']}:{s['character']}-{e['line']}:{e['character']}"


def render_outline(facade: Any, repo: str | None = None) -> str:
    out: list[str] = []
    for path in _files(facade, repo):
        got = _call(facade, "outline", {"repo": repo, "path": path, "limit": 1000})
        state = "binding-complete" if got["bindingComplete"] else "NOT binding-complete"
        out.append(f"== {path} ({got['scope']}, {state})")

        def walk(items: list[dict[str, Any]], depth: int) -> None:
            for i in items:
                mods = " [" + " ".join(i["modifiers"]) + "]" if i.get("modifiers") else ""
                out.append(f"{i['line']:>5}  {'  ' * depth}{i['kind']} {i['name']} | "
                           f"{i.get('signature') or '-'}{mods} {_at(i['range'])}")
                walk(i.get("children", []), depth + 1)

        walk(got["declarations"], 0)
        if got["truncated"]:
            out.append("  (truncated)")
    return "\n".join(out) + "\n"


def _types(facade: Any, repo: str | None, path: str) -> list[dict[str, Any]]:
    got = _call(facade, "outline", {"repo": repo, "path": path, "limit": 1000})
    found: list[dict[str, Any]] = []

    def walk(items: list[dict[str, Any]]) -> None:
        for i in items:
            if i["kind"] in TYPE_KINDS:
                found.append(i)
            walk(i.get("children", []))

    walk(got["declarations"])
    return found


def render_hierarchy(facade: Any, repo: str | None = None) -> str:
    out: list[str] = []
    for path in _files(facade, repo):
        for t in _types(facade, repo, path):
            got = _call(facade, "type_hierarchy", {"symbolKey": t["symbolKey"], "limit": 1000})
            root = got["root"]
            out.append(f"{root['dottedPath']}  {root['kind']}  {root['path']}:{root['line']}")

            def walk(items: list[dict[str, Any]], side: str, depth: int) -> None:
                for i in items:
                    marks = " [seen]" if i.get("seen") else ""
                    out.append(f"  {'  ' * depth}{side:<5} {i['relation']} {i['dottedPath']}{marks}")
                    walk(i.get("children", []), side, depth + 1)

            walk(got["supertypes"], "super", 0)
            walk(got["subtypes"], "sub", 0)
            if not got["subtypeCoverage"]["complete"]:
                out.append(f"  (subtypes not provably complete: {got['subtypeCoverage']['blockers']} blockers)")
    return "\n".join(out) + "\n"
