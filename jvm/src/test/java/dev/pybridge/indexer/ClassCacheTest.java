package dev.pybridge.indexer;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jdt.internal.compiler.batch.ClasspathDirectory;
import org.eclipse.jdt.internal.compiler.batch.FileSystem;
import org.junit.Before;
import org.junit.Test;

/**
 * The class cache ({@link ClassCache}, PYBRIDGE_CLASS_CACHE): a file indexed alone in a warm JVM gives
 * the same facts, byte for byte, whether the unchanged files it reaches are read from their sources or
 * from the class files an earlier request kept; the cache does serve them; what it must not keep
 * (errors, records, annotation types, constants computed from other files, secondary types) it does not keep; an edited
 * file is read from its source again.
 *
 * <p>The fixture declares no method without a body: under {@code gradle test} Lombok's agent patches
 * JDT's DOM converter, and the patch fails to load for one (NoClassDefFoundError lombok.eclipse.EcjAugments,
 * with or without this cache); tests/worker/test_class_cache.py covers those, in a worker without the agent.
 */
public class ClassCacheTest {
    private Path root;

    @Before
    public void setUp() throws Exception {
        ClassCache.clear();
        root = Files.createTempDirectory("pybridge-classcache-test");
        write("p/Base.java", "package p;\npublic class Base<T extends Comparable<T>> {\n  protected T value;\n"
                + "  public T get() { return value; }\n  public void set(T t) { value = t; }\n"
                + "  public static int count(int a) { return a; }\n  public static int count(String s) { return 0; }\n"
                + "  public class Inner { public int x; }\n"
                + "  public static class Nested<U> { public U u; public Nested(U u) { this.u = u; } }\n}\n");
        write("p/Color.java", "package p;\npublic enum Color {\n  RED(\"r\"), GREEN(\"g\") { @Override public String code() { return \"G\"; } };\n"
                + "  final String code;\n  Color(String c) { code = c; }\n"
                + "  public static Color valueOf(int i) { return values()[i]; }\n  public String code() { return code; }\n}\n");
        write("p/Plain.java", "package p;\npublic enum Plain { A, B }\n");
        write("p/Consts.java", "package p;\npublic class Consts {\n  public static final int A = 1;\n"
                + "  public static final int B = Lits.A + 1;\n}\n");
        write("p/Lits.java", "package p;\npublic class Lits {\n  public static final int A = -1;\n"
                + "  public static final long L = 2L;\n  public static final String S = \"x\";\n  public static int notConstant = A;\n}\n");
        write("p/Point.java", "package p;\npublic record Point(int x, int y) {\n  public int sum() { return x + y; }\n}\n");
        write("p/Shape.java", "package p;\npublic sealed interface Shape permits Circle, Square {\n  default double area() { return 0; }\n"
                + "  default String label() { return \"shape\"; }\n  static Shape unit() { return new Circle(); }\n}\n");
        write("p/Circle.java", "package p;\npublic final class Circle implements Shape { public double area() { return 3.14; } }\n");
        write("p/Square.java", "package p;\npublic non-sealed class Square implements Shape {\n"
                + "  public double area() { return 1; }\n  public Square() {}\n  public Square(double side) {}\n}\n");
        write("p/Ann.java", "package p;\nimport java.lang.annotation.*;\n@Retention(RetentionPolicy.SOURCE)\n"
                + "public @interface Ann { String value() default \"a\"; int n() default Lits.A; }\n");
        write("p/Impl.java", "package p;\npublic class Impl extends Base<String> implements Runnable, java.util.function.Supplier<String>, Comparable<Impl> {\n"
                + "  public String get() { return \"\"; }\n  public void run() {}\n"
                + "  public int compareTo(Impl o) { return 0; }\n}\n");
        write("p/Outer.java", "package p;\npublic class Outer {\n  public interface Listener extends java.util.function.IntConsumer { default void on(int x) { accept(x); } }\n"
                + "  public static <E extends Exception> void fail(E e) throws E { throw e; }\n"
                + "  Object anon = new Object() { public String toString() { return \"o\"; } };\n}\n"
                + "class OuterHelper { static void help() {} }\n");
        write("p/Gen.java", "package p;\nimport java.util.*;\npublic class Gen {\n"
                + "  @SafeVarargs public static <T extends Number & Comparable<T>> T max(T... ts) throws java.io.IOException { return ts[0]; }\n"
                + "  public <K, V extends List<? super K>> Map<K, V> map(K k, V v) { return null; }\n"
                + "  public Gen() {}\n  public Gen(int x) {}\n  public void over(int a) {}\n  public void over(long a) {}\n"
                + "  public void over(Object a) {}\n  public void over(int... a) {}\n}\n");
        write("p/Iface.java", "package p;\npublic interface Iface<T> {\n  int LIMIT = 10;\n  default T make() { return null; }\n"
                + "  default Iface<T> self() { return this; }\n  static <T> Iface<T> of(T t) { return new Iface<T>() { public T make() { return t; } }; }\n}\n");
        write("p/Broken.java", "package p;\npublic class Broken {\n  public Missing field;\n  public int ok() { return 1; }\n}\n");
        // Many overloads, as commons-lang3's ArrayUtils has: JDT sorts a type's methods by name in an
        // unstable sort, so a class file (its methods in another order) lists the overloads in another order.
        write("p/Many.java", "package p;\npublic class Many {\n"
                + "  public static void reverse(final boolean[] array) { }\n"
                + "  public static void reverse(final boolean[] array, final int s, final int e) { }\n"
                + "  public static void swap(final boolean[] array, int i, int j) { }\n"
                + "  public static boolean[] add(boolean[] a, boolean b) { return a; }\n"
                + "  public static void reverse(final byte[] array) { }\n"
                + "  public static void reverse(final byte[] array, final int s, final int e) { }\n"
                + "  public static void swap(final byte[] array, int i, int j) { }\n"
                + "  public static byte[] add(byte[] a, byte b) { return a; }\n"
                + "  public static void reverse(final char[] array) { }\n"
                + "  public static void reverse(final char[] array, final int s, final int e) { }\n"
                + "  public static void swap(final char[] array, int i, int j) { }\n"
                + "  public static char[] add(char[] a, char b) { return a; }\n"
                + "  public static void reverse(final double[] array) { }\n"
                + "  public static void reverse(final double[] array, final int s, final int e) { }\n"
                + "  public static void swap(final double[] array, int i, int j) { }\n"
                + "  public static double[] add(double[] a, double b) { return a; }\n"
                + "  public static void reverse(final float[] array) { }\n"
                + "  public static void reverse(final float[] array, final int s, final int e) { }\n"
                + "  public static void swap(final float[] array, int i, int j) { }\n"
                + "  public static float[] add(float[] a, float b) { return a; }\n"
                + "  public static void reverse(final int[] array) { }\n"
                + "  public static void reverse(final int[] array, final int s, final int e) { }\n"
                + "  public static void swap(final int[] array, int i, int j) { }\n"
                + "  public static int[] add(int[] a, int b) { return a; }\n"
                + "  public static void reverse(final long[] array) { }\n"
                + "  public static void reverse(final long[] array, final int s, final int e) { }\n"
                + "  public static void swap(final long[] array, int i, int j) { }\n"
                + "  public static long[] add(long[] a, long b) { return a; }\n"
                + "  public static void reverse(final Object[] array) { }\n"
                + "  public static void reverse(final Object[] array, final int s, final int e) { }\n"
                + "  public static void swap(final Object[] array, int i, int j) { }\n"
                + "  public static <T> T[] add(T[] a, T b) { return a; }\n"
                + "  public static void reverse(final short[] array) { }\n"
                + "  public static void reverse(final short[] array, final int s, final int e) { }\n"
                + "  public static void swap(final short[] array, int i, int j) { }\n"
                + "  public static short[] add(short[] a, short b) { return a; }\n"
                + "}\n");
        write("p/PUser.java", "package p;\nimport java.util.function.*;\npublic class PUser {\n"
                + "  void m() throws Exception {\n    OuterHelper.help();\n    String s = new Impl().get();\n"
                + "    Function<Color, String> f = Color::code;\n    Point pt = new Point(1, 2);\n    int x = pt.x() + pt.y();\n"
                + "    Outer.Listener l = v -> {};\n    Outer.fail(new Exception());\n    int b = Consts.B + Consts.A;\n"
                + "    Broken br = new Broken(); br.ok(); Object o = br.field;\n    Supplier<Square> sq = Square::new;\n"
                + "    Iface<String> i = Iface.of(\"s\"); i.self().make(); int lim = Iface.LIMIT;\n  }\n}\n");
        write("q/User.java", "package q;\nimport static p.Base.count;\nimport p.*;\nimport java.util.*;\n"
                + "@Ann(\"u\")\npublic class User extends Impl {\n  Base.Nested<Integer> n = new Base.Nested<>(1);\n"
                + "  Base<String>.Inner in = new Impl().new Inner();\n"
                + "  int c = count(1) + count(\"s\");\n"
                + "  String describe(Color c, Plain p, Shape s) {\n"
                + "    switch (c) { case RED: return \"r\"; default: break; }\n"
                + "    switch (p) { case A -> { return \"a\"; } case B -> { return \"b\"; } }\n"
                + "    if (s instanceof Circle ci) return ci.label();\n"
                + "    switch (3) { case Lits.A: return \"m\"; case Consts.B: return \"b\"; case 5: return \"5\"; default: }\n"
                + "    Color.valueOf(\"RED\"); Color.valueOf(1); Color[] all = Color.values(); Plain.values(); Plain.valueOf(\"A\");\n"
                + "    Gen g = new Gen(); new Gen(2); g.over(1); g.over(1L); g.over(\"x\"); g.over(1, 2);\n"
                + "    Map<String, List<Object>> m = g.map(\"k\", new ArrayList<Object>());\n"
                + "    try { Integer mx = Gen.max(1, 2); } catch (java.io.IOException e) {}\n"
                + "    Base<String> b = new Base<String>() { public String get() { return value; } };\n"
                + "    b.set(\"v\"); super.run(); this.compareTo(this); Shape.unit().area(); new Square(2).label();\n"
                + "    Many.reverse(new Object[0]); Many.reverse(new int[0], 1, 2); Many.add(new String[0], \"s\"); Many.swap(new long[0], 1, 2);\n"
                + "    Runnable r = this::run; new Object() {}.hashCode(); long L = Lits.L + Lits.notConstant;\n"
                + "    return Lits.S + in.x + n.u + m.size() + all.length;\n  }\n"
                + "  @Override public String get() { return \"u\"; }\n}\n");
        // Files changed in the last 2 s are not kept (git's racy-file rule): let the fixture age.
        Thread.sleep(ClassCache.RACY_MILLIS + 100);
    }

    private void write(String rel, String text) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.write(p, text.getBytes(StandardCharsets.UTF_8));
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(p -> p.toString().endsWith(".java")).map(Path::toString).sorted().collect(Collectors.toList());
        }
    }

    private Batch index(List<String> files, boolean cache) {
        return Indexer.index(files.toArray(new String[0]), new String[] {root.toString()}, new String[0], "17", "",
                "UTF-8", true, true, cache, null, null);
    }

    private static void assertSameFacts(String what, Batch expected, Batch actual) {
        assertEquals(what, expected.strings, actual.strings);
        assertArrayEquals(what, expected.files, actual.files);
        assertArrayEquals(what, expected.decls, actual.decls);
        assertArrayEquals(what, expected.refs, actual.refs);
        assertArrayEquals(what, expected.rels, actual.rels);
        assertArrayEquals(what, expected.probs, actual.probs);
        assertArrayEquals(what, expected.exts, actual.exts);
        assertArrayEquals(what, expected.blocks, actual.blocks);
    }

    @Test
    public void eachFileAloneGivesTheSameFactsFromClassFilesAsFromSources() throws Exception {
        List<String> all = files();
        List<Batch> fromSources = new ArrayList<>();
        for (String f : all) fromSources.add(index(List.of(f), false));
        long stored = ClassCache.storedUnits();
        assertSameFacts("whole", index(all, false), index(all, true));
        assertTrue(ClassCache.storedUnits() > stored);
        for (String kept : new String[] {"p/Base.java", "p/Color.java", "p/Plain.java", "p/Lits.java", "p/Impl.java",
                "p/Gen.java", "p/Iface.java", "p/Many.java", "p/Shape.java", "p/Circle.java", "p/Square.java", "q/User.java"}) {
            assertTrue(kept, ClassCache.holds(root.resolve(kept).toString()));
        }
        for (String not : new String[] {"p/Point.java", "p/Ann.java", "p/Consts.java", "p/Broken.java", "p/PUser.java", "p/Outer.java"}) {
            assertFalse(not, ClassCache.holds(root.resolve(not).toString()));
        }
        long served = ClassCache.servedTypes();
        for (int i = 0; i < all.size(); i++) {
            assertSameFacts(all.get(i), fromSources.get(i), index(List.of(all.get(i)), true));
        }
        assertTrue(ClassCache.servedTypes() > served);
    }

    @Test
    public void anEditedFileIsReadFromItsSourceAgain() throws Exception {
        List<String> all = files();
        index(all, true);
        String user = root.resolve("q/User.java").toString();
        // Base gains an overload of count and Gen one of over: User's calls bind differently.
        write("p/Base.java", new String(Files.readAllBytes(root.resolve("p/Base.java")), StandardCharsets.UTF_8)
                .replace("public static int count(String s)", "public static int count(long l) { return 1; }\n  public static int count(String s)"));
        write("p/Gen.java", new String(Files.readAllBytes(root.resolve("p/Gen.java")), StandardCharsets.UTF_8)
                .replace("public void over(long a) {}", "public void over(long a) {}\n  public void over(short a) {}"));
        // Lits.A is 4 now, so Consts.B (Lits.A + 1) is 5: User's switch has a duplicate case label, which
        // a class file of Consts kept with B = 0 would hide.
        write("p/Lits.java", new String(Files.readAllBytes(root.resolve("p/Lits.java")), StandardCharsets.UTF_8)
                .replace("A = -1", "A = 4"));
        Batch off = index(List.of(user), false);
        assertTrue(off.strings.contains("Duplicate case"));
        long served = ClassCache.servedTypes();
        assertSameFacts("after the edit", off, index(List.of(user), true));
        assertTrue(ClassCache.servedTypes() > served);      // the unchanged files still come from class files
        // The edited files, compiled again (too recently changed to be kept), stay read from source.
        index(List.of(root.resolve("p/Base.java").toString(), root.resolve("p/Gen.java").toString()), true);
        assertFalse(ClassCache.holds(root.resolve("p/Base.java").toString()));
        assertSameFacts("after the edit, compiled", off, index(List.of(user), true));
    }

    /**
     * A class file served names a member type of a type read from source (p/Holder$In, Holder not kept:
     * a constant computed from another file), and one names a type whose file was deleted since: the
     * first is found through its top-level type's file, the second makes JDT stop (a type "indirectly
     * referenced from required .class files"), and the request goes on from sources alone.
     */
    @Test
    public void memberTypesOfSourceTypesAndDeletedTypesNamedByClassFiles() throws Exception {
        write("r/Holder.java", "package r;\npublic class Holder {\n  public static final int N = p.Lits.A + 1;\n"
                + "  public static class In { public int v; }\n}\n");
        write("r/Gone.java", "package r;\npublic class Gone { public int w; }\n");
        write("r/Api.java", "package r;\npublic class Api {\n  public Holder.In make() { return new Holder.In(); }\n"
                + "  public Gone gone() { return null; }\n  public int ok() { return 1; }\n}\n");
        write("r/Use.java", "package r;\npublic class Use { int u() { return new Api().make().v + new Api().ok(); } }\n");
        write("r/UseGone.java", "package r;\npublic class UseGone { int u() { Object g = new Api().gone(); return new Api().ok(); } }\n");
        Thread.sleep(ClassCache.RACY_MILLIS + 100);
        List<String> all = files();
        index(all, true);
        assertTrue(ClassCache.holds(root.resolve("r/Api.java").toString()));
        assertFalse(ClassCache.holds(root.resolve("r/Holder.java").toString()));
        List<String> use = List.of(root.resolve("r/Use.java").toString());
        assertSameFacts("member of a source type", index(use, false), index(use, true));
        Files.delete(root.resolve("r/Gone.java"));
        List<String> both = List.of(root.resolve("r/UseGone.java").toString(), root.resolve("r/Use.java").toString());
        Batch off = index(both, false);
        assertEquals(2 * Batch.FILE_WIDTH, off.files.length);
        long drops = ClassCache.drops();
        assertSameFacts("a deleted type", off, index(both, true));
        assertEquals(drops + 1, ClassCache.drops());
    }

    /**
     * A check compiles against a shadow of the root (pybridge.edits.overlay): folders of symbolic links to
     * the root's files, with the changed file a real file. Its unchanged files are served by their real
     * paths from what the root's requests kept; the changed one is read from the shadow; nothing is kept.
     */
    @Test
    public void aShadowOfTheRootIsServedByRealPaths() throws Exception {
        List<String> all = files();
        index(all, true);
        Path shadow = Files.createTempDirectory("pybridge-classcache-shadow");
        for (String f : all) {
            Path rel = root.relativize(Path.of(f));
            Files.createDirectories(shadow.resolve(rel).getParent());
            if (rel.toString().equals("q/User.java")) {
                Files.write(shadow.resolve(rel), new String(Files.readAllBytes(Path.of(f)), StandardCharsets.UTF_8)
                        .replace("int c = count(1)", "int c = count(2)").getBytes(StandardCharsets.UTF_8));
            } else {
                Files.createSymbolicLink(shadow.resolve(rel), Path.of(f));
            }
        }
        String[] user = {shadow.resolve("q/User.java").toString()};
        String[] sourcepath = {shadow.toString()};
        Batch off = Indexer.index(user, sourcepath, new String[0], "17", "", "UTF-8", true, true, false, null, null);
        long served = ClassCache.servedTypes();
        long stored = ClassCache.storedUnits();
        Batch on = Indexer.index(user, sourcepath, new String[0], "17", "", "UTF-8", true, true, true,
                new String[] {root.toString()}, null);
        assertSameFacts("shadow", off, on);
        assertTrue(ClassCache.servedTypes() > served);
        assertEquals(stored, ClassCache.storedUnits());
        assertFalse(ClassCache.holds(user[0]));
    }

    /** Canary: the JDT internals ClassCache and CachedClasspath read are as they were built against. */
    @Test
    public void theJdtInternalsTheCacheReadsAreThere() throws Exception {
        ClasspathDirectory dir = (ClasspathDirectory) FileSystem.getClasspath(root.toString(), "UTF-8", true, null, null,
                java.util.Map.of(), null);
        assertNotNull(dir);
        Field mode = ClasspathDirectory.class.getDeclaredField("mode");
        mode.setAccessible(true);
        assertTrue(ClassCache.readsSources(mode, dir));
        Field units = org.eclipse.jdt.internal.compiler.Compiler.class.getField("unitsToProcess");
        assertNotNull(units);
        assertNotNull(org.eclipse.jdt.core.dom.FileASTRequestor.class.getDeclaredField("compilationUnitResolver"));
        dir.getModulesDeclaringPackage("p", null);
        CachedClasspath cached = new CachedClasspath(dir, new CachedClasspath.Answers() {
            @Override
            public org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer replace(
                    org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer answer, String name) {
                return answer;
            }

            @Override
            public void consulted(String dir) {
                // nothing to watch
            }

            @Override
            public org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer member(
                    org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer top, String name) {
                return top;
            }
        });
        assertEquals(null, cached.findClass("Base".toCharArray(), "p", null, "p/Base.class", false));
        assertNotNull(dir.findClass("Base".toCharArray(), "p", null, "p/Base.class", false).getCompilationUnit());
    }
}
