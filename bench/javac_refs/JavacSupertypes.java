import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import com.sun.tools.javac.code.Kinds;
import com.sun.tools.javac.code.Symbol;
import com.sun.tools.javac.code.Type;
import com.sun.tools.javac.code.Types;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Every named type declared in the given sources with its transitive supertypes, as javac binds
 * them (bench/hierarchy_diff.py): one line per type, {@code binaryName TAB supertype,supertype...},
 * the supertypes erased, by binary name, sorted, {@code java.lang.Object} left out (pybridge leaves
 * it out: every class has it). {@code Types.closure} gives the closure of the type's direct
 * supertypes (superclass and interfaces, at every depth). Anonymous classes are left out (no name
 * to match by). Arguments as JavacRefs: OUT ROOT javac-options-and-files (an @argfile allowed).
 */
public final class JavacSupertypes {
    public static void main(String[] argv) throws Exception {
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
        Path out = Paths.get(args.remove(0));
        args.remove(0);     // ROOT: unused (types are named by binary name, not by path)
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
            if (d.getKind() == Diagnostic.Kind.ERROR && errors++ < 20) System.err.println("javac: " + d);
        }
        Trees trees = Trees.instance(task);
        Types types = Types.instance(((com.sun.tools.javac.api.BasicJavacTask) task).getContext());
        int[] count = {0};
        int[] skipped = {0};
        try (Writer w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(out), "UTF-8"))) {
            for (CompilationUnitTree cu : units) {
                new TreePathScanner<Void, Void>() {
                    @Override
                    public Void visitClass(ClassTree node, Void unused) {
                        Element e = trees.getElement(getCurrentPath());
                        if (e instanceof Symbol.ClassSymbol && local((Symbol) e)) {
                            skipped[0]++;
                        } else if (e instanceof Symbol.ClassSymbol) {
                            write(w, (Symbol.ClassSymbol) e, types);
                            count[0]++;
                        }
                        return super.visitClass(node, unused);
                    }
                }.scan(cu, null);
            }
        }
        System.err.println("javac_supertypes: " + count[0] + " types (" + skipped[0] + " local or anonymous left out), "
                + errors + " errors");
    }

    /** An anonymous or local class, or one declared inside them: no qualified name to match by. */
    static boolean local(Symbol s) {
        for (Symbol o = s; o != null && o.kind != Kinds.Kind.PCK; o = o.owner) {
            if (o.kind == Kinds.Kind.MTH || o.kind == Kinds.Kind.VAR) return true;
            if (o instanceof Symbol.ClassSymbol && o.name.isEmpty()) return true;
        }
        return false;
    }

    static void write(Writer w, Symbol.ClassSymbol c, Types types) {
        TreeSet<String> supers = new TreeSet<>();
        for (Type direct : types.directSupertypes(c.type)) {
            for (Type t : types.closure(direct)) {
                if (t.tsym instanceof Symbol.ClassSymbol) {
                    String name = ((Symbol.ClassSymbol) t.tsym).flatname.toString();
                    if (!name.equals("java.lang.Object")) supers.add(name);
                }
            }
        }
        try {
            w.write(c.flatname + "\t" + String.join(",", supers) + "\n");
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
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
}
