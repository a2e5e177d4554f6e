"""The edit generator of `bench/check_edit.py --javac` (issue 24's check_edit against javac): an edit
that is not meant to break never declares what its type already declares, so that javac and JDT are
not compared on a duplicate declaration (each compiler's error recovery). Pure text and binding
keys: no JVM."""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import check_edit  # noqa: E402 - bench/ is not a package
from check_edit import Member, TypeMembers, javac_edit, key_params  # noqa: E402

SOURCE = """package p;

class A {
    int count;

    void append(Object o) { }

    void append(int i) { }

    <T> void put(T value) { }

    void take(String s) { }
}
"""


def _member(name: str, key: str) -> Member:
    lines = SOURCE.splitlines()
    line = next(i for i, t in enumerate(lines) if f" {name}(" in t)
    start = lines[line].index("void") if "<T>" not in lines[line] else lines[line].index("<T>")
    name_end = lines[line].index(f"{name}(") + len(name)
    return Member("p/A.java", name, (line, start, line, len(lines[line])), (line, name_end), 1, key_params(key, name))


def _type() -> TypeMembers:
    return TypeMembers({"count"}, {"append": [("java.lang.Object",), ("int",)], "put": [("<T>",)],
                                   "take": [("java.lang.String",)]})


def test_binding_keys_read_as_erasures():
    assert key_params("Lp/A;.removeAll<T:Ljava/lang/Object;>([TT;[I)[TT;", "removeAll") == ("<T>[]", "int[]")
    assert key_params("Lp/A;.names(Ljava/util/List<Ljava/lang/Class<*>;>;)Ljava/util/List;", "names") == \
        ("java.util.List",)
    assert key_params("Lp/A;.parse(Ljava/lang/String;[Ljava/lang/String;Z)V|Ljava/text/ParseException;",
                      "parse") == ("java.lang.String", "java.lang.String[]", "boolean")
    assert key_params("Lp/A;.min(FFF)F", "min") == ("float", "float", "float")


def test_an_overload_of_a_signature_the_type_has_is_not_drawn():
    rng = random.Random(1)
    append = _member("append", "Lp/A;.append(Ljava/lang/Object;)V")
    assert javac_edit(SOURCE, "overload", append, _type(), [], rng) is None          # append(Object) exists
    put = _member("put", "Lp/A;.put<T:Ljava/lang/Object;>(TT;)V")
    assert javac_edit(SOURCE, "overload", put, _type(), [], rng) is None             # put(T) erases to Object
    take = _member("take", "Lp/A;.take(Ljava/lang/String;)V")
    assert javac_edit(SOURCE, "overload_str", take, _type(), [], rng) is None        # take(String) exists
    new = javac_edit(SOURCE, "overload_str", append, _type(), [], rng)
    assert new is not None and "void append(String zzBench)" in new[0] and new[1] == {"append"}


def test_a_field_of_a_name_the_type_declares_is_not_drawn():
    rng = random.Random(1)
    take = _member("take", "Lp/A;.take(Ljava/lang/String;)V")
    text = SOURCE.replace("void take(String s) { }", "void take(String s) { count++; size(); }")
    assert javac_edit(text, "hide", take, _type(), ["count"], rng) is None
    new = javac_edit(text + "// size\n", "hide", take, _type(), ["count", "size"], rng)
    assert new is not None and "int size;" in new[0] and new[1] == {"size"}


def test_a_parameter_change_that_would_duplicate_an_overload_is_not_drawn():
    rng = random.Random(1)
    take = _member("take", "Lp/A;.take(Ljava/lang/String;)V")        # String -> Object: take(Object) is new
    new = javac_edit(SOURCE, "param", take, _type(), [], rng)
    assert new is not None and "void take(java.lang.Object s)" in new[0]
    members = _type()
    members.methods["take"].append(("java.lang.Object",))
    assert javac_edit(SOURCE, "param", take, members, [], rng) is None


def test_the_breaking_kinds_stay():
    rng = random.Random(1)
    take = _member("take", "Lp/A;.take(Ljava/lang/String;)V")
    deleted = javac_edit(SOURCE, "delete", take, _type(), [], rng)
    assert deleted is not None and "take(" not in deleted[0] and deleted[1] == {"take"}
    renamed = javac_edit(SOURCE, "rename", take, _type(), [], rng)
    assert renamed is not None and "void takeZz(String s)" in renamed[0] and renamed[1] == {"take", "takeZz"}


def test_message_kinds_pair_javac_and_jdt_wordings():
    pairs = [("cannot find symbol", "The method take(String) is undefined for the type A"),
             ("method take in class A cannot be applied to given types;",
              "The method take(Object) in the type A is not applicable for the arguments (int)"),
             ("incompatible types: int cannot be converted to String",
              "Type mismatch: cannot convert from int to String"),
             ("reference to take is ambiguous", "The method take(Object) is ambiguous for the type A")]
    for javac, jdt in pairs:
        assert check_edit.message_kind(javac) == check_edit.message_kind(jdt) != "other", (javac, jdt)


def test_rule_override_annotation_matches_javacs_annotation_line_with_jdts_name_line():
    """guava seed 11, edit 1: `computeNext` of an anonymous AbstractIterator in TreeRangeSet renamed.
    javac reports the stale `@Override` on the annotation (line 423), JDT on the name (line 425)."""
    path = "src/main/java/com/google/common/collect/TreeRangeSet.java"
    row = {"javac": [[path, 422], [path, 423]], "pybridge": [[path, 422], [path, 425]],
           "messages": {"javac": [[path, 422, "<anonymous TreeRangeSet$RangesByUpperBound$2> is not abstract and "
                                   "does not override abstract method computeNext() in AbstractIterator"],
                                  [path, 423, "method does not override or implement a method from a supertype "
                                   "        @Override         ^"]],
                        "pybridge": [[path, 422, "The type new AbstractIterator<Map.Entry<Cut<C>,Range<C>>>(){} must "
                                      "implement the inherited abstract method AbstractIterator.computeNext()"],
                                     [path, 425, "The method computeNextZz() of type new AbstractIterator(){} must "
                                      "override or implement a supertype method"]]}}
    row["rebound_missing"] = []
    assert check_edit.ruled(row) == {"rule_override_annotation": [[path, 423, 425]], "same_lines_ruled": True,
                                     "rebound_missing_error_line": []}
    row["pybridge"] = [[path, 422]]                  # nothing below: no move, the lines differ
    row["messages"]["pybridge"] = row["messages"]["pybridge"][:1]
    row["rebound_missing"] = [[path, 421, 20], [path, 500, 3]]      # 0-based: line 422 holds an error
    assert check_edit.ruled(row) == {"rule_override_annotation": [], "same_lines_ruled": False,
                                     "rebound_missing_error_line": [[path, 421, 20]]}
