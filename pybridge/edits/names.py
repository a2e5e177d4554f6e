"""Is a new name a Java identifier that may name this kind of declaration? (`rename`'s `invalid_name`)

Java identifiers (JLS 3.8): a Java letter, then Java letters and digits; never a keyword, a boolean or
null literal, or `_` (a keyword since Java 9). Restricted identifiers (`var`, `yield`, `record`,
`sealed`, `permits`) cannot name a type; `var` and `yield` are refused for every declaration (an
unqualified call of a method named `yield` does not compile, and a `var` name reads as the type
inference keyword to every reader), the others only for types.
"""

from __future__ import annotations

import unicodedata

from pybridge.facts import JAVA_KEYWORDS as KEYWORDS
from pybridge.facts import JAVA_LITERALS as LITERALS

RESTRICTED_EVERYWHERE = frozenset({"var", "yield"})
RESTRICTED_FOR_TYPES = frozenset({"record", "sealed", "permits", "non-sealed"})
TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "TYPE_PARAMETER"})

_START = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
_PART = _START | {"Nd", "Mn", "Mc"}


def _java_letter(ch: str, part: bool) -> bool:
    """Character.isJavaIdentifierStart / isJavaIdentifierPart, without the ignorable controls."""
    return unicodedata.category(ch) in (_PART if part else _START)


def why_invalid(name: str, kind: str) -> str | None:
    """Why `name` cannot name a declaration of `kind` (a sentence), or None when it can."""
    if not isinstance(name, str) or not name:
        return "The new name is empty; pass a Java identifier."
    if not _java_letter(name[0], part=False):
        return (f"`{name}` is not a Java identifier: it must start with a letter, `$` or `_`; pass a "
                f"name such as `{_suggest(name)}`.")
    bad = next((ch for ch in name[1:] if not _java_letter(ch, part=True)), None)
    if bad is not None:
        return (f"`{name}` is not a Java identifier: {bad!r} cannot appear in one; use letters, digits, "
                f"`$` and `_` only.")
    if name in KEYWORDS:
        return f"`{name}` is a Java keyword; pick another name (e.g. `{name}Value`)."
    if name in LITERALS:
        return f"`{name}` is a Java literal; pick another name (e.g. `{name}Value`)."
    if name in RESTRICTED_EVERYWHERE or (kind in TYPE_KINDS and name in RESTRICTED_FOR_TYPES):
        what = "a type" if kind in TYPE_KINDS else "a declaration"
        return f"`{name}` is a restricted identifier of Java and cannot name {what} here; pick another name."
    return None


def _suggest(name: str) -> str:
    tail = "".join(ch for ch in name if _java_letter(ch, part=True))
    return ("x" + tail) if tail else "newName"
