package dev.pybridge.indexer;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.internal.compiler.CompilationResult;
import org.eclipse.jdt.internal.compiler.DefaultErrorHandlingPolicies;
import org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration;
import org.eclipse.jdt.internal.compiler.ast.TypeDeclaration;
import org.eclipse.jdt.internal.compiler.batch.ClasspathDirectory;
import org.eclipse.jdt.internal.compiler.batch.CompilationUnit;
import org.eclipse.jdt.internal.compiler.impl.CompilerOptions;
import org.eclipse.jdt.internal.compiler.parser.Parser;
import org.eclipse.jdt.internal.compiler.problem.DefaultProblemFactory;
import org.eclipse.jdt.internal.compiler.problem.ProblemReporter;
import org.eclipse.jdt.internal.compiler.util.Util;

/**
 * JDT's search for secondary types (a type declared in a file of another name), kept across the
 * requests of one warm worker, per file.
 *
 * <p>When a simple name is not a type of the sourcepath by its file name ({@code String} looked up
 * as {@code p/String.java} in the package {@code p} being compiled), JDT's batch name environment
 * ({@code NameEnvironmentWithProgress.findType}) asks each source folder for a secondary type, and
 * the folder ({@code ClasspathDirectory.getSecondaryTypes}) parses every {@code .java} file of the
 * package to find them. It keeps the answer per package, but only for its own life: one request.
 * On hibernate-core (6,238 files) this was 20 to 50% of the JVM's CPU time for a one-file edit (the
 * larger share while the JIT still warms up the parser).
 *
 * <p>{@link #install} makes each source folder of the request answer through a map that reuses,
 * for each file, the secondary type names parsed in an earlier request while the file's size,
 * mtime, ctime and inode are those it was parsed at. A file changed less than {@link #RACY_MILLIS}
 * before it was parsed is read again next time (git's racy-file rule: a second change within the
 * file system's time granularity could leave the stat unchanged). With {@link #byContent} (the warm
 * worker's), a file read is parsed only if no file with the same bytes was: a new checkout of the
 * same repository (a git worktree) reuses the parses of its sibling's files, which have other paths.
 * The answer, built in the same order from the same parse, is the one JDT would build: the JUnit test
 * {@code SecondaryTypesTest} compares the two on a folder with every case.
 *
 * <p>JDT internals this reads (ecj 3.46.100, checked by {@code SecondaryTypesTest}): the private
 * fields {@code ClasspathDirectory.packageSecondaryTypes} (replaced), {@code directoryCache},
 * {@code missingPackageHolder}, {@code encoding} and {@code options}, and
 * {@code ASTParser.unitResolver} (wrapped, as {@link ReleaseLibrary} does); the parse mirrors the
 * private {@code ClasspathDirectory.getSecondaryTypes}.
 */
final class SecondaryTypes {
    private SecondaryTypes() {}

    /** A change this recent (before the parse) leaves the file uncached. */
    static final long RACY_MILLIS = 2000;

    /** A file's secondary type names as parsed, with the stat taken before the parse. */
    private static final class Parsed {
        final String stamp;
        final String[] names;

        Parsed(String stamp, String[] names) {
            this.stamp = stamp;
            this.names = names;
        }
    }

    /** (parse context, absolute path) -> the file's last parse. */
    private static final Map<String, Parsed> FILES = new ConcurrentHashMap<>();
    /**
     * (parse context, SHA-256 of the file's bytes) -> the secondary type names parsed from those bytes:
     * a file whose stat is new (another checkout of the same sources, a file git rewrote, one changed
     * less than {@link #RACY_MILLIS} ago) is read and hashed, and parsed only if no file with the same
     * bytes was. The names depend on the bytes and the context alone, so no racy rule applies here.
     */
    private static final Map<String, String[]> CONTENTS = new ConcurrentHashMap<>();
    /** Contents remembered at most; past it the map starts again (a long session of edits). */
    static final int MAX_CONTENTS = 200_000;
    /**
     * Whether a file whose stat is new is looked up by its bytes ({@code -Dpybridge.secondaryTypesByContent=true},
     * which the warm worker of {@code serve} sets): else it is parsed, as before. C1 does not compile SHA-256
     * into the CPU's instructions, so a worker that indexes once and exits goes without it.
     */
    static volatile boolean byContent = Boolean.getBoolean("pybridge.secondaryTypesByContent");
    /** Each distinct parse context (encoding, destination, compiler options) -> a short id. */
    private static final Map<String, Integer> CONTEXTS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_CONTEXT = new AtomicInteger();
    private static final AtomicLong PARSED = new AtomicLong();
    private static final AtomicLong REUSED = new AtomicLong();

    /** Source files parsed for secondary types so far in this JVM (through {@link #install}). */
    static long parsedFiles() {
        return PARSED.get();
    }

    /** Source files whose secondary types were reused instead of parsed, so far in this JVM. */
    static long reusedFiles() {
        return REUSED.get();
    }

    /** Forgets every file (for tests). */
    static void clear() {
        FILES.clear();
        CONTENTS.clear();
    }

    /** Makes the parser's source folders search secondary types through the shared per-file cache. */
    static void install(ASTParser parser) {
        try {
            UnitResolvers.wrap(parser, entries -> {
                for (Object e : entries) {
                    if (e instanceof ClasspathDirectory) share((ClasspathDirectory) e);
                }
                return entries;
            });
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw internals(e);
        }
    }

    private static IllegalStateException internals(Exception e) {
        return new IllegalStateException("pybridge could not share JDT's secondary-type search across requests "
                + "(ClasspathDirectory/ASTParser internals); this JDT version is not the one pybridge was built with: "
                + "set PYBRIDGE_SECONDARY_TYPE_CACHE=0 to do without it", e);
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field f = ClasspathDirectory.class.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    /** Replaces {@code dir}'s per-package map of secondary types with one that reuses earlier parses. */
    static void share(ClasspathDirectory dir) {
        try {
            Field packages = field("packageSecondaryTypes");
            if (packages.get(dir) instanceof Shared) return;
            @SuppressWarnings("unchecked")
            Map<String, String[]> listings = (Map<String, String[]>) field("directoryCache").get(dir);
            String[] missing = (String[]) field("missingPackageHolder").get(dir);
            String encoding = (String) field("encoding").get(dir);
            @SuppressWarnings("unchecked")
            Map<String, String> options = (Map<String, String>) field("options").get(dir);
            packages.set(dir, new Shared(dir.getPath(), listings, missing, encoding, dir.destinationPath, options));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw internals(e);
        }
    }

    /** One source folder's packages -> (secondary type name -> file), for one request, as JDT keeps it. */
    static final class Shared extends ConcurrentHashMap<String, Map<String, String>> {
        private static final long serialVersionUID = 1L;
        private final transient String path;
        private final transient Map<String, String[]> listings;
        private final transient String[] missing;
        private final transient String encoding;
        private final transient String destinationPath;
        private final transient Map<String, String> options;
        private final int context;

        Shared(String path, Map<String, String[]> listings, String[] missing, String encoding, String destinationPath,
               Map<String, String> options) {
            this.path = path;
            this.listings = listings;
            this.missing = missing;
            this.encoding = encoding;
            this.destinationPath = destinationPath;
            this.options = options;
            String key = encoding + "\0" + destinationPath + "\0" + (options == null ? "null" : new TreeMap<>(options));
            this.context = CONTEXTS.computeIfAbsent(key, k -> NEXT_CONTEXT.getAndIncrement());
        }

        @Override
        public Map<String, String> computeIfAbsent(String qualifiedPackageName,
                                                   Function<? super String, ? extends Map<String, String>> jdt) {
            Map<String, String> known = get(qualifiedPackageName);
            if (known != null) return known;
            Map<String, String> made = scan(qualifiedPackageName);
            Map<String, String> raced = putIfAbsent(qualifiedPackageName, made);
            return raced != null ? raced : made;
        }

        /** {@code ClasspathDirectory.getSecondaryTypes}, with each file's parse reused while it is unchanged. */
        Map<String, String> scan(String qualifiedPackageName) {
            Map<String, String> entry = new ConcurrentHashMap<>();
            String[] listing = listings.get(qualifiedPackageName);
            if (listing == missing || listing == null) return entry;
            File dir = new File(path + qualifiedPackageName);
            File[] files = dir.isDirectory() ? dir.listFiles() : null;
            if (files == null) return entry;
            for (File f : files) {
                if (f.isDirectory()) continue;
                String s = f.getAbsolutePath();
                if (!(s.endsWith(".java") || s.endsWith(".JAVA"))) continue;
                for (String name : secondaryNames(s)) entry.put(name, s);
            }
            return entry;
        }

        private String[] secondaryNames(String file) {
            String key = context + ":" + file;
            long now = System.currentTimeMillis();
            Stat stat = Stat.of(file);
            Parsed last = FILES.get(key);
            if (stat != null && last != null && last.stamp.equals(stat.stamp)) {
                REUSED.incrementAndGet();
                return last.names;
            }
            String[] names = namesOf(file);
            if (stat != null && stat.changedMillis < now - RACY_MILLIS) {
                FILES.put(key, new Parsed(stat.stamp, names));
            } else {
                FILES.remove(key);
            }
            return names;
        }

        /** With {@link #byContent}, the names parsed from a file with the same bytes, else this file's parsed. */
        private String[] namesOf(String file) {
            if (!byContent) {
                PARSED.incrementAndGet();
                return parse(file, null);
            }
            byte[] bytes;
            try {
                bytes = Files.readAllBytes(Path.of(file));
            } catch (IOException | RuntimeException e) {
                PARSED.incrementAndGet();
                return parse(file, null);        // JDT reads it again and reports what it reports
            }
            String key = context + ":" + sha256(bytes);
            String[] known = CONTENTS.get(key);
            if (known != null) {
                REUSED.incrementAndGet();
                return known;
            }
            PARSED.incrementAndGet();
            // JDT's own reading of a file (Util.getFileCharContent): the bytes decoded in the folder's encoding
            String[] names = parse(file, Util.getBytesAsCharArray(bytes, encoding));
            if (CONTENTS.size() >= MAX_CONTENTS) CONTENTS.clear();
            CONTENTS.put(key, names);
            return names;
        }

        private static String sha256(byte[] bytes) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);    // every Java has SHA-256
            }
        }

        private String[] parse(String file, char[] contents) {
            CompilationUnit cu = new CompilationUnit(contents, file, encoding, destinationPath);
            CompilationResult result = new CompilationResult(file.toCharArray(), 1, 1, 10);
            ProblemReporter reporter = new ProblemReporter(DefaultErrorHandlingPolicies.proceedWithAllProblems(),
                    new CompilerOptions(options), new DefaultProblemFactory());
            Parser parser = new Parser(reporter, false);
            parser.reportSyntaxErrorIsRequired = false;
            CompilationUnitDeclaration unit = parser.parse(cu, result);
            TypeDeclaration[] types = unit != null ? unit.types : null;
            if (types == null) return new String[0];
            List<String> names = new java.util.ArrayList<>();
            for (TypeDeclaration type : types) {
                if (type.isSecondary()) names.add(new String(type.name));
            }
            return names.toArray(new String[0]);
        }
    }

    /** A file's size, mtime, ctime and inode as one string, and the later of its mtime and ctime. */
    static final class Stat {
        final String stamp;
        final long changedMillis;

        private Stat(String stamp, long changedMillis) {
            this.stamp = stamp;
            this.changedMillis = changedMillis;
        }

        /** Null when the file cannot be read (it is then parsed, and JDT reports what it reports). */
        static Stat of(String file) {
            Path p = Path.of(file);
            try {
                Map<String, Object> a = Files.readAttributes(p, "unix:size,lastModifiedTime,ctime,ino");
                java.nio.file.attribute.FileTime m = (java.nio.file.attribute.FileTime) a.get("lastModifiedTime");
                java.nio.file.attribute.FileTime c = (java.nio.file.attribute.FileTime) a.get("ctime");
                String stamp = a.get("size") + "/" + m.to(java.util.concurrent.TimeUnit.NANOSECONDS) + "/"
                        + c.to(java.util.concurrent.TimeUnit.NANOSECONDS) + "/" + a.get("ino");
                return new Stat(stamp, Math.max(m.toMillis(), c.toMillis()));
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                try {
                    BasicFileAttributes b = Files.readAttributes(p, BasicFileAttributes.class);
                    String stamp = b.size() + "/" + b.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS)
                            + "/" + b.fileKey();
                    return new Stat(stamp, b.lastModifiedTime().toMillis());
                } catch (IOException e2) {
                    return null;
                }
            } catch (IOException e) {
                return null;
            }
        }
    }
}
