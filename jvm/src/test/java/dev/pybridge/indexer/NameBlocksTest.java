package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.BeforeClass;
import org.junit.Test;

/** Pins which names a file leaves unaccounted for (the facts behind coverage, DESIGN section 8). */
public class NameBlocksTest {
    private static final String[] REASONS = {"unbound", "uncertain_call", "incomplete_hierarchy", "syntax", "javadoc"};
    private static Path root;
    private static Batch batch;

    @BeforeClass
    public static void setUp() throws IOException {
        root = Files.createTempDirectory("pybridge-blocks-test");
        write("q/Clean.java",
                "package q;\n"
                + "import java.util.List;\n"
                + "/** Uses {@link List}. */\n"
                + "public class Clean {\n"
                + "  record P(int x) {}\n"
                + "  sealed interface S permits T {}\n"
                + "  final class T implements S {}\n"
                + "  int run(List<String> xs) {\n"
                + "    var n = 0;\n"
                + "    outer: for (String s : xs) { for (int i = 0; i < 2; i++) { if (i > n) continue outer; n++; } }\n"
                + "    int k = switch (n) { case 0 -> 1; default -> { yield 2; } };\n"
                + "    return new P(k).x();\n"
                + "  }\n"
                + "}\n");
        write("q/Base.java",
                "package q;\n"
                + "public class Base {\n"
                + "  public static void over(String s) {}\n"
                + "  public static void over(Object o) {}\n"
                + "  public void helper() {}\n"
                + "}\n");
        write("q/Uses.java",
                "package q;\n"
                + "import ghost.Ghost;\n"
                + "import ghost.Marker;\n"
                + "public class Uses {\n"
                + "  @Marker(level = 2) void a(Ghost g) {\n"
                + "    g.helper();\n"
                + "    Base.over(g.name());\n"
                + "    Base.over(\"fine\");\n"
                + "    new Base().helper();\n"
                + "  }\n"
                + "}\n");
        write("q/Child.java",
                "package q;\n"
                + "public class Child extends ghost.Parent {\n"
                + "  void f() { g(); }\n"
                + "  void g() {}\n"
                + "  int local() { int v = 1; return v; }\n"
                + "}\n");
        write("q/Broken.java",
                "package q;\n"
                + "public class Broken {\n"
                + "  int before() { return 1; }\n"
                + "  int bad(int x) { int y = x + 1 return y; }\n"
                + "  int after() { return before(); }\n"
                + "}\n");
        String[] files = {"q/Clean.java", "q/Base.java", "q/Uses.java", "q/Child.java", "q/Broken.java"};
        String[] paths = new String[files.length];
        for (int i = 0; i < files.length; i++) paths[i] = root.resolve(files[i]).toString();
        batch = Indexer.index(paths, new String[] {root.toString()}, new String[0], "17", "UTF-8", true, null);
    }

    private static void write(String rel, String text) throws IOException {
        TestSupport.write(root, rel, text);
    }

    /**
     * The blocked names of a file: name -> "reason line:char xcount", the reason and place of its
     * first blocked token (rows come one per token, in order) and how many of its tokens are blocked.
     */
    private static Map<String, String> blocks(String rel) {
        String file = root.resolve(rel).toString();
        String[] strings = batch.strings.split("\0", -1);
        Map<String, String> first = new TreeMap<>();
        Map<String, Integer> count = new TreeMap<>();
        for (int f = 0; f < batch.files.length; f += Batch.FILE_WIDTH) {
            if (!strings[batch.files[f]].equals(file)) continue;
            for (int b = batch.files[f + 13]; b < batch.files[f + 14]; b++) {
                int o = b * Batch.BLOCK_WIDTH;
                String name = strings[batch.blocks[o]];
                first.putIfAbsent(name, REASONS[batch.blocks[o + 1]] + " " + batch.blocks[o + 2] + ":" + batch.blocks[o + 3]);
                count.merge(name, 1, Integer::sum);
            }
            Map<String, String> out = new TreeMap<>();
            first.forEach((name, at) -> out.put(name, at + " x" + count.get(name)));
            return out;
        }
        throw new AssertionError("no file " + rel);
    }

    @Test
    public void aFileTheCompilerBoundCompletelyBlocksNoName() {
        // labels, var, yield, record, sealed, permits, package prefixes and a Javadoc link all accounted for
        assertEquals(new TreeMap<String, String>(), blocks("q/Clean.java"));
        assertEquals(new TreeMap<String, String>(), blocks("q/Base.java"));
    }

    @Test
    public void aMemberReachedThroughAnUnresolvedTypeBlocksItsName() {
        Map<String, String> b = blocks("q/Uses.java");
        assertEquals("unbound 5:6 x1", b.get("helper"));
        assertEquals("unbound 1:13 x2", b.get("Ghost"));
        assertEquals("unbound 6:16 x1", b.get("name"));
    }

    @Test
    public void anOverloadChosenWithAnUnresolvedArgumentTypeBlocksTheMethodName() {
        assertEquals("uncertain_call 6:9 x1", blocks("q/Uses.java").get("over"));
    }

    @Test
    public void anElementOfAnUnresolvedAnnotationBlocksNothingButTheAnnotationName() {
        Map<String, String> b = blocks("q/Uses.java");
        assertTrue(b.toString(), !b.containsKey("level"));
        assertEquals("unbound 2:13 x2", b.get("Marker"));
    }

    @Test
    public void aNameLookedUpInATypeWithAnUnresolvedSupertypeIsUncertainButALocalIsNot() {
        Map<String, String> b = blocks("q/Child.java");
        assertEquals("incomplete_hierarchy 2:13 x1", b.get("g"));
        assertTrue(b.toString(), !b.containsKey("v") && !b.containsKey("local"));
    }

    @Test
    public void aSyntaxErrorBlocksTheNamesOfTheMemberItDamagedOnly() {
        Map<String, String> b = blocks("q/Broken.java");
        assertEquals("syntax 3:6 x1", b.get("bad"));
        assertEquals("syntax 3:14 x2", b.get("x"));
        assertTrue(b.toString(), !b.containsKey("before") && !b.containsKey("after"));
    }
}
