package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.util.HashMap;

import org.eclipse.jdt.core.dom.CompilationUnit;
import org.eclipse.jdt.internal.compiler.ast.AbstractMethodDeclaration;
import org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration;
import org.eclipse.jdt.internal.compiler.ast.TypeDeclaration;
import org.eclipse.jdt.internal.compiler.lookup.CompilationUnitScope;

/**
 * Lets a unit's trees go once its facts are read, so that a request's live heap grows with the
 * declarations it resolves and not with the trees of every unit it compiled.
 *
 * <p>JDT's batch resolver ({@code createASTs}) hands each unit's DOM to the requestor and then
 * cleans the compiler's unit up ({@code CompilationUnitDeclaration.cleanUp}: the type bindings'
 * scopes). But the DOM bindings made for the unit stay in a table that all the request's units
 * share ({@code DefaultBindingResolver.BindingTables}), and each holds the unit's resolver: its
 * maps from DOM nodes to compiler nodes and back (the whole DOM and the whole compiler tree)
 * and its scope, whose {@code referenceContext} is the compiler's unit with every method body.
 * A JFR old-object sample and the collector's log of a first sync of hibernate-core showed that
 * live set growing by about 300 KB a file through each batch of 1,000 files.
 *
 * <p>{@link #release} (when the unit's facts are read) empties the resolver's three node maps:
 * they answer only questions about this unit's own DOM nodes ({@code resolveBinding} of a node),
 * which nobody asks once its facts are read; bindings made in it still answer through the shared
 * tables and the scope. {@link #strip} (at the next unit, after JDT's clean-up) drops the
 * method bodies ({@code statements}) of the unit's types: resolving other units never reads
 * another unit's method bodies (signatures, field initializers and annotation defaults stay), and
 * code generation is off ({@link NoCodegen}); with the class cache on ({@link ClassCache}, which
 * generates a unit's code) nothing is stripped.
 *
 * <p>Reached through JDT internals by reflection; where they are not as expected, nothing is
 * released (more heap, same facts). Off with the system property
 * {@code pybridge.releaseUnits=false} (for comparison; PYBRIDGE_JVM_ARGS).
 */
final class UnitRelease {
    private UnitRelease() {}

    static final boolean ENABLED = !"false".equals(System.getProperty("pybridge.releaseUnits"));

    private static Field[] maps;
    private static Field scopeField;
    private static volatile boolean ready;
    private static volatile boolean unavailable;

    private static synchronized boolean handles() {
        if (ready) return true;
        if (unavailable) return false;
        try {
            Class<?> c = Class.forName("org.eclipse.jdt.core.dom.DefaultBindingResolver");
            Field[] f = {c.getDeclaredField("newAstToOldAst"), c.getDeclaredField("bindingsToAstNodes"),
                    c.getDeclaredField("astNodesToBlockScope")};
            for (Field x : f) x.setAccessible(true);
            Field s = c.getDeclaredField("scope");
            s.setAccessible(true);
            maps = f;
            scopeField = s;
            ready = true;
            return true;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unavailable = true;
            return false;
        }
    }

    /** Whether the reflective handles are in place (the canary's question). */
    static boolean available() {
        return ready || handles();
    }

    /**
     * Empties the node maps of {@code ast}'s resolver; returns the compiler's unit behind it, for
     * {@link #strip} once JDT has cleaned it up (null when there is none, or when off).
     */
    static CompilationUnitDeclaration release(CompilationUnit ast) {
        if (!ENABLED || !(ready || handles())) return null;
        try {
            Object resolver = BindingTables.resolver(ast);
            if (resolver == null) return null;
            for (Field f : maps) f.set(resolver, new HashMap<>());
            Object scope = scopeField.get(resolver);
            return scope instanceof CompilationUnitScope ? ((CompilationUnitScope) scope).referenceContext : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Drops the method bodies of {@code unit}'s types (after JDT's clean-up of the unit). */
    static void strip(CompilationUnitDeclaration unit) {
        if (unit == null || unit.types == null) return;
        for (TypeDeclaration t : unit.types) strip(t);
    }

    private static void strip(TypeDeclaration t) {
        if (t.memberTypes != null) for (TypeDeclaration m : t.memberTypes) strip(m);
        if (t.methods != null) for (AbstractMethodDeclaration m : t.methods) m.statements = null;
    }
}
