package dev.pybridge.indexer;

import java.util.ArrayDeque;
import java.util.ArrayList;
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
    private final Set<String> libraryTypes = new HashSet<>();    // expanded by librarySupertypes
    private final Map<String, Integer> initializerCounts = new java.util.HashMap<>();
    private final Map<String, Integer> lambdaCounts = new java.util.HashMap<>();   // enclosing declaration key -> lambdas seen
    private final Set<String> generated = new HashSet<>();   // keys of the generated declarations of this file
    private int javadocDepth;
    private int importDepth;
    /** The names this file leaves unaccounted for (DESIGN section 8). */
    private final NameBlocks blocks = new NameBlocks();
    /** The enclosing types, innermost first (a null binding is kept as {@link #UNKNOWN_TYPE}). */
    private final Deque<Object> enclosingTypes = new ArrayDeque<>();
    private static final Object UNKNOWN_TYPE = new Object();
    private final java.util.function.Function<String, IBinding> bindingsByKey;

    /** {@code bindingsByKey}: a binding key resolved in the parser's environment (null: none), for {@link AnnotationNames}. */
    FactVisitor(CompilationUnit cu, FactSink sink, Symbols symbols, SourceText source, boolean javadoc,
            java.util.function.Function<String, IBinding> bindingsByKey) {
        super(javadoc);
        this.bindingsByKey = bindingsByKey;
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
            if (symbols.cache.isDefaultConstructor(m)) {
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
        sink.ref(symbols.key(d), symbols.scip(d), span(start, length), kind, container(), flags);
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
        if (owner == null || symbols.cache.fromSource(owner)) return;
        if (owner.isTypeVariable() && owner.getDeclaringClass() != null && symbols.cache.fromSource(owner.getDeclaringClass())) return;
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
        sink.decl(symbols.key(d), kind, Symbols.name(d), Symbols.display(d), Symbols.dotted(d), symbols.scip(d),
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
        blocks.node(node.getStartPosition());
        if (isDeclarationName(node) || handled.contains(node)) return false;
        IBinding b = node.resolveBinding();
        IBinding d = b == null ? null : Symbols.declaration(b);
        if (d == null || d.isRecovered() || (d.getKey() == null && !(d instanceof IPackageBinding))) {
            IBinding a = javadocDepth == 0 ? unboundAnnotationName(node) : null;
            if (a != null) {
                ref(node, a, kindOf(node, a));
                return false;
            }
            if (cannotNameADeclaration(node)) return false;
            if (javadocDepth > 0) block(node, NameBlocks.JAVADOC, NameBlocks.ALL & ~NameBlocks.VARIABLE, -1);
            else block(node, NameBlocks.UNBOUND, importDepth > 0 ? NameBlocks.ALL : canName(node), callArity(node));
            return false;
        }
        int kind = kindOf(node, b);
        if (kind >= 0) ref(node, b, kind);
        int missing = javadocDepth == 0 ? lookedUpInIncompleteType(node, d) : NameBlocks.COMPLETE;
        if (missing != NameBlocks.COMPLETE) {
            // javac may bind the token to a member of a missing supertype: one of the same
            // sort (a method for a method; a field or a member type for either, since a
            // variable obscures a type of the same name)
            int what = d instanceof IMethodBinding ? NameBlocks.METHOD
                    : NameBlocks.TYPE | NameBlocks.FIELD | NameBlocks.CONSTRUCTOR;
            if (missing == NameBlocks.MISSING_INTERFACES) what |= NameBlocks.VIA_INTERFACES;
            block(node, NameBlocks.INCOMPLETE_HIERARCHY, what, callArity(node));
        }
        return false;
    }

    /**
     * What an annotation's name that JDT left unbound names, as javac binds it ({@link AnnotationNames}):
     * the annotation type for its type name, the element for an element name of it; else null.
     */
    private IBinding unboundAnnotationName(SimpleName node) {
        if (AnnotationNames.isAnnotationTypeName(node)) return AnnotationNames.resolve(node, bindingsByKey);
        if (node.getLocationInParent() != MemberValuePair.NAME_PROPERTY || !(node.getParent().getParent() instanceof NormalAnnotation)) return null;
        Name typeName = ((NormalAnnotation) node.getParent().getParent()).getTypeName();
        ITypeBinding t = typeName instanceof SimpleName ? AnnotationNames.resolve((SimpleName) typeName, bindingsByKey) : null;
        if (t == null) return null;
        for (IMethodBinding m : t.getDeclaredMethods()) {
            if (m.getName().equals(node.getIdentifier()) && m.getParameterTypes().length == 0) return m;
        }
        return null;
    }

    private void block(SimpleName node, int reason, int canName, int arity) {
        blocks.block(node.getIdentifier(), reason, node.getStartPosition(), node.getLength(), canName, arity);
    }

    /**
     * The kinds of declaration an identifier can name where it stands: a method where a
     * method is called or referenced, a field after a {@code .} of an expression, a field or
     * (member) type after a qualifier; anywhere else outside Javadoc, a type, variable, field
     * or (the type of {@code new}) a constructor, never a method. (An import's names, which a
     * static import makes a method's, are not asked.)
     */
    private static int canName(SimpleName node) {
        StructuralPropertyDescriptor loc = node.getLocationInParent();
        if (loc == MethodInvocation.NAME_PROPERTY || loc == SuperMethodInvocation.NAME_PROPERTY
                || loc == ExpressionMethodReference.NAME_PROPERTY || loc == TypeMethodReference.NAME_PROPERTY
                || loc == SuperMethodReference.NAME_PROPERTY) return NameBlocks.METHOD;
        if (loc == FieldAccess.NAME_PROPERTY || loc == SuperFieldAccess.NAME_PROPERTY) return NameBlocks.FIELD;
        if (loc == QualifiedName.NAME_PROPERTY) return NameBlocks.FIELD | NameBlocks.TYPE | NameBlocks.CONSTRUCTOR;
        if (loc == MemberValuePair.NAME_PROPERTY) return NameBlocks.ALL;
        return NameBlocks.ALL & ~NameBlocks.METHOD;
    }

    /** The number of arguments of the call whose name {@code node} is; -1 when it names no call. */
    private static int callArity(SimpleName node) {
        StructuralPropertyDescriptor loc = node.getLocationInParent();
        if (loc == MethodInvocation.NAME_PROPERTY) return ((MethodInvocation) node.getParent()).arguments().size();
        if (loc == SuperMethodInvocation.NAME_PROPERTY) return ((SuperMethodInvocation) node.getParent()).arguments().size();
        return -1;
    }

    /**
     * Unbound names that cannot be a reference to any declaration: labels, {@code var},
     * and the element names of an annotation whose type is unresolved (only that
     * annotation's own elements can be named there).
     */
    private static boolean cannotNameADeclaration(SimpleName node) {
        ASTNode p = node.getParent();
        StructuralPropertyDescriptor loc = node.getLocationInParent();
        if (loc == LabeledStatement.LABEL_PROPERTY || loc == BreakStatement.LABEL_PROPERTY
                || loc == ContinueStatement.LABEL_PROPERTY) return true;
        if (p instanceof SimpleType && ((SimpleType) p).isVar()) return true;
        // `java` in `import java.util.List` has no binding of its own: a prefix of a package name.
        ASTNode n = node;
        while (n.getParent() instanceof QualifiedName && n.getLocationInParent() == QualifiedName.QUALIFIER_PROPERTY) {
            n = n.getParent();
            if (((QualifiedName) n).resolveBinding() instanceof IPackageBinding) return true;
        }
        if (p instanceof MemberValuePair && loc == MemberValuePair.NAME_PROPERTY
                && p.getParent() instanceof NormalAnnotation) {
            ITypeBinding a = ((NormalAnnotation) p.getParent()).getTypeName().resolveTypeBinding();
            return a == null || a.isRecovered();
        }
        return false;
    }

    /**
     * Whether a member or type name was looked up in a type whose hierarchy is
     * incomplete: a member of the missing supertype could be the one meant.
     * Qualified names look in their qualifier's type; simple names in every
     * enclosing type.
     */
    private int lookedUpInIncompleteType(SimpleName node, IBinding d) {
        final int none = NameBlocks.COMPLETE;
        if (d instanceof IVariableBinding) {
            if (!((IVariableBinding) d).isField()) return none;
        } else if (d instanceof ITypeBinding) {
            if (((ITypeBinding) d).isTypeVariable()) return none;
        } else if (!(d instanceof IMethodBinding)) {
            return none;
        }
        ASTNode p = node.getParent();
        StructuralPropertyDescriptor loc = node.getLocationInParent();
        ITypeBinding receiver = null;
        boolean qualified = true;
        if (loc == QualifiedName.NAME_PROPERTY) {
            IBinding q = ((QualifiedName) p).getQualifier().resolveBinding();
            if (q instanceof IPackageBinding) return none;
            receiver = q instanceof ITypeBinding ? (ITypeBinding) q : ((QualifiedName) p).getQualifier().resolveTypeBinding();
        } else if (loc == FieldAccess.NAME_PROPERTY) {
            receiver = ((FieldAccess) p).getExpression().resolveTypeBinding();
        } else if (loc == MethodInvocation.NAME_PROPERTY && ((MethodInvocation) p).getExpression() != null) {
            Expression e = ((MethodInvocation) p).getExpression();
            IBinding q = e instanceof Name ? ((Name) e).resolveBinding() : null;
            receiver = q instanceof ITypeBinding ? (ITypeBinding) q : e.resolveTypeBinding();
        } else if (loc == QualifiedType.NAME_PROPERTY) {
            receiver = ((QualifiedType) p).getQualifier().resolveBinding();
        } else if (loc == NameQualifiedType.NAME_PROPERTY) {
            IBinding q = ((NameQualifiedType) p).getQualifier().resolveBinding();
            if (q instanceof IPackageBinding) return none;
            receiver = q instanceof ITypeBinding ? (ITypeBinding) q : null;
        } else if (loc == ExpressionMethodReference.NAME_PROPERTY) {
            Expression e = ((ExpressionMethodReference) p).getExpression();
            IBinding q = e instanceof Name ? ((Name) e).resolveBinding() : null;
            receiver = q instanceof ITypeBinding ? (ITypeBinding) q : e.resolveTypeBinding();
        } else if (loc == TypeMethodReference.NAME_PROPERTY) {
            receiver = ((TypeMethodReference) p).getType().resolveBinding();
        } else if (loc == MemberValuePair.NAME_PROPERTY) {
            return none;   // an annotation's element: annotation types have no supertypes to miss
        } else {
            qualified = false;
        }
        boolean method = d instanceof IMethodBinding;
        ITypeBinding owner = declaringType(d);
        if (qualified) {
            if (receiver == null) return NameBlocks.MISSING_ANY;
            // A field or member type declared in the receiver's type itself hides any inherited one.
            if (!method && owner != null && receiver.getTypeDeclaration().isEqualTo(owner)) return none;
            return symbols.missingSupertypes(receiver);
        }
        // A simple name: Java looks in each enclosing type, innermost first, until one has a
        // member of that name; the types searched before it may hide one in a missing supertype.
        int missing = none;
        for (Object o : enclosingTypes) {
            if (o == UNKNOWN_TYPE) return NameBlocks.MISSING_ANY;
            ITypeBinding e = (ITypeBinding) o;
            if (owner != null && e.isEqualTo(owner)) {
                return method ? Math.max(missing, symbols.missingSupertypes(e)) : missing;
            }
            missing = Math.max(missing, symbols.missingSupertypes(e));
            if (missing == NameBlocks.MISSING_ANY) return missing;
            if (owner != null && e.isSubTypeCompatible(owner)) return missing;
        }
        return missing;
    }

    private static ITypeBinding declaringType(IBinding d) {
        ITypeBinding t = d instanceof IMethodBinding ? ((IMethodBinding) d).getDeclaringClass()
                : d instanceof IVariableBinding ? ((IVariableBinding) d).getDeclaringClass()
                : d instanceof ITypeBinding ? ((ITypeBinding) d).getDeclaringClass() : null;
        return t == null ? null : t.getTypeDeclaration();
    }

    /**
     * Whether an overload other than {@code m} could take {@code argc} arguments: then an
     * argument of unknown type leaves the choice open. Constructors are not inherited, so
     * their rivals are the class's own; a method's are those of {@code where} (the type
     * the lookup found it in) and its supertypes, and an unresolved one may hide any.
     */
    private boolean hasRivalOverload(IMethodBinding m, ITypeBinding where, int argc) {
        if (m == null || m.isRecovered()) return true;
        IMethodBinding decl = m.getMethodDeclaration();
        ITypeBinding start = m.isConstructor() ? m.getDeclaringClass() : (where != null ? where : m.getDeclaringClass());
        if (start == null) return true;
        Deque<ITypeBinding> todo = new ArrayDeque<>();
        Set<String> seen = new HashSet<>();
        todo.push(start);
        while (!todo.isEmpty()) {
            ITypeBinding t = todo.pop().getTypeDeclaration();
            if (t.isRecovered()) return true;
            if (t.getKey() != null && !seen.add(t.getKey())) continue;
            for (IMethodBinding other : t.getDeclaredMethods()) {
                if (other.isConstructor() != m.isConstructor() || !other.getName().equals(m.getName())) continue;
                if (other.isEqualTo(decl) || decl.overrides(other) || other.overrides(decl)) continue;
                int n = other.getParameterTypes().length;
                if (n == argc || (other.isVarargs() && argc >= n - 1)) return true;
            }
            if (m.isConstructor()) break;
            if (t.getSuperclass() != null) todo.push(t.getSuperclass());
            for (ITypeBinding i : t.getInterfaces()) todo.push(i);
        }
        return false;
    }

    /** The type a method call's name is looked up in: the receiver's, else the enclosing type that has it. */
    private ITypeBinding lookupType(Expression receiver, IMethodBinding m) {
        if (receiver != null) {
            IBinding q = receiver instanceof Name ? ((Name) receiver).resolveBinding() : null;
            return q instanceof ITypeBinding ? (ITypeBinding) q : receiver.resolveTypeBinding();
        }
        ITypeBinding owner = m == null ? null : declaringType(m);
        for (Object o : enclosingTypes) {
            if (o == UNKNOWN_TYPE) return null;
            ITypeBinding e = (ITypeBinding) o;
            if (owner != null && (e.isEqualTo(owner) || e.isSubTypeCompatible(owner))) return e;
        }
        return null;
    }

    /** A call whose overload was chosen with an argument type the compiler could not resolve. */
    private boolean uncertainArguments(List<?> arguments) {
        for (Object a : arguments) {
            if (symbols.uncertainArgument(((Expression) a).resolveTypeBinding())) return true;
        }
        return false;
    }

    /** A call whose overload is uncertain: it can name a method or constructor of that name taking {@code arity} arguments (-1: any). */
    private void uncertainCall(String name, int start, int length, int canName, int arity) {
        blocks.block(name, NameBlocks.UNCERTAIN_CALL, start, length, canName, arity);
    }

    /**
     * A method-related error of the compiler on this token (a call it found "not applicable", an ambiguous one):
     * the binding it left there is its best guess, and javac may bind the call to another overload.
     */
    private boolean erroneous(SimpleName name) {
        if (methodErrors == null) {
            methodErrors = new ArrayList<>();
            for (org.eclipse.jdt.core.compiler.IProblem p : cu.getProblems()) {
                if (p.isError() && (p.getID() & org.eclipse.jdt.core.compiler.IProblem.MethodRelated) != 0) {
                    methodErrors.add(new int[] {p.getSourceStart(), p.getSourceEnd()});
                }
            }
        }
        int start = name.getStartPosition(), end = start + name.getLength() - 1;
        for (int[] e : methodErrors) {
            if (e[0] <= end && e[1] >= start) return true;
        }
        return false;
    }

    /** [start, end] of the unit's method-related errors, read once (null until the first call). */
    private List<int[]> methodErrors;

    @Override
    public boolean visit(MethodInvocation node) {
        IMethodBinding m = node.resolveMethodBinding();
        if (erroneous(node.getName()) || uncertainArguments(node.arguments())
                && hasRivalOverload(m, lookupType(node.getExpression(), m), node.arguments().size())) {
            SimpleName n = node.getName();
            uncertainCall(n.getIdentifier(), n.getStartPosition(), n.getLength(), NameBlocks.METHOD, node.arguments().size());
        }
        return true;
    }

    @Override
    public boolean visit(SuperMethodInvocation node) {
        IMethodBinding m = node.resolveMethodBinding();
        if (erroneous(node.getName()) || uncertainArguments(node.arguments()) && hasRivalOverload(m, null, node.arguments().size())) {
            SimpleName n = node.getName();
            uncertainCall(n.getIdentifier(), n.getStartPosition(), n.getLength(), NameBlocks.METHOD, node.arguments().size());
        }
        return true;
    }

    /** A method reference's overload depends on its target type: uncertain when that is unresolved. */
    private boolean methodReference(MethodReference node, SimpleName name) {
        ITypeBinding target = node.resolveTypeBinding();
        if (target == null || symbols.uncertainArgument(target)) {
            uncertainCall(name.getIdentifier(), name.getStartPosition(), name.getLength(), NameBlocks.METHOD, -1);
        }
        return true;
    }

    @Override public boolean visit(ExpressionMethodReference node) { return methodReference(node, node.getName()); }
    @Override public boolean visit(TypeMethodReference node) { return methodReference(node, node.getName()); }
    @Override public boolean visit(SuperMethodReference node) { return methodReference(node, node.getName()); }

    @Override
    public boolean preVisit2(ASTNode node) {
        if ((node.getFlags() & (ASTNode.MALFORMED | ASTNode.RECOVERED)) != 0 && !inGeneratedMember(node)) damage(node);
        return true;
    }

    /**
     * Whether {@code node} belongs to a member Lombok's agent generated: their nodes carry the
     * annotation's range, which the converter may flag as malformed, though no syntax error is there.
     */
    private boolean inGeneratedMember(ASTNode node) {
        ASTNode n = node;
        while (n != null && !(n instanceof BodyDeclaration)) n = n.getParent();
        SimpleName name = null;
        if (n instanceof MethodDeclaration) name = ((MethodDeclaration) n).getName();
        else if (n instanceof AbstractTypeDeclaration) name = ((AbstractTypeDeclaration) n).getName();
        else if (n instanceof FieldDeclaration && !((FieldDeclaration) n).fragments().isEmpty()) {
            name = ((VariableDeclarationFragment) ((FieldDeclaration) n).fragments().get(0)).getName();
        }
        return name != null && generatedAt(name.getStartPosition());
    }

    /** The innermost member declaration around {@code node} (else the whole file) was damaged by a syntax error. */
    private void damage(ASTNode node) {
        ASTNode n = node;
        while (n != null && !(n instanceof BodyDeclaration)) n = n.getParent();
        if (n == null) blocks.damage(0, Integer.MAX_VALUE);
        else blocks.damage(n.getStartPosition(), n.getStartPosition() + n.getLength());
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
        // a diamond left on its synthetic factory: the constructor it stands for, or unresolved
        IMethodBinding bound = Symbols.diamondConstructor(node.resolveConstructorBinding());
        IMethodBinding ctor = constructorOf(bound);
        if (token != null && ctor != null) ref(token, ctor, Kinds.CONSTRUCTION);
        if (token != null && (bound == null || bound.isRecovered() || (uncertainArguments(node.arguments())
                && hasRivalOverload(ctor != null ? ctor : bound, null, node.arguments().size())))) {
            uncertainCall(token.getIdentifier(), token.getStartPosition(), token.getLength(),
                    NameBlocks.CONSTRUCTOR, node.arguments().size());
        }
        return true;
    }

    /** The simple name of the class whose constructor {@code this(…)}/{@code super(…)} calls, from the binding or the source. */
    private static String constructorName(IMethodBinding ctor, ASTNode call, boolean superCall) {
        if (ctor != null && !ctor.isRecovered() && ctor.getDeclaringClass() != null) return ctor.getDeclaringClass().getName();
        ASTNode n = call;
        while (n != null && !(n instanceof AbstractTypeDeclaration) && !(n instanceof AnonymousClassDeclaration)) n = n.getParent();
        if (!superCall) return n instanceof AbstractTypeDeclaration ? ((AbstractTypeDeclaration) n).getName().getIdentifier() : null;
        if (n instanceof TypeDeclaration && ((TypeDeclaration) n).getSuperclassType() != null) {
            SimpleName t = typeToken(((TypeDeclaration) n).getSuperclassType());
            return t == null ? null : t.getIdentifier();
        }
        return null;
    }

    private void explicitConstructorCall(ASTNode call, IMethodBinding ctor, List<?> arguments, int at, int length, boolean superCall) {
        if (ctor == null || ctor.isRecovered() || (uncertainArguments(arguments) && hasRivalOverload(ctor, null, arguments.size()))) {
            uncertainCall(constructorName(ctor, call, superCall), at, length, NameBlocks.CONSTRUCTOR, arguments.size());
        }
    }

    @Override
    public boolean visit(ConstructorInvocation node) {
        int from = node.typeArguments().isEmpty() ? node.getStartPosition() : end((ASTNode) node.typeArguments().get(node.typeArguments().size() - 1));
        int at = source.find("this", from, node.getStartPosition() + node.getLength());
        if (at >= 0) ref(at, 4, node.resolveConstructorBinding(), Kinds.INVOCATION);
        explicitConstructorCall(node, node.resolveConstructorBinding(), node.arguments(), Math.max(at, node.getStartPosition()), 4, false);
        return true;
    }

    @Override
    public boolean visit(SuperConstructorInvocation node) {
        int from = node.getStartPosition();
        if (node.getExpression() != null) from = Math.max(from, end(node.getExpression()));
        if (!node.typeArguments().isEmpty()) from = Math.max(from, end((ASTNode) node.typeArguments().get(node.typeArguments().size() - 1)));
        int at = source.find("super", from, node.getStartPosition() + node.getLength());
        if (at >= 0) ref(at, 5, node.resolveConstructorBinding(), Kinds.INVOCATION);
        explicitConstructorCall(node, node.resolveConstructorBinding(), node.arguments(), Math.max(at, node.getStartPosition()), 5, true);
        return true;
    }

    @Override
    public boolean visit(CreationReference node) {
        int at = source.find("new", end(node.getType()), node.getStartPosition() + node.getLength());
        IMethodBinding ctor = node.resolveMethodBinding();
        if (at >= 0 && ctor != null) ref(at, 3, ctor, Kinds.METHOD_REFERENCE);
        SimpleName token = typeToken(node.getType());
        ITypeBinding target = node.resolveTypeBinding();
        if (token != null && (ctor == null || ctor.isRecovered() || target == null || symbols.uncertainArgument(target))
                && !(node.getType() instanceof ArrayType)) {
            uncertainCall(token.getIdentifier(), token.getStartPosition(), token.getLength(), NameBlocks.CONSTRUCTOR, -1);
        }
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
        boolean syntaxErrors = false;
        for (org.eclipse.jdt.core.compiler.IProblem p : node.getProblems()) {
            if (!p.isError() || (p.getID() & org.eclipse.jdt.core.compiler.IProblem.Syntax) == 0) continue;
            syntaxErrors = true;
            int start = Math.max(p.getSourceStart(), 0);
            ASTNode at = NodeFinder.perform(node, start, Math.max(p.getSourceEnd() - start + 1, 0));
            damage(at == null ? node : at);
        }
        blocks.scan(source.text().toCharArray(), org.eclipse.jdt.core.JavaCore.latestSupportedJavaVersion(), syntaxErrors);
        blocks.emit(sink, this);
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
        enterType(t);
        return true;
    }

    private void enterType(ITypeBinding t) {
        enclosingTypes.push(t == null ? UNKNOWN_TYPE : t.getTypeDeclaration());
    }

    private void endType() {
        pop();
        enclosingTypes.pop();
    }

    private void relations(ITypeBinding t) {
        ITypeBinding sup = t.getSuperclass();
        // Enum and Record are supertypes like any other (javac's too: an enum is Comparable); Object is left out
        if (sup != null && !"java.lang.Object".equals(sup.getErasure().getQualifiedName())) {
            rel(Kinds.EXTENDS, t, sup);
        }
        for (ITypeBinding i : t.getInterfaces()) {
            rel(t.isInterface() ? Kinds.EXTENDS : Kinds.IMPLEMENTS, t, i);
        }
        if (symbols.cache.fromSource(t)) librarySupertypes(t);
    }

    /**
     * The supertypes of {@code t}'s library and JDK supertypes, at every depth, read from their
     * bindings: one library-to-library edge each (same kinds as {@link #relations}, Object left out),
     * each library type expanded once per file. Per file, not per batch: the edges a file needs stay
     * with it when it is re-indexed alone, or another file that shared them is deleted.
     */
    private void librarySupertypes(ITypeBinding t) {
        Deque<ITypeBinding> todo = new ArrayDeque<>();
        addSupers(t, todo);
        while (!todo.isEmpty()) {
            ITypeBinding s = todo.pop().getTypeDeclaration();
            if (symbols.cache.fromSource(s) || s.isRecovered() || s.getKey() == null || !libraryTypes.add(s.getKey())) continue;
            relations(s);
            addSupers(s, todo);
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
    @Override public void endVisit(TypeDeclaration node) { endType(); }
    @Override public boolean visit(EnumDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(EnumDeclaration node) { endType(); }
    @Override public boolean visit(RecordDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(RecordDeclaration node) { endType(); }
    @Override public boolean visit(AnnotationTypeDeclaration node) { return typeDecl(node); }
    @Override public void endVisit(AnnotationTypeDeclaration node) { endType(); }

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
        enterType(t);
        return true;
    }

    @Override public void endVisit(AnonymousClassDeclaration node) { endType(); }

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
        IMethodBinding bound = node.resolveConstructorBinding();
        if (bound == null || bound.isRecovered()
                || (uncertainArguments(node.arguments()) && hasRivalOverload(bound, null, node.arguments().size()))) {
            ASTNode e = node.getParent();
            if (e instanceof EnumDeclaration) {
                uncertainCall(((EnumDeclaration) e).getName().getIdentifier(), node.getName().getStartPosition(),
                        node.getName().getLength(), NameBlocks.CONSTRUCTOR, node.arguments().size());
            }
        }
        return true;
    }

    @Override public void endVisit(EnumConstantDeclaration node) { pop(); }

    /**
     * A lambda's key: its enclosing declaration (the container) and its ordinal among that
     * declaration's lambdas in source order (this visit is pre-order), not JDT's number (see
     * {@link Symbols}). Recorded before its parameters and body are visited.
     */
    @Override
    public boolean visit(LambdaExpression node) {
        String enclosing = container() == null ? "" : container();
        int ordinal = lambdaCounts.merge(enclosing, 1, Integer::sum) - 1;
        IMethodBinding m = node.resolveMethodBinding();
        if (m != null) symbols.lambda(m.getKey(), enclosing, ordinal);
        return true;
    }

    @Override
    public boolean visit(TypeParameter node) {
        decl(node.resolveBinding(), node.getName(), node);
        return true;
    }
}
