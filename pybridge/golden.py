"""Renders what the indexer saw in a file: its source, with every declaration,
reference, relation and problem marked under the line it starts on.

One renderer serves both the golden tests ("assert") and `pytest
--update-goldens`. A marker line looks like

    //        ^^^^^ invocation com.acme.Greeter.greet(String) <- com.acme.Kitchen.main(String[]) @12:8-12:13

that is: carets under the span (aligned by characters as an editor shows
them), the kind, the target, `<-` the container, and the exact span as LSP
positions (0-based line and UTF-16 character, end exclusive). Declarations
read `def KIND name`; flags follow in brackets ([import], [javadoc],
[generated]). A
name the file leaves unaccounted for (coverage, DESIGN section 8) reads
`blocks 'name' (reason; what it can name)` under each token: `any`, or
some of type, method, constructor, field, variable (`/N`: a call of N
arguments; `via interfaces`: only interfaces are missing where it was
looked up).
Targets are named by their dotted path (methods with their parameter types);
a target with no declaration in the indexed files is named by its binding key.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from pybridge.facts import (
    CAN_NAME_ALL,
    CAN_NAME_CONSTRUCTOR,
    CAN_NAME_FIELD,
    CAN_NAME_METHOD,
    CAN_NAME_TYPE,
    CAN_NAME_VARIABLE,
    CAN_NAME_VIA_INTERFACES,
    DECL_GENERATED,
    REF_IN_GENERATED,
    REF_IN_IMPORT,
    REF_IN_JAVADOC,
    FileFacts,
    Span,
    codepoints,
)

_CAN_NAME = ((CAN_NAME_TYPE, "type"), (CAN_NAME_METHOD, "method"), (CAN_NAME_CONSTRUCTOR, "constructor"),
             (CAN_NAME_FIELD, "field"), (CAN_NAME_VARIABLE, "variable"))


def can_name(mask: int, arity: int) -> str:
    """What a blocked token can name, as the goldens read it: `method/2`, `type|field`, `any`."""
    what = "any" if mask & CAN_NAME_ALL == CAN_NAME_ALL else "|".join(n for bit, n in _CAN_NAME if mask & bit)
    return (what + (f"/{arity}" if arity >= 0 else "")
            + (" via interfaces" if mask & CAN_NAME_VIA_INTERFACES else ""))


def build_names(all_files: Iterable[FileFacts]) -> dict[str, str]:
    """Binding key -> a readable name, from every declaration and library target seen."""
    names: dict[str, str] = {}
    for ff in all_files:
        for key, (_kind, dotted, _scip) in ff.external.items():
            names.setdefault(key, dotted)
        for d in ff.declarations:
            if d.kind in ("METHOD", "CONSTRUCTOR"):
                owner = d.dotted.rsplit(".", 1)[0]
                names[d.key] = f"{owner}.{d.display}"
            else:
                names[d.key] = d.dotted
    for ff in all_files:
        for d in ff.declarations:
            if d.kind in ("PARAMETER", "LOCAL") and d.declaring_key in names:
                names[d.key] = f"{names[d.declaring_key]}#{d.name}"
    return names


def render_file(source: str, facts: FileFacts, names: dict[str, str]) -> str:
    def name(key: str) -> str:
        return names.get(key, key) if key else "<none>"

    def flags(f: int) -> str:
        out = []
        if f & REF_IN_IMPORT:
            out.append("[import]")
        if f & REF_IN_JAVADOC:
            out.append("[javadoc]")
        if f & REF_IN_GENERATED:
            out.append("[generated]")
        return (" " + " ".join(out)) if out else ""

    def at(s: Span) -> str:
        return f"@{s.start_line}:{s.start_char}-{s.end_line}:{s.end_char}"

    markers: dict[int, list[tuple[int, int, str, Span | None]]] = defaultdict(list)
    for d in facts.declarations:
        markers[d.name_span.start_line].append(
            (d.name_span.start_char, 0,
             f"def {d.kind} {name(d.key)}" + (" [generated]" if d.modifiers & DECL_GENERATED else ""), d.name_span))
    decl_lines = {d.key: d.name_span.start_line for d in facts.declarations}
    for rel in facts.relations:
        line = decl_lines.get(rel.from_key)
        if line is not None:
            # Generated accessors share their annotation's line: say which one each link is from.
            source_of = f" <- {name(rel.from_key)}" if rel.kind == "generated_from" else ""
            markers[line].append((10**6, 1, f"{rel.kind} {name(rel.to_key)}{source_of}", None))
    for r in facts.references:
        markers[r.span.start_line].append(
            (r.span.start_char, 2,
             f"{r.kind} {name(r.target_key)} <- {name(r.container_key)}{flags(r.flags)}", r.span))
    for p in facts.problems:
        label = f"error {p.kind}" + (f" '{p.name}'" if p.name else "") + f": {p.message}"
        markers[p.span.start_line].append((p.span.start_char, 3, label, p.span))
    for b in facts.blocked:
        markers[b.span.start_line].append(
            (b.span.start_char, 4, f"blocks '{b.name}' ({b.reason}; {can_name(b.can_name, b.arity)})", b.span))

    lines = source.split("\n")
    out: list[str] = []
    for number, text in enumerate(lines):
        out.append(text)
        for _start, _order, label, span in sorted(markers.get(number, []), key=lambda m: (m[0], m[1], m[2])):
            if span is None:
                out.append(f"//  {label}")
                continue
            a = codepoints(text, span.start_char)
            if span.end_line == span.start_line:
                z = max(codepoints(text, span.end_char), a + 1)
            else:
                z = max(len(text), a + 1)
            # Carets under the token; a token in the first two columns cannot sit under "//".
            prefix = "//" + " " * (a - 2) if a >= 2 else "// "
            out.append(f"{prefix}{'^' * (z - a)} {label} {at(span)}")
    if facts.failure:
        out.append("// FAILURE: " + facts.failure.splitlines()[0])
    out.append(f"// binding_complete: {str(facts.binding_complete).lower()}")
    return "\n".join(out) + "\n"
