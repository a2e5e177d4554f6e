"""The edit generator of `bench/check_edit.py --javac` (issue 24's check_edit against javac): an edit
that is not meant to break never declares what its type already declares, so that javac and JDT are
not compared on a duplicate declaration (each compiler's error recovery); the subset's subtypes read
from javac's class output, and the named rules (`check_edit.ruled`). javac and ecj (or pybridge, on a
small workspace) run where a rule rests on what they do."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import check_edit  # noqa: E402 - bench/ is not a package
import method_edits  # noqa: E402
from check_edit import Member, TypeMembers, javac_edit, key_params  # noqa: E402
from javac_refs import driver  # noqa: E402

from pybridge.edits import EditSession, FileChange  # noqa: E402
from pybridge.edits import check_edit as pybridge_check_edit  # noqa: E402
from pybridge.store import Store  # noqa: E402
from pybridge.sync import sync  # noqa: E402
from pybridge.sync.state import store_path  # noqa: E402

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
    row["rebound_missing"], row["rebound_extra"] = [], []
    assert check_edit.ruled(row) == {"rule_override_annotation": [[path, 423, 425]], "rule_abstract_lookup": [],
                                     "rule_repeated_abstract": [], "rule_conditional_cascade": [],
                                     "rule_erasure_clash_pair": [], "rule_recovery_overload": [],
                                     "same_lines_ruled": True, "counts_differ_ruled": [],
                                     "rebound_missing_error_line": [], "rebound_extra_error_line": []}
    row["pybridge"] = [[path, 422]]                  # nothing below: no move, the lines differ
    row["messages"]["pybridge"] = row["messages"]["pybridge"][:1]
    row["rebound_missing"] = [[path, 421, 20], [path, 500, 3]]      # 0-based: line 422 holds an error
    assert check_edit.ruled(row) == {"rule_override_annotation": [], "rule_abstract_lookup": [],
                                     "rule_repeated_abstract": [], "rule_conditional_cascade": [],
                                     "rule_erasure_clash_pair": [], "rule_recovery_overload": [],
                                     "same_lines_ruled": False, "counts_differ_ruled": [],
                                     "rebound_missing_error_line": [[path, 421, 20]], "rebound_extra_error_line": []}


# ------------------------------------------------------------------ the subset's subtypes, the rules since

STRIPED = "src/main/java/com/google/common/util/concurrent/Striped.java"


def test_rule_recovery_binding_counts_unbound_extras_on_an_error_line_apart():
    """guava seed 15, edit 10: `Striped.custom` deleted, its callers kept. JDT leaves the lambda and the
    method reference passed to the unresolvable `custom(...)` unbound (pybridge reports them rebound to
    nothing); javac's recovery binds them as before. Both report the call's line."""
    row = {"javac": [[STRIPED, 199], [STRIPED, 236], [STRIPED, 259]],
           "pybridge": [[STRIPED, 199], [STRIPED, 236], [STRIPED, 259]],
           "messages": {"javac": [], "pybridge": []}, "rebound_missing": [],
           "rebound_extra": [[STRIPED, 235, 37], [STRIPED, 235, 53], [STRIPED, 258, 51]],
           "rebound_unbound": [[STRIPED, 235, 37], [STRIPED, 235, 53], [STRIPED, 258, 51]]}
    assert check_edit.ruled(row)["rebound_extra_error_line"] == row["rebound_extra"]
    row["rebound_unbound"] = [[STRIPED, 235, 37]]      # bound elsewhere by pybridge: not this rule's
    assert check_edit.ruled(row)["rebound_extra_error_line"] == [[STRIPED, 235, 37]]
    row["rebound_unbound"] = row["rebound_extra"]
    row["pybridge"] = [[STRIPED, 199]]                  # a line only javac reports: not ruled
    assert check_edit.ruled(row)["rebound_extra_error_line"] == []


MAPS = "src/main/java/com/google/common/collect/Maps.java"


def test_rule_abstract_lookup_sets_javacs_call_in_a_concrete_class_apart():
    """guava seed 11, edit 14: `tailMap(K, boolean)` renamed in Maps.UnmodifiableNavigableMap. javac
    does not look up a concrete class's inherited abstract methods, so `tailMap(fromKey, true)` (line
    3760) finds no method; JDT binds it to NavigableMap's (test_javac_skips_an_inherited_abstract_...)."""
    row = {"javac": [[MAPS, 3560], [MAPS, 3760], [MAPS, 3763]], "pybridge": [[MAPS, 3560], [MAPS, 3764]],
           "messages": {"javac": [
               [MAPS, 3560, "com.google.common.collect.Maps.UnmodifiableNavigableMap is not abstract and does not "
                "override abstract method tailMap(K,boolean) in java.util.NavigableMap   sta"],
               [MAPS, 3760, "method tailMap in class com.google.common.collect.Maps.UnmodifiableNavigableMap<K,V> "
                "cannot be applied to given types;       return tailMap(fromKey, true);     "],
               [MAPS, 3763, "method does not override or implement a method from a supertype     @Override     ^"]],
               "pybridge": [
               [MAPS, 3560, "The type Maps.UnmodifiableNavigableMap<K,V> must implement the inherited abstract "
                "method NavigableMap<K,V>.tailMap(K, boolean)"],
               [MAPS, 3764, "The method tailMapZz(K, boolean) of type Maps.UnmodifiableNavigableMap<K,V> must "
                "override or implement a supertype method"]]},
           "rebound_missing": [], "rebound_extra": []}
    out = check_edit.ruled(row)
    assert out["rule_abstract_lookup"] == [[MAPS, 3760]] and out["same_lines_ruled"]
    other = dict(row, messages={"javac": [row["messages"]["javac"][1], row["messages"]["javac"][2]],
                                "pybridge": row["messages"]["pybridge"]})
    assert check_edit.ruled(other)["rule_abstract_lookup"] == []       # no "not abstract" for that class


def test_rule_error_line_spans_a_call_whose_arguments_wrap():
    """guava seed 12, edit 5: `TypeToken.rawTypes` renamed; `ImmutableSet.copyOf(` on line 228 takes an
    argument on line 229 that no longer resolves: javac drops copyOf, the error is on line 229."""
    text = ("class A {\n  Object f() {\n    return ImmutableSet.copyOf(\n"
            "        TypeToken.of(c).getTypes().rawTypes());\n  }\n}\n")
    assert check_edit.call_extent(text, 2, 24) == (3, 4)          # copyOf( ... ) over lines 3-4
    assert check_edit.call_extent(text, 1, 9) == (2, 2)           # `f` then `(`: itself only
    assert check_edit.call_extent("a = b; // c(\n", 0, 4) == (1, 1)
    path = "src/main/java/com/google/common/eventbus/SubscriberRegistry.java"
    row = {"javac": [[path, 229]], "pybridge": [[path, 229]], "messages": {"javac": [], "pybridge": []},
           "rebound_missing": [[path, 227, 48]], "rebound_extra": []}
    assert check_edit.ruled(row)["rebound_missing_error_line"] == []
    row["rebound_missing_calls"] = [[path, 227, 48, 228, 229]]
    assert check_edit.ruled(row)["rebound_missing_error_line"] == [[path, 227, 48]]


def test_message_kinds_of_jdts_undefined_constructor_and_operator():
    """guava TreeBasedTable and UnsignedBytes (`param`): JDT says "undefined" of a constructor or an
    operator none fits; javac (-Xdiags:verbose) says the constructor cannot be applied, the operand types
    are bad."""
    assert check_edit.message_kind("The constructor TreeBasedTable<R,C,V>.TreeRow(R, Object, C) is undefined") \
        == check_edit.message_kind("constructor TreeRow in class TreeBasedTable<R,C,V>.TreeRow cannot be applied "
                                   "to given types;") == "arguments"
    assert check_edit.message_kind("The operator ^ is undefined for the argument type(s) Object, int") \
        == check_edit.message_kind("bad operand types for binary operator '^'") == "types"
    assert check_edit.message_kind("The method take(String) is undefined for the type A") == "unresolved"


def _javac(src: Path, out: Path, *options: str) -> list[tuple[str, int, str]]:
    """javac (the JDK running the tests) on every file of `src` into `out`: its errors as (file name,
    line, message), the message worded as bench/javac_refs logs it (types by qualified name:
    `-XDdiags.legacy`, the formatter `String.valueOf(diagnostic)` uses)."""
    out.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([_jdk_tool("javac"), "-XDdiags.legacy", *options, "-d", str(out),
                           *map(str, sorted(src.rglob("*.java")))], capture_output=True, text=True)
    return [(Path(m.group(1)).name, int(m.group(2)), m.group(3))
            for m in re.finditer(r"^(\S+\.java):(\d+): (?:error: )?(.*)$", proc.stderr, re.M)]


def _jdk_tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / name) if home else name


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


GRAPH = {"p/Base.java": "package p;\npublic interface Base { void z(); long BIG = 1L << 40; double D = 2.5; }\n",
         "p/Value.java": "package p;\npublic interface Value extends Base { }\n",
         "p/Mutable.java": "package p;\npublic interface Mutable extends Value { }\n",
         "p/Standard.java": "package p;\npublic class Standard implements Value {\n  public void z() { }\n"
                            "  Object anon() { return new Standard() { }; }\n}\n",
         "p/StandardMutable.java": "package p;\npublic class StandardMutable extends Standard\n"
                                   "    implements Mutable {\n}\n",
         "p/Other.java": "package p;\nclass Other { }\nclass Second extends Other { }\n"}


def test_subtype_files_come_from_javacs_class_output(tmp_path):
    """The subset's subtypes (guava seed 14: `BaseGraph.hasEdgeConnecting` renamed): every file declaring
    a transitive subtype of the edited type, read from the original's class files, though it names
    neither the old nor the new name; none for a kind that changes nothing they inherit."""
    _write(tmp_path / "src", GRAPH)
    assert _javac(tmp_path / "src", tmp_path / "classes") == []
    paths = [f"src/{p}" for p in GRAPH]
    h = driver.Hierarchy([tmp_path / "classes"], paths)
    assert h.types["p.Base"].flags & driver.ACC_INTERFACE and "z" in h.types["p.Base"].methods
    assert h.types["p.StandardMutable"].supers == ("p.Standard", "p.Mutable")
    assert h.file_of["p.Second"] == "src/p/Other.java" and h.file_of["p.Standard$1"] == "src/p/Standard.java"
    below = {"src/p/Value.java", "src/p/Mutable.java", "src/p/Standard.java", "src/p/StandardMutable.java"}
    for kind in ("rename", "delete", "param"):
        assert check_edit.subtype_files(h, "src/p/Base.java", kind, "z") == below
    assert check_edit.subtype_files(h, "src/p/Base.java", "overload_str", "z") == below    # an interface
    assert check_edit.subtype_files(h, "src/p/Standard.java", "overload_str", "z") == set()  # concrete
    for kind in ("body", "field", "hide", "overload"):
        assert check_edit.subtype_files(h, "src/p/Base.java", kind, "z") == set()
    assert check_edit.subtype_files(h, "src/p/Base.java", "rename", "absent") == set()


def test_rule_repeated_abstract_on_javac_and_ecj(tmp_path):
    """`Standard.z()` deleted: ecj (JDT) reports the unimplemented `Base.z()` once, on Standard; javac
    also on StandardMutable, which names Mutable (so Base) in its own `implements` clause (guava seed
    14: StandardMutableValueGraph under StandardValueGraph). The rule sets javac's second apart."""
    _write(tmp_path / "src", GRAPH)
    assert _javac(tmp_path / "src", tmp_path / "classes") == []
    h = driver.Hierarchy([tmp_path / "classes"], [f"src/{p}" for p in GRAPH])
    edited = dict(GRAPH, **{"p/Standard.java": "package p;\npublic class Standard implements Value {\n}\n"})
    _write(tmp_path / "copy", edited)
    messages = [(f"src/p/{f}", n, m) for f, n, m in _javac(tmp_path / "copy", tmp_path / "out", "-Xdiags:verbose")]
    assert sorted((p, n) for p, n, _ in messages) == [("src/p/Standard.java", 2), ("src/p/StandardMutable.java", 2)]
    ecj = subprocess.run([_jdk_tool("java"), "-jar", str(next((ROOT / "pybridge" / "jars").glob("ecj-*.jar"))),
                          "-17", "-d", "none", str(tmp_path / "copy")], capture_output=True, text=True)
    ours = {(f"src/p/{Path(m.group(1)).name}", int(m.group(2)))
            for m in re.finditer(r"ERROR in (\S+) \(at line (\d+)\)", ecj.stdout + ecj.stderr)}
    assert ours == {("src/p/Standard.java", 2)}
    javac_lines = {(p, n) for p, n, _ in messages}
    assert check_edit.repeated_abstract(messages, javac_lines, ours, h) == [["src/p/StandardMutable.java", 2]]
    assert check_edit.repeated_abstract(messages, javac_lines, set(), h) == []     # Standard's not both


def test_javac_skips_an_inherited_abstract_method_in_a_concrete_class(tmp_path):
    """What rule `abstract_lookup` rests on, on javac and ecj: in a concrete class that leaves an
    interface's `f(int, boolean)` unimplemented, javac finds no `f(a, true)`; ecj binds it (JLS
    15.12.2.1: the inherited abstract method is a member). In an abstract class javac finds it too."""
    _write(tmp_path / "src", {"q/C.java": "package q;\ninterface I { void f(int a, boolean b); void f(int a); }\n"
                                          "class C implements I {\n  public void f(int a) { f(a, true); }\n}\n"
                                          "abstract class D implements I {\n"
                                          "  public void f(int a) { f(a, true); }\n}\n"})
    javac = _javac(tmp_path / "src", tmp_path / "out", "-Xdiags:verbose")
    assert [n for _, n, _ in javac] == [3, 4]
    assert javac[1][2].startswith("method f in class q.C cannot be applied to given types")
    ecj = subprocess.run([_jdk_tool("java"), "-jar", str(next((ROOT / "pybridge" / "jars").glob("ecj-*.jar"))),
                          "-17", "-d", "none", str(tmp_path / "src")], capture_output=True, text=True)
    assert re.findall(r"\(at line (\d+)\)", ecj.stdout + ecj.stderr) == ["3"]


def test_rule_conditional_cascade_on_javac_and_ecj(tmp_path):
    """guava seed 12, edit 3 (`CharMatcher.Is.or` given an Object parameter): javac reports "bad type in
    conditional expression" for `other` beside the failed call in the other operand; ecj reports the
    call only (it reports the mismatch when no operand failed). The line's count differs by that one."""
    _write(tmp_path / "src", {"K.java": "class K {\n  K or(K o) { return o; }\n"
                                        "  K f(Object other) { return other.hashCode() > 0 ? other : or(other); }\n"
                                        "  K g(Object other) { return other.hashCode() > 0 ? other : this; }\n}\n"})
    javac = _javac(tmp_path / "src", tmp_path / "out", "-Xdiags:verbose")
    assert sorted(n for _, n, _ in javac) == [3, 3, 4]
    ecj = subprocess.run([_jdk_tool("java"), "-jar", str(next((ROOT / "pybridge" / "jars").glob("ecj-*.jar"))),
                          "-17", "-d", "none", str(tmp_path / "src")], capture_output=True, text=True)
    assert re.findall(r"\(at line (\d+)\)", ecj.stdout + ecj.stderr) == ["3", "4"]
    row = {"javac": [["K.java", 3], ["K.java", 4]], "pybridge": [["K.java", 3], ["K.java", 4]],
           "counts_differ": [["K.java", 3, 2, 1]], "rebound_missing": [], "rebound_extra": [],
           "messages": {"javac": [["K.java", n, m] for _, n, m in javac], "pybridge": []}}
    assert check_edit.ruled(row)["rule_conditional_cascade"] == [["K.java", 3]]
    row["counts_differ"] = [["K.java", 4, 2, 1]]        # line 4's one javac error is not a cascade
    assert check_edit.ruled(row)["rule_conditional_cascade"] == []


def test_rule_override_annotation_pairs_functional_interface_and_moves_counts():
    """commons-lang3 seed 17, edit 56: a method with a body added to FailableLongBinaryOperator: javac
    reports "Unexpected @FunctionalInterface annotation" on the annotation (line 28), JDT "... is not a
    functional interface" on the name (29). guava seed 17, edit 72: a stale `@Override` moved onto a line
    where javac already reports a name clash: the line's count then agrees (1 + 1 against JDT's 2)."""
    path = "src/main/java/org/apache/commons/lang3/function/FailableLongBinaryOperator.java"
    row = {"javac": [[path, 28], [path, 40]], "pybridge": [[path, 29], [path, 40]], "rebound_missing": [],
           "rebound_extra": [], "messages": {
               "javac": [[path, 28, "Unexpected @FunctionalInterface annotation @FunctionalInterface ^   org.apache."
                          "commons.lang3.function.FailableLongBinaryOperator is not a functional interface"]],
               "pybridge": [[path, 29, "Invalid '@FunctionalInterface' annotation; FailableLongBinaryOperator<E> "
                             "is not a functional interface"]]}}
    out = check_edit.ruled(row)
    assert out["rule_override_annotation"] == [[path, 28, 29]] and out["same_lines_ruled"]
    graph = "src/main/java/com/google/common/graph/AbstractUndirectedNetworkConnections.java"
    row = {"javac": [[graph, 98], [graph, 99]], "pybridge": [[graph, 99]], "rebound_missing": [], "rebound_extra": [],
           "counts_differ": [[graph, 99, 1, 2]], "messages": {
               "javac": [[graph, 99, "name clash: addOutEdge(java.lang.Object,N) in ..."],
                         [graph, 98, "method does not override or implement a method from a supertype   @Override"]],
               "pybridge": [[graph, 99, "Name clash: The method addOutEdge(Object, N) ... does not override it"],
                            [graph, 99, "The method addOutEdge(Object, N) of type AbstractUndirectedNetworkConnections"
                             "<N,E> must override or implement a supertype method"]]}}
    out = check_edit.ruled(row)
    assert out["rule_override_annotation"] == [[graph, 98, 99]] and out["same_lines_ruled"]
    assert out["counts_differ_ruled"] == []


def test_rule_abstract_lookup_reads_a_truncated_location():
    """guava seed 17, edit 42 (`ImmutableSortedMap.higherEntry` deleted): javac's "cannot find symbol" for
    the class's own `higherEntry(key)`, its location cut where the row's message was cut."""
    path = "src/main/java/com/google/common/collect/ImmutableSortedMap.java"
    row = {"javac": [[path, 68], [path, 1065]], "pybridge": [[path, 68]], "rebound_missing": [], "rebound_extra": [],
           "messages": {"javac": [
               [path, 68, "com.google.common.collect.ImmutableSortedMap is not abstract and does not override abstract "
                "method higherEntry(K) in java.util.NavigableMap public final class I"],
               [path, 1065, "cannot find symbol     return keyOrNull(higherEntry(key));                      ^   "
                "symbol:   method higherEntry(K)   location: class com.google.common.collect."]],
               "pybridge": []}}
    out = check_edit.ruled(row)
    assert out["rule_abstract_lookup"] == [[path, 1065]] and out["same_lines_ruled"]


def test_rule_recovery_binding_spans_the_statement_of_a_chain():
    """commons-lang3 seed 17, edit 83: `append`'s first parameter made Object makes the first call of a
    builder chain ambiguous (line 75, both report); JDT leaves the chain's later `.append` calls unbound,
    javac binds them. The statement holds the error line."""
    text = ("class T {\n  Object f() {\n    int a = 1;\n    return new B()\n        .append(1, new int[] {2})\n"
            "        .append(3, 4) // ; in a comment\n        .build();\n  }\n}\n")
    assert check_edit.statement_extent(text, 5, 9) == (4, 7)       # the initializer's braces do not end it
    assert check_edit.statement_extent(text, 2, 8) == (3, 3)
    path = "src/test/java/org/apache/commons/lang3/builder/DiffBuilderTest.java"
    row = {"javac": [[path, 75]], "pybridge": [[path, 75]], "messages": {"javac": [], "pybridge": []},
           "rebound_missing": [], "rebound_extra": [[path, 75, 17]], "rebound_unbound": [[path, 75, 17]]}
    assert check_edit.ruled(row)["rebound_extra_error_line"] == []
    row["rebound_extra_statements"] = [[path, 75, 17, 74, 81]]
    assert check_edit.ruled(row)["rebound_extra_error_line"] == [[path, 75, 17]]


PAIRWISE = "src/main/java/com/google/common/base/PairwiseEquivalence.java"


def _pairwise_row() -> dict:
    """guava seed 17, edit 75, as its row records it (messages cut at 160 characters by that run)."""
    return {"javac": [[PAIRWISE, 48], [PAIRWISE, 55]], "pybridge": [[PAIRWISE, 55]], "rebound_missing": [],
            "rebound_extra": [], "messages": {
                "javac": [[PAIRWISE, 48, "name clash: class PairwiseEquivalence has two methods with the same "
                           "erasure, yet neither overrides the other   protected int doHash(Iterable<T> iterable) {"
                           "     "],
                          [PAIRWISE, 55, "name clash: doHash(java.lang.Object) in com.google.common.base."
                           "PairwiseEquivalence and doHash(T) in com.google.common.base.Equivalence have the same "
                           "erasure, ye"]],
                "pybridge": [[PAIRWISE, 55, "Name clash: The method doHash(Object) of type PairwiseEquivalence<E,T> "
                              "has the same erasure as doHash(T) of type Equivalence<T> but does not hide it"]]}}


def test_rule_erasure_clash_pair_on_javac_and_ecj(tmp_path):
    """guava seed 17, edit 75: a static `doHash(Object)` added to PairwiseEquivalence, whose
    `doHash(Iterable<T>)` overrides `Equivalence.doHash(T)` (erasure `doHash(Object)`). javac reports the
    clash on the new method and again on the overrider ("class P has two methods with the same erasure",
    naming both); ecj once, on the new method. The rule sets javac's second apart, and nothing near it."""
    _write(tmp_path / "src", {"q/P.java": "package q;\nabstract class E<T> { protected abstract int doHash(T t); }\n"
                                          "final class P<T> extends E<Iterable<T>> {\n  @Override\n"
                                          "  protected int doHash(Iterable<T> it) { return 0; }\n"
                                          "  static void doHash(java.lang.Object zzBench) { }\n}\n"})
    javac = _javac(tmp_path / "src", tmp_path / "out", "-Xdiags:verbose")
    assert [(n, m.split(",")[0]) for _, n, m in javac] == [
        (5, "name clash: class P has two methods with the same erasure"),
        (6, "name clash: doHash(java.lang.Object) in q.P and doHash(T) in q.E have the same erasure")]
    ecj = subprocess.run([_jdk_tool("java"), "-jar", str(next((ROOT / "pybridge" / "jars").glob("ecj-*.jar"))),
                          "-17", "-d", "none", str(tmp_path / "src")], capture_output=True, text=True)
    out = ecj.stdout + ecj.stderr
    assert re.findall(r"\(at line (\d+)\)", out) == ["6"] and "has the same erasure as doHash(T)" in out
    row = _pairwise_row()
    ruled = check_edit.ruled(row)
    assert ruled["rule_erasure_clash_pair"] == [[PAIRWISE, 48]] and ruled["same_lines_ruled"]
    near = _pairwise_row()                           # JDT reports something else on the partner line
    near["messages"]["pybridge"][0][2] = "Duplicate method doHash(Object) in type PairwiseEquivalence<E,T>"
    assert check_edit.ruled(near)["rule_erasure_clash_pair"] == [] and not check_edit.ruled(near)["same_lines_ruled"]
    near = _pairwise_row()                           # javac's line 48 shows another method than the clash's
    near["messages"]["javac"][0][2] = near["messages"]["javac"][0][2].replace("doHash(Iterable", "hash(Iterable")
    assert check_edit.ruled(near)["rule_erasure_clash_pair"] == []
    near = _pairwise_row()                           # the partner line is javac's only
    near["pybridge"] = []
    assert check_edit.ruled(near)["rule_erasure_clash_pair"] == []
    near = _pairwise_row()                           # another error beside the clash on line 48
    near["messages"]["javac"].append([PAIRWISE, 48, "cannot find symbol   symbol: class Iterable"])
    assert check_edit.ruled(near)["rule_erasure_clash_pair"] == []


BIMAP = "src/main/java/com/google/common/collect/AbstractBiMap.java"
PRECONDITIONS = "com/google/common/base/Preconditions#"     # the bench's symbols: SCIP descriptors


def test_rule_recovery_overload_counts_another_overload_of_the_same_name_apart():
    """guava seed 17, edit 78 (`Objects.equal` renamed): `checkState(Objects.equal(value, get(getKey())),
    "entry no longer in map")` (AbstractBiMap line 354, an error line both report). pybridge reports
    `checkState` (0-based 353:6) rebound, not unbound; javac binds it as before. That row records no
    target (`rebound_extra_to` came after it): not ruled. With a target, another `checkState`: ruled."""
    row = {"javac": [[BIMAP, 354]], "pybridge": [[BIMAP, 354]], "messages": {"javac": [], "pybridge": []},
           "rebound_missing": [], "rebound_extra": [[BIMAP, 353, 6]], "rebound_unbound": [[BIMAP, 353, 25]]}
    assert check_edit.ruled(row)["rule_recovery_overload"] == []
    assert check_edit.ruled(row)["rebound_extra_error_line"] == []
    row["rebound_extra_to"] = [[BIMAP, 353, 6, PRECONDITIONS + "checkState(+1).", PRECONDITIONS + "checkState(+2)."]]
    assert check_edit.ruled(row)["rule_recovery_overload"] == [[BIMAP, 353, 6]]
    assert check_edit.ruled(row)["rebound_extra_error_line"] == []          # recovery_binding's are unbound
    key = "Lcom/google/common/base/Preconditions;.checkState(ZLjava/lang/Object;)V"
    row["rebound_extra_to"] = [[BIMAP, 353, 6, key, key.replace("Ljava/lang/Object;", "Ljava/lang/String;C")]]
    assert check_edit.ruled(row)["rule_recovery_overload"] == [[BIMAP, 353, 6]]   # binding keys alike
    row["rebound_extra_to"] = [[BIMAP, 353, 6, PRECONDITIONS + "checkState(+1).", PRECONDITIONS + "checkArgument()."]]
    assert check_edit.ruled(row)["rule_recovery_overload"] == []            # another name: not an overload
    row["rebound_extra_to"] = [[BIMAP, 353, 6, PRECONDITIONS + "checkState(+1).",
                                "com/google/common/base/Verify#checkState(+1)."]]
    assert check_edit.ruled(row)["rule_recovery_overload"] == []            # same name, another type
    row["rebound_extra_to"] = [[BIMAP, 353, 6, PRECONDITIONS + "checkState(+1).", None]]
    assert check_edit.ruled(row)["rule_recovery_overload"] == []            # unbound: recovery_binding's
    row["rebound_extra_to"] = [[BIMAP, 353, 6, PRECONDITIONS + "checkState(+1).", PRECONDITIONS + "checkState(+2)."]]
    row["pybridge"] = []                                                     # javac's error line only
    assert check_edit.ruled(row)["rule_recovery_overload"] == []


PRE = """package p;

public final class Pre {
  public static void checkState(boolean expression) { }

  public static void checkState(boolean expression, Object errorMessage) { }

  public static void checkState(boolean expression, String template, Object... args) { }

  public static void checkState(boolean expression, String template, char p1) { }

  public static void checkState(boolean expression, String template, Object p1) { }
}
"""
USE = """package p;

import static p.Pre.checkState;

class Use<V> {
  V value;

  V get(Object key) { return value; }

  void set(V value, Object key) {
    checkState(Eq.equal(value, get(key)), "entry no longer in map");
  }
}
"""


def test_jdt_rebinds_a_call_whose_argument_lost_its_type_to_another_overload(tmp_path, worker):
    """What rule `recovery_overload` rests on, guava seed 17 #78 in small (AbstractBiMap's
    `checkState(Objects.equal(value, get(getKey())), "...")`, `Objects.equal` renamed), on pybridge: the
    argument's call no longer resolves (its line's error is JDT's "The method equal(V, V) is undefined",
    worded as guava's row has it), and JDT's recovery binds `checkState` to another of its overloads,
    `(boolean, String, Object...)` for `(boolean, Object)`; the row records the target in the bench's
    symbols (`rebound_extra_to`)."""
    root = tmp_path / "probe"
    _write(root, {"pom.xml": (ROOT / "samples" / "edits" / "pom.xml").read_text(encoding="utf-8"),
                  "src/main/java/p/Pre.java": PRE, "src/main/java/p/Use.java": USE,
                  "src/main/java/p/Eq.java": "package p;\n\npublic final class Eq {\n  public static boolean "
                                             "equal(Object a, Object b) { return a == b; }\n}\n"})
    sync(root, state_dir=tmp_path / "state", worker=worker)
    text = (root / "src/main/java/p/Eq.java").read_text(encoding="utf-8").replace("equal(", "equalZz(")
    with Store.open(store_path(tmp_path / "state"), readonly=True) as store, store.reader() as reader:
        session = EditSession(root.resolve(), reader, worker, lambda i, k: f"{i}", lambda d, m: d)   # as the bench
        answer = pybridge_check_edit(session, [FileChange(path="src/main/java/p/Eq.java", text=text)])
    assert [(d.range.start.line + 1, d.message) for d in answer.diagnostics.added] == [
        (11, "The method equal(V, V) is undefined for the type Eq")]
    rebound = sorted((r.range.start.line, r.range.start.character, r.from_.symbol, r.to and r.to.symbol)
                     for r in answer.rebound)
    assert rebound == [(10, 4, "p/Pre#checkState(+1).", "p/Pre#checkState(+2)."), (10, 18, "p/Eq#equal().", None)]
    [moved] = [r for r in answer.rebound if r.to is not None]
    assert (moved.from_.display, moved.to.display) == ("checkState(boolean, Object)",
                                                       "checkState(boolean, String, Object...)")
    use = "src/main/java/p/Use.java"
    row = {"javac": [[use, 11]], "pybridge": [[use, 11]], "messages": {"javac": [], "pybridge": []},
           "rebound_missing": [], "rebound_extra": [[use, 10, 4]], "rebound_unbound": [[use, 10, 18]],
           "rebound_extra_to": [[use, 10, 4, "p/Pre#checkState(+1).", "p/Pre#checkState(+2)."]]}
    assert check_edit.ruled(row)["rule_recovery_overload"] == [[use, 10, 4]]


def test_the_methods_a_seed_draws_from_come_in_source_order(tmp_path, worker):
    """`check_edit.methods` and `method_edits.methods` list them by path and place, not in the store's
    row order: after an edit of the first file, its new version's rows come last."""
    root = tmp_path / "probe"
    _write(root, {"pom.xml": (ROOT / "samples" / "edits" / "pom.xml").read_text(encoding="utf-8"),
                  "src/main/java/p/A.java": "package p;\n\nclass A {\n  void b() { }\n\n  void a() { }\n}\n",
                  "src/main/java/p/B.java": "package p;\n\nclass B {\n  void c() { }\n}\n"})
    sync(root, state_dir=tmp_path / "state", worker=worker)
    a = root / "src/main/java/p/A.java"
    a.write_text(a.read_text(encoding="utf-8") + "// edited\n", encoding="utf-8")
    sync(root, state_dir=tmp_path / "state", worker=worker)
    assert [(path.rsplit("/", 1)[-1], name) for path, name, _span, _end in check_edit.methods(tmp_path / "state")] == [
        ("A.java", "b"), ("A.java", "a"), ("B.java", "c")]
    # bench/method_edits.py's, which incremental.py and worktrees.py draw from
    assert [(m.path.rsplit("/", 1)[-1], m.span[0]) for m in method_edits.methods(store_path(tmp_path / "state"))] == [
        ("A.java", 3), ("A.java", 5), ("B.java", 3)]
