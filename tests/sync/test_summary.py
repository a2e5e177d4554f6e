"""A file's summary for incremental sync (pybridge/sync/summary.py)."""

import random
from pathlib import Path

from pybridge.edits.names import why_invalid
from pybridge.sync.summary import IDENTIFIER, RESERVED, body_start, names, signatures
from pybridge.worker import IndexRequest, Worker
from tests.support.indexing import java_files


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


# Every case `summary.signatures` handles, in files the indexer reads: Javadoc with quotes, backslashes,
# tabs, form feeds and a control character; text beyond Latin-1 and beyond the BMP; a text block; an
# annotation's methods (no body to stop at); enum constants with bodies; a record; members of local and
# anonymous classes (inside bodies: no signature); annotations with braces before a body; CRLF and CR
# line breaks; a file with syntax errors.
_SIGNED = {
    "p/Tricky.java": (
        "package p;\n\n"
        "import java.util.List;\n\n"
        "/** A \"quoted\" \\ backslash,\ta tab,\f a form feed, \u0001 a control, é, 🎉 beyond the BMP. */\n"
        "public class Tricky<T extends Comparable<T>> extends Base implements Runnable, java.io.Serializable {\n"
        "    /** Größe 🎉 */ public static final String S = \"\"\"\n"
        "        a { text ; block \" \\\"\"\" \n        \"\"\";\n"
        "    @SuppressWarnings({\"unchecked\", \"rawtypes\"}) /* { */ // ;\n"
        "    protected <U extends List<? super T>> U[] m(final U[] a, int... more) throws Exception { return a; }\n"
        "    char c = '{'; char d = '\\''; int[] e = {1, 2};\n"
        "    public void run() { class Local { int hidden() { return 1; } }\n"
        "        new Runnable() { public void run() {} }; }\n"
        "    enum Color { RED(1) { int x() { return 2; } }, GREEN(2); Color(int v) {} int x() { return 0; } }\n"
        "    record R(int a, @Deprecated String b) implements Comparable<R> {\n"
        "        public int compareTo(R o) { return 0; } }\n"
        "    @interface Tag { String value() default \"{\"; int[] n() default {1}; }\n"
        "    interface Shape { double area(); default double twice() { return 2 * area(); } }\n"
        "    Tricky() { super(); }\n"
        "}\n"),
    "p/Base.java": ("package p;\r\n/** CRLF */\r\npublic abstract class Base {\r\n  protected abstract void run();\r\n"
                    "  int f;\r\n}\r\n"),
    "p/Cr.java": ("package p;\r/** CR only */\rpublic class Cr extends Base {\r  public void run() {}\r"
                  "  int g = 1;\r}\r"),
    "p/Broken.java": "package p;\npublic class Broken extends Missing { void m( { }\n",
}


def _signed_sources(root: Path) -> list[str]:
    for rel, text in _SIGNED.items():
        path = root / "src" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return java_files(root / "src")


def test_the_indexer_computes_the_signatures_summary_would(worker, samples, tmp_path):
    """dev.pybridge.indexer.Signatures is `summary.signatures` in the JVM: the same entries, digest for
    digest, on the tricky sources and on every sample, or none at all (then Python computes them)."""
    roots = [tmp_path / "src", samples / "kitchen-sink" / "src/main/java", samples / "renames" / "app/src/main/java",
             samples / "edits" / "src/main/java"]
    _signed_sources(tmp_path)
    files = []
    for root in roots:
        files += worker.index(IndexRequest(files=java_files(root), sourcepath=[str(root)])).files
    assert len(files) > 20
    for ff in files:
        assert ff.signatures is not None, ff.path
        text = Path(ff.path).read_bytes().decode("utf-8", errors="replace")
        assert ff.signatures == signatures(text, ff), ff.path
    by_name = {Path(ff.path).name: ff for ff in files}
    tricky = by_name["Tricky.java"].signatures
    assert tricky is not None and len(tricky) > 20
    assert not any("Local" in key or "hidden" in key for key in tricky)     # inside a body: left out


def test_a_text_the_indexer_may_read_otherwise_gets_its_signatures_from_python(worker, tmp_path):
    """A malformed byte, or a charset other than UTF-8: the indexer leaves the signatures to the parent
    (None), and the staging computes them (pipeline `_stage_one`)."""
    src = tmp_path / "src" / "p"
    src.mkdir(parents=True)
    (src / "Bad.java").write_bytes(b"package p;\n/** caf\xe9 */\npublic class Bad { void m() {} }\n")
    (src / "Good.java").write_bytes(b"package p;\npublic class Good { void m() {} }\n")
    result = worker.index(IndexRequest(files=java_files(tmp_path / "src"), sourcepath=[str(tmp_path / "src")]))
    by_name = {Path(ff.path).name: ff for ff in result.files}
    assert by_name["Bad.java"].signatures is None and by_name["Good.java"].declarations
    assert by_name["Good.java"].signatures is not None
    latin = worker.index(IndexRequest(files=[str(src / "Good.java")], sourcepath=[str(tmp_path / "src")],
                                      encoding="ISO-8859-1"))
    assert latin.files[0].signatures is None


def test_the_switch_turns_the_indexers_signatures_off(samples, monkeypatch):
    monkeypatch.setenv("PYBRIDGE_JVM_ARGS", "-Dpybridge.jvmSignatures=false")
    root = samples / "kitchen-sink" / "src/main/java"
    with Worker(heap="512m") as w:
        files = w.index(IndexRequest(files=java_files(root), sourcepath=[str(root)])).files
    assert files and all(ff.signatures is None for ff in files)
