package dev.pybridge.indexer;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.compiler.IProblem;
import org.eclipse.jdt.core.dom.AST;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.core.dom.CompilationUnit;
import org.eclipse.jdt.core.dom.FileASTRequestor;
import org.eclipse.jdt.core.dom.IBinding;

/**
 * The entry point Python calls (through JPype, in the worker process): index
 * the given files of one module and scope in one JDT batch with full
 * bindings, and return every fact as one flat {@link Batch}.
 *
 * <p>The parser is configured anew for every call (JDT resets it after
 * {@code createASTs}). Compliance comes from {@code setComplianceOptions}
 * with the module's release; every file gets the module's encoding.
 * {@code module-info.java} is left to the sourcepath. Each AST is visited in
 * {@code acceptAST} and dropped, so no compilation unit outlives its visit.
 * A file whose visit fails is recorded with the failure and the batch goes on.
 */
public final class Indexer {
    /** Bump when the facts change for the same input: snapshots include it. */
    public static final String VERSION = "9";

    private Indexer() {}

    /** The newest Java release this JDT parses. */
    public static String latestRelease() {
        return JavaCore.latestSupportedJavaVersion();
    }

    public static Batch index(String[] files, String[] sourcepath, String[] classpath, String release,
                              String encoding, boolean javadoc, ProgressListener progress) {
        return index(files, sourcepath, classpath, release, "", encoding, javadoc, progress);
    }

    /**
     * Like the other {@code index}, binding against {@code api}'s system library: the release javac's
     * {@code --release} names ({@link ReleaseLibrary}); empty for the running JDK's own library (javac
     * with {@code -source}/{@code -target} only, or no release).
     */
    public static Batch index(String[] files, String[] sourcepath, String[] classpath, String release, String api,
                              String encoding, boolean javadoc, ProgressListener progress) {
        return index(files, sourcepath, classpath, release, api, encoding, javadoc, true, progress);
    }

    /**
     * Like the other {@code index}; {@code secondaryTypeCache} false makes JDT parse every file of each
     * package it searches for secondary types, as it does alone, instead of reusing the parses of earlier
     * requests of files unchanged since ({@link SecondaryTypes}; PYBRIDGE_SECONDARY_TYPE_CACHE).
     */
    public static Batch index(String[] files, String[] sourcepath, String[] classpath, String release, String api,
                              String encoding, boolean javadoc, boolean secondaryTypeCache, ProgressListener progress) {
        return index(files, sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache, false, null,
                progress);
    }

    /**
     * Like the other {@code index}; {@code classCache} true makes JDT read the types of source files
     * compiled by earlier requests, unchanged since, from the class files it generated for them
     * ({@link ClassCache}; PYBRIDGE_CLASS_CACHE), and keep this request's. {@code cacheRoots}: the source
     * roots the sourcepath entries stand for, one each (a check's shadow of a root stands for the root:
     * pybridge.edits.overlay), or null for the sourcepath itself.
     */
    public static Batch index(String[] files, String[] sourcepath, String[] classpath, String release, String api,
                              String encoding, boolean javadoc, boolean secondaryTypeCache, boolean classCache,
                              String[] cacheRoots, ProgressListener progress) {
        Batch[] whole = new Batch[1];
        run(files, sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache, classCache, cacheRoots,
                progress, 0, b -> whole[0] = b);
        return whole[0];
    }

    /**
     * Like {@link #index}, but on a thread of its own, handing out a batch every
     * {@code chunkFiles} files into a bounded queue: Python ships and stores the
     * previous chunks while the next ones are indexed. Progress is read from the
     * stream ({@link BatchStream#done}), never pushed, so this thread never waits
     * on Python.
     */
    public static BatchStream stream(String[] files, String[] sourcepath, String[] classpath, String release,
                                     String encoding, boolean javadoc, int chunkFiles) {
        return stream(files, sourcepath, classpath, release, "", encoding, javadoc, chunkFiles);
    }

    /** Like the other {@code stream}, binding against {@code api}'s system library (see {@code index}). */
    public static BatchStream stream(String[] files, String[] sourcepath, String[] classpath, String release,
                                     String api, String encoding, boolean javadoc, int chunkFiles) {
        return stream(files, sourcepath, classpath, release, api, encoding, javadoc, true, chunkFiles);
    }

    /** Like the other {@code stream}, with {@code secondaryTypeCache} as in {@code index}. */
    public static BatchStream stream(String[] files, String[] sourcepath, String[] classpath, String release,
                                     String api, String encoding, boolean javadoc, boolean secondaryTypeCache,
                                     int chunkFiles) {
        return stream(files, sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache, false, null,
                chunkFiles);
    }

    /** Like the other {@code stream}, with {@code classCache} as in {@code index}. */
    public static BatchStream stream(String[] files, String[] sourcepath, String[] classpath, String release,
                                     String api, String encoding, boolean javadoc, boolean secondaryTypeCache,
                                     boolean classCache, String[] cacheRoots, int chunkFiles) {
        BatchStream stream = new BatchStream();
        return stream.fill(() -> run(files, sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache,
                classCache, cacheRoots, stream, chunkFiles, stream::put));
    }

    static void run(String[] files, String[] sourcepath, String[] classpath, String release,
                            String api, String encoding, boolean javadoc, boolean secondaryTypeCache,
                            boolean classCache, String[] cacheRoots, ProgressListener progress, int chunkFiles,
                            java.util.function.Consumer<Batch> out) {
        long t0 = System.nanoTime();
        String level = normalizeRelease(release);
        ASTParser parser = ASTParser.newParser(AST.getJLSLatest());
        Map<String, String> options = JavaCore.getOptions();
        JavaCore.setComplianceOptions(level, options);
        options.put(JavaCore.COMPILER_DOC_COMMENT_SUPPORT, javadoc ? JavaCore.ENABLED : JavaCore.DISABLED);
        quiet(options);
        parser.setCompilerOptions(options);
        parser.setKind(ASTParser.K_COMPILATION_UNIT);
        parser.setResolveBindings(true);
        parser.setBindingsRecovery(true);
        parser.setStatementsRecovery(true);
        String[] sourceEncodings = new String[sourcepath.length];
        Arrays.fill(sourceEncodings, encoding);
        parser.setEnvironment(classpath, sourcepath, sourceEncodings, true);
        if (api != null && !api.isEmpty()) ReleaseLibrary.bind(parser, Integer.parseInt(api.trim()));
        if (secondaryTypeCache) SecondaryTypes.install(parser);

        List<String> todo = new ArrayList<>();
        for (String f : files) {
            if (!f.endsWith("module-info.java")) todo.add(f);
        }
        String[] paths = todo.toArray(new String[0]);
        // Installed last: its wrapper runs first, so SecondaryTypes shares the folders it makes.
        ClassCache.Request cache = classCache
                ? ClassCache.install(parser, files, sourcepath, cacheRoots, String.join("\0", classpath) + "\0\0" + release
                        + "\0" + api + "\0" + encoding + "\0" + new java.util.TreeMap<>(options))
                : ClassCache.Request.NONE;
        String[] encodings = new String[paths.length];
        Arrays.fill(encodings, encoding);

        FactSink[] sink = {new FactSink()};
        Symbols symbols = new Symbols(cache);
        NoCodegen[] monitor = {null};
        java.util.Set<String> accepted = new java.util.HashSet<>();
        int total = paths.length;
        int[] done = {0};
        org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration[] previousUnit = {null};
        FileASTRequestor requestor = new FileASTRequestor() {
            /** A binding key resolved in this batch's environment (null when nothing has it). */
            IBinding bindingOf(String key) {
                IBinding[] b = createBindings(new String[] {key});
                return b.length == 1 ? b[0] : null;
            }

            @Override
            public void acceptAST(String sourceFilePath, CompilationUnit ast) {
                UnitRelease.strip(previousUnit[0]);
                previousUnit[0] = null;
                if (done[0] == 0) BindingTables.useIdentity(ast);
                indexFile(sourceFilePath, ast, sink[0], symbols, encoding, javadoc, this::bindingOf);
                if (classCache) {
                    accepted.add(sourceFilePath);
                    if (monitor[0] != null) cache.capture(sourceFilePath, monitor[0].unit(sourceFilePath));
                }
                // Its facts are read: its trees go (the class cache generates its code at its clean-up).
                if (!classCache) previousUnit[0] = UnitRelease.release(ast);
                done[0]++;
                // A Python listener is told every 16 files (each call crosses into Python); a stream
                // keeps its own count, exact to the file.
                if (progress != null && (done[0] % 16 == 0 || done[0] == total || progress instanceof BatchStream)) {
                    progress.filesDone(done[0], total);
                }
                if (chunkFiles > 0 && done[0] % chunkFiles == 0 && done[0] < total) {
                    out.accept(sink[0].toBatch((System.nanoTime() - t0) / 1_000_000));
                    sink[0] = new FactSink();
                }
            }
        };
        if (total > 0) {
            // Without code generation unless asked for (-Dpybridge.generateCode=true, for comparison); the
            // class cache generates the code of the units it keeps after their facts are read.
            monitor[0] = Boolean.getBoolean("pybridge.generateCode") ? null : new NoCodegen(requestor);
            parser.createASTs(paths, encodings, new String[0], requestor, monitor[0]);
        }
        cache.finish();
        AnnotationNames.forget();      // its last unit: nothing of a request outlives it
        out.accept(sink[0].toBatch((System.nanoTime() - t0) / 1_000_000));
        if (classCache && done[0] < total) {
            // JDT stopped early: a class file served names a type it cannot find (AbortCompilation: "indirectly
            // referenced from required .class files"), as when the file declaring it was deleted since. The
            // cache is dropped and the files JDT did not hand out are compiled from sources alone.
            ClassCache.clear();
            List<String> rest = new ArrayList<>();
            for (String p : paths) {
                if (!accepted.contains(p)) rest.add(p);
            }
            run(rest.toArray(new String[0]), sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache,
                    false, null, progress, chunkFiles, out);
        }
    }

    /**
     * Only errors become facts (problems, binding completeness): every optional problem JDT
     * reports as a warning or an info is turned off, as ecj's {@code -nowarn} does, and so are
     * task tags (TODO, FIXME), so that JDT does not run the analyses behind them (null flow,
     * unused members, deprecation, raw types...). Errors stay as they are.
     */
    static void quiet(Map<String, String> options) {
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (JavaCore.WARNING.equals(e.getValue()) || JavaCore.INFO.equals(e.getValue())) {
                e.setValue(JavaCore.IGNORE);
            }
        }
        options.put(JavaCore.COMPILER_TASK_TAGS, "");
    }

    static String normalizeRelease(String release) {
        if (release == null || release.isEmpty()) return JavaCore.VERSION_17;
        String r = release.trim();
        if (r.startsWith("1.")) return r;
        try {
            int n = Integer.parseInt(r);
            if (n <= 8) return "1." + n;
        } catch (NumberFormatException e) {
            return JavaCore.VERSION_17;
        }
        return r;
    }

    static void indexFile(String path, CompilationUnit ast, FactSink sink, Symbols symbols, String encoding, boolean javadoc,
            java.util.function.Function<String, IBinding> bindingsByKey) {
        sink.beginFile();
        int[] mark = sink.mark();
        symbols.resetFile();
        SourceText source = new SourceText(path, encoding);
        String failure = null;
        FactVisitor visitor = new FactVisitor(ast, sink, symbols, source, javadoc, bindingsByKey);
        try {
            ast.accept(visitor);
        } catch (RuntimeException | StackOverflowError e) {
            sink.decls.truncate(mark[0]);
            sink.refs.truncate(mark[1]);
            sink.rels.truncate(mark[2]);
            sink.exts.truncate(mark[4]);
            sink.blocks.truncate(mark[5]);
            StringWriter w = new StringWriter();
            e.printStackTrace(new PrintWriter(w));
            String trace = w.toString();
            failure = trace.length() > 2000 ? trace.substring(0, 2000) : trace;
        }
        boolean complete = failure == null;
        for (IProblem p : ast.getProblems()) {
            if (!p.isError()) continue;
            int kind = problemKind(p);
            if (kind != Kinds.OTHER_ERROR) complete = false;
            String name = kind == Kinds.SYNTAX ? "" : problemName(p, kind, source, ast);
            int start = Math.max(p.getSourceStart(), 0);
            int length = Math.max(p.getSourceEnd() - p.getSourceStart() + 1, 0);
            sink.problem(kind, name, p.getMessage(), visitor.span(start, length), true);
        }
        sink.endFile(path, complete, failure, source.pythonText());
    }

    static int problemKind(IProblem p) {
        int id = p.getID();
        if ((id & IProblem.Syntax) != 0) return Kinds.SYNTAX;
        switch (id) {
            case IProblem.UndefinedType:
            case IProblem.InternalTypeNameProvided:
            case IProblem.IsClassPathCorrect:
            case IProblem.IsClassPathCorrectWithReferencingType:
            case IProblem.UndefinedModule:
                return Kinds.UNRESOLVED_TYPE;
            case IProblem.UndefinedMethod:
            case IProblem.UndefinedConstructor:
            case IProblem.UndefinedConstructorInDefaultConstructor:
            case IProblem.UndefinedConstructorInImplicitConstructorCall:
                return Kinds.UNRESOLVED_METHOD;
            case IProblem.UndefinedField:
                return Kinds.UNRESOLVED_FIELD;
            case IProblem.UnresolvedVariable:
                return Kinds.UNRESOLVED_VARIABLE;
            case IProblem.ImportNotFound:
                return Kinds.UNRESOLVED_IMPORT;
            case IProblem.UndefinedName:
                return Kinds.UNRESOLVED_NAME;
            default:
                return Kinds.OTHER_ERROR;
        }
    }

    static String problemName(IProblem p, int kind, SourceText source, CompilationUnit ast) {
        String[] args = p.getArguments();
        if (kind == Kinds.UNRESOLVED_IMPORT) {
            // JDT flags the first package that fails; the name an import hides is its last segment.
            org.eclipse.jdt.core.dom.ASTNode n = org.eclipse.jdt.core.dom.NodeFinder.perform(ast, p.getSourceStart(),
                    Math.max(p.getSourceEnd() - p.getSourceStart() + 1, 0));
            while (n != null && !(n instanceof org.eclipse.jdt.core.dom.ImportDeclaration)) n = n.getParent();
            if (n != null) {
                String full = ((org.eclipse.jdt.core.dom.ImportDeclaration) n).getName().getFullyQualifiedName();
                return ((org.eclipse.jdt.core.dom.ImportDeclaration) n).isOnDemand() ? "*" : full.substring(full.lastIndexOf('.') + 1);
            }
        }
        if (p.getID() == IProblem.UndefinedMethod && args.length > 1) return args[1];
        if (kind == Kinds.UNRESOLVED_METHOD && p.getID() != IProblem.UndefinedMethod && args.length > 0) {
            String t = args[0];
            int dot = t.lastIndexOf('.');
            return dot >= 0 ? t.substring(dot + 1) : t;
        }
        return source.lastIdentifier(p.getSourceStart(), p.getSourceEnd());
    }
}
