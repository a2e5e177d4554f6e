"""Reading Maven's XML files safely: pom.xml, settings.xml, Maven's effective POM.

The XML is parsed by expat directly into an ElementTree, and any `<!DOCTYPE`
(hence any entity declaration, internal or external) is refused before a
single entity is declared; no external entity is ever fetched. Namespaces are
dropped (tags are local names), so `build/plugins` works on any POM.

A leaf: `pom.py` and `mvnconfig.py` both read through it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from xml.parsers import expat

from pybridge.errors import WorkspaceError

_MAX_POM_BYTES = 16 * 1024 * 1024


class PomError(WorkspaceError):
    """One pom.xml cannot be read: missing, not XML, refused XML, missing fields.

    `path` names the file.
    """

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(message, path=str(path))
        self.path = path


class _Refused(Exception):
    pass


def parse_xml(path: Path, max_bytes: int | None = _MAX_POM_BYTES) -> ET.Element:
    """Parse `path` into an Element with namespace-free tags, refusing DOCTYPE."""
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise PomError(path, f"{path} is {size} bytes, too large for a pom.xml; check the file.")
        data = path.read_bytes()
    except PomError:
        raise
    except OSError as exc:
        raise PomError(path, f"Cannot read {path}: {exc.strerror or exc}. "
                             "Check that the file exists and is readable.") from None
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse_doctype(*_args: object) -> None:
        raise _Refused("a <!DOCTYPE> declaration")

    def refuse_entity(*_args: object) -> None:
        raise _Refused("an entity declaration")

    def refuse_external(*_args: object) -> int:
        raise _Refused("an external entity reference")

    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_entity
    parser.UnparsedEntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_external
    parser.StartElementHandler = lambda tag, attrs: builder.start(_local(tag), attrs)
    parser.EndElementHandler = lambda tag: builder.end(_local(tag))
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
        root = builder.close()
    except _Refused as exc:
        raise PomError(path, f"{path} contains {exc}, which pybridge refuses to read "
                             "(no DTDs or entities in a pom.xml); remove it.") from None
    except expat.ExpatError as exc:
        raise PomError(path, f"{path} is not well-formed XML (line {exc.lineno}, column "
                             f"{exc.offset + 1}: {expat.ErrorString(exc.code)}); fix the XML.") from None
    except (AssertionError, ValueError, TypeError) as exc:  # TreeBuilder's own checks (unbalanced tags)
        raise PomError(path, f"{path} is not well-formed XML ({exc}); fix the XML.") from None
    return root


def is_dir(p: Path) -> bool:
    """Path.is_dir that answers False for names the OS refuses (too long, ...)."""
    try:
        return p.is_dir()
    except (OSError, ValueError):
        return False


def is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _local(tag: str) -> str:
    return tag.rsplit(":", 1)[-1]


def text(el: ET.Element | None, path: str) -> str | None:
    if el is None:
        return None
    found = el.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return value or None


def children_text(el: ET.Element | None, path: str) -> list[str]:
    if el is None:
        return []
    return [c.text.strip() for c in el.findall(path) if c.text and c.text.strip()]
