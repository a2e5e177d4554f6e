"""The facts the indexer hands to Python, one `FileFacts` per source file.

This module is the contract between the worker (which decodes the JVM's
batches into these) and everything above it (the golden renderer, the store).
It is plain data: no JPype, no SQL.

Positions are 0-based line and 0-based character in UTF-16 code units, end
exclusive, as in LSP (DESIGN section 6). A `Span` is (start_line,
start_char, end_line, end_char).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Declaration kinds, spelled as the tools spell them (DESIGN section 7).
DECL_KINDS = (
    "CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "METHOD",
    "CONSTRUCTOR", "FIELD", "ENUM_CONSTANT", "RECORD_COMPONENT", "PARAMETER",
    "LOCAL", "TYPE_PARAMETER",
    # Not a symbol kind of the tools: initializer blocks are declarations only
    # so that the references inside them have a container (never found by name).
    "INITIALIZER",
)

# Reference kinds (DESIGN section 6). The order is the wire encoding.
REF_KINDS = (
    "read", "write", "read_write", "invocation", "construction",
    "method_reference", "type_use",
)

# `generated_from`: a generated accessor (a Lombok getter or setter) to the field it reads or writes.
RELATION_KINDS = ("extends", "implements", "overrides", "generated_from")

# Reference flags.
REF_IN_IMPORT = 1
REF_IN_JAVADOC = 2
REF_IN_GENERATED = 16     # made by generated code (Lombok's members, or a file under a generated-sources root)

# Declaration modifier bit above JDT's Modifier flags: a generated declaration (a member an
# annotation generated, located at that annotation; or any declaration of a generated source file).
DECL_GENERATED = 1 << 28

# Problem kinds.
PROBLEM_KINDS = (
    "syntax", "unresolved_type", "unresolved_method", "unresolved_field",
    "unresolved_variable", "unresolved_import", "unresolved_name", "other_error",
)

# Why a file blocks a name (DESIGN section 8; dev.pybridge.indexer.NameBlocks).
BLOCK_REASONS = (
    "unbound",               # an identifier the compiler could not bind
    "uncertain_call",        # an overload chosen with an unresolved argument or target type
    "incomplete_hierarchy",  # a name looked up in a type with an unresolved supertype
    "syntax",                # a token in a region a syntax error damaged
    "javadoc",               # a Javadoc reference that did not resolve
)

# What a blocked token can name (Blocked.can_name, a mask; dev.pybridge.indexer.NameBlocks).
CAN_NAME_TYPE, CAN_NAME_METHOD, CAN_NAME_CONSTRUCTOR, CAN_NAME_FIELD, CAN_NAME_VARIABLE = 1, 2, 4, 8, 16
CAN_NAME_ALL = 31
# Flag of an incomplete-hierarchy token: only interfaces are missing from the types it was looked up in.
CAN_NAME_VIA_INTERFACES = 32


# Java's keywords (JLS 3.9; `_` one since Java 9) and its boolean and null literals: never an identifier.
JAVA_KEYWORDS = frozenset("""
    abstract assert boolean break byte case catch char class const continue default do double else
    enum extends final finally float for goto if implements import instanceof int interface long
    native new package private protected public return short static strictfp super switch
    synchronized this throw throws transient try void volatile while _
""".split())
JAVA_LITERALS = frozenset({"true", "false", "null"})


def utf16_len(text: str) -> int:
    """The length of `text` in UTF-16 code units (what LSP characters count)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def codepoints(text: str, utf16: int) -> int:
    """How many code points of `text` make its first `utf16` UTF-16 code units."""
    if utf16 <= 0:
        return 0
    if text.isascii() or not _ASTRAL.search(text, 0, utf16):
        return min(utf16, len(text))        # no code point before there takes two units
    units = 0
    for i, ch in enumerate(text):
        if units >= utf16:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(text)


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


class Span(NamedTuple):
    start_line: int
    start_char: int
    end_line: int
    end_char: int


class Declaration(NamedTuple):
    key: str                 # JDT binding key of the declaration binding
    kind: str                # one of DECL_KINDS
    name: str                # simple name (`<init>` never: constructors use the type's name)
    display: str             # e.g. `greet(String)`, `Greeter`, `count`
    dotted: str              # e.g. `com.acme.Greeter.greet`
    scip: str                # SCIP symbol string (scip-java conventions)
    name_span: Span
    span: Span               # the whole declaration
    modifiers: int           # JDT Modifier flags
    declaring_key: str       # binding key of the enclosing declaration ('' for top level types)


class Reference(NamedTuple):
    target_key: str          # binding key of the referenced declaration
    target_scip: str         # SCIP symbol of the target (also for library/JDK targets)
    span: Span               # the simple-name token
    kind: str                # one of REF_KINDS
    container_key: str       # innermost enclosing method/ctor/initializer/field/type
    flags: int               # REF_IN_IMPORT | REF_IN_JAVADOC


class Relation(NamedTuple):
    kind: str                # one of RELATION_KINDS
    from_key: str
    to_key: str


class Problem(NamedTuple):
    kind: str                # one of PROBLEM_KINDS
    name: str                # the unresolved simple name, '' for syntax errors
    message: str             # the compiler's message
    span: Span
    is_error: bool


class Blocked(NamedTuple):
    """An identifier token that a file leaves unaccounted for: an occurrence that could
    be a reference the compiler did not bind, or bound uncertainly."""
    name: str
    reason: str              # one of BLOCK_REASONS
    span: Span               # the token
    can_name: int            # CAN_NAME_* mask: the kinds of declaration it can name there
    arity: int               # the number of arguments of the call it names; -1: no call, or unknown


@dataclass
class FileFacts:
    path: str                                # absolute path of the source file
    binding_complete: bool                   # compiled with full bindings, no error problems
    declarations: list[Declaration] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Library/JDK declarations referenced from this file: key -> (kind, dotted, scip)
    external: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    failure: str | None = None               # set when the visitor failed on this file
    # The tokens this file leaves unaccounted for, one entry per token (empty when complete).
    blocked: list[Blocked] = field(default_factory=list)
    # binding key -> signature (`pybridge.sync.summary`'s), when the indexer computed them from the
    # file's text (dev.pybridge.indexer.Signatures); None: the parent computes them. Not a fact:
    # left out of comparisons.
    signatures: dict[str, list[Any]] | None = field(default=None, compare=False, repr=False)
