"""A small reader of compiled Java class files (JVMS chapter 4): the independent
computation the structure spot checks compare pybridge's answers with.

From each class file of a jar: its name, access flags, superclass, interfaces,
and per method its name, descriptor, the methods its bytecode invokes
(invokevirtual, invokespecial, invokestatic, invokeinterface) and whether a
`@Test`-like runtime annotation marks it. No source text is read.
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ACC_INTERFACE = 0x0200

# Operand lengths of the fixed-size opcodes (tableswitch, lookupswitch, wide handled apart).
_LEN = {**{op: 0 for op in range(0x00, 0x10)}, 0x10: 1, 0x11: 2, 0x12: 1, 0x13: 2, 0x14: 2,
        **{op: 1 for op in range(0x15, 0x1A)}, **{op: 0 for op in range(0x1A, 0x36)},
        **{op: 1 for op in range(0x36, 0x3B)}, **{op: 0 for op in range(0x3B, 0x84)}, 0x84: 2,
        **{op: 0 for op in range(0x85, 0x99)}, **{op: 2 for op in range(0x99, 0xA9)}, 0xA9: 1,
        **{op: 0 for op in range(0xAC, 0xB2)}, **{op: 2 for op in range(0xB2, 0xB9)}, 0xB9: 4, 0xBA: 4,
        0xBB: 2, 0xBC: 1, 0xBD: 2, 0xBE: 0, 0xBF: 0, 0xC0: 2, 0xC1: 2, 0xC2: 0, 0xC3: 0, 0xC5: 3,
        0xC6: 2, 0xC7: 2, 0xC8: 4, 0xC9: 4, 0xCA: 0}
INVOKES = (0xB6, 0xB7, 0xB8, 0xB9)


@dataclass
class Method:
    name: str
    descriptor: str
    calls: list[tuple[str, str, str]] = field(default_factory=list)   # (owner, name, descriptor)
    annotations: list[str] = field(default_factory=list)              # type descriptors

    @property
    def arity(self) -> int:
        return len(parameters(self.descriptor))


@dataclass
class ClassFile:
    name: str                  # binary name with slashes, e.g. com/google/common/base/Function
    access: int
    superclass: str | None
    interfaces: list[str]
    methods: list[Method]

    @property
    def is_interface(self) -> bool:
        return bool(self.access & ACC_INTERFACE)


def parameters(descriptor: str) -> list[str]:
    inner = descriptor[1:descriptor.index(")")]
    out, i = [], 0
    while i < len(inner):
        j = i
        while inner[j] == "[":
            j += 1
        j = inner.index(";", j) + 1 if inner[j] == "L" else j + 1
        out.append(inner[i:j])
        i = j
    return out


def _annotations(data: bytes, pos: int, pool: list) -> list[str]:
    def value(p: int) -> int:
        tag = chr(data[p])
        p += 1
        if tag in "BCDFIJSZsc":
            return p + 2
        if tag == "e":
            return p + 4
        if tag == "@":
            return annotation(p)[1]
        if tag == "[":
            (n,) = struct.unpack_from(">H", data, p)
            p += 2
            for _ in range(n):
                p = value(p)
            return p
        raise ValueError(f"element tag {tag!r}")

    def annotation(p: int) -> tuple[str, int]:
        type_index, pairs = struct.unpack_from(">HH", data, p)
        p += 4
        for _ in range(pairs):
            p = value(p + 2)
        return pool[type_index], p

    (n,) = struct.unpack_from(">H", data, pos)
    pos += 2
    out = []
    for _ in range(n):
        name, pos = annotation(pos)
        out.append(name)
    return out


def _code_calls(code: bytes, pool: list) -> list[tuple[str, str, str]]:
    calls = []
    i = 0
    while i < len(code):
        op = code[i]
        if op in INVOKES or op == 0xBA:   # invokedynamic: resolved to its method handles below
            (index,) = struct.unpack_from(">H", code, i + 1)
            calls.append(pool[index])
        if op == 0xAA:      # tableswitch
            p = (i + 4) & ~3
            low, high = struct.unpack_from(">ii", code, p + 4)
            i = p + 12 + 4 * (high - low + 1)
            continue
        if op == 0xAB:      # lookupswitch
            p = (i + 4) & ~3
            (n,) = struct.unpack_from(">i", code, p + 4)
            i = p + 8 + 8 * n
            continue
        if op == 0xC4:      # wide
            i += 6 if code[i + 1] == 0x84 else 4
            continue
        i += 1 + _LEN[op]
    return calls


def parse(data: bytes) -> ClassFile:
    (count,) = struct.unpack_from(">H", data, 8)
    raw: list = [None] * count
    pos = 10
    i = 1
    while i < count:
        tag = data[pos]
        if tag == 1:
            (n,) = struct.unpack_from(">H", data, pos + 1)
            raw[i] = ("utf8", data[pos + 3:pos + 3 + n].decode("utf-8", errors="replace"))
            pos += 3 + n
        elif tag in (3, 4):
            pos += 5
        elif tag in (5, 6):
            pos += 9
            i += 1
        elif tag in (7, 8, 16, 19, 20):
            raw[i] = ("ref", struct.unpack_from(">H", data, pos + 1)[0], tag)
            pos += 3
        elif tag in (9, 10, 11, 12, 17, 18):
            a, b = struct.unpack_from(">HH", data, pos + 1)
            raw[i] = ("pair", a, b, tag)
            pos += 5
        elif tag == 15:
            raw[i] = ("mh", struct.unpack_from(">H", data, pos + 2)[0])
            pos += 4
        else:
            raise ValueError(f"constant pool tag {tag}")
        i += 1

    def utf(k: int) -> str:
        return raw[k][1]

    pool: list = [None] * count
    for k, entry in enumerate(raw):
        if entry is None:
            continue
        if entry[0] == "utf8":
            pool[k] = entry[1]
        elif entry[0] == "ref" and entry[2] == 7:
            pool[k] = utf(entry[1])
    for k, entry in enumerate(raw):
        if entry is not None and entry[0] == "pair" and entry[3] in (10, 11):
            owner = utf(raw[entry[1]][1])
            nat = raw[entry[2]]
            pool[k] = (owner, utf(nat[1]), utf(nat[2]))
        elif entry is not None and entry[0] == "pair" and entry[3] == 18:
            pool[k] = ("indy", entry[1])
    for k, entry in enumerate(raw):
        if entry is not None and entry[0] == "mh":
            pool[k] = ("mh", pool[entry[1]])

    access, this, sup, n_if = struct.unpack_from(">HHHH", data, pos)
    pos += 8
    interfaces = [pool[struct.unpack_from(">H", data, pos + 2 * j)[0]] for j in range(n_if)]
    pos += 2 * n_if

    def attributes(p: int) -> tuple[list[tuple[str, int, int]], int]:
        (n,) = struct.unpack_from(">H", data, p)
        p += 2
        out = []
        for _ in range(n):
            name_index, length = struct.unpack_from(">HI", data, p)
            out.append((pool[name_index], p + 6, length))
            p += 6 + length
        return out, p

    (n_fields,) = struct.unpack_from(">H", data, pos)
    pos += 2
    for _ in range(n_fields):
        _attrs, pos = attributes(pos + 6)
    (n_methods,) = struct.unpack_from(">H", data, pos)
    pos += 2
    methods = []
    for _ in range(n_methods):
        _acc, name_index, desc_index = struct.unpack_from(">HHH", data, pos)
        attrs, pos = attributes(pos + 6)
        m = Method(pool[name_index], pool[desc_index])
        for attr, start, _length in attrs:
            if attr == "Code":
                (code_length,) = struct.unpack_from(">I", data, start + 4)
                m.calls = _code_calls(data[start + 8:start + 8 + code_length], pool)
            elif attr == "RuntimeVisibleAnnotations":
                m.annotations = _annotations(data, start, pool)
        methods.append(m)
    class_attrs, _end = attributes(pos)
    bootstrap: list[list] = []
    for attr, start, _length in class_attrs:
        if attr == "BootstrapMethods":
            (n,) = struct.unpack_from(">H", data, start)
            p = start + 2
            for _ in range(n):
                _ref, n_args = struct.unpack_from(">HH", data, p)
                args = struct.unpack_from(f">{n_args}H", data, p + 4)
                bootstrap.append([pool[a][1] for a in args
                                  if isinstance(pool[a], tuple) and pool[a][0] == "mh" and pool[a][1]])
                p += 4 + 2 * n_args
    for m in methods:   # an invokedynamic (a method reference or lambda) calls the methods it names
        resolved = []
        for c in m.calls:
            if c and c[0] == "indy":
                resolved.extend(t for t in (bootstrap[c[1]] if c[1] < len(bootstrap) else [])
                                if isinstance(t, tuple) and len(t) == 3)
            elif c:
                resolved.append(c)
        m.calls = resolved
    return ClassFile(pool[this], access, pool[sup] if sup else None, interfaces, methods)


def read_jar(path: Path) -> dict[str, ClassFile]:
    """Every class of a jar by binary name (module-info and multi-release copies skipped)."""
    out = {}
    with zipfile.ZipFile(path) as jar:
        for entry in jar.namelist():
            if entry.endswith(".class") and not entry.startswith("META-INF/") and "module-info" not in entry:
                cf = parse(jar.read(entry))
                out[cf.name] = cf
    return out


def subtypes(classes: dict[str, ClassFile], root: str) -> set[str]:
    """Every class of the jar whose supertypes, followed through the jar, reach root."""
    children: dict[str, set[str]] = {}
    for cf in classes.values():
        for parent in [cf.superclass, *cf.interfaces]:
            if parent:
                children.setdefault(parent, set()).add(cf.name)
    out: set[str] = set()
    frontier = [root]
    while frontier:
        nxt = []
        for name in frontier:
            for child in children.get(name, ()):
                if child not in out:
                    out.add(child)
                    nxt.append(child)
        frontier = nxt
    return out
