package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jdt.core.JavaCore;
import org.junit.BeforeClass;
import org.junit.Test;

/** Pins the visitor's kind and span decisions on small sources, one decision per test. */
public class IndexerTest {
    private static Path root;

    @BeforeClass
    public static void setUp() throws IOException {
        root = Files.createTempDirectory("pybridge-indexer-test");
        write("p/A.java",
                "package p;\n"
                + "public class A {\n"
                + "  int f; int[] arr = new int[3];\n"
                + "  A() { this(1); }\n"
                + "  A(int x) { super(); }\n"
                + "  void m() {\n"
                + "    f = 1; f += 2; f++; --f; int g = f; arr[0] = g; arr[1]++;\n"
                + "    new A().m(); Runnable r = this::m; java.util.function.Supplier<A> s = A::new;\n"
                + "    String t = \"\u00e9\uD83D\uDE00\"; f = 3;\n"
                + "  }\n"
                + "}\n");
        write("p/B.java",
                "package p;\n"
                + "import static p.C.over;\n"
                + "public class B extends A implements Runnable {\n"
                + "  @Override public void run() { over(1); C.K.name(); }\n"
                + "  enum E { X(1), Y(2) { }; E(int v) {} }\n"
                + "}\n");
        write("p/C.java",
                "package p;\n"
                + "public class C {\n"
                + "  enum K { ONE }\n"
                + "  static int over(int a) { return a; }\n"
                + "  static int over(String a) { return 0; }\n"
                + "}\n");
    }

    private static void write(String rel, String text) throws IOException {
        TestSupport.write(root, rel, text);
    }

    private static final String[] KINDS = {"read", "write", "read_write", "invocation", "construction", "method_reference", "type_use"};

    /** Each reference as "line:start-end kind targetKey" for the given file. */
    private static List<String> refs(String rel) {
        String file = root.resolve(rel).toString();
        Batch b = Indexer.index(new String[] {root.resolve("p/A.java").toString(), root.resolve("p/B.java").toString(),
                root.resolve("p/C.java").toString()}, new String[] {root.toString()}, new String[0], "17", "UTF-8", true, null);
        String[] strings = b.strings.split("\0", -1);
        List<String> out = new ArrayList<>();
        for (int f = 0; f < b.files.length; f += Batch.FILE_WIDTH) {
            if (!strings[b.files[f]].equals(file)) continue;
            for (int r = b.files[f + 4]; r < b.files[f + 5]; r++) {
                int o = r * Batch.REF_WIDTH;
                int[] row = Arrays.copyOfRange(b.refs, o, o + Batch.REF_WIDTH);
                out.add(row[2] + ":" + row[3] + "-" + row[5] + " " + KINDS[row[6]] + " " + strings[row[0]]);
            }
        }
        return out;
    }

    private static void assertHas(List<String> refs, String expected) {
        assertTrue("missing " + expected + " in " + refs, refs.contains(expected));
    }

    @Test
    public void assignmentsAreWritesCompoundAndIncrementsAreReadWrites() {
        List<String> r = refs("p/A.java");
        assertHas(r, "6:4-5 write Lp/A;.f)I");
        assertHas(r, "6:11-12 read_write Lp/A;.f)I");
        assertHas(r, "6:19-20 read_write Lp/A;.f)I");
        assertHas(r, "6:26-27 read_write Lp/A;.f)I");
        assertHas(r, "6:37-38 read Lp/A;.f)I");
    }

    @Test
    public void anArrayBeingAssignedIntoIsARead() {
        List<String> r = refs("p/A.java");
        assertHas(r, "6:40-43 read Lp/A;.arr)[I");
        assertHas(r, "6:52-55 read Lp/A;.arr)[I");
    }

    @Test
    public void thisAndSuperCallsAreInvocationsAtTheKeyword() {
        List<String> r = refs("p/A.java");
        assertHas(r, "3:8-12 invocation Lp/A;.(I)V");
        assertHas(r, "4:13-18 invocation Ljava/lang/Object;.()V");
    }

    @Test
    public void newIsAConstructionOfBothTheClassAndTheConstructorAtTheTypeToken() {
        List<String> r = refs("p/A.java");
        assertHas(r, "7:8-9 construction Lp/A;");
        assertHas(r, "7:8-9 construction Lp/A;.()V");
        assertHas(r, "7:12-13 invocation Lp/A;.m()V");
    }

    @Test
    public void methodAndConstructorReferencesSpanTheNameAndTheNewKeyword() {
        List<String> r = refs("p/A.java");
        assertHas(r, "7:36-37 method_reference Lp/A;.m()V");
        assertHas(r, "7:77-80 method_reference Lp/A;.()V");
    }

    @Test
    public void positionsAreUtf16CodeUnitsAfterNonAsciiText() {
        // "\u00e9" is one UTF-16 unit, the emoji two: f sits at character 22 on line 8.
        assertHas(refs("p/A.java"), "8:22-23 write Lp/A;.f)I");
    }

    @Test
    public void aStaticImportNamesEveryOverloadOfThatName() {
        List<String> r = refs("p/B.java");
        assertHas(r, "1:18-22 type_use Lp/C;.over(I)I");
        assertHas(r, "1:18-22 type_use Lp/C;.over(Ljava/lang/String;)I");
        assertHas(r, "3:32-36 invocation Lp/C;.over(I)I");
    }

    @Test
    public void enumConstantsConstructAtTheirNameEvenWithABody() {
        // JDT keys an enum constructor with its synthetic name and ordinal parameters.
        List<String> r = refs("p/B.java");
        assertHas(r, "4:11-12 construction Lp/B$E;.(Ljava/lang/String;II)V");
        assertHas(r, "4:17-18 construction Lp/B$E;.(Ljava/lang/String;II)V");
    }

    @Test
    public void headersAreTypeUses() {
        List<String> r = refs("p/B.java");
        assertHas(r, "2:23-24 type_use Lp/A;");
        assertHas(r, "2:36-44 type_use Ljava/lang/Runnable;");
        assertHas(r, "3:3-11 type_use Ljava/lang/Override;");
    }

    @Test
    public void aFileWithASyntaxErrorIsNotBindingComplete() throws IOException {
        write("q/Bad.java", "package q;\npublic class Bad { void m() { int x = 1 } }\n");
        Batch b = Indexer.index(new String[] {root.resolve("q/Bad.java").toString()}, new String[] {root.toString()},
                new String[0], "17", "UTF-8", true, null);
        assertEquals(1, b.files.length / Batch.FILE_WIDTH);
        assertFalse(b.files[1] == 1);
        assertTrue(b.probs.length >= Batch.PROB_WIDTH);
        assertEquals(Kinds.SYNTAX, b.probs[0]);
    }

    /** Only errors become facts: warnings, infos and task tags are off (ecj's -nowarn), errors are kept. */
    @Test
    public void optionalProblemsAreOffAndErrorsStay() {
        Map<String, String> defaults = JavaCore.getOptions();
        Map<String, String> options = new HashMap<>(defaults);
        Indexer.quiet(options);
        assertTrue(defaults.containsValue(JavaCore.WARNING));
        assertFalse(options.containsValue(JavaCore.WARNING));
        assertFalse(options.containsValue(JavaCore.INFO));
        assertEquals("", options.get(JavaCore.COMPILER_TASK_TAGS));
        for (Map.Entry<String, String> e : defaults.entrySet()) {
            if (JavaCore.ERROR.equals(e.getValue())) {
                assertEquals(e.getKey(), JavaCore.ERROR, options.get(e.getKey()));
            }
        }
    }

    /** Messages of the problems the indexer reports for one file indexed alone. */
    private static List<String> problemsOf(Path file) {
        Batch b = Indexer.index(new String[] {file.toString()}, new String[] {file.getParent().toString()},
                new String[0], "17", "UTF-8", false, null);
        String[] strings = b.strings.split("\0", -1);
        List<String> out = new ArrayList<>();
        for (int p = 0; p < b.probs.length; p += Batch.PROB_WIDTH) out.add(strings[b.probs[p + 2]]);
        return out;
    }

    /**
     * No byte code is generated (NoCodegen): a method over the 64 KB limit, an error only code
     * generation finds, is not reported, while resolution and flow-analysis errors still are. With
     * {@code -Dpybridge.generateCode=true} JDT generates code and reports it.
     */
    @Test
    public void byteCodeIsNotGenerated() throws IOException {
        StringBuilder big = new StringBuilder("package q;\npublic class Big {\n  int m(int x) {\n");
        for (int i = 0; i < 12000; i++) big.append("    x += ").append(100000 + i).append(";\n");
        big.append("    return x;\n  }\n  int n() { return missing(); }\n  int k() { int y; return y; }\n}\n");
        Path file = root.resolve("q/Big.java");
        Files.createDirectories(file.getParent());
        Files.write(file, big.toString().getBytes(StandardCharsets.UTF_8));

        List<String> without = problemsOf(file);
        assertEquals(without.toString(), 2, without.size());
        assertTrue(without.toString(), without.stream().anyMatch(m -> m.contains("missing")));
        assertTrue(without.toString(), without.stream().anyMatch(m -> m.contains("not have been initialized")));

        System.setProperty("pybridge.generateCode", "true");
        List<String> with;
        try {
            with = problemsOf(file);
        } finally {
            System.clearProperty("pybridge.generateCode");
        }
        assertTrue(with.toString(), with.stream().anyMatch(m -> m.contains("65535")));
    }
}
