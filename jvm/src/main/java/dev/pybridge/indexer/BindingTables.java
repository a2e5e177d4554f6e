package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.IdentityHashMap;
import java.util.Map;

import org.eclipse.jdt.core.dom.AST;
import org.eclipse.jdt.core.dom.CompilationUnit;

/**
 * Makes the DOM's compiler-binding table an identity map, as its own comment says it is.
 *
 * <p>{@code DefaultBindingResolver.BindingTables.compilerBindingsToASTBindings} maps each
 * compiler binding to its one DOM binding, and every {@code resolveBinding()},
 * {@code getTypeDeclaration()}, {@code getErasure()} goes through it. It is a
 * {@code ConcurrentHashMap} over the compiler bindings' {@code hashCode}, which for a
 * {@code ReferenceBinding} is the hash of its simple name only: every parameterization of
 * {@code ImmutableList}, every nested {@code Builder}, lands in one bin. On guava those bins
 * hold hundreds of entries, are treeified, and, the keys not being {@code Comparable}, are
 * searched linearly: about a tenth of the indexer's time (JFR). Reference bindings are
 * unique ("equals() is the same as ==", says {@code ReferenceBinding.hashCode}), so an
 * {@link IdentityHashMap} answers the same. One table serves all units of a
 * {@code createASTs} call, and only the indexer's thread reads it.
 *
 * <p>The swap goes through JDT internals by reflection; if they change, it is skipped and
 * the table stays as JDT made it (slower, same answers).
 */
final class BindingTables {
    private BindingTables() {}

    private static volatile Method getBindingResolver;
    private static volatile Class<?> defaultResolver;
    private static volatile boolean noResolver;
    private static Field tablesField;
    private static Field mapField;
    private static boolean unavailable;

    /**
     * The {@code DefaultBindingResolver} behind {@code ast} ({@code AST.getBindingResolver}, read by
     * reflection; also for {@link UnitRelease}); null where there is none or JDT's internals are not as
     * expected (then never looked for again). The reflective handles are looked up once.
     */
    static Object resolver(CompilationUnit ast) {
        if (noResolver) return null;
        try {
            if (getBindingResolver == null) {
                synchronized (BindingTables.class) {
                    if (getBindingResolver == null) {
                        Method method = AST.class.getDeclaredMethod("getBindingResolver");
                        method.setAccessible(true);
                        defaultResolver = Class.forName("org.eclipse.jdt.core.dom.DefaultBindingResolver");
                        getBindingResolver = method;
                    }
                }
            }
            Object resolver = getBindingResolver.invoke(ast.getAST());
            return defaultResolver.isInstance(resolver) ? resolver : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            noResolver = true;
            return null;
        }
    }

    /** The BindingTables object behind {@code ast}'s resolver; null where JDT's internals are not as
     * expected (then never looked for again). The reflective handles are looked up once. */
    private static synchronized Object tablesOf(CompilationUnit ast) {
        if (unavailable) return null;
        try {
            if (tablesField == null) {
                Field tables = Class.forName("org.eclipse.jdt.core.dom.DefaultBindingResolver")
                        .getDeclaredField("bindingTables");
                tables.setAccessible(true);
                Field map = tables.getType().getDeclaredField("compilerBindingsToASTBindings");
                map.setAccessible(true);
                mapField = map;
                tablesField = tables;
            }
            Object resolver = resolver(ast);
            return resolver == null ? null : tablesField.get(resolver);
        } catch (ReflectiveOperationException | RuntimeException e) {
            unavailable = true;
            return null;
        }
    }

    /** The table behind {@code ast}'s resolver, or null where JDT's internals are not as expected. */
    static Object table(CompilationUnit ast) {
        try {
            Object tables = tablesOf(ast);
            return tables == null ? null : mapField.get(tables);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Swap the table behind {@code ast}'s resolver for an identity map (once per table). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void useIdentity(CompilationUnit ast) {
        try {
            Object tables = tablesOf(ast);
            if (tables == null) return;
            Object current = mapField.get(tables);
            if (!(current instanceof IdentityHashMap)) {
                mapField.set(tables, new IdentityHashMap((Map) current));
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            unavailable = true;
        }
    }
}
