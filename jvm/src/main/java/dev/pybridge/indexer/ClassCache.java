package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.core.dom.IMethodBinding;
import org.eclipse.jdt.core.dom.ITypeBinding;
import org.eclipse.jdt.internal.compiler.ClassFile;
import org.eclipse.jdt.internal.compiler.CompilationResult;
import org.eclipse.jdt.internal.compiler.ast.ASTNode;
import org.eclipse.jdt.internal.compiler.ast.AbstractMethodDeclaration;
import org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration;
import org.eclipse.jdt.internal.compiler.ast.ConstructorDeclaration;
import org.eclipse.jdt.internal.compiler.ast.Expression;
import org.eclipse.jdt.internal.compiler.ast.FieldDeclaration;
import org.eclipse.jdt.internal.compiler.ast.Literal;
import org.eclipse.jdt.internal.compiler.ast.TypeDeclaration;
import org.eclipse.jdt.internal.compiler.ast.UnaryExpression;
import org.eclipse.jdt.internal.compiler.batch.ClasspathDirectory;
import org.eclipse.jdt.internal.compiler.classfmt.ClassFileReader;
import org.eclipse.jdt.internal.compiler.classfmt.ClassFormatException;
import org.eclipse.jdt.internal.compiler.env.AccessRestriction;
import org.eclipse.jdt.internal.compiler.env.ICompilationUnit;
import org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer;
import org.eclipse.jdt.internal.compiler.impl.Constant;
import org.eclipse.jdt.internal.compiler.lookup.ExtraCompilerModifiers;
import org.eclipse.jdt.internal.compiler.lookup.MethodBinding;

/**
 * The class files of source files compiled by earlier requests of this JVM, served instead of the
 * sources while the files are unchanged (PYBRIDGE_CLASS_CACHE), as Eclipse's incremental builder
 * compiles changed files against the class files of the others.
 *
 * <p>A request with the cache generates the code of each compiled unit without an error once its facts
 * are read ({@link NoCodegen} keeps JDT from generating it before: code generation changes bindings the
 * facts name) and keeps the class files of its types, keyed by the request's
 * context (classpath, sourcepath, release, API, encoding, options: another module configuration never
 * reuses an entry) and the file's path, with its size, mtime, ctime and inode taken before JDT read it
 * (a file changed within {@link #RACY_MILLIS} of that is not kept, as in {@link SecondaryTypes}). A
 * later request whose source folder answers a type with a file whose stat is unchanged, and which is
 * not one of the files it compiles, gets the class file instead ({@link CachedClasspath}).
 *
 * <p>Facts must not change, so only units whose class files say what their source says are kept:
 * one top-level type named as its file (no secondary type), none with records or annotation types (implicit record members, element defaults computed from
 * other files), none with a constant field whose initializer is not a literal (a class file holds the
 * value computed from other files, which may have changed since). What the DOM tells apart for a
 * binary type is answered from the request's record of what it served ({@link #fromSource},
 * {@link #isDefaultConstructor}). The JUnit test {@code ClassCacheTest} and tests/worker compare the
 * facts with and without the cache.
 *
 * <p>Memory: entries are evicted, least recently used first, beyond {@link #maxBytes} bytes of class
 * files (system property {@code pybridge.classCacheBytes}).
 */
final class ClassCache {
    private ClassCache() {}

    static final long RACY_MILLIS = SecondaryTypes.RACY_MILLIS;

    /** One unit's class files as compiled, with the stat of its source taken before the read. */
    private static final class Entry {
        final String stamp;
        /** Binary name ({@code p/A$B}) -> class file bytes. */
        final Map<String, byte[]> classes;
        /** Binary names of the unit's types whose constructor JDT made (no constructor in source). */
        final Set<String> defaultConstructors;
        /** Binary name -> its methods ({@code selector NUL key}) in the order the DOM lists them for the source type. */
        final Map<String, String[]> methodOrders;
        final long bytes;

        Entry(String stamp, Map<String, byte[]> classes, Set<String> defaultConstructors,
              Map<String, String[]> methodOrders) {
            this.stamp = stamp;
            this.classes = classes;
            this.defaultConstructors = defaultConstructors;
            this.methodOrders = methodOrders;
            long n = 0;
            for (byte[] b : classes.values()) n += b.length + 64;
            for (String[] keys : methodOrders.values()) {
                for (String k : keys) n += 40 + 2L * k.length();
            }
            this.bytes = n;
        }
    }

    /** (context id, absolute path) -> entry, least recently used first. Guarded by itself. */
    private static final LinkedHashMap<String, Entry> ENTRIES = new LinkedHashMap<>(1024, 0.75f, true);
    private static long heldBytes;
    private static final Map<String, Integer> CONTEXTS = new ConcurrentHashMap<>();
    /**
     * Context id -> each package folder its requests searched -> the folder's stat and its .java names
     * when last looked at. Guarded by ENTRIES. A file added to or deleted from one of them drops every
     * entry of the context: a class file kept may name a type that is gone, or resolve a name that a new
     * type now captures (what the planner re-indexes the files for, a round later).
     */
    private static final Map<Integer, Map<String, Listing>> FOLDERS = new HashMap<>();

    /** A folder's stat and its .java file names. */
    private static final class Listing {
        String stamp;
        final Set<String> names;

        Listing(String stamp, Set<String> names) {
            this.stamp = stamp;
            this.names = names;
        }

        static Listing of(String dir) {
            SecondaryTypes.Stat stat = SecondaryTypes.Stat.of(dir);
            return new Listing(stat == null ? "" : stat.stamp, names(dir));
        }

        static Set<String> names(String dir) {
            Set<String> out = new HashSet<>();
            String[] list = new java.io.File(dir).list();
            if (list != null) {
                for (String n : list) {
                    if (n.endsWith(".java")) out.add(n);
                }
            }
            return out;
        }
    }

    /** Drops the context's entries if a folder its requests searched gained or lost a source file. */
    private static void checkFolders(int context) {
        synchronized (ENTRIES) {
            Map<String, Listing> folders = FOLDERS.get(context);
            if (folders == null) return;
            for (Map.Entry<String, Listing> f : folders.entrySet()) {
                SecondaryTypes.Stat stat = SecondaryTypes.Stat.of(f.getKey());
                String stamp = stat == null ? "" : stat.stamp;
                if (stamp.equals(f.getValue().stamp)) continue;
                if (!Listing.names(f.getKey()).equals(f.getValue().names)) {
                    String prefix = context + ":";
                    Iterator<Map.Entry<String, Entry>> it = ENTRIES.entrySet().iterator();
                    while (it.hasNext()) {
                        Map.Entry<String, Entry> e = it.next();
                        if (e.getKey().startsWith(prefix)) {
                            heldBytes -= e.getValue().bytes;
                            it.remove();
                        }
                    }
                    FOLDERS.remove(context);
                    DROPS.incrementAndGet();
                    return;
                }
                f.getValue().stamp = stamp;       // a file saved by renaming: the same names
            }
        }
    }
    private static final AtomicInteger NEXT_CONTEXT = new AtomicInteger();
    private static final AtomicLong STORED = new AtomicLong();
    private static final AtomicLong SERVED = new AtomicLong();
    private static final AtomicLong DROPS = new AtomicLong();

    /** Times a context's entries were dropped for a file added or deleted, so far in this JVM. */
    static long drops() {
        return DROPS.get();
    }

    static long maxBytes() {
        return Long.getLong("pybridge.classCacheBytes", 256L << 20);
    }

    /** Units whose class files were kept so far in this JVM. */
    static long storedUnits() {
        return STORED.get();
    }

    /** Types answered with a kept class file so far in this JVM. */
    static long servedTypes() {
        return SERVED.get();
    }

    /** Bytes of class files held now. */
    static long heldBytes() {
        synchronized (ENTRIES) {
            return heldBytes;
        }
    }

    /** Forgets every entry (for tests). */
    static void clear() {
        synchronized (ENTRIES) {
            ENTRIES.clear();
            FOLDERS.clear();
            heldBytes = 0;
        }
    }

    /** Whether the unit of {@code file} is kept, in any context (for tests). */
    static boolean holds(String file) {
        String suffix = ":" + normalize(file);
        synchronized (ENTRIES) {
            for (String k : ENTRIES.keySet()) {
                if (k.endsWith(suffix)) return true;
            }
        }
        return false;
    }

    static String normalize(String file) {
        return Path.of(file).toAbsolutePath().normalize().toString();
    }

    /**
     * Makes the parser's source folders answer through the cache for a request compiling
     * {@code files} in {@code context}; the request then keeps its units through {@link Request#capture}.
     * Each source folder gets a {@link CachedClasspath} just before it.
     */
    static Request install(ASTParser parser, String[] files, String[] sourcepath, String[] roots, String environment) {
        boolean shadowed = false;
        StringBuilder context = new StringBuilder();
        for (int i = 0; i < sourcepath.length; i++) {
            String root = normalize(roots != null && i < roots.length ? roots[i] : sourcepath[i]);
            shadowed |= !root.equals(normalize(sourcepath[i]));
            context.append(root).append('\0');
        }
        context.append('\0').append(environment);
        int id = CONTEXTS.computeIfAbsent(context.toString(), k -> NEXT_CONTEXT.getAndIncrement());
        checkFolders(id);
        Request request = new Request(id, files, shadowed);
        try {
            Field mode = ClasspathDirectory.class.getDeclaredField("mode");
            mode.setAccessible(true);
            UnitResolvers.wrap(parser, entries -> {
                List<Object> out = new ArrayList<>(entries.size() + 4);
                boolean any = false;
                for (Object e : entries) {
                    if (e instanceof ClasspathDirectory && readsSources(mode, e)) {
                        out.add(new CachedClasspath((ClasspathDirectory) e, request));
                        any = true;
                    }
                    out.add(e);
                }
                return any ? out : entries;
            });
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw internals(e);
        }
        return request;
    }

    /** Whether a folder reads sources ({@code ClasspathDirectory.mode} has SOURCE: ASTParser's sourcepath). */
    static boolean readsSources(Field mode, Object folder) {
        try {
            return (mode.getInt(folder) & ClasspathDirectory.SOURCE) != 0;
        } catch (ReflectiveOperationException ex) {
            throw internals(ex);
        }
    }

    private static IllegalStateException internals(Exception e) {
        return new IllegalStateException("pybridge could not serve class files of unchanged sources to JDT "
                + "(ClasspathDirectory/ASTParser internals); this JDT version is not the one pybridge was built with: "
                + "set PYBRIDGE_CLASS_CACHE=0 to do without it", e);
    }

    /** The cache as one request sees it: what it compiles, what it served. Not thread-safe beyond JDT's own use. */
    static final class Request implements CachedClasspath.Answers {
        /** No cache: every binding is what JDT says. */
        static final Request NONE = new Request(-1, new String[0], false);

        private final int context;
        /**
         * Whether a sourcepath entry is a check's shadow of a root (pybridge.edits.overlay): its unchanged
         * files are symbolic links to the root's, looked up by their real paths; the files it compiles are
         * not kept (they hold a change that is not on disk).
         */
        private final boolean shadowed;
        /** Normalized path -> stat taken before the request (null: unreadable). */
        private final Map<String, SecondaryTypes.Stat> compiled = new HashMap<>();
        private final long started = System.currentTimeMillis();
        /** Normalized path -> the entry valid for this request, or null (decided once per request). */
        private final Map<String, Entry> valid = new HashMap<>();
        /** Binary names answered from a class file in this request. */
        private final Set<String> served = new HashSet<>();
        private final Set<String> defaultConstructors = new HashSet<>();
        private final Map<String, String[]> methodOrders = new HashMap<>();
        /** Package folders searched in this request. */
        private final Set<String> consulted = new HashSet<>();

        Request(int context, String[] files, boolean shadowed) {
            this.context = context;
            this.shadowed = shadowed;
            if (context < 0) return;
            for (String f : files) {
                compiled.put(path(f), SecondaryTypes.Stat.of(f));
            }
        }

        /** The key of a file: its path, or in a shadowed request its real path. */
        private String path(String file) {
            if (!shadowed) return normalize(file);
            try {
                return Path.of(file).toRealPath().toString();
            } catch (java.io.IOException | RuntimeException e) {
                return normalize(file);
            }
        }

        private String key(String s) {
            return context + ":" + s;
        }

        @Override
        public synchronized NameEnvironmentAnswer replace(NameEnvironmentAnswer answer, String qualifiedBinaryFileName) {
            String binary = qualifiedBinaryFileName.endsWith(".class")
                    ? qualifiedBinaryFileName.substring(0, qualifiedBinaryFileName.length() - 6) : qualifiedBinaryFileName;
            binary = binary.replace('\\', '/');
            if (answer == null) return null;
            ICompilationUnit unit = answer.getCompilationUnit();
            if (unit == null) return answer;
            return serve(path(new String(unit.getFileName())), binary, answer, answer.getAccessRestriction());
        }

        @Override
        public synchronized void consulted(String dir) {
            consulted.add(dir);
        }

        /** After the request: the folders it searched are watched for added and deleted files (not a shadow's). */
        void finish() {
            if (context < 0 || shadowed) return;
            synchronized (ENTRIES) {
                Map<String, Listing> folders = FOLDERS.computeIfAbsent(context, k -> new HashMap<>());
                for (String dir : consulted) {
                    String d = dir.endsWith("/") ? dir.substring(0, dir.length() - 1) : dir;
                    if (!folders.containsKey(d)) folders.put(d, Listing.of(d));
                }
            }
        }

        @Override
        public synchronized NameEnvironmentAnswer member(NameEnvironmentAnswer top, String qualifiedBinaryFileName) {
            String binary = qualifiedBinaryFileName.endsWith(".class")
                    ? qualifiedBinaryFileName.substring(0, qualifiedBinaryFileName.length() - 6) : qualifiedBinaryFileName;
            binary = binary.replace('\\', '/');
            String path = path(new String(top.getCompilationUnit().getFileName()));
            NameEnvironmentAnswer served = serve(path, binary, null, top.getAccessRestriction());
            return served != null ? served : top;
        }

        /** The class file of {@code binary} from the entry of {@code path} if it is valid; else {@code answer}. */
        private NameEnvironmentAnswer serve(String path, String binary, NameEnvironmentAnswer answer,
                                            AccessRestriction restriction) {
            Entry entry = entryFor(path);
            byte[] bytes = entry == null ? null : entry.classes.get(binary);
            if (bytes == null) return answer;
            try {
                ClassFileReader reader = new ClassFileReader(bytes, path.toCharArray(), true);
                served.add(binary);
                if (entry.defaultConstructors.contains(binary)) defaultConstructors.add(binary);
                String[] order = entry.methodOrders.get(binary);
                if (order != null) methodOrders.put(binary, order);
                SERVED.incrementAndGet();
                return new NameEnvironmentAnswer(reader, restriction);
            } catch (ClassFormatException e) {
                return answer;
            }
        }

        private Entry entryFor(String path) {
            if (valid.containsKey(path)) return valid.get(path);
            Entry entry = null;
            if (!compiled.containsKey(path)) {
                synchronized (ENTRIES) {
                    entry = ENTRIES.get(key(path));
                }
                if (entry != null) {
                    SecondaryTypes.Stat now = SecondaryTypes.Stat.of(path);
                    if (now == null || !now.stamp.equals(entry.stamp)) entry = null;
                }
            }
            valid.put(path, entry);
            return entry;
        }

        /** Whether {@code t} is a type of the sourcepath, as {@link ITypeBinding#isFromSource} says without the cache. */
        boolean fromSource(ITypeBinding t) {
            if (t == null) return false;
            if (t.isFromSource()) return true;
            if (served.isEmpty()) return false;
            ITypeBinding c;
            if (t.isTypeVariable()) {
                c = t.getDeclaringClass();
                if (c == null && t.getDeclaringMethod() != null) c = t.getDeclaringMethod().getDeclaringClass();
            } else if (t.isClass() || t.isInterface() || t.isEnum()) {
                c = t;
            } else {
                return false;
            }
            return c != null && servedHere(c);
        }

        private boolean servedHere(ITypeBinding c) {
            String name = c.getTypeDeclaration().getBinaryName();
            return name != null && served.contains(name.replace('.', '/'));
        }

        /** {@link IMethodBinding#isDefaultConstructor}, as it says without the cache. */
        boolean isDefaultConstructor(IMethodBinding m) {
            if (m.isDefaultConstructor()) return true;
            if (defaultConstructors.isEmpty() || !m.isConstructor() || m.getParameterTypes().length != 0) return false;
            ITypeBinding c = m.getDeclaringClass();
            if (c == null) return false;
            String name = c.getTypeDeclaration().getBinaryName();
            return name != null && defaultConstructors.contains(name.replace('.', '/'));
        }

        /**
         * The methods ({@code selector NUL key}; {@code <init>} for a constructor) of {@code t}, served from a class file, in the order
         * {@link ITypeBinding#getDeclaredMethods} gives them for the source type (the class file's order
         * differs: JDT sorts a type's methods by name only, in an unstable sort), without synthetic
         * methods and default constructors; null for a type not served from the cache.
         */
        String[] methodOrder(ITypeBinding t) {
            if (methodOrders.isEmpty() || t == null) return null;
            String name = t.getTypeDeclaration().getBinaryName();
            return name == null ? null : methodOrders.get(name.replace('.', '/'));
        }

        /** Keeps the class files of {@code unit} (compiled in this request, about to be cleaned up) if it may be served. */
        void capture(String file, CompilationUnitDeclaration unit) {
            if (context < 0 || unit == null || shadowed) return;
            String path = normalize(file);
            SecondaryTypes.Stat before = compiled.get(path);
            Entry entry = null;
            if (before != null && before.changedMillis < started - RACY_MILLIS) entry = entryOf(before.stamp, unit);
            synchronized (ENTRIES) {
                Entry old = entry == null ? ENTRIES.remove(key(path)) : ENTRIES.put(key(path), entry);
                if (old != null) heldBytes -= old.bytes;
                if (entry == null) return;
                heldBytes += entry.bytes;
                STORED.incrementAndGet();
                long max = maxBytes();
                Iterator<Map.Entry<String, Entry>> it = ENTRIES.entrySet().iterator();
                while (heldBytes > max && it.hasNext()) {
                    Map.Entry<String, Entry> e = it.next();
                    heldBytes -= e.getValue().bytes;
                    it.remove();
                }
            }
        }

        private static Entry entryOf(String stamp, CompilationUnitDeclaration unit) {
            CompilationResult result = unit.compilationResult;
            if (result == null || result.hasErrors() || result.hasSyntaxError || unit.ignoreFurtherInvestigation
                    || unit.types == null || unit.isModuleInfo() || unit.isPackageInfo()) {
                return null;
            }
            Set<String> names = new HashSet<>();
            Set<String> defaults = new HashSet<>();
            Map<String, String[]> orders = new HashMap<>();
            // One top-level type, named as its file: JDT finds a secondary type only through the folder
            // itself (CachedClasspath), and would read its file's other types from source.
            String file = new String(result.getFileName());
            String base = file.substring(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
            if (unit.types.length != 1 || !base.equals(new String(unit.types[0].name) + ".java")) return null;
            for (TypeDeclaration t : unit.types) {
                if (!servable(t, names, defaults, orders)) return null;
            }
            // NoCodegen marked the top-level types generated; their code is generated now, after the facts.
            for (TypeDeclaration t : unit.types) t.bits &= ~ASTNode.HasBeenGenerated;
            unit.generateCode();
            if (result.hasErrors()) return null;
            Map<String, byte[]> classes = new HashMap<>();
            for (ClassFile cf : result.getClassFiles()) {
                String name = new String(cf.fileName());
                if (names.contains(name)) classes.put(name, cf.getBytes());
            }
            if (!classes.keySet().equals(names)) return null;
            return new Entry(stamp, classes, defaults, orders);
        }

        /** Whether {@code t} and its member types read the same from their class files; collects their names. */
        private static boolean servable(TypeDeclaration t, Set<String> names, Set<String> defaults,
                                        Map<String, String[]> orders) {
            if (t.binding == null || t.binding.isRecord() || t.binding.isAnnotationType()) return false;
            String name = new String(t.binding.constantPoolName());
            names.add(name);
            // The order the DOM gives (TypeBinding.getDeclaredMethods filters as here), as Symbols counts overloads.
            List<String> order = new ArrayList<>();
            for (MethodBinding m : t.binding.availableMethods()) {
                if (m.isDefaultAbstract() || m.isSynthetic() || (m.isConstructor() && t.binding.isInterface())) continue;
                if ((m.modifiers & ExtraCompilerModifiers.AccIsDefaultConstructor) != 0) continue;
                order.add(new String(m.selector) + "\0" + new String(m.computeUniqueKey()));
            }
            orders.put(name, order.toArray(new String[0]));
            if (t.methods != null) {
                for (AbstractMethodDeclaration m : t.methods) {
                    if (m instanceof ConstructorDeclaration && ((ConstructorDeclaration) m).isDefaultConstructor()) {
                        defaults.add(name);
                    }
                }
            }
            if (t.fields != null) {
                for (FieldDeclaration f : t.fields) {
                    if (f.binding == null) continue;
                    Constant c = f.binding.constant();
                    if (c != null && c != Constant.NotAConstant && !literal(f.initialization)) return false;
                }
            }
            if (t.memberTypes != null) {
                for (TypeDeclaration m : t.memberTypes) {
                    if (!servable(m, names, defaults, orders)) return false;
                }
            }
            return true;
        }

        private static boolean literal(Expression e) {
            if (e instanceof Literal) return true;
            return e instanceof UnaryExpression && ((UnaryExpression) e).expression instanceof Literal;
        }
    }
}
