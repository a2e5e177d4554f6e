package dev.pybridge.indexer;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarFile;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.internal.compiler.batch.ClasspathDirectory;
import org.eclipse.jdt.internal.compiler.batch.FileSystem;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The worker's shared secondary-type search ({@link SecondaryTypes}) answers as JDT's own does, parses
 * each unchanged file once per JVM instead of once per request, and parses a changed file again.
 */
public class SecondaryTypesTest {
    private static Path root;

    @BeforeClass
    public static void setUp() throws Exception {
        root = Files.createTempDirectory("pybridge-secondary-test");
        write("p/A.java", "package p;\npublic class A {}\nclass Helper { static int h() { return 1; } }\ninterface Second {}\n");
        write("p/B.java", "package p;\npublic class B {}\nclass Dup { int b; }\n");
        write("p/C.java", "package p;\npublic class C {}\nclass Dup { int c; }\nenum Third { X }\n");
        write("p/Broken.java", "package p;\npublic class Broken { void m( { }\nclass AfterError {}\n");
        write("p/Shout.JAVA", "package p;\nclass Loud {}\n");
        write("p/Moving.java", "package p;\npublic class Moving {}\ninterface Moved {}\n");
        write("p/sub/Deep.java", "package p.sub;\nclass DeepSecondary {}\n");
        write("p/User.java", "package p;\npublic class User {\n  int u = Helper.h();\n  Second s; Third t; Dup d;\n"
                + "  AfterError e; Moved m; String name;\n}\n");
        // Files changed in the last 2 s are not kept (git's racy-file rule): let the fixture age.
        Thread.sleep(SecondaryTypes.RACY_MILLIS + 100);
    }

    private static void write(String rel, String text) throws IOException {
        TestSupport.write(root, rel, text);
    }

    private static Map<String, String> options() {
        Map<String, String> options = JavaCore.getOptions();
        JavaCore.setComplianceOptions(JavaCore.VERSION_17, options);
        return options;
    }

    private static ClasspathDirectory folder() {
        ClasspathDirectory dir = (ClasspathDirectory) FileSystem.getClasspath(root.toString(), "UTF-8", true, null, null,
                options(), null);
        dir.getModulesDeclaringPackage("p", null);      // lists the package, as a lookup does first
        return dir;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> jdtAnswer(ClasspathDirectory dir) throws Exception {
        Method m = ClasspathDirectory.class.getDeclaredMethod("getSecondaryTypes", String.class);
        m.setAccessible(true);
        return (Map<String, String>) m.invoke(dir, "p");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> sharedAnswer(ClasspathDirectory dir) throws Exception {
        SecondaryTypes.share(dir);
        Field f = ClasspathDirectory.class.getDeclaredField("packageSecondaryTypes");
        f.setAccessible(true);
        Map<String, Map<String, String>> packages = (Map<String, Map<String, String>>) f.get(dir);
        assertTrue(packages instanceof SecondaryTypes.Shared);
        return packages.computeIfAbsent("p", k -> {
            throw new AssertionError("JDT's own search was called");
        });
    }

    @Test
    public void answersAsJdtDoesFirstFromParsesThenFromTheCache() throws Exception {
        Map<String, String> jdt = jdtAnswer(folder());
        for (String name : new String[] {"Helper", "Second", "Dup", "Third"}) {
            assertTrue(name + " in " + jdt, jdt.containsKey(name));
        }
        assertFalse(jdt.containsKey("DeepSecondary"));
        assertEquals(jdt, sharedAnswer(folder()));
        long parsed = SecondaryTypes.parsedFiles();
        assertEquals(jdt, sharedAnswer(folder()));  // a new request's folder, answered from the cache
        // (but for Moving.java, if the other test has just changed it: a racy file is parsed again)
        assertTrue(SecondaryTypes.parsedFiles() - parsed <= 1);
    }

    private static Batch index(boolean cache) {
        return Indexer.index(new String[] {root.resolve("p/User.java").toString()}, new String[] {root.toString()},
                new String[0], "17", "", "UTF-8", true, cache, null);
    }

    private static void assertSameFacts(Batch a, Batch b) {
        assertEquals(a.strings, b.strings);
        assertArrayEquals(a.files, b.files);
        assertArrayEquals(a.decls, b.decls);
        assertArrayEquals(a.refs, b.refs);
        assertArrayEquals(a.rels, b.rels);
        assertArrayEquals(a.probs, b.probs);
        assertArrayEquals(a.exts, b.exts);
        assertArrayEquals(a.blocks, b.blocks);
    }

    private static int problems(Batch b) {
        return b.probs.length / Batch.PROB_WIDTH;
    }

    @Test
    public void aSecondRequestParsesNoUnchangedFileAndAChangedOneAgain() throws Exception {
        Batch off = index(false);
        long parsed = SecondaryTypes.parsedFiles();
        Batch first = index(true);
        assertSameFacts(off, first);
        long second0 = SecondaryTypes.parsedFiles();
        assertTrue("the first request parses the package's files", second0 - parsed <= 7);
        Batch second = index(true);
        assertSameFacts(off, second);
        assertEquals("the second request parses none", second0, SecondaryTypes.parsedFiles());
        long reused = SecondaryTypes.reusedFiles();
        index(true);
        assertEquals("each of the package's 7 source files is reused", reused + 7, SecondaryTypes.reusedFiles());

        // Moved leaves Moving.java: User's field type no longer resolves; only Moving.java is parsed again.
        write("p/Moving.java", "package p;\npublic class Moving {}\n");
        Batch changedOff = index(false);
        long before = SecondaryTypes.parsedFiles();
        Batch changedOn = index(true);
        assertEquals(before + 1, SecondaryTypes.parsedFiles());
        assertSameFacts(changedOff, changedOn);
        assertEquals(problems(off) + 1, problems(changedOn));
    }

    @Test
    public void aCopyOfTheSourcesIsAnsweredFromTheParsesOfTheFirstButForTheFileThatDiffers() throws Exception {
        Path copy = Files.createTempDirectory("pybridge-secondary-copy");
        for (String rel : new String[] {"p/A.java", "p/B.java", "p/C.java", "p/Broken.java", "p/Shout.JAVA",
                "p/Moving.java", "p/sub/Deep.java", "p/User.java"}) {
            Path to = copy.resolve(rel);
            Files.createDirectories(to.getParent());
            Files.copy(root.resolve(rel), to);
        }
        // one file differs from the first checkout: its secondary type is another
        Files.write(copy.resolve("p/B.java"), "package p;\npublic class B {}\nclass Dup2 { int b; }\n"
                .getBytes(StandardCharsets.UTF_8));
        ClasspathDirectory jdtDir = (ClasspathDirectory) FileSystem.getClasspath(copy.toString(), "UTF-8", true, null,
                null, options(), null);
        jdtDir.getModulesDeclaringPackage("p", null);
        Map<String, String> jdt = jdtAnswer(jdtDir);
        assertTrue(jdt.containsKey("Dup2") && jdt.get("Helper").startsWith(copy.toString()));
        boolean was = SecondaryTypes.byContent;
        try {
            // By content (the warm worker's way): the first checkout's files parsed, then the copies (new
            // paths, changed just now: racy) read, and parsed only where the bytes are new.
            SecondaryTypes.byContent = true;
            SecondaryTypes.clear();
            sharedAnswer(folder());
            long parsed = SecondaryTypes.parsedFiles();
            long reused = SecondaryTypes.reusedFiles();
            assertEquals(jdt, sharedAnswer(copyFolder(copy)));
            assertEquals("only the file that differs is parsed", parsed + 1, SecondaryTypes.parsedFiles());
            assertEquals("the other 6 source files of the package are reused", reused + 6, SecondaryTypes.reusedFiles());
            // Without (a worker that indexes once and exits): each racy copy is parsed.
            SecondaryTypes.byContent = false;
            assertEquals(jdt, sharedAnswer(copyFolder(copy)));
            assertEquals(parsed + 1 + 7, SecondaryTypes.parsedFiles());
        } finally {
            SecondaryTypes.byContent = was;
        }
    }

    private static ClasspathDirectory copyFolder(Path copy) {
        ClasspathDirectory dir = (ClasspathDirectory) FileSystem.getClasspath(copy.toString(), "UTF-8", true, null,
                null, options(), null);
        dir.getModulesDeclaringPackage("p", null);
        return dir;
    }

    private static String bundleVersion(Class<?> c) throws Exception {
        File jar = new File(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile j = new JarFile(jar)) {
            return j.getManifest().getMainAttributes().getValue("Bundle-Version");
        }
    }

    /**
     * Canary: SecondaryTypes reads private fields of ecj's ClasspathDirectory (packageSecondaryTypes,
     * directoryCache, missingPackageHolder, encoding, options), wraps ASTParser.unitResolver, and mirrors the
     * private ClasspathDirectory.getSecondaryTypes. A new JDT may change any of them: when this fails, check
     * them against the new sources (and the test above), then update the versions here.
     */
    @Test
    public void jdtIsTheVersionTheSecondaryTypeCacheWasCheckedAgainst() throws Exception {
        assertTrue(bundleVersion(ClasspathDirectory.class), bundleVersion(ClasspathDirectory.class).startsWith("3.46.100."));
        assertTrue(bundleVersion(ASTParser.class), bundleVersion(ASTParser.class).startsWith("3.47.0."));
    }
}
