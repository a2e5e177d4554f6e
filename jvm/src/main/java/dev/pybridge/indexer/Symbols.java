package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.util.HashMap;
import java.util.Map;
import org.eclipse.jdt.core.dom.IBinding;
import org.eclipse.jdt.core.dom.IMethodBinding;
import org.eclipse.jdt.core.dom.ITypeBinding;
import org.eclipse.jdt.core.dom.IVariableBinding;
import org.eclipse.jdt.internal.compiler.lookup.MethodBinding;
import org.eclipse.jdt.internal.compiler.lookup.SyntheticFactoryMethodBinding;

/**
 * Names of bindings: the declaration binding and its key, the kind, the
 * dotted path, the display name and the SCIP descriptor. Every symbol string
 * is built here and nowhere else.
 *
 * <p>SCIP descriptors follow scip-java: packages {@code com/acme/}, types
 * {@code Greeter#}, methods {@code greet().} with {@code (+N)} for the N-th
 * later overload in declaration order, constructors {@code `<init>`().},
 * fields {@code name.}, type parameters {@code [T]}, parameters
 * {@code (name)}; locals and members of local or anonymous classes are
 * {@code local N}, numbered per file. The scheme and package prefix
 * ({@code scip-java maven <package> <version> }) is added by Python, which
 * knows the Maven coordinates.
 *
 * <p>Keys are JDT's binding keys, except where JDT numbers a lambda: the keys of
 * a lambda's parameters and locals start with its synthetic method's key
 * ({@code Lp/A;.lambda$3(I)V#x}), and JDT numbers a unit's lambdas in the order
 * it resolves them, which depends on the other units of the request (a final
 * field's initializer is resolved early when another unit reads the field first).
 * Those keys are rewritten from the enclosing declaration's key and the lambda's
 * ordinal among that declaration's lambdas in source order, nested ones
 * included ({@code Lp/A;.m()V.lambda$0#x}): see {@link #lambda}.
 */
final class Symbols {
    private final Map<String, String> scipCache = new HashMap<>();
    private final Map<String, String> localIds = new HashMap<>();
    /** JDT key of a lambda's synthetic method -> its key in the facts (this file's lambdas). */
    private final Map<String, String> lambdaKeys = new HashMap<>();
    /** Type declaration key -> what of its supertypes, direct or not, is unresolved (for the whole request). */
    private final Map<String, Integer> incompleteHierarchies = new HashMap<>();
    private int nextLocal;
    /** What the request served from {@link ClassCache}: binary types of the sourcepath read as from source. */
    final ClassCache.Request cache;

    Symbols() {
        this(ClassCache.Request.NONE);
    }

    Symbols(ClassCache.Request cache) {
        this.cache = cache;
    }

    /**
     * Starts a new file: local numbering restarts. Global symbols stay cached for the
     * whole batch (computing an overload index walks the declaring type's methods);
     * local ones are dropped, since their numbers belong to one file.
     */
    /**
     * Whether a member looked up in {@code t} might be one the compiler could
     * not see: {@code t}, or one of its supertypes, is unresolved.
     */
    boolean incompleteHierarchy(ITypeBinding t) {
        return missingSupertypes(t) != NameBlocks.COMPLETE;
    }

    /**
     * What a member looked up in {@code t} may come from that the compiler could not see:
     * {@link NameBlocks#COMPLETE} (nothing), {@link NameBlocks#MISSING_INTERFACES} (only
     * unresolved types named where an interface must be: a class's {@code implements}
     * clause or an interface's {@code extends} clause; an interface inherits only from
     * interfaces), or {@link NameBlocks#MISSING_ANY} ({@code t} itself, a superclass or a
     * type variable's bound is unresolved: any type may be among the missing supertypes).
     */
    int missingSupertypes(ITypeBinding t) {
        if (t == null) return NameBlocks.COMPLETE;
        if (t.isRecovered()) return NameBlocks.MISSING_ANY;
        if (t.isPrimitive() || t.isNullType()) return NameBlocks.COMPLETE;
        if (t.isArray()) return missingSupertypes(t.getElementType());
        if (t.isWildcardType()) return missingSupertypes(t.getBound());
        if (t.isTypeVariable() || t.isCapture()) {
            return boundsMissing(t, new java.util.HashSet<>());
        }
        ITypeBinding d = t.getTypeDeclaration();
        String key = d.getKey();
        if (key == null) return d.isRecovered() ? NameBlocks.MISSING_ANY : NameBlocks.COMPLETE;
        Integer known = incompleteHierarchies.get(key);
        if (known != null) return known;
        incompleteHierarchies.put(key, NameBlocks.COMPLETE);   // a cycle (only in broken code) ends here
        int out = d.isRecovered() ? NameBlocks.MISSING_ANY : NameBlocks.COMPLETE;
        ITypeBinding sup = d.getSuperclass();
        if (sup != null) out = Math.max(out, missingSupertypes(sup));
        for (ITypeBinding i : d.getInterfaces()) {
            if (out == NameBlocks.MISSING_ANY) break;
            out = Math.max(out, i.isRecovered() ? NameBlocks.MISSING_INTERFACES : missingSupertypes(i));
        }
        incompleteHierarchies.put(key, out);
        return out;
    }

    /** {@link #missingSupertypes} of a type variable: the most its bounds (a bound may be another variable) miss. */
    private int boundsMissing(ITypeBinding t, java.util.Set<ITypeBinding> seen) {
        if (!seen.add(t)) return NameBlocks.COMPLETE;
        int out = NameBlocks.COMPLETE;
        for (ITypeBinding b : t.getTypeBounds()) {
            if (b.isRecovered()) return NameBlocks.MISSING_ANY;
            out = Math.max(out, b.isTypeVariable() || b.isCapture() ? boundsMissing(b, seen) : missingSupertypes(b));
        }
        return out;
    }

    /** Whether an argument of this type leaves overload resolution uncertain: it, a supertype or a type argument is unresolved. */
    boolean uncertainArgument(ITypeBinding t) {
        if (t == null) return true;
        if (incompleteHierarchy(t)) return true;
        if (t.isParameterizedType()) {
            for (ITypeBinding a : t.getTypeArguments()) {
                if (a.isRecovered() || (a.isParameterizedType() && uncertainArgument(a))) return true;
            }
        }
        return false;
    }

    void resetFile() {
        for (String key : localIds.keySet()) {
            scipCache.remove(key);
        }
        localIds.clear();
        nextLocal = 0;
        lambdaKeys.clear();
    }

    /**
     * Records a lambda of this file: {@code jdtKey}, its synthetic method's binding key, is
     * written {@code enclosingKey + ".lambda$" + ordinal} in the facts, where {@code ordinal}
     * counts the lambdas of the enclosing declaration (method, field, initializer, enum
     * constant) in source order. So the key does not depend on which other files the request
     * compiles, and an edit elsewhere in the file (another declaration) leaves it as it is.
     */
    void lambda(String jdtKey, String enclosingKey, int ordinal) {
        if (jdtKey != null) lambdaKeys.put(jdtKey, enclosingKey + ".lambda$" + ordinal);
    }

    /**
     * The key of a declaration binding in the facts: JDT's key, with a lambda's synthetic
     * method key (the prefix of its parameters' and locals' keys) replaced as {@link #lambda}
     * recorded it.
     */
    String key(IBinding b) {
        if (b == null) return null;
        String k = b.getKey();
        if (k == null || lambdaKeys.isEmpty()) return k;
        int at = k.indexOf(".lambda$");
        if (at < 0) return k;
        // the lambda's method key ends before a '#' (a local's scope, name and rank follow), or is the whole key
        for (int i = k.indexOf('#', at); ; i = k.indexOf('#', i + 1)) {
            String prefix = i < 0 ? k : k.substring(0, i);
            String stable = lambdaKeys.get(prefix);
            if (stable != null) return i < 0 ? stable : stable + k.substring(i);
            if (i < 0) return k;
        }
    }

    /** The declaration binding: uses through parameterized or raw types land on the declaration. */
    static IBinding declaration(IBinding b) {
        if (b instanceof IMethodBinding) {
            IMethodBinding m = ((IMethodBinding) b).getMethodDeclaration();
            return diamondConstructor(m == null ? (IMethodBinding) b : m);
        }
        if (b instanceof ITypeBinding) {
            ITypeBinding t = (ITypeBinding) b;
            if (t.isArray()) {
                t = t.getElementType();
            }
            if (t.isCapture() || t.isWildcardType()) {
                return null;
            }
            ITypeBinding d = t.getTypeDeclaration();
            return d == null ? t : d;
        }
        if (b instanceof IVariableBinding) {
            IVariableBinding v = ((IVariableBinding) b).getVariableDeclaration();
            return v == null ? b : v;
        }
        return b;
    }

    /** The name of the synthetic static method JDT infers a diamond's type arguments through. */
    static final String DIAMOND_FACTORY = "<factory>";

    /**
     * The constructor a diamond's synthetic {@code <factory>} method stands for; {@code m} itself
     * when it is no such factory; null when its constructor cannot be found (then the use is unresolved).
     *
     * <p>JDT resolves {@code new Box<>(v)} through a static factory it synthesizes from the
     * constructor ({@code Scope.getStaticFactory}), and once the type arguments are inferred it swaps
     * in the constructor. Where inference never completes (the allocation is an argument of a call
     * that does not resolve, so it has no target type), the factory stays, and its key
     * ({@code Ld/Box;.<factory><T':Ljava/lang/Object;>(TT';)Ld/Box<TT';>;}) names no declaration.
     * The factory knows its constructor ({@code SyntheticFactoryMethodBinding.getConstructor()}), a
     * compiler binding behind the DOM one ({@code MethodBinding.binding}, read by reflection: see
     * {@link #factoryConstructorKey}); the DOM constructor is the declared one with that key. Matching
     * parameter erasures instead is not exact: the factory of an inner class of a parameterized class
     * has the outer type arguments substituted ({@code Box<String>.Inner}'s {@code T} is {@code String}).
     */
    static IMethodBinding diamondConstructor(IMethodBinding m) {
        if (m == null || m.isConstructor() || !DIAMOND_FACTORY.equals(m.getName())) return m;
        ITypeBinding owner = m.getDeclaringClass();
        String key = factoryConstructorKey(m);
        if (owner == null || key == null) return null;
        for (IMethodBinding c : owner.getTypeDeclaration().getDeclaredMethods()) {
            if (c.isConstructor() && key.equals(c.getKey())) return c;
        }
        return null;
    }

    private static volatile Field domMethodBinding;
    private static volatile boolean noDomMethodBinding;

    /**
     * The key of the (generic) constructor behind a diamond factory's DOM binding; null if {@code m}
     * is none, or JDT's internals are not as expected (pinned by FactVisitorTest's canary).
     */
    static String factoryConstructorKey(IMethodBinding m) {
        if (noDomMethodBinding) return null;
        try {
            if (domMethodBinding == null) {
                Field f = Class.forName("org.eclipse.jdt.core.dom.MethodBinding").getDeclaredField("binding");
                f.setAccessible(true);
                domMethodBinding = f;
            }
            if (!domMethodBinding.getDeclaringClass().isInstance(m)) return null;
            Object b = domMethodBinding.get(m);
            if (!(b instanceof MethodBinding)) return null;
            MethodBinding factory = ((MethodBinding) b).original();
            if (!(factory instanceof SyntheticFactoryMethodBinding)) return null;
            MethodBinding ctor = ((SyntheticFactoryMethodBinding) factory).getConstructor();
            return ctor == null ? null : new String(ctor.original().computeUniqueKey());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            noDomMethodBinding = true;
            return null;
        }
    }

    static int kind(IBinding b) {
        if (b instanceof ITypeBinding) {
            ITypeBinding t = (ITypeBinding) b;
            if (t.isTypeVariable()) return Kinds.TYPE_PARAMETER;
            if (t.isAnonymous()) return Kinds.CLASS;
            if (t.isAnnotation()) return Kinds.ANNOTATION;
            if (t.isInterface()) return Kinds.INTERFACE;
            if (t.isEnum()) return Kinds.ENUM;
            if (t.isRecord()) return Kinds.RECORD;
            return Kinds.CLASS;
        }
        if (b instanceof IMethodBinding) {
            return ((IMethodBinding) b).isConstructor() ? Kinds.CONSTRUCTOR : Kinds.METHOD;
        }
        if (b instanceof IVariableBinding) {
            IVariableBinding v = (IVariableBinding) b;
            if (v.isEnumConstant()) return Kinds.ENUM_CONSTANT;
            if (v.isRecordComponent()) return Kinds.RECORD_COMPONENT;
            if (v.isField()) {
                ITypeBinding owner = v.getDeclaringClass();
                if (owner != null && owner.isRecord() && !java.lang.reflect.Modifier.isStatic(v.getModifiers())) {
                    return Kinds.RECORD_COMPONENT;
                }
                return Kinds.FIELD;
            }
            if (v.isParameter()) return Kinds.PARAMETER;
            return Kinds.LOCAL;
        }
        return -1;
    }

    /** Simple name; constructors are named after their type. */
    static String name(IBinding b) {
        if (b instanceof IMethodBinding && ((IMethodBinding) b).isConstructor()) {
            ITypeBinding owner = ((IMethodBinding) b).getDeclaringClass();
            return owner == null ? b.getName() : owner.getName();
        }
        if (b instanceof ITypeBinding) {
            ITypeBinding t = (ITypeBinding) b;
            return t.isTypeVariable() ? t.getName() : t.getErasure().getName();
        }
        return b.getName();
    }

    /** e.g. {@code greet(String)}, {@code Box}, {@code count}. */
    static String display(IBinding b) {
        if (b instanceof IMethodBinding) {
            IMethodBinding m = (IMethodBinding) b;
            StringBuilder sb = new StringBuilder(name(m)).append('(');
            ITypeBinding[] ps = m.getParameterTypes();
            for (int i = 0; i < ps.length; i++) {
                if (i > 0) sb.append(", ");
                String p = ps[i].isTypeVariable() ? ps[i].getName() : ps[i].getErasure().getName();
                if (m.isVarargs() && i == ps.length - 1 && p.endsWith("[]")) {
                    p = p.substring(0, p.length() - 2) + "...";
                }
                sb.append(p);
            }
            return sb.append(')').toString();
        }
        return name(b);
    }

    /** e.g. {@code com.acme.Greeter.greet}; members of local and anonymous types hang off their enclosing member. */
    static String dotted(IBinding b) {
        if (b instanceof ITypeBinding) {
            ITypeBinding t = (ITypeBinding) b;
            if (!t.isTypeVariable()) t = t.getErasure();
            if (t.isTypeVariable()) {
                IBinding owner = t.getDeclaringMethod() != null ? t.getDeclaringMethod() : t.getDeclaringClass();
                return owner == null ? t.getName() : dotted(owner) + "." + t.getName();
            }
            if (t.isAnonymous() || t.isLocal()) {
                IBinding owner = t.getDeclaringMember();
                if (owner == null) owner = t.getDeclaringClass();
                String n = t.isAnonymous() ? "<anonymous>" : t.getName();
                return owner == null ? n : dotted(owner) + "." + n;
            }
            if (t.getDeclaringClass() != null) {
                return dotted(t.getDeclaringClass()) + "." + t.getName();
            }
            String q = t.getQualifiedName();
            return q.isEmpty() ? t.getName() : q;
        }
        if (b instanceof IMethodBinding) {
            IMethodBinding m = (IMethodBinding) b;
            ITypeBinding owner = m.getDeclaringClass();
            return owner == null ? name(m) : dotted(owner) + "." + name(m);
        }
        if (b instanceof IVariableBinding) {
            IVariableBinding v = (IVariableBinding) b;
            if (v.isField()) {
                ITypeBinding owner = v.getDeclaringClass();
                return owner == null ? v.getName() : dotted(owner) + "." + v.getName();
            }
            IMethodBinding m = v.getDeclaringMethod();
            return m == null ? v.getName() : dotted(m) + "." + v.getName();
        }
        return b == null ? "" : b.getName();
    }

    /** The SCIP descriptor of a declaration binding (see the class comment). */
    String scip(IBinding b) {
        if (b == null) return null;
        String k = b.getKey();
        String cached = scipCache.get(k);
        if (cached != null) return cached;
        String s = computeScip(b);
        scipCache.put(k, s);
        return s;
    }

    private String local(IBinding b) {
        return localIds.computeIfAbsent(b.getKey(), k -> "local " + (nextLocal++));
    }

    private String computeScip(IBinding b) {
        if (b instanceof ITypeBinding) {
            ITypeBinding t = (ITypeBinding) b;
            if (!t.isTypeVariable()) t = t.getErasure();
            if (t.isTypeVariable()) {
                IBinding owner = t.getDeclaringMethod() != null ? t.getDeclaringMethod() : t.getDeclaringClass();
                String o = owner == null ? null : scip(owner);
                if (o == null || o.startsWith("local ")) return local(t);
                return o + "[" + t.getName() + "]";
            }
            if (t.isAnonymous() || t.isLocal()) return local(t);
            if (t.getDeclaringClass() != null) {
                String o = scip(t.getDeclaringClass());
                if (o.startsWith("local ")) return local(t);
                return o + escape(t.getName()) + "#";
            }
            String pkg = t.getPackage() == null || t.getPackage().isUnnamed() ? "" : t.getPackage().getName().replace('.', '/') + "/";
            return pkg + escape(t.getName()) + "#";
        }
        if (b instanceof IMethodBinding) {
            IMethodBinding m = (IMethodBinding) b;
            ITypeBinding owner = m.getDeclaringClass();
            String o = owner == null ? null : scip(owner);
            if (o == null || o.startsWith("local ")) return local(m);
            String n = m.isConstructor() ? "`<init>`" : escape(m.getName());
            int overload = overloadIndex(m);
            return o + n + (overload == 0 ? "()." : "(+" + overload + ").");
        }
        if (b instanceof IVariableBinding) {
            IVariableBinding v = (IVariableBinding) b;
            if (v.isField()) {
                ITypeBinding owner = v.getDeclaringClass();
                String o = owner == null ? null : scip(owner);
                if (o == null || o.startsWith("local ")) return local(v);
                return o + escape(v.getName()) + ".";
            }
            if (v.isParameter() && v.getDeclaringMethod() != null) {
                IMethodBinding m = v.getDeclaringMethod();
                String o = scip(m);
                if (!o.startsWith("local ") && isDeclaredParameter(m, v)) {
                    return o + "(" + escape(v.getName()) + ")";
                }
            }
            return local(v);
        }
        return local(b);
    }

    private static boolean isDeclaredParameter(IMethodBinding m, IVariableBinding v) {
        // Lambda parameters report the lambda's synthetic method; they are locals.
        return m.getDeclaringMember() == null;
    }

    /** Position of a method among the same-named methods of its type, in declaration order. */
    private int overloadIndex(IMethodBinding m) {
        ITypeBinding owner = m.getDeclaringClass();
        if (owner == null) return 0;
        int index = 0;
        String[] order = cache.methodOrder(owner);
        if (order != null) {
            // A type served from a class file: its methods in the order of the source type.
            String selector = (m.isConstructor() ? "<init>" : m.getName()) + "\0";
            for (String method : order) {
                if (!method.startsWith(selector)) continue;
                if (method.regionMatches(selector.length(), m.getKey(), 0, method.length() - selector.length())
                        && method.length() - selector.length() == m.getKey().length()) {
                    return index;
                }
                index++;
            }
            return 0;
        }
        String name = m.isConstructor() ? "<init>" : m.getName();
        IMethodBinding[] named = SelectorMethods.named(owner, name);
        for (IMethodBinding other : named != null ? named : owner.getDeclaredMethods()) {
            if (other.isSynthetic() || cache.isDefaultConstructor(other)) continue;
            if (other.isConstructor() != m.isConstructor()) continue;
            if (!other.isConstructor() && !other.getName().equals(m.getName())) continue;
            if (other.getKey().equals(m.getKey())) return index;
            index++;
        }
        return 0;
    }

    private static String escape(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '+' || c == '-' || c == '$')) {
                return "`" + name.replace("`", "``") + "`";
            }
        }
        return name;
    }
}
