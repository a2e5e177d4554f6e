import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import com.sun.tools.javac.code.Kinds;
import com.sun.tools.javac.code.Symbol;
import com.sun.tools.javac.code.Type;
import com.sun.tools.javac.code.Types;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.util.TreeSet;
import javax.lang.model.element.Element;

/**
 * Every named type declared in the given sources with its transitive supertypes, as javac binds
 * them (bench/hierarchy_diff.py): one line per type, {@code binaryName TAB supertype,supertype...},
 * the supertypes erased, by binary name, sorted, {@code java.lang.Object} left out (pybridge leaves
 * it out: every class has it). {@code Types.closure} gives the closure of the type's direct
 * supertypes (superclass and interfaces, at every depth). Anonymous classes are left out (no name
 * to match by). Arguments as JavacRefs: OUT ROOT javac-options-and-files (an @argfile allowed), read
 * and analyzed by {@code JavacRefs.analyze}: compile the two sources together (javac_refs/driver.py).
 */
public final class JavacSupertypes {
    public static void main(String[] argv) throws Exception {
        JavacRefs.Analysis a = JavacRefs.analyze(argv, System.err);   // ROOT unused: types are named by binary name
        Trees trees = Trees.instance(a.task);
        Types types = a.types();
        int[] count = {0};
        int[] skipped = {0};
        try (Writer w = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(a.out), "UTF-8"))) {
            for (CompilationUnitTree cu : a.units) {
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
                + a.errors + " errors");
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
}
