package dev.pybridge.indexer;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jdt.core.dom.*;

/**
 * Walks one compilation unit and emits its declarations, references and
 * relations into a {@link FactSink}.
 *
 * <p>One place decides a reference: {@link #kindOf} chooses the kind of a
 * name from its syntactic role, and {@link #ref} resolves the declaration
 * binding, the span, the container and the flags of every reference. The
 * visit methods only say which token refers to which binding.
 *
 * <p>Decisions where DESIGN section 6 is silent:
 * <ul>
 *   <li>Javadoc mentions are flagged {@code IN_JAVADOC} and take the kind of a
 *       mention without a call: {@code type_use} for types, {@code read} for
 *       fields and constants, {@code method_reference} for methods and
 *       constructors. Call queries skip Javadoc-flagged references.</li>
 *   <li>A reference to a constructor that has no declaration in source (a
 *       default constructor, an enum's implicit constructor) is not emitted;
 *       the construction reference to the class at the same token is.</li>
 *   <li>{@code new I() {…}} of an interface {@code I}: a construction
 *       reference to {@code I}; no constructor reference. Of a class: the
 *       superclass constructor the anonymous class calls.</li>
 *   <li>A call of a record's implicit accessor {@code p.x()} is an invocation
 *       of the record component {@code x}.</li>
 *   <li>Initializer blocks are declarations of kind INITIALIZER (key: the
 *       type's key + {@code .<clinit>} or {@code .<init>}, numbered after the
 *       first), so that references inside them have a container.</li>
 * </ul>
 */
final class FactVisitor extends ASTVisitor {
    private final CompilationUnit cu;
    private final FactSink sink;
    private final Symbols symbols;
    private final SourceText source;
    private final Deque<String> containers = new ArrayDeque<>();
    private final Set<ASTNode> handled = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<String> externals = new HashSet<>();
    private final Map<String, Integer> initializerCounts = new java.util.HashMap<>();
    private final Set<String> generated = new HashSet<>();   // keys of the generated declarations of this file
    private int javadocDepth;
    private int importDepth;

    FactVisitor(CompilationUnit cu, FactSink sink, Symbols symbols, SourceText source, boolean javadoc) {
        super(javadoc);
        this.cu = cu;
        this.sink = sink;
        this.symbols = symbols;
        this.source = source;
    }

    // ---------------------------------------------------------------- spans

    int[] span(int start, int length) {
        int sl = cu.getLineNumber(start) - 1;
        int sc = cu.getColumnNumber(start);
        if (length <= 0) {
            return new int[] {sl, sc, sl, sc};
        }
        int last = start + length - 1;
        int el = cu.getLineNumber(last) - 1;
        int ec = cu.getColumnNumber(last) + 1;
        if (sl < 0 || el < 0) {
            return new int[] {Math.max(sl, 0), Math.max(sc, 0), Math.max(sl, 0), Math.max(sc, 0)};
        }
        return new int[] {sl, sc, el, ec};
    }

    int[] span(ASTNode node) {
        return span(node.getStartPosition(), node.getLength());
    }

    private String container() {
        return containers.isEmpty() ? null : containers.peek();
    }

    // ---------------------------------------------------------- emission

    /** The one place that emits a reference. */
    private void ref(int start, int length, IBinding target, int kind) {
        IBinding d = Symbols.declaration(target);
        if (d == null || d.getKey() == null || d.isRecovered()) {
            // A recovered binding names nothing that exists: the problem list records the unresolved name.
            return;
        }
        if (d instanceof IMethodBinding) {
            IMethodBinding m = (IMethodBinding) d;
            if (m.isDefaultConstructor()) {
                return;
            }
            if (m.isSyntheticRecordMethod() && !m.isConstructor()) {
                IVariableBinding component = recordComponent(m);
                if (component != null) {
                    d = component;
                }
            }
        }
        if (d instanceof IVariableBinding) {
            IVariableBinding component = compactConstructorParameter((IVariableBinding) d);
            if (component != null) d = component;
        }
        int flags = 0;
        if (importDepth > 0) flags |= Kinds.IN_IMPORT;
        if (generatedRef(start, length, d)) flags |= Kinds.IN_GENERATED;
        if (javadocDepth > 0) {
            flags |= Kinds.IN_JAVADOC;
            kind = d instanceof ITypeBinding ? Kinds.TYPE_USE
                    : d instanceof IVariableBinding ? Kinds.READ : Kinds.METHOD_REFERENCE;
        }
        sink.ref(d.getKey(), symbols.scip(d), span(start, length), kind, container(), flags);
        noteExternal(d);
    }

    private void ref(ASTNode token, IBinding target, int kind) {
        ref(token.getStartPosition(), token.getLength(), target, kind);
    }

    /** In a compact constructor, the implicit parameter {@code x} stands for the record component {@code x}. */
    private static IVariableBinding compactConstructorParameter(IVariableBinding v) {
        if (!v.isParameter()) return null;
        IMethodBinding m = v.getDeclaringMethod();
        if (m == null || !m.isCompactConstructor()) return null;
        return componentField(m.getDeclaringClass(), v.getName());
    }

    static IVariableBinding componentField(ITypeBinding record, String name) {
        if (record == null || !record.isRecord()) return null;
        for (IVariableBinding f : record.getDeclaredFields()) {
            if (f.getName().equals(name) && !java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                return f.getVariableDeclaration();
            }
        }
        return null;
    }

    private static IVariableBinding recordComponent(IMethodBinding accessor) {
        if (accessor.getParameterTypes().length != 0) return null;
        return componentField(accessor.getDeclaringClass(), accessor.getName());
    }

    private void noteExternal(IBinding d) {
        ITypeBinding owner;
        if (d instanceof ITypeBinding) owner = (ITypeBinding) d;
        else if (d instanceof IMethodBinding) owner = ((IMethodBinding) d).getDeclaringClass();
        else if (d instanceof IVariableBinding) owner = ((IVariableBinding) d).getDeclaringClass();
        else return;
        if (owner == null || owner.isFromSource()) return;
        if (owner.isTypeVariable() && owner.getDeclaringClass() != null && owner.getDeclaringClass().isFromSource()) return;
        String key = d.getKey();
        if (externals.add(key)) {
            sink.ext(key, Symbols.kind(d), Symbols.dotted(d), symbols.scip(d));
        }
    }

    private void decl(IBinding b, SimpleName name, ASTNode whole) {
        decl(b, name.getStartPosition(), name.getLength(), whole);
    }

    private void decl(IBinding b, int nameStart, int nameLength, ASTNode whole) {
        IBinding d = Symbols.declaration(b);
        if (d == null || d.getKey() == null) return;
        int kind = Symbols.kind(d);
        if (kind < 0) return;
        boolean isGenerated = generatedAt(nameStart) || generated.contains(container());
        if (isGenerated) generated.add(d.getKey());
        int modifiers = d.getModifiers() | (isGenerated ? Kinds.GENERATED : 0);
        sink.decl(d.getKey(), kind, Symbols.name(d), Symbols.display(d), Symbols.dotted(d), symbols.scip(d),
                span(nameStart, nameLength), span(whole), modifiers, container());
    }

    // ------------------------------------------- generated code (Lombok)

    /**
     * Whether the node at {@code start} was generated by an annotation: Lombok's agent gives the
     * members it adds (and every node inside them) the source range of the generating annotation,
     * so their "name token" starts with {@code @}, which no name written in source can.
     */
    private boolean generatedAt(int start) {
        String t = source.text();
        return start >= 0 && start < t.length() && t.charAt(start) == '@';
    }

    /**
     * Whether a reference at [start, start+length) to {@code d} is made by generated code: its token is
     * the annotation, or it sits in a generated member on a token that does not name {@code d} (Lombok
     * places some nodes of a generated member on the annotation's name, without the {@code @}).
     */
    private boolean generatedRef(int start, int length, IBinding d) {
        if (generatedAt(start)) return true;
        if (!generated.contains(container())) return false;
        String t = source.text();
        String name = d.getName();
        return length != name.length() || start < 0 || !t.regionMatches(start, name, 0, length);
    }

    /**
     * A generated getter or setter is linked to the field it accesses, by Lombok's naming: {@code getF()}
     * or {@code isF()} with no parameter, {@code setF(x)} with one, or {@code f()} / {@code f(x)} (fluent
     * accessors, builder setters), for a field {@code f} of the same class.
     */
    private void generatedAccessor(IMethodBinding m) {
        ITypeBinding owner = m.getDeclaringClass();
        int params = m.getParameterTypes().length;
        if (owner == null || params > 1 || m.isConstructor()) return;
        String n = m.getName();
        for (IVariableBinding f : owner.getDeclaredFields()) {
            String cap = f.getName().isEmpty() ? "" : Character.toUpperCase(f.getName().charAt(0)) + f.getName().substring(1);
            boolean getter = params == 0 && (n.equals("get" + cap) || n.equals("is" + cap) || n.equals(f.getName()));
            boolean setter = params == 1 && (n.equals("set" + cap) || n.equals(f.getName()));
            if (getter || setter) {
                rel(Kinds.GENERATED_FROM, m, f);
                return;
            }
        }
    }

    // ------------------------------------------------------- name roles

    /** The kind of a reference made by a simple name, from its syntactic role. -1: not a reference. */
    static int kindOf(SimpleName node, IBinding b) {
        if (b instanceof IVariableBinding) {
            ASTNode e = node;
            ASTNode p = e.getParent();
            if ((p instanceof QualifiedName && ((QualifiedName) p).getName() == e)
                    || (p instanceof FieldAccess && ((FieldAccess) p).getName() == e)
                    || (p instanceof SuperFieldAccess && ((SuperFieldAccess) p).getName() == e)) {
                e = p;
                p = e.getParent();
            }
            while (p instanceof ParenthesizedExpression) {
                e = p;
                p = e.getParent();
            }
            if (p instanceof Assignment && ((Assignment) p).getLeftHandSide() == e) {
                return ((Assignment) p).getOperator() == Assignment.Operator.ASSIGN ? Kinds.WRITE : Kinds.READ_WRITE;
            }
            if (p instanceof PostfixExpression) {
                return Kinds.READ_WRITE;
            }
            if (p instanceof PrefixExpression) {
                PrefixExpression.Operator op = ((PrefixExpression) p).getOperator();
                if (op == PrefixExpression.Operator.INCREMENT || op == PrefixExpression.Operator.DECREMENT) {
                    return Kinds.READ_WRITE;
                }
            }
            return Kinds.READ;
        }
        if (b instanceof IMethodBinding) {
            ASTNode p = node.getParent();
            if (p instanceof MethodInvocation && ((MethodInvocation) p).getName() == node) return Kinds.INVOCATION;
            if (p instanceof SuperMethodInvocation && ((SuperMethodInvocation) p).getName() == node) return Kinds.INVOCATION;
            if (p instanceof MemberValuePair && ((MemberValuePair) p).getName() == node) return Kinds.INVOCATION;
            if (p instanceof ExpressionMethodReference || p instanceof TypeMethodReference
                    || p instanceof SuperMethodReference) return Kinds.METHOD_REFERENCE;
            return Kinds.TYPE_USE;
        }
        if (b instanceof ITypeBinding) {
            ASTNode e = node;
            ASTNode p = e.getParent();
            if (p instanceof QualifiedName && ((QualifiedName) p).getName() == e) { e = p; p = e.getParent(); }
            if (p instanceof QualifiedType && ((QualifiedType) p).getName() == e) { e = p; p = e.getParent(); }
            if (p instanceof NameQualifiedType && ((NameQualifiedType) p).getName() == e) { e = p; p = e.getParent(); }
            if (p instanceof SimpleType) { e = p; p = e.getParent(); }
            if (p instanceof ParameterizedType && ((ParameterizedType) p).getType() == e) { e = p; p = e.getParent(); }
            if (p instanceof ClassInstanceCreation && ((ClassInstanceCreation) p).getType() == e) return Kinds.CONSTRUCTION;
            return Kinds.TYPE_USE;
        }
        return -1;
    }

    @Override
    public boolean visit(SimpleName node) {
        if (isDeclarationName(node) || handled.contains(node)) return false;
        IBinding b = node.resolveBinding();
        if (b == null) return false;
        int kind = kindOf(node, b);
        if (kind >= 0) ref(node, b, kind);
        return false;
    }

    /** Names that declare: JDT's isDeclaration() says false for constructor and record names. */
    static boolean isDeclarationName(SimpleName node) {
        if (node.isDeclaration()) return true;
        ASTNode p = node.getParent();
        StructuralPropertyDescriptor loc = node.getLocationInParent();
        if (p instanceof MethodDeclaration) return loc == MethodDeclaration.NAME_PROPERTY;
        if (p instanceof AbstractTypeDeclaration) return loc == ((AbstractTypeDeclaration) p).getNameProperty();
        return false;
    }

    /** The simple-name token of a type: {@code C} in {@code a.b.C}, {@code Foo} in {@code Foo<T>}. */
    static SimpleName typeToken(Type t) {
        if (t instanceof SimpleType) {
            Name n = ((SimpleType) t).getName();
            return n instanceof QualifiedName ? ((QualifiedName) n).getName() : (SimpleName) n;
        }
        if (t instanceof ParameterizedType) return typeToken(((ParameterizedType) t).getType());
        if (t instanceof QualifiedType) return ((QualifiedType) t).getName();
        if (t instanceof NameQualifiedType) return ((NameQualifiedType) t).getName();
        return null;
    }

    // ------------------------------------------------- constructor calls

    private IMethodBinding constructorOf(IMethodBinding ctor) {
        if (ctor == null) return null;
        ITypeBinding owner = ctor.getDeclaringClass();
        if (owner != null && owner.isAnonymous()) {
            // The anonymous class's constructor is generated: map it to the superclass constructor it calls.
            ITypeBinding sup = owner.getSuperclass();
            if (sup == null || owner.getInterfaces().length > 0 && "java.lang.Object".equals(sup.getQualifiedName())) {
                return null;
            }
            ITypeBinding[] params = ctor.getParameterTypes();
            for (IMethodBinding m : sup.getDeclaredMethods()) {
                if (m.isConstructor() && sameErasures(m.getParameterTypes(), params)) return m;
            }
            for (IMethodBinding m : sup.getDeclaredMethods()) {
                if (m.isConstructor() && m.getParameterTypes().length == params.length) return m;
            }
            return null;
        }
        return ctor;
    }

    private static boolean sameErasures(ITypeBinding[] a, ITypeBinding[] b) {
        if (a.length != b.length) return false;
        for (int i = 0; i < a.length; i++) {
            if (!a[i].getErasure().isEqualTo(b[i].getErasure())) return false;
        }
        return true;
    }

    @Override
    public boolean visit(ClassInstanceCreation node) {
        SimpleName token = typeToken(node.getType());
        IMethodBinding ctor = constructorOf(node.resolveConstructorBinding());
        if (token != null && ctor != null) ref(token, ctor, Kinds.CONSTRUCTION);
        return true;
    }

    @Override
    public boolean visit(ConstructorInvocation node) {
        int from = node.typeArguments().isEmpty() ? node.getStartPosition() : end((ASTNode) node.typeArguments().get(node.typeArguments().size() - 1));
        int at = source.find("this", from, node.getStartPosition() + node.getLength());
        if (at >= 0) ref(at, 4, node.resolveConstructorBinding(), Kinds.INVOCATION);
        return true;
    }

    @Override
    public boolean visit(SuperConstructorInvocation node) {
        int from = node.getStartPosition();
        if (node.getExpression() != null) from = Math.max(from, end(node.getExpression()));
        if (!node.typeArguments().isEmpty()) from = Math.max(from, end((ASTNode) node.typeArguments().get(node.typeArguments().size() - 1)));
        int at = source.find("super", from, node.getStartPosition() + node.getLength());
        if (at >= 0) ref(at, 5, node.resolveConstructorBinding(), Kinds.INVOCATION);
        return true;
    }

    @Override
    public boolean visit(CreationReference node) {
        int at = source.find("new", end(node.getType()), node.getStartPosition() + node.getLength());
        IMethodBinding ctor = node.resolveMethodBinding();
        if (at >= 0 && ctor != null) ref(at, 3, ctor, Kinds.METHOD_REFERENCE);
        return true;
    }

    private static int end(ASTNode n) {
        return n.getStartPosition() + n.getLength();
    }

    // ------------------------------------------------------------ imports

    /** Imports and package annotations belong to the file's primary type (named like the file, else the first). */
    @Override
    public boolean visit(CompilationUnit node) {
        String file = new java.io.File(source.path()).getName();
        String base = file.endsWith(".java") ? file.substring(0, file.length() - 5) : file;
        ITypeBinding primary = null;
        for (Object o : node.types()) {
            ITypeBinding t = ((AbstractTypeDeclaration) o).resolveBinding();
            if (t == null) continue;
            if (primary == null || t.getName().equals(base)) primary = t;
            if (t.getName().equals(base)) break;
        }
        push(primary);
        return true;
    }

    @Override
    public void endVisit(CompilationUnit node) {
        pop();
    }

    @Override
    public boolean visit(ImportDeclaration node) {
        importDepth++;
        if (node.isStatic() && !node.isOnDemand() && node.getName() instanceof QualifiedName) {
            QualifiedName qn = (QualifiedName) node.getName();
            IBinding b = qn.resolveBinding();
            if (!(b instanceof ITypeBinding)) {
                // A static import names every static member of that name: one reference to each.
                handled.add(qn.getName());
                IBinding q = qn.getQualifier().resolveBinding();
                if (q instanceof ITypeBinding) {
                    String n = qn.getName().getIdentifier();
                    ITypeBinding owner = (ITypeBinding) q;
                    for (IMethodBinding m : owner.getDeclaredMethods()) {
                        if (m.getName().equals(n) && java.lang.reflect.Modifier.isStatic(m.getModifiers())) ref(qn.getName(), m, Kinds.TYPE_USE);
                    }
                    for (IVariableBinding f : owner.getDeclaredFields()) {
                        if (f.getName().equals(n) && java.lang.reflect.Modifier.isStatic(f.getModifiers())) ref(qn.getName(), f, Kinds.TYPE_USE);
                    }
                } else if (b != null) {
                    ref(qn.getName(), b, Kinds.TYPE_USE);
                }
            }
        }
        return true;
    }

    @Override
    public void endVisit(ImportDeclaration node) {
        importDepth--;
    }

    @Override
    public boolean visit(Javadoc node) {
        javadocDepth++;
        return true;
    }

    @Override
    public void endVisit(Javadoc node) {
        javadocDepth--;
    }

    // ------------------------------------------------------- declarations

    private void push(IBinding b) {
        IBinding d = b == null ? null : Symbols.declaration(b);
        containers.push(d == null || d.getKey() == null ? (container() == null ? "" : container()) : d.getKey());
    }

    private void pop() {
        containers.pop();
    }

    private boolean typeDecl(AbstractTypeDeclaration node) {
        ITypeBinding t = node.resolveBinding();
        decl(t, node.getName(), node);
        if (t != null) relations(t);
        push(t);
        return true;
    }

    private void relations(ITypeBinding t) {
        ITypeBinding sup = t.getSuperclass();
        if (sup != null && !t.isEnum() && !t.isRecord() && !"java.lang.Object".equals(sup.getErasure().getQualifiedName())) {
            rel(Kinds.EXTENDS, t, sup);
        }
        for (ITypeBinding i : t.getInterfaces()) {
            rel(t.isInterface() ? Kinds.EXTENDS : Kinds.IMPLEMENTS, t, i);
        }
    }

    private void rel(int kind, IBinding from, IBinding to) {
        IBinding f = Symbols.declaration(from);
        IBinding d = Symbols.declaration(to);
        if (f == null || d == null) return;
        sink.rel(kind, f.getKey(), d.getKey());
        noteExternal(d);
    }

    @Override public boolean visit(TypeDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(TypeDeclaration node) { pop(); }
    @Override public boolean visit(EnumDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(EnumDeclaration node) { pop(); }
    @Override public boolean visit(RecordDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(RecordDeclaration node) { pop(); }
    @Override public boolean visit(AnnotationTypeDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(AnnotationTypeDeclaration node) { pop(); }

    @Override
    public boolean visit(AnonymousClassDeclaration node) {
        ITypeBinding t = node.resolveBinding();
        ASTNode p = node.getParent();
        SimpleName token = p instanceof ClassInstanceCreation ? typeToken(((ClassInstanceCreation) p).getType())
                : p instanceof EnumConstantDeclaration ? ((EnumConstantDeclaration) p).getName() : null;
        if (t != null && token != null) {
            decl(t, token.getStartPosition(), token.getLength(), node);
            relations(t);
        }
        push(t);
        return true;
    }

    @Override public void endVisit(AnonymousClassDeclaration node) { pop(); }

    @Override
    public boolean visit(MethodDeclaration node) {
        IMethodBinding m = node.resolveBinding();
        decl(m, node.getName(), node);
        if (m != null) overrides(m);
        if (m != null && generatedAt(node.getName().getStartPosition())) generatedAccessor(m);
        push(m);
        return true;
    }

    @Override public void endVisit(MethodDeclaration node) { pop(); }

    private void overrides(IMethodBinding m) {
        if (m.isConstructor() || java.lang.reflect.Modifier.isStatic(m.getModifiers())) return;
        ITypeBinding owner = m.getDeclaringClass();
        if (owner == null) return;
        Set<String> seen = new HashSet<>();
        Deque<ITypeBinding> todo = new ArrayDeque<>();
        addSupers(owner, todo);
        while (!todo.isEmpty()) {
            ITypeBinding t = todo.pop().getTypeDeclaration();
            if (!seen.add(t.getKey())) continue;
            for (IMethodBinding other : t.getDeclaredMethods()) {
                if (!other.isConstructor() && other.getName().equals(m.getName()) && m.overrides(other)) {
                    rel(Kinds.OVERRIDES, m, other);
                }
            }
            addSupers(t, todo);
        }
    }

    private static void addSupers(ITypeBinding t, Deque<ITypeBinding> todo) {
        if (t.getSuperclass() != null) todo.push(t.getSuperclass());
        for (ITypeBinding i : t.getInterfaces()) todo.push(i);
    }

    @Override
    public boolean visit(AnnotationTypeMemberDeclaration node) {
        IMethodBinding m = node.resolveBinding();
        decl(m, node.getName(), node);
        push(m);
        return true;
    }

    @Override public void endVisit(AnnotationTypeMemberDeclaration node) { pop(); }

    @Override
    public boolean visit(Initializer node) {
        ASTNode p = node.getParent();
        ITypeBinding owner = p instanceof AbstractTypeDeclaration ? ((AbstractTypeDeclaration) p).resolveBinding()
                : p instanceof AnonymousClassDeclaration ? ((AnonymousClassDeclaration) p).resolveBinding() : null;
        if (owner == null) {
            containers.push(container() == null ? "" : container());
            return true;
        }
        boolean isStatic = java.lang.reflect.Modifier.isStatic(node.getModifiers());
        String base = owner.getKey() + (isStatic ? ".<clinit>" : ".<init>");
        int n = initializerCounts.merge(base, 1, Integer::sum);
        String key = n == 1 ? base : base + "#" + n;
        String name = isStatic ? "<clinit>" : "<init>";
        String dotted = Symbols.dotted(owner) + "." + name;
        String ownerScip = symbols.scip(owner);
        String scip = ownerScip.startsWith("local ") ? ownerScip + "/" + name + n : ownerScip + "`" + name + "`" + (n == 1 ? "" : "(+" + (n - 1) + ")") + "().";
        Block body = node.getBody();
        sink.decl(key, Kinds.INITIALIZER, name, name, dotted, scip, span(body.getStartPosition(), 1), span(node),
                node.getModifiers(), container());
        containers.push(key);
        return true;
    }

    @Override public void endVisit(Initializer node) { pop(); }

    @Override
    public boolean visit(FieldDeclaration node) {
        List<?> fragments = node.fragments();
        IVariableBinding first = fragments.isEmpty() ? null : ((VariableDeclarationFragment) fragments.get(0)).resolveBinding();
        if (first != null && generatedAt(((VariableDeclarationFragment) fragments.get(0)).getName().getStartPosition())) {
            generated.add(Symbols.declaration(first).getKey());   // its type is visited before its name
        }
        push(first);
        return true;
    }

    @Override public void endVisit(FieldDeclaration node) { pop(); }

    @Override
    public boolean visit(VariableDeclarationFragment node) {
        IVariableBinding v = node.resolveBinding();
        boolean field = node.getParent() instanceof FieldDeclaration;
        if (field) {
            // The FieldDeclaration's own container (for its type) is on top: a field is declared by its type.
            String fieldContainer = containers.pop();
            decl(v, node.getName(), node);
            containers.push(fieldContainer);
            push(v);
        } else {
            decl(v, node.getName(), node);
        }
        return true;
    }

    @Override
    public void endVisit(VariableDeclarationFragment node) {
        if (node.getParent() instanceof FieldDeclaration) pop();
    }

    @Override
    public boolean visit(SingleVariableDeclaration node) {
        IBinding b = node.resolveBinding();
        if (node.getParent() instanceof RecordDeclaration) {
            // A record component is keyed by its field, which the accessor and the compact constructor map to.
            IVariableBinding field = componentField(((RecordDeclaration) node.getParent()).resolveBinding(),
                    node.getName().getIdentifier());
            if (field != null) b = field;
        }
        decl(b, node.getName(), node);
        return true;
    }

    @Override
    public boolean visit(EnumConstantDeclaration node) {
        IVariableBinding v = node.resolveVariable();
        decl(v, node.getName(), node);
        push(v);
        IMethodBinding ctor = node.resolveConstructorBinding();
        if (ctor != null && ctor.getDeclaringClass() != null && ctor.getDeclaringClass().isAnonymous()) {
            ctor = constructorOf(ctor);
        }
        if (ctor != null) ref(node.getName(), ctor, Kinds.CONSTRUCTION);
        return true;
    }

    @Override public void endVisit(EnumConstantDeclaration node) { pop(); }

    @Override
    public boolean visit(TypeParameter node) {
        decl(node.resolveBinding(), node.getName(), node);
        return true;
    }
}
