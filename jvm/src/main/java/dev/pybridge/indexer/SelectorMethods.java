package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.eclipse.jdt.core.dom.IMethodBinding;
import org.eclipse.jdt.core.dom.ITypeBinding;
import org.eclipse.jdt.internal.compiler.lookup.MethodBinding;
import org.eclipse.jdt.internal.compiler.lookup.ReferenceBinding;
import org.eclipse.jdt.internal.compiler.lookup.TypeConstants;

/**
 * The methods of a type that have one name, as {@link ITypeBinding#getDeclaredMethods} lists
 * them, without resolving the signatures of the type's other methods.
 *
 * <p>{@link Symbols} numbers a method among the same-named methods of its type (the SCIP
 * overload index). Through {@code getDeclaredMethods} that asks JDT for every method of the
 * type ({@code ReferenceBinding.availableMethods}), and for a type that JDT otherwise only
 * looks into by name (a type of the sourcepath that a unit calls one method of), that resolves
 * the parameter and return types of all its methods: a JFR profile of a first sync of
 * hibernate-core put it at 7.6% of the indexer's time. The compiler's
 * {@code ReferenceBinding.getMethods(selector)} resolves only the methods of that name, and
 * lists them in the same order: both read the same array, sorted by name once; where a method
 * of that name cannot be resolved or two clash, it falls back on {@code methods()}, as
 * {@code availableMethods} would have. The DOM bindings are then made as
 * {@code getDeclaredMethods} makes them (its filter included), so the index is the same.
 *
 * <p>Only for a type declaration (a generic one included), never a parameterization or a raw type:
 * {@code ParameterizedTypeBinding.getMethods(selector)} lists them in another order than its
 * {@code methods()} (a static method first), so those are left to {@code getDeclaredMethods}.
 *
 * <p>The compiler binding behind a DOM type binding and its resolver are reached by reflection
 * ({@code TypeBinding.binding}, {@code TypeBinding.resolver},
 * {@code BindingResolver.getMethodBinding}); where JDT's internals are not as expected,
 * {@link #named} answers null and {@link Symbols} lists every method as before (slower, same
 * index). The canary in {@code FactVisitorTest} fails when they change. Off with the system
 * property {@code pybridge.selectorMethods=false} (for comparison).
 */
final class SelectorMethods {
    private SelectorMethods() {}

    static final boolean ENABLED = !"false".equals(System.getProperty("pybridge.selectorMethods"));

    private static Field typeBinding;
    private static Field typePrototype;
    private static Field typeResolver;
    private static Method getMethodBinding;
    private static volatile boolean ready;
    private static volatile boolean unavailable;

    /** Whether the reflective handles are in place (the canary's question). */
    static boolean available() {
        return ready || handles();
    }

    private static synchronized boolean handles() {
        if (ready) return true;
        if (unavailable) return false;
        try {
            Class<?> domType = Class.forName("org.eclipse.jdt.core.dom.TypeBinding");
            Field b = domType.getDeclaredField("binding");
            Field p = domType.getDeclaredField("prototype");
            Field r = domType.getDeclaredField("resolver");
            Method m = Class.forName("org.eclipse.jdt.core.dom.BindingResolver")
                    .getDeclaredMethod("getMethodBinding", MethodBinding.class);
            b.setAccessible(true);
            p.setAccessible(true);
            r.setAccessible(true);
            m.setAccessible(true);
            typeBinding = b;
            typePrototype = p;
            typeResolver = r;
            getMethodBinding = m;
            ready = true;
            return true;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            unavailable = true;
            return false;
        }
    }

    /**
     * The DOM bindings of {@code owner}'s methods named {@code name} ({@code <init>}: its
     * constructors), in {@code getDeclaredMethods}' order and with its filter; null when this
     * cannot be answered here (then the caller lists {@code getDeclaredMethods}).
     */
    static IMethodBinding[] named(ITypeBinding owner, String name) {
        if (!ENABLED || owner == null || !(ready || handles())) return null;
        try {
            Object dom = owner;
            Object prototype = typePrototype.get(dom);
            if (prototype != null) dom = prototype;   // getDeclaredMethods asks the prototype
            if (!typeBinding.getDeclaringClass().isInstance(dom)) return null;
            if (!(owner.isClass() || owner.isInterface() || owner.isEnum())) return null;
            // A parameterization lists its methods of one name in another order than its getDeclaredMethods
            // (SelectorMethodsTest: S<String>'s static m() first): only declarations, as Symbols asks.
            if (owner.isParameterizedType() || owner.isRawType()) return null;
            Object compiler = typeBinding.get(dom);
            if (!(compiler instanceof ReferenceBinding)) return null;
            ReferenceBinding type = (ReferenceBinding) compiler;
            Object resolver = typeResolver.get(dom);
            char[] selector = "<init>".equals(name) ? TypeConstants.INIT : name.toCharArray();
            MethodBinding[] methods = type.getMethods(selector);
            IMethodBinding[] out = new IMethodBinding[methods.length];
            int n = 0;
            boolean isInterface = owner.isInterface();
            for (MethodBinding method : methods) {
                if (method.isDefaultAbstract() || method.isSynthetic() || (method.isConstructor() && isInterface)) {
                    continue;
                }
                IMethodBinding converted = (IMethodBinding) getMethodBinding.invoke(resolver, method);
                if (converted != null) out[n++] = converted;
            }
            if (n == out.length) return out;
            IMethodBinding[] trimmed = new IMethodBinding[n];
            System.arraycopy(out, 0, trimmed, 0, n);
            return trimmed;
        } catch (ReflectiveOperationException | RuntimeException e) {
            // availableMethods() is resilient where getMethods(selector) may not be (a binary type whose
            // signature names a missing type aborts): the caller lists getDeclaredMethods as before.
            return null;
        }
    }
}
