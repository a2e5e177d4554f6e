package dev.pybridge.indexer;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.internal.compiler.batch.ClasspathJrt;
import org.eclipse.jdt.internal.compiler.batch.FileSystem;
import org.eclipse.jdt.internal.compiler.batch.FileSystem.Classpath;

/**
 * The system library of a Java release older than the running JDK, as javac's {@code --release N}
 * sees it: the running JDK's {@code lib/ct.sym} (JEP 247), through ecj's own release classpath
 * ({@link FileSystem#getOlderSystemRelease}).
 *
 * <p>ASTParser offers no way to pass it: {@code setEnvironment(..., includeRunningVMBootclasspath)}
 * adds the running JDK's image ({@link ClasspathJrt}) and nothing else. So {@link #bind} wraps the
 * parser's compilation-unit resolver and, in the classpath list that ASTParser hands it, replaces
 * that image with the release's view. The workspace's own classpath and sourcepath are untouched.
 * When the release is the running JDK's, or ct.sym cannot supply it, the parser is left as it is:
 * Python names that a limitation ({@code pybridge.sync.release}), from the same facts.
 */
final class ReleaseLibrary {
    private ReleaseLibrary() {}

    /** The running JDK's feature release (17 for 17.0.15). */
    static int runningRelease() {
        return Runtime.version().feature();
    }

    /** Each release's library, made once per JVM: JDT shares its running-JDK image the same way
     *  (FileSystem's JRT_CLASSPATH_CACHE); a batch only reads it. Empty: the JDK cannot supply it. */
    private static final Map<Integer, Optional<Classpath>> MADE = new ConcurrentHashMap<>();

    /**
     * The release's system library from ct.sym, initialized; null when the running JDK cannot
     * supply it (no ct.sym, or ct.sym lacks the release) or when it is the running JDK's own.
     */
    static Classpath of(int release) {
        return MADE.computeIfAbsent(release, r -> Optional.ofNullable(make(r))).orElse(null);
    }

    private static Classpath make(int release) {
        if (release <= 0 || release >= runningRelease()) return null;
        String home = System.getProperty("java.home");
        if (!new File(home, "lib/ct.sym").isFile()) return null;
        try {
            Classpath cp = FileSystem.getOlderSystemRelease(home, Integer.toString(release), null);
            if (cp == null) return null;
            cp.initialize();
            return cp;
        } catch (Exception e) {             // IllegalArgumentException: "release N is not found"
            return null;
        }
    }

    /**
     * Makes {@code parser} bind against {@code release}'s API; false (the parser unchanged) when
     * {@link #of} gives nothing for it.
     */
    static boolean bind(ASTParser parser, int release) {
        Classpath system = of(release);
        if (system == null) return false;
        try {
            UnitResolvers.wrap(parser, entries -> replaceImage(entries, system));
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("pybridge could not give JDT the system library of Java " + release
                    + " (ASTParser.unitResolver); this JDT version is not the one pybridge was built with", e);
        }
    }

    /** The list with the running JDK's image (exactly a ClasspathJrt, as ASTParser adds it) replaced. */
    private static List<?> replaceImage(List<?> entries, Classpath system) {
        boolean any = false;
        List<Object> out = new ArrayList<>(entries.size());
        for (Object e : entries) {
            if (e != null && e.getClass() == ClasspathJrt.class) {
                if (!any) out.add(system);
                any = true;
            } else {
                out.add(e);
            }
        }
        return any ? out : entries;
    }
}
