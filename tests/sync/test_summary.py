"""A file's summary for incremental sync (pybridge/sync/summary.py)."""

from pybridge.edits.names import why_invalid
from pybridge.sync.summary import IDENTIFIER, RESERVED, names


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
