import com.sun.source.doctree.DocCommentTree;
import com.sun.source.doctree.ReferenceTree;
import com.sun.source.tree.*;
import com.sun.source.util.*;
import com.sun.tools.javac.code.Flags;
import com.sun.tools.javac.code.Symbol;
import com.sun.tools.javac.code.Type;
import com.sun.tools.javac.tree.JCTree;
import com.sun.tools.javac.tree.TreeInfo;
import java.io.*;
import java.net.URI;
import java.nio.charset.Charset;
import java.nio.file.*;
import java.util.*;
import javax.lang.model.element.*;
import javax.lang.model.type.*;
import javax.tools.*;

/**
 * A reference extractor on javac's Tree API (JavacTask, Trees, TreePathScanner):
 * for every name token of every compilation unit given on the command line,
 * the declaration it binds to and the reference kind of DESIGN section 6.
 *
 * <p>Usage: {@code java JavacRefs OUT ROOT [javac options] FILES...} (an
 * {@code @argfile} works too). One line per reference, tab-separated:
 * {@code path line char end_char kind target name}, positions 0-based, the
 * character in UTF-16 code units, the path relative to ROOT. The target is
 * {@code src|path|line|char} for a declaration with a name token in source
 * (its name token's position), {@code bin|owner|member|params} otherwise
 * (binary owner name with slashes; member empty for a type, params {@code F}
 * for a field, else the parameter descriptors with type variables kept as
 * {@code TX;} and every other type erased). Locals and parameters are
 * included: pybridge stores them (DESIGN section 5).
 *
 * <p>Declarations an annotation processor generated (Lombok's members: they carry the generating
 * annotation's positions, and their names are no tokens of their own) are named by their binary
 * form, and what their code references is not listed as references: one line of kind
 * {@code generated} per such reference (path, then -1s), which counts them per file.
 *
 * <p>Conventions taken from pybridge's contract, so that the two sides are
 * comparable: Javadoc is not read unless {@code --javadoc} comes first (the
 * differential drops pybridge's Javadoc references); references to a constructor without a declaration in source
 * (a default constructor, an enum's implicit one) are not listed; an
 * anonymous class's constructor is replaced by the superclass constructor it
 * calls (none for an interface); a call of a record's implicit accessor, and
 * a compact constructor's implicit parameter, name the record component field.
 *
 * <p>{@code java JavacRefs --serve}: one warm JVM for many runs (bench/mass_rename.py).
 * Each line of standard input is one run's arguments as an {@code @argfile}
 * path (holding OUT, ROOT, the options and the files); after each run one
 * line on standard output: {@code done REFERENCES ERRORS}, after the lines a
 * single run writes to standard error (the first 500 errors, the summary).
 */
public final class JavacRefs {
    private static PrintStream log = System.err;

    public static void main(String[] argv) throws Exception {
        if (argv.length == 1 && argv[0].equals("--serve")) {
            log = System.out;
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) continue;
                long[] done;
                try {
                    done = run(new String[] {line.trim()});
                } catch (Exception | StackOverflowError e) {
                    log.println("javac_refs: failed: " + e);
                    done = new long[] {0, 1};
                }
                System.out.println("done " + done[0] + " " + done[1]);
                System.out.flush();
            }
            return;
        }
        run(argv);
    }

    /** One run: {references, errors}. */
    static long[] run(String[] argv) throws Exception {
        Analysis a = analyze(argv, log);
        DocTrees trees = DocTrees.instance(a.task);
        long count = 0;
        long generated = 0;
        long inGenerated = 0;
        try (Writer w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(a.out), "UTF-8"))) {
            for (CompilationUnitTree cu : a.units) {
                Scanner s = new Scanner(trees, a.types(), cu, a.root, w);
                s.scan(cu, null);
                if (a.javadoc) new JavadocScanner(trees, s).scan(cu, null);
                count += s.count;
                generated += s.generated;
                inGenerated += s.inGenerated;
            }
        }
        log.println("javac_refs: " + count + " references, " + a.errors + " errors, " + generated
                + " generated declarations (" + inGenerated + " references in them left out)");
        return new long[] {count, a.errors};
    }

    /** The sources of one run, parsed and analyzed by javac (JavacRefs and JavacSupertypes). */
    static final class Analysis {
        final Path out;
        final Path root;
        final JavacTask task;
        final Iterable<? extends CompilationUnitTree> units;
        final int errors;
        final boolean javadoc;

        Analysis(Path out, Path root, JavacTask task, Iterable<? extends CompilationUnitTree> units, int errors,
                 boolean javadoc) {
            this.javadoc = javadoc;
            this.out = out;
            this.root = root;
            this.task = task;
            this.units = units;
            this.errors = errors;
        }

        com.sun.tools.javac.code.Types types() {
            return com.sun.tools.javac.code.Types.instance(((com.sun.tools.javac.api.BasicJavacTask) task).getContext());
        }
    }

    /**
     * Reads the arguments {@code OUT ROOT [javac options] FILES...} (an {@code @argfile} read in
     * place), parses and analyzes the files with javac, and prints the first 20 errors to {@code log}.
     */
    static Analysis analyze(String[] argv, PrintStream log) throws IOException {
        List<String> args = new ArrayList<>();
        for (String a : argv) {
            if (a.startsWith("@")) {
                for (String line : Files.readAllLines(Paths.get(a.substring(1)))) {
                    line = line.trim();
                    if (line.startsWith("\"") && line.endsWith("\"")) line = line.substring(1, line.length() - 1);
                    if (!line.isEmpty()) args.add(line);
                }
            } else {
                args.add(a);
            }
        }
        boolean javadoc = args.get(0).equals("--javadoc");
        if (javadoc) args.remove(0);
        Path out = Paths.get(args.remove(0));
        Path root = Paths.get(args.remove(0)).toAbsolutePath().normalize();
        List<String> options = new ArrayList<>();
        List<File> files = new ArrayList<>();
        Charset encoding = Charset.defaultCharset();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.endsWith(".java") && !a.startsWith("-")) {
                files.add(new File(a));
            } else {
                options.add(a);
                if (a.equals("-encoding")) encoding = Charset.forName(args.get(i + 1));
                if (takesValue(a)) options.add(args.get(++i));
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = compiler.getStandardFileManager(diags, null, encoding);
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diags, options, null, fm.getJavaFileObjectsFromFiles(files));
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        int errors = 0;
        for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                if (errors++ < 500) log.println("javac: " + String.valueOf(d).replace('\n', ' '));
            }
        }
        return new Analysis(out, root, task, units, errors, javadoc);
    }

    private static boolean takesValue(String option) {
        switch (option) {
            case "-classpath": case "-cp": case "--class-path": case "-sourcepath": case "--source-path":
            case "--release": case "-source": case "-target": case "-encoding": case "-d": case "-s":
            case "-processorpath": case "--module-path": case "-p": case "--add-exports": case "--add-opens":
            case "--system": case "-bootclasspath": case "--boot-class-path":
                return true;
            default:
                return false;
        }
    }

    /**
     * With {@code --javadoc} (before OUT): the Javadoc references too ({@code {@link}}, {@code @see},
     * {@code @throws}), one line per reference at the start of its signature as written
     * ({@code Cache#put}, {@code #escape(char)}), kind {@code javadoc}, target the element javac's
     * DocTrees resolves it to; one javac cannot resolve is not listed. bench/mass_rename.py proves
     * with them that a refused rename would move a Javadoc link (pybridge renames and checks links).
     */
    static final class JavadocScanner extends TreePathScanner<Void, Void> {
        private final DocTrees docTrees;
        private final Scanner out;

        JavadocScanner(DocTrees docTrees, Scanner out) {
            this.docTrees = docTrees;
            this.out = out;
        }

        @Override
        public Void visitClass(ClassTree node, Void p) {
            doc();
            return super.visitClass(node, p);
        }

        @Override
        public Void visitMethod(MethodTree node, Void p) {
            doc();
            return super.visitMethod(node, p);
        }

        @Override
        public Void visitVariable(VariableTree node, Void p) {
            doc();
            return super.visitVariable(node, p);
        }

        private void doc() {
            TreePath path = getCurrentPath();
            DocCommentTree comment = docTrees.getDocCommentTree(path);
            if (comment == null) return;
            CompilationUnitTree cu = path.getCompilationUnit();
            DocSourcePositions positions = docTrees.getSourcePositions();
            new DocTreePathScanner<Void, Void>() {
                @Override
                public Void visitReference(ReferenceTree ref, Void q) {
                    Element e;
                    try {
                        e = docTrees.getElement(getCurrentPath());
                    } catch (RuntimeException ex) {
                        e = null;
                    }
                    if (e instanceof Symbol) {
                        long start = positions.getStartPosition(cu, comment, ref);
                        out.emit((int) start, ref.getSignature(), (Symbol) e, "javadoc");
                    }
                    return super.visitReference(ref, q);
                }
            }.scan(new DocTreePath(path, comment), null);
        }
    }

    static final class Scanner extends TreePathScanner<Void, Void> {
        private final Trees trees;
        private final com.sun.tools.javac.code.Types types;
        private final CompilationUnitTree cu;
        private final Path root;
        private final Writer out;
        private final String path;
        private final String text;
        private final LineMap lines;
        private final SourcePositions positions;
        private final Set<Tree> skip = Collections.newSetFromMap(new IdentityHashMap<>());
        private final Map<CompilationUnitTree, String[]> unitTexts = new IdentityHashMap<>();
        long count;
        /** Declarations an annotation processor (Lombok) generated, and the references made inside them. */
        long generated;
        long inGenerated;
        private int inGeneratedDepth;

        Scanner(Trees trees, com.sun.tools.javac.code.Types types, CompilationUnitTree cu, Path root, Writer out)
                throws IOException {
            this.trees = trees;
            this.types = types;
            this.cu = cu;
            this.root = root;
            this.out = out;
            this.path = rel(cu);
            this.text = cu.getSourceFile().getCharContent(true).toString();
            this.lines = cu.getLineMap();
            this.positions = trees.getSourcePositions();
        }

        private String rel(CompilationUnitTree unit) {
            URI uri = unit.getSourceFile().toUri();
            Path p = Paths.get(uri).toAbsolutePath().normalize();
            return p.startsWith(root) ? root.relativize(p).toString() : p.toString();
        }

        // ------------------------------------------------------------ output

        private void emit(int start, String name, Symbol target, String kind) {
            emit(start, name, target, kind, null);
        }

        /**
         * {@code receiver}: for a method, the type it was looked up in; the other declarations of the
         * same method that are override-equivalent as members of that type, and that the bound one does
         * not override, are listed after the name (comma-separated): a compiler may name any of them
         * (JLS 15.12.2.5 when all are abstract; javac names Object's method for an interface that
         * redeclares it).
         */
        private void emit(int start, String name, Symbol target, String kind, Type receiver) {
            if (inGeneratedDepth > 0) {
                // made by generated code: its trees carry the annotation's positions, not tokens of
                // theirs; one line of kind `generated` per such reference, counted per file
                if (target != null) {
                    inGenerated++;
                    try {
                        out.write(path + "\t-1\t-1\t-1\tgenerated\t-\t-\t\n");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return;
            }
            if (start < 0 || target == null) return;
            if (!text.regionMatches(start, name, 0, name.length())) return;   // synthetic: no such token here
            if (start + name.length() < text.length() && Character.isJavaIdentifierPart(text.charAt(start + name.length()))) return;
            String id = targetId(target);
            if (id == null) return;
            long line = lines.getLineNumber(start);
            long col = start - lines.getStartPosition(line);
            try {
                out.write(path + "\t" + (line - 1) + "\t" + col + "\t" + (col + name.length()) + "\t" + kind + "\t" + id
                        + "\t" + target.getSimpleName() + "\t" + alternatives(target, receiver) + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            count++;
        }

        private String alternatives(Symbol m, Type receiver) {
            if (receiver == null || !(m instanceof Symbol.MethodSymbol) || m.isConstructor()
                    || !(receiver.tsym instanceof Symbol.ClassSymbol)) return "";
            StringBuilder sb = new StringBuilder();
            Type mt;
            try {
                mt = types.memberType(receiver, m);
            } catch (RuntimeException e) {
                return "";
            }
            Set<String> seen = new HashSet<>();
            for (Type t : types.closure(receiver)) {
                for (Symbol o : t.tsym.members().getSymbolsByName(m.name)) {
                    if (o == m || o.kind != com.sun.tools.javac.code.Kinds.Kind.MTH || (o.flags() & Flags.STATIC) != (m.flags() & Flags.STATIC)) continue;
                    // not a declaration the bound method's class overrides: naming that would be less precise
                    if (m.owner != o.owner && m.owner.isSubClass(o.owner, types)) continue;
                    try {
                        if (!types.overrideEquivalent(mt, types.memberType(receiver, o))) continue;
                    } catch (RuntimeException e) {
                        continue;
                    }
                    String id = targetId(o);
                    if (id != null && seen.add(id)) sb.append(sb.length() == 0 ? "" : ",").append(id);
                }
            }
            return sb.toString();
        }

        /** The type a method named by {@code p}'s leaf was looked up in. */
        private Type receiver(TreePath p, Symbol m) {
            Tree t = p.getLeaf();
            if (t instanceof JCTree.JCFieldAccess) return ((JCTree.JCFieldAccess) t).selected.type;
            if (t instanceof JCTree.JCMemberReference) return ((JCTree.JCMemberReference) t).expr.type;
            for (TreePath q = p; q != null; q = q.getParentPath()) {
                if (q.getLeaf() instanceof JCTree.JCClassDecl) {
                    Symbol.ClassSymbol c = ((JCTree.JCClassDecl) q.getLeaf()).sym;
                    if (c != null && m.owner instanceof Symbol.TypeSymbol && c.isSubClass(m.owner, types)) return c.type;
                }
            }
            return null;
        }

        // ------------------------------------------------------- targets

        /** The declaration a reference names, in the form both sides can produce. */
        private String targetId(Symbol s) {
            String src = sourceId(s);
            if (src != null) return src;
            return binaryId(s);
        }

        private String sourceId(Symbol s) {
            if (s.kind == com.sun.tools.javac.code.Kinds.Kind.ERR) return null;
            TreePath decl;
            try {
                decl = trees.getPath(s);
            } catch (RuntimeException e) {
                decl = null;
            }
            if (decl == null) return null;
            Tree t = decl.getLeaf();
            int pos = namePos(decl.getCompilationUnit(), t, s);
            if (pos < 0) return null;
            CompilationUnitTree unit = decl.getCompilationUnit();
            LineMap lm = unit.getLineMap();
            long line = lm.getLineNumber(pos);
            return "src|" + rel(unit) + "|" + (line - 1) + "|" + (pos - lm.getStartPosition(line));
        }

        private String unitText(CompilationUnitTree unit) {
            if (unit == cu) return text;
            return unitTexts.computeIfAbsent(unit, u -> {
                try {
                    return new String[] {u.getSourceFile().getCharContent(true).toString()};
                } catch (IOException e) {
                    return new String[] {""};
                }
            })[0];
        }

        /** The position of a declaration's name token, or -1 when it has none in source (an implicit member). */
        private int namePos(CompilationUnitTree unit, Tree t, Symbol s) {
            // implicit members (a default constructor, a record's implicit accessors and canonical
            // constructor) have no name token; a record's component fields do (the header's)
            if ((s.flags() & Flags.GENERATEDCONSTR) != 0) return -1;
            if ((s.flags() & Flags.GENERATED_MEMBER) != 0 && s.kind != com.sun.tools.javac.code.Kinds.Kind.VAR) return -1;
            String src = unitText(unit);
            String name = s.isConstructor() ? s.owner.getSimpleName().toString() : s.getSimpleName().toString();
            if (name.isEmpty()) return -1;
            int pos;
            if (t instanceof JCTree.JCClassDecl) {
                // pos is the keyword (class, interface, enum, record, @interface): the name follows it
                pos = nextIdentifier(src, ((JCTree) t).pos, name);
            } else if (t instanceof JCTree.JCVariableDecl) {
                pos = varNamePos(unit, (JCTree.JCVariableDecl) t, src);
            } else if (t instanceof JCTree) {
                pos = ((JCTree) t).pos;
            } else {
                return -1;
            }
            if (pos < 0 || !src.regionMatches(pos, name, 0, name.length())) return -1;
            // a declaration an annotation processor generated (Lombok's getter, builder class, `log`
            // field) has the generating annotation's positions, or none: its name is no token of its own
            long from = positions.getStartPosition(unit, t), to = positions.getEndPosition(unit, t);
            if (from < 0 || to < 0 || pos < from || pos + name.length() > to) return -1;
            return pos;
        }

        /** A member an annotation processor added to a class of this unit (no name token of its own). */
        private boolean processorGenerated(Tree t, Symbol s) {
            if (s == null || (s.flags() & (Flags.GENERATEDCONSTR | Flags.GENERATED_MEMBER)) != 0) return false;
            if (!(s.owner instanceof Symbol.ClassSymbol) || (s.flags() & Flags.ENUM) != 0) return false;
            return namePos(cu, t, s) < 0;
        }

        /** Scan a generated declaration without writing what it references (counted in inGenerated). */
        private void scanGenerated(Tree t) {
            generated++;
            inGeneratedDepth++;
            try {
                if (t instanceof MethodTree) super.visitMethod((MethodTree) t, null);
                else if (t instanceof VariableTree) super.visitVariable((VariableTree) t, null);
                else super.visitClass((ClassTree) t, null);
            } finally {
                inGeneratedDepth--;
            }
        }

        /** An enum constant with annotations starts at its first annotation: its name follows them. */
        private int varNamePos(CompilationUnitTree unit, JCTree.JCVariableDecl v, String src) {
            String name = v.name.toString();
            if (src.regionMatches(v.pos, name, 0, name.length())) return v.pos;
            int from = v.mods == null ? v.pos : (int) positions.getEndPosition(unit, v.mods);
            return from < 0 ? -1 : nextIdentifier(src, from, name);
        }

        private static int nextIdentifier(String src, int from, String name) {
            int i = src.indexOf(name, from);
            while (i >= 0) {
                boolean before = i == 0 || !Character.isJavaIdentifierPart(src.charAt(i - 1));
                boolean after = i + name.length() >= src.length() || !Character.isJavaIdentifierPart(src.charAt(i + name.length()));
                if (before && after) return i;
                i = src.indexOf(name, i + 1);
            }
            return -1;
        }

        private String binaryId(Symbol s) {
            switch (s.kind) {
                case TYP: {
                    if (s.type != null && s.type.hasTag(com.sun.tools.javac.code.TypeTag.TYPEVAR)) return null;
                    return "bin|" + binary((Symbol.ClassSymbol) s) + "||";
                }
                case VAR: {
                    if (!(s.owner instanceof Symbol.ClassSymbol)) return null;
                    return "bin|" + binary((Symbol.ClassSymbol) s.owner) + "|" + s.name + "|F";
                }
                case MTH: {
                    if (!(s.owner instanceof Symbol.ClassSymbol)) return null;
                    StringBuilder sb = new StringBuilder("(");
                    for (Symbol.VarSymbol p : ((Symbol.MethodSymbol) s).params()) sb.append(descriptor(p.type));
                    // no parameter symbols on some class-file methods: fall back to the method type
                    if (((Symbol.MethodSymbol) s).params().isEmpty()) {
                        for (Type p : s.type.getParameterTypes()) sb.append(descriptor(p));
                    }
                    String name = s.isConstructor() ? "<init>" : s.name.toString();
                    return "bin|" + binary((Symbol.ClassSymbol) s.owner) + "|" + name + "|" + sb.append(')');
                }
                default:
                    return null;
            }
        }

        private static String binary(Symbol.ClassSymbol c) {
            return c.flatname.toString().replace('.', '/');
        }

        /** A parameter's descriptor: type variables as TX;, every other type erased. */
        private static String descriptor(Type t) {
            switch (t.getTag()) {
                case TYPEVAR: return "T" + t.tsym.name + ";";
                case ARRAY: return "[" + descriptor(((Type.ArrayType) t).elemtype);
                case BYTE: return "B";
                case CHAR: return "C";
                case DOUBLE: return "D";
                case FLOAT: return "F";
                case INT: return "I";
                case LONG: return "J";
                case SHORT: return "S";
                case BOOLEAN: return "Z";
                case VOID: return "V";
                case CLASS: return "L" + binary((Symbol.ClassSymbol) t.tsym) + ";";
                default: return "?" + t;
            }
        }

        // ---------------------------------------------------- normalization

        /** What pybridge's contract names instead of javac's symbol (see the class comment); null: no reference. */
        private Symbol normalize(Symbol s) {
            if (s == null || s.kind == com.sun.tools.javac.code.Kinds.Kind.ERR) return null;
            if (s.kind == com.sun.tools.javac.code.Kinds.Kind.PCK) return null;
            if (s instanceof Symbol.MethodSymbol) {
                Symbol.MethodSymbol m = (Symbol.MethodSymbol) s;
                if (m.isConstructor()) {
                    Symbol.ClassSymbol owner = (Symbol.ClassSymbol) m.owner;
                    if ((owner.flags() & Flags.RECORD) == 0 && (m.flags() & Flags.GENERATEDCONSTR) != 0
                            && !owner.isAnonymous()) return null;
                    if (owner.isAnonymous()) return superConstructor(m);
                    if ((owner.flags() & Flags.ENUM) != 0 && (m.flags() & Flags.GENERATEDCONSTR) != 0) return null;
                } else if ((m.flags() & Flags.HYPOTHETICAL) != 0) {
                    // a signature-polymorphic call (MethodHandle.invokeExact): javac binds a method it
                    // made for the call site's types; the declaration is the polymorphic one
                    for (Symbol d : m.owner.members().getSymbolsByName(m.name)) {
                        if ((d.flags() & Flags.SIGNATURE_POLYMORPHIC) != 0) return d;
                    }
                } else if ((m.flags() & Flags.GENERATED_MEMBER) != 0 && (m.owner.flags() & Flags.RECORD) != 0
                        && m.params().isEmpty()) {
                    Symbol f = recordField((Symbol.ClassSymbol) m.owner, m.name.toString());
                    if (f != null) return f;
                }
            }
            if (s.kind == com.sun.tools.javac.code.Kinds.Kind.VAR && s.owner instanceof Symbol.MethodSymbol
                    && (s.owner.flags() & Flags.COMPACT_RECORD_CONSTRUCTOR) != 0 && (s.flags() & Flags.PARAMETER) != 0) {
                Symbol f = recordField((Symbol.ClassSymbol) s.owner.owner, s.name.toString());
                if (f != null) return f;
            }
            return s;
        }

        private static Symbol recordField(Symbol.ClassSymbol record, String name) {
            for (Symbol m : record.members().getSymbolsByName(record.name.table.fromString(name))) {
                if (m.kind == com.sun.tools.javac.code.Kinds.Kind.VAR && (m.flags() & Flags.STATIC) == 0) return m;
            }
            return null;
        }

        /** The superclass constructor an anonymous class's constructor calls (none for an interface). */
        private Symbol superConstructor(Symbol.MethodSymbol anon) {
            Symbol.ClassSymbol c = (Symbol.ClassSymbol) anon.owner;
            JCTree.JCClassDecl decl = (JCTree.JCClassDecl) trees.getTree(c);
            if (decl == null) return null;
            for (JCTree def : decl.defs) {
                if (def instanceof JCTree.JCMethodDecl && ((JCTree.JCMethodDecl) def).sym == anon) {
                    JCTree.JCBlock body = ((JCTree.JCMethodDecl) def).body;
                    if (body == null) return null;
                    for (JCTree.JCStatement st : body.stats) {
                        if (st instanceof JCTree.JCExpressionStatement
                                && ((JCTree.JCExpressionStatement) st).expr instanceof JCTree.JCMethodInvocation) {
                            Symbol sup = TreeInfo.symbol(((JCTree.JCMethodInvocation) ((JCTree.JCExpressionStatement) st).expr).meth);
                            if (sup != null && sup.isConstructor()) {
                                if (sup.owner == c.getSuperclass().tsym && "java.lang.Object".equals(sup.owner.getQualifiedName().toString())
                                        && !c.getInterfaces().isEmpty()) return null;
                                return normalize(sup);
                            }
                        }
                    }
                }
            }
            return null;
        }

        // ------------------------------------------------------------ roles

        private String kindOf(TreePath p, Symbol s) {
            Tree node = p.getLeaf();
            TreePath up = p.getParentPath();
            Tree parent = up.getLeaf();
            switch (s.kind) {
                case VAR: {
                    Tree e = node;
                    while (parent instanceof ParenthesizedTree) {
                        e = parent;
                        up = up.getParentPath();
                        parent = up.getLeaf();
                    }
                    if (parent instanceof AssignmentTree && ((AssignmentTree) parent).getVariable() == e) return "write";
                    if (parent instanceof CompoundAssignmentTree && ((CompoundAssignmentTree) parent).getVariable() == e) return "read_write";
                    if (parent instanceof UnaryTree) {
                        switch (parent.getKind()) {
                            case PREFIX_INCREMENT: case PREFIX_DECREMENT: case POSTFIX_INCREMENT: case POSTFIX_DECREMENT:
                                return "read_write";
                            default:
                                break;
                        }
                    }
                    return "read";
                }
                case MTH: {
                    if (parent instanceof MethodInvocationTree && ((MethodInvocationTree) parent).getMethodSelect() == node) return "invocation";
                    if (parent instanceof AssignmentTree && ((AssignmentTree) parent).getVariable() == node) return "invocation";   // @A(name = ...)
                    return "type_use";
                }
                case TYP: {
                    Tree e = node;
                    while (true) {
                        if (parent instanceof ParameterizedTypeTree && ((ParameterizedTypeTree) parent).getType() == e
                                || parent instanceof AnnotatedTypeTree && ((AnnotatedTypeTree) parent).getUnderlyingType() == e) {
                            e = parent;
                            up = up.getParentPath();
                            parent = up.getLeaf();
                            continue;
                        }
                        break;
                    }
                    if (parent instanceof NewClassTree && ((NewClassTree) parent).getIdentifier() == e) return "construction";
                    return "type_use";
                }
                default:
                    return null;
            }
        }

        private void name(TreePath p, Symbol raw, int start, String name) {
            if (name.equals("this") || name.equals("super") || name.equals("class") || name.equals("*")) return;
            Symbol s = normalize(raw);
            if (s == null) return;
            String kind = kindOf(p, raw);
            if (kind == null) return;
            emit(start, name, s, kind, s.kind == com.sun.tools.javac.code.Kinds.Kind.MTH ? receiver(p, s) : null);
        }

        private int end(Tree t) {
            return (int) positions.getEndPosition(cu, t);
        }

        // ------------------------------------------------------------ visits

        @Override
        public Void visitIdentifier(IdentifierTree node, Void v) {
            if (skip.contains(node)) return null;
            Symbol s = TreeInfo.symbol((JCTree) node);
            String n = node.getName().toString();
            if ((n.equals("this") || n.equals("super")) && s != null && s.isConstructor()) {
                // explicit this(...) / super(...): an invocation of the constructor, at the keyword
                Symbol c = normalize(s);
                if (c != null) emit(((JCTree) node).pos, n, c, "invocation");
                return null;
            }
            if (s != null) name(getCurrentPath(), s, ((JCTree) node).pos, n);
            return null;
        }

        @Override
        public Void visitMemberSelect(MemberSelectTree node, Void v) {
            if (skip.contains(node)) return null;
            Symbol s = TreeInfo.symbol((JCTree) node);
            String n = node.getIdentifier().toString();
            int e = end(node);
            if (s != null && e > 0) name(getCurrentPath(), s, e - n.length(), n);
            return super.visitMemberSelect(node, v);
        }

        @Override
        public Void visitMemberReference(MemberReferenceTree node, Void v) {
            Symbol s = ((JCTree.JCMemberReference) node).sym;
            boolean ctor = node.getMode() == MemberReferenceTree.ReferenceMode.NEW;
            String token = ctor ? "new" : node.getName().toString();
            int e = end(node);
            Symbol t = normalize(s);
            if (t != null && e > 0 && !(s.owner != null && s.owner.name.toString().equals("Array"))) {
                emit(e - token.length(), token, t, "method_reference", ctor ? null : receiver(getCurrentPath(), t));
            }
            return super.visitMemberReference(node, v);
        }

        @Override
        public Void visitNewClass(NewClassTree node, Void v) {
            Symbol ctor = ((JCTree.JCNewClass) node).constructor;
            Tree id = node.getIdentifier();
            Tree tok = id;
            while (tok instanceof ParameterizedTypeTree || tok instanceof AnnotatedTypeTree) {
                tok = tok instanceof ParameterizedTypeTree ? ((ParameterizedTypeTree) tok).getType()
                        : ((AnnotatedTypeTree) tok).getUnderlyingType();
            }
            Symbol c = ctor == null ? null : normalize(ctor);
            if (c != null) {
                if (tok instanceof IdentifierTree) {
                    emit(((JCTree) tok).pos, ((IdentifierTree) tok).getName().toString(), c, "construction");
                } else if (tok instanceof MemberSelectTree) {
                    String n = ((MemberSelectTree) tok).getIdentifier().toString();
                    emit(end(tok) - n.length(), n, c, "construction");
                }
            }
            return super.visitNewClass(node, v);
        }

        @Override
        public Void visitVariable(VariableTree node, Void v) {
            Symbol s = ((JCTree.JCVariableDecl) node).sym;
            if (inGeneratedDepth == 0 && processorGenerated(node, s)) {
                scanGenerated(node);
                return null;
            }
            if (s != null && (s.flags() & Flags.ENUM) != 0 && node.getInitializer() instanceof NewClassTree) {
                // an enum constant: a construction of the constructor it calls, at the constant's name
                NewClassTree nc = (NewClassTree) node.getInitializer();
                Symbol ctor = ((JCTree.JCNewClass) nc).constructor;
                Symbol c = ctor == null ? null : normalize(ctor);
                if (c != null) emit(varNamePos(cu, (JCTree.JCVariableDecl) node, text), node.getName().toString(), c, "construction");
                skip.add(nc.getIdentifier());
                scan(node.getModifiers(), v);
                for (Tree a : nc.getArguments()) scan(a, v);
                if (nc.getClassBody() != null) scan(nc.getClassBody(), v);
                return null;
            }
            return super.visitVariable(node, v);
        }

        @Override
        public Void visitMethod(MethodTree node, Void v) {
            Symbol s = ((JCTree.JCMethodDecl) node).sym;
            // members javac generates (default and implicit record constructors, record accessors,
            // an enum's values/valueOf) have no tokens of their own
            if (s != null && (s.flags() & (Flags.GENERATEDCONSTR | Flags.GENERATED_MEMBER)) != 0) return null;
            if (inGeneratedDepth == 0 && processorGenerated(node, s)) {
                scanGenerated(node);
                return null;
            }
            if (s != null && (s.flags() & Flags.COMPACT_RECORD_CONSTRUCTOR) != 0) {
                // its parameters are implicit: only the body and the annotations are written
                scan(node.getModifiers(), v);
                scan(node.getBody(), v);
                return null;
            }
            return super.visitMethod(node, v);
        }

        @Override
        public Void visitClass(ClassTree node, Void v) {
            if (node.getSimpleName().length() == 0) {
                // an anonymous class body: javac shares its supertype tree with the `new` expression
                // that names it (visited there); only the members are the body's own
                scan(node.getMembers(), v);
                return null;
            }
            if (inGeneratedDepth == 0 && processorGenerated(node, ((JCTree.JCClassDecl) node).sym)) {
                scanGenerated(node);
                return null;
            }
            return super.visitClass(node, v);
        }

        @Override
        public Void visitImport(ImportTree node, Void v) {
            Tree q = node.getQualifiedIdentifier();
            if (node.isStatic() && q instanceof MemberSelectTree) {
                MemberSelectTree ms = (MemberSelectTree) q;
                String n = ms.getIdentifier().toString();
                Symbol owner = TreeInfo.symbol((JCTree) ms.getExpression());
                if (!n.equals("*") && owner instanceof Symbol.ClassSymbol) {
                    int at = end(ms) - n.length();
                    boolean member = false;
                    for (Symbol m : ((Symbol.ClassSymbol) owner).members().getSymbolsByName(((Symbol.ClassSymbol) owner).name.table.fromString(n))) {
                        if ((m.flags() & Flags.STATIC) == 0) continue;
                        if (m.kind == com.sun.tools.javac.code.Kinds.Kind.TYP) {
                            emit(at, n, m, "type_use");
                        } else {
                            Symbol t = normalize(m);
                            if (t != null) emit(at, n, t, "type_use");
                        }
                        member = true;
                    }
                    if (!member) {
                        // inherited static members: javac imports them too
                        for (Type st = ((Symbol.ClassSymbol) owner).getSuperclass(); st != null && st.tsym instanceof Symbol.ClassSymbol; st = ((Symbol.ClassSymbol) st.tsym).getSuperclass()) {
                            for (Symbol m : st.tsym.members().getSymbolsByName(((Symbol.ClassSymbol) owner).name.table.fromString(n))) {
                                if ((m.flags() & Flags.STATIC) != 0) emit(at, n, m, "type_use");
                            }
                        }
                    }
                }
                scan(ms.getExpression(), v);
                return null;
            }
            return super.visitImport(node, v);
        }
    }
}
