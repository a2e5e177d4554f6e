package dev.pybridge.indexer;

import java.lang.reflect.Field;

import org.eclipse.core.runtime.NullProgressMonitor;
import org.eclipse.jdt.core.dom.FileASTRequestor;
import org.eclipse.jdt.internal.compiler.Compiler;
import org.eclipse.jdt.internal.compiler.ast.ASTNode;
import org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration;
import org.eclipse.jdt.internal.compiler.ast.TypeDeclaration;

/**
 * Keeps {@code createASTs} from generating byte code that nobody reads.
 *
 * <p>For every unit, JDT's batch resolver runs {@code Compiler.process}: parse the method
 * bodies, resolve, analyse the flow, and then {@code generateCode}, which builds the class
 * files (constant pools, byte code, stack maps) before the DOM is converted. The DOM and the
 * facts need none of it: bindings, problems of resolution and of flow analysis (definite
 * assignment, unreachable code; the names of local and anonymous classes are fixed there
 * too) all come before. A JFR profile of guava put code generation at about 7% of the
 * indexer's time.
 *
 * <p>JDT has no option for it ({@code generateClassFiles} only concerns annotation
 * processing), but {@code TypeDeclaration.generateCode} returns at once for a type marked
 * {@code HasBeenGenerated}, and member and local types are only generated from their
 * enclosing type. This monitor, passed to {@code createASTs}, marks the top-level types of
 * every unit the resolver has queued: JDT asks the monitor {@code isCanceled()} after each
 * unit it queues and after each unit it hands out, so every unit is marked before it is
 * processed.
 *
 * <p>What is lost: the few errors only code generation reports (a method over 64 KB of
 * byte code, too many constants in a class). They are never errors of resolution, so no
 * reference or certificate depends on them. The resolver is reached through JDT internals
 * by reflection; if they change, nothing is marked and JDT generates code as before (slower,
 * same facts).
 */
final class NoCodegen extends NullProgressMonitor {
    private static volatile Field resolverField;
    private static volatile boolean unavailable;

    private final FileASTRequestor requestor;
    private Compiler resolver;
    private int marked;
    private int found;

    NoCodegen(FileASTRequestor requestor) {
        this.requestor = requestor;
    }

    @Override
    public boolean isCanceled() {
        mark();
        return super.isCanceled();
    }

    /**
     * The unit of {@code path} while JDT hands its AST to the requestor (it is cleaned up right after:
     * {@link ClassCache} generates its code then, after the facts were read, since code generation
     * changes bindings the facts name, such as a lambda's synthetic method);
     * null when JDT's internals are not as expected. Units are processed in order, so the search
     * starts where the last one was found.
     */
    CompilationUnitDeclaration unit(String path) {
        Compiler compiler = resolver();
        if (compiler == null) return null;
        CompilationUnitDeclaration[] units = compiler.unitsToProcess;
        int total = Math.min(compiler.totalUnits, units == null ? 0 : units.length);
        char[] name = path.toCharArray();
        for (int n = 0; n < total; n++) {
            int i = (found + n) % total;
            CompilationUnitDeclaration unit = units[i];
            if (unit != null && unit.compilationResult != null
                    && java.util.Arrays.equals(unit.compilationResult.getFileName(), name)) {
                found = i;
                return unit;
            }
        }
        return null;
    }

    /** Marks the types of every unit queued since the last call (one monitor per createASTs call). */
    private void mark() {
        Compiler compiler = resolver();
        if (compiler == null) return;
        CompilationUnitDeclaration[] units = compiler.unitsToProcess;
        int total = Math.min(compiler.totalUnits, units == null ? 0 : units.length);
        for (int i = marked; i < total; i++) {
            CompilationUnitDeclaration unit = units[i];
            if (unit == null || unit.types == null) continue;
            for (TypeDeclaration type : unit.types) {
                type.bits |= ASTNode.HasBeenGenerated;
            }
        }
        marked = total;
    }

    /** The resolver of the running {@code createASTs} call, or null outside one (or where JDT's
     * internals are not as expected). */
    private Compiler resolver() {
        if (resolver != null) return resolver;
        if (unavailable) return null;
        try {
            if (resolverField == null) {
                Field field = FileASTRequestor.class.getDeclaredField("compilationUnitResolver");
                field.setAccessible(true);
                resolverField = field;
            }
            Object value = resolverField.get(requestor);
            if (value instanceof Compiler) resolver = (Compiler) value;
            return resolver;
        } catch (ReflectiveOperationException | RuntimeException e) {
            unavailable = true;
            return null;
        }
    }
}
