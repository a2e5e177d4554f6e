package dev.pybridge.indexer;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Type annotations in a supertype clause, whose names JDT's DOM leaves unbound: the indexer binds
 * them as javac does ({@link AnnotationNames}) when the lookup is exact, and keeps them blocked
 * when it is not.
 */
public class AnnotationNamesTest {
    private static Path root;
    private static Batch batch;
    private static String[] strings;
    private static final String[] FILES = {"a/NN.java", "a/Other.java", "b/NN.java", "p/Local.java", "p/Elem.java", "p/M.java",
            "p/Shadow.java", "p/Twice.java", "p/Pkg.java"};

    @BeforeClass
    public static void setUp() throws IOException {
        root = Files.createTempDirectory("pybridge-annotation-names-test");
        String typeUse = "import java.lang.annotation.*;\n@Target(ElementType.TYPE_USE) public @interface ";
        write("a/NN.java", "package a;\n" + typeUse + "NN {}\n");
        write("a/Other.java", "package a;\npublic class Other {}\n");
        write("b/NN.java", "package b;\n" + typeUse + "NN {}\n");
        write("p/Local.java", "package p;\n" + typeUse + "Local {}\n");
        write("p/Elem.java", "package p;\n" + typeUse + "Elem { int level(); }\n");
        write("p/M.java",
                "package p;\n"
                + "import java.util.Map;\n"
                + "import a.NN;\n"
                + "public interface M<B> extends Map<Class<? extends @NN B>, B> {}\n"
                + "interface M2<B> extends Map<Class<? extends @Local B>, B> {}\n"
                + "interface M3<B> extends Map<Class<? extends @Elem(level = 2) B>, B> {}\n");
        // A member type of that name is in scope before any import: not looked up, stays blocked.
        write("p/Shadow.java",
                "package p;\n"
                + "import java.util.Map;\n"
                + "import a.NN;\n"
                + "public interface Shadow<B> extends Map<Class<? extends @NN B>, B> { @interface NN {} }\n");
        // Two on-demand imports with a type of that name: ambiguous (javac reports it), stays blocked.
        write("p/Twice.java",
                "package p;\n"
                + "import java.util.Map;\n"
                + "import a.*;\n"
                + "import b.*;\n"
                + "public interface Twice<B> extends Map<Class<? extends @NN B>, B> {}\n");
        // One on-demand import has it.
        write("p/Pkg.java",
                "package p;\n"
                + "import java.util.Map;\n"
                + "import b.*;\n"
                + "public interface Pkg<B> extends Map<Class<? extends @NN B>, B> {}\n");
        String[] paths = new String[FILES.length];
        for (int i = 0; i < FILES.length; i++) paths[i] = root.resolve(FILES[i]).toString();
        batch = Indexer.index(paths, new String[] {root.toString()}, new String[0], "17", "UTF-8", true, null);
        strings = batch.strings.split("\0", -1);
    }

    private static void write(String rel, String text) throws IOException {
        TestSupport.write(root, rel, text);
    }

    private static final String[] KINDS = {"read", "write", "read_write", "invocation", "construction", "method_reference", "type_use"};

    private static int[] rows(String rel, int start, int end) {
        String file = root.resolve(rel).toString();
        for (int f = 0; f < batch.files.length; f += Batch.FILE_WIDTH) {
            if (strings[batch.files[f]].equals(file)) return new int[] {batch.files[f + start], batch.files[f + end]};
        }
        throw new AssertionError("no file " + rel);
    }

    /** Each reference of a file as "line:start-end kind targetKey". */
    private static List<String> refs(String rel) {
        int[] range = rows(rel, 4, 5);
        List<String> out = new ArrayList<>();
        for (int r = range[0]; r < range[1]; r++) {
            int o = r * Batch.REF_WIDTH;
            out.add(batch.refs[o + 2] + ":" + batch.refs[o + 3] + "-" + batch.refs[o + 5] + " " + KINDS[batch.refs[o + 6]] + " "
                    + strings[batch.refs[o]]);
        }
        return out;
    }

    /** The names a file leaves blocked. */
    private static List<String> blocked(String rel) {
        int[] range = rows(rel, 13, 14);
        List<String> out = new ArrayList<>();
        for (int r = range[0]; r < range[1]; r++) out.add(strings[batch.blocks[r * Batch.BLOCK_WIDTH]]);
        return out;
    }

    private static void assertHas(List<String> refs, String expected) {
        assertTrue("missing " + expected + " in " + refs, refs.contains(expected));
    }

    @Test
    public void aSingleTypeImportedAnnotationInASupertypeClauseIsATypeUse() {
        assertHas(refs("p/M.java"), "3:51-53 type_use La/NN;");
        assertFalse(blocked("p/M.java").toString(), blocked("p/M.java").contains("NN"));
    }

    @Test
    public void aSamePackageAnnotationAndItsElementAreBound() {
        List<String> r = refs("p/M.java");
        assertHas(r, "4:45-50 type_use Lp/Local;");
        assertHas(r, "5:45-49 type_use Lp/Elem;");
        assertHas(r, "5:50-55 invocation Lp/Elem;.level()I");
        assertTrue(blocked("p/M.java").toString(), blocked("p/M.java").isEmpty());
    }

    @Test
    public void anOnDemandImportThatAloneHasTheNameBindsIt() {
        assertHas(refs("p/Pkg.java"), "3:53-55 type_use Lb/NN;");
    }

    @Test
    public void aMemberTypeOfThatNameOrTwoOnDemandImportsKeepTheNameBlocked() {
        assertTrue(blocked("p/Shadow.java").toString(), blocked("p/Shadow.java").contains("NN"));
        assertTrue(blocked("p/Twice.java").toString(), blocked("p/Twice.java").contains("NN"));
        for (String f : new String[] {"p/Shadow.java", "p/Twice.java"}) {
            for (String ref : refs(f)) assertFalse(ref, ref.startsWith("3:") && ref.contains("NN"));
        }
    }
}
