"""A file's summary for incremental sync (pybridge/sync/summary.py)."""

import random

from pybridge.edits.names import why_invalid
from pybridge.sync.summary import IDENTIFIER, RESERVED, body_start, names


def test_names_leave_out_keywords_and_literals_but_keep_every_name_a_declaration_can_have():
    text = ("package p; /** {@link Other#run} */ public final class A extends B implements var {\n"
            "  record R(int _x) {} static boolean yield = true; Object o = null; int _ = 1;\n"
            "  String s = \"sealed when\";\n}\n")
    got = names(text)
    assert {"package", "public", "final", "class", "extends", "implements", "static", "boolean", "int",
            "true", "null"}.isdisjoint(got)
    # identifiers, in code, Javadoc and literals; contextual keywords and `_` (an identifier before Java 9)
    assert {"p", "Other", "run", "A", "B", "var", "record", "R", "_x", "yield", "Object", "o", "_", "String",
            "s", "sealed", "when", "link"} <= got


def test_no_name_left_out_can_name_a_declaration():
    assert all(why_invalid(word, "METHOD") is not None and why_invalid(word, "CLASS") is not None
               for word in RESERVED)


def test_an_ascii_text_and_a_unicode_one_give_the_tokens_of_the_unicode_pattern():
    ascii_text = "class A$1 { int _x2 = 3; String s = \"a-b c9 $d\"; } // 4e end_"
    assert names(ascii_text) == frozenset(IDENTIFIER.findall(ascii_text)) - RESERVED
    text = "class Größe { int ñ = 1; } // über"
    assert {"Größe", "ñ", "über"} <= names(text)


def _body_start_by_character(text: str, pos: int, end: int) -> int:
    """`body_start` as it was, one character at a time: the oracle of the one that jumps."""
    depth = 0
    i = pos
    while i < end:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            nl = text.find("\n", i)
            i = end if nl < 0 else nl + 1
            continue
        if c == "/" and text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = end if close < 0 else close + 2
            continue
        if c in "\"'":
            quote = '"""' if text.startswith('"""', i) else c
            j = i + len(quote)
            while j < end and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            i = j + len(quote)
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth <= 0 and c in "{;":
            return i
        i += 1
    return end


def test_body_start_finds_what_a_walk_of_every_character_finds(samples):
    """Every start and end in the samples' sources, and random texts of the characters it acts on
    (comments, literals, brackets, escapes, text blocks) with a few that it does not."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(samples.rglob("*.java"))]
    rng = random.Random(7)
    alphabet = ["/", "*", "\n", '"', "'", "\\", "(", ")", "[", "]", "{", "}", ";", "a", " ", '"""', "//", "/*", "*/"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 40))) for _ in range(3000)]
    checked = 0
    for text in texts:
        step = max(len(text) // 40, 1)
        for pos in range(0, len(text) + 1, step):
            for end in (len(text), min(pos + 7, len(text)), min(pos + 90, len(text))):
                assert body_start(text, pos, end) == _body_start_by_character(text, pos, end), (text, pos, end)
                checked += 1
    assert checked > 50_000
