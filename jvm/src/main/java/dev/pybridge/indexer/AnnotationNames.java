package dev.pybridge.indexer;

import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.eclipse.jdt.core.dom.*;

/**
 * The annotation type that an annotation's simple name denotes where JDT's DOM resolves no
 * binding for it: a type annotation inside a supertype clause
 * ({@code interface M<B> extends Map<Class<? extends @NonNull B>, B>}). javac binds the name
 * there; JDT leaves both the name and the annotation unbound, though the same annotation inside
 * a member's signature resolves.
 *
 * <p>The name is looked up as javac looks up a simple type name (JLS 6.4.1, 7.5), and only an
 * unambiguous answer is given; anything this lookup cannot decide exactly gives {@code null}
 * and the name stays blocked:
 * <ol>
 *   <li>a type variable, a member or local type named like it anywhere in the unit, or a
 *       member type of that name declared in or inherited by an enclosing type (or an enclosing
 *       type whose hierarchy is unknown): {@code null}, these scopes come first and are not
 *       resolved here;</li>
 *   <li>a top-level type of the unit;</li>
 *   <li>a single-type import ({@code null} for a single static import of that name);</li>
 *   <li>a type of the unit's package, looked up by binding key in the parser's environment;</li>
 *   <li>the on-demand imports (package, type and static) and {@code java.lang}: exactly one
 *       of them must have it ({@code null} for a module import).</li>
 * </ol>
 * The answer must be an annotation type.
 */
final class AnnotationNames {
    private AnnotationNames() {
    }

    /** Whether {@code name} is the (simple) type name of an annotation. */
    static boolean isAnnotationTypeName(SimpleName name) {
        ASTNode p = name.getParent();
        return p instanceof Annotation && ((Annotation) p).getTypeName() == name;
    }

    /**
     * The annotation type {@code name} denotes, or {@code null} when the lookup is not exact.
     * {@code byKey} resolves a binding key in the parser's environment ({@code null} when
     * nothing has that key, or no environment is at hand).
     */
    static ITypeBinding resolve(SimpleName name, Function<String, IBinding> byKey) {
        if (!isAnnotationTypeName(name) || !(name.getRoot() instanceof CompilationUnit)) return null;
        CompilationUnit cu = (CompilationUnit) name.getRoot();
        String n = name.getIdentifier();
        if (declaredInsideTheUnit(cu, n) || enclosingTypeMayHaveMember(name, n)) return null;
        ITypeBinding t = lookUp(cu, n, byKey);
        return t != null && t.isAnnotation() && !t.isRecovered() ? t : null;
    }

    private static ITypeBinding lookUp(CompilationUnit cu, String n, Function<String, IBinding> byKey) {
        for (Object o : cu.types()) {
            AbstractTypeDeclaration d = (AbstractTypeDeclaration) o;
            if (d.getName().getIdentifier().equals(n)) return d.resolveBinding();
        }
        ITypeBinding single = null;
        for (Object o : cu.imports()) {
            ImportDeclaration i = (ImportDeclaration) o;
            if (org.eclipse.jdt.core.dom.Modifier.isModule(i.getModifiers())) return null;   // `import module`: not looked up here
            if (i.isOnDemand() || !last(i.getName()).equals(n)) continue;
            if (i.isStatic()) return null;   // may import a field, a method and a member type at once
            IBinding b = i.getName().resolveBinding();
            if (!(b instanceof ITypeBinding) || single != null) return null;
            single = (ITypeBinding) b;
        }
        if (single != null) return single;
        PackageDeclaration pkg = cu.getPackage();
        String prefix = pkg == null ? "" : pkg.getName().getFullyQualifiedName().replace('.', '/') + "/";
        ITypeBinding same = type(byKey.apply("L" + prefix + n + ";"));
        if (same != null) return same;
        Map<String, ITypeBinding> found = new LinkedHashMap<>();
        for (Object o : cu.imports()) {
            ImportDeclaration i = (ImportDeclaration) o;
            if (!i.isOnDemand()) continue;
            IBinding b = i.getName().resolveBinding();
            if (b instanceof ITypeBinding) {
                ITypeBinding owner = (ITypeBinding) b;
                Set<ITypeBinding> members = memberTypes(owner, n);
                if (members == null) return null;
                for (ITypeBinding m : members) {
                    if (!i.isStatic() || Modifier.isStatic(m.getModifiers()) || m.isInterface() || m.isEnum()
                            || m.isRecord() || (m.getDeclaringClass() != null && m.getDeclaringClass().isInterface())) {
                        found.put(m.getKey(), m);
                    }
                }
            } else if (b instanceof IPackageBinding && !i.isStatic()) {
                add(found, byKey.apply("L" + i.getName().getFullyQualifiedName().replace('.', '/') + "/" + n + ";"));
            } else {
                return null;   // an import JDT could not resolve: javac reports it, nothing here is exact
            }
        }
        add(found, byKey.apply("Ljava/lang/" + n + ";"));
        return found.size() == 1 ? found.values().iterator().next() : null;
    }

    private static void add(Map<String, ITypeBinding> found, IBinding b) {
        ITypeBinding t = type(b);
        if (t != null) found.put(t.getKey(), t);
    }

    private static ITypeBinding type(IBinding b) {
        if (!(b instanceof ITypeBinding) || b.isRecovered()) return null;
        ITypeBinding t = (ITypeBinding) b;
        return t.getKey() == null ? null : t;
    }

    private static String last(Name name) {
        return name instanceof QualifiedName ? ((QualifiedName) name).getName().getIdentifier()
                : ((SimpleName) name).getIdentifier();
    }

    /**
     * The unit {@link #declaredInsideTheUnit} last walked and the names it found, per thread (a request
     * runs on one thread; {@link StreamPlan} runs two): a unit with many unbound annotations is walked once.
     */
    private static final ThreadLocal<Object[]> INSIDE = ThreadLocal.withInitial(() -> new Object[2]);

    /** Drops this thread's last unit (at the end of a request: the thread may serve another). */
    static void forget() {
        INSIDE.remove();
    }

    /** A type variable, or a member or local type, named {@code n} anywhere in the unit. */
    private static boolean declaredInsideTheUnit(CompilationUnit cu, String n) {
        Object[] last = INSIDE.get();
        if (last[0] != cu) {
            last[0] = cu;
            last[1] = namesDeclaredInside(cu);
        }
        @SuppressWarnings("unchecked")
        Set<String> names = (Set<String>) last[1];
        return names.contains(n);
    }

    /** The names of every type variable, and of every member or local type, of the unit. */
    private static Set<String> namesDeclaredInside(CompilationUnit cu) {
        Set<String> names = new HashSet<>();
        cu.accept(new ASTVisitor() {
            @Override
            public boolean visit(TypeParameter node) {
                names.add(node.getName().getIdentifier());
                return false;
            }

            @Override
            public boolean visit(TypeDeclaration node) {
                return declared(node);
            }

            @Override
            public boolean visit(EnumDeclaration node) {
                return declared(node);
            }

            @Override
            public boolean visit(RecordDeclaration node) {
                return declared(node);
            }

            @Override
            public boolean visit(AnnotationTypeDeclaration node) {
                return declared(node);
            }

            private boolean declared(AbstractTypeDeclaration node) {
                if (!(node.getParent() instanceof CompilationUnit)) names.add(node.getName().getIdentifier());
                return true;
            }
        });
        return names;
    }

    /**
     * Whether a type enclosing {@code node} (the one whose header it is in included) declares or
     * inherits a member type named {@code n}, or has a hierarchy this cannot see whole.
     */
    private static boolean enclosingTypeMayHaveMember(ASTNode node, String n) {
        for (ASTNode p = node.getParent(); p != null; p = p.getParent()) {
            ITypeBinding t;
            if (p instanceof AbstractTypeDeclaration) t = ((AbstractTypeDeclaration) p).resolveBinding();
            else if (p instanceof AnonymousClassDeclaration) t = ((AnonymousClassDeclaration) p).resolveBinding();
            else continue;
            Set<ITypeBinding> members = t == null ? null : memberTypes(t, n);
            if (members == null || !members.isEmpty()) return true;
        }
        return false;
    }

    /** The member types named {@code n} that {@code owner} declares or inherits; {@code null} if its hierarchy is incomplete. */
    private static Set<ITypeBinding> memberTypes(ITypeBinding owner, String n) {
        Set<ITypeBinding> out = new HashSet<>();
        Set<String> seen = new HashSet<>();
        Deque<ITypeBinding> todo = new ArrayDeque<>();
        todo.push(owner);
        while (!todo.isEmpty()) {
            ITypeBinding t = todo.pop().getTypeDeclaration();
            if (t.isRecovered() || t.getKey() == null) return null;
            if (!seen.add(t.getKey())) continue;
            for (ITypeBinding m : t.getDeclaredTypes()) {
                if (m.getName().equals(n)) out.add(m);
            }
            if (t.getSuperclass() != null) todo.push(t.getSuperclass());
            for (ITypeBinding i : t.getInterfaces()) todo.push(i);
        }
        return out;
    }
}
