package dev.pybridge.indexer;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jdt.core.dom.AST;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.core.dom.ASTVisitor;
import org.eclipse.jdt.core.dom.CompilationUnit;
import org.eclipse.jdt.core.dom.FileASTRequestor;
import org.eclipse.jdt.core.dom.IMethodBinding;
import org.eclipse.jdt.core.dom.ITypeBinding;
import org.eclipse.jdt.core.dom.MethodInvocation;
import org.eclipse.jdt.core.dom.SimpleType;
import org.eclipse.jdt.internal.compiler.ast.AbstractMethodDeclaration;
import org.eclipse.jdt.internal.compiler.ast.CompilationUnitDeclaration;
import org.eclipse.jdt.internal.compiler.ast.TypeDeclaration;
import org.junit.Test;

/**
 * SelectorMethods lists a type's methods of one name as getDeclaredMethods lists them (same bindings,
 * same order, same filter), for source, binary and parameterized types; UnitRelease empties a unit's
 * resolver maps and drops its method bodies.
 */
public class SelectorMethodsTest {

    private static String[] names(IMethodBinding[] methods) {
        String[] out = new String[methods.length];
        for (int i = 0; i < methods.length; i++) out[i] = methods[i].getKey();
        return out;
    }

    /** getDeclaredMethods' methods named {@code name} (all constructors for {@code <init>}), in its order. */
    private static String[] declared(ITypeBinding t, String name) {
        List<String> out = new ArrayList<>();
        for (IMethodBinding m : t.getDeclaredMethods()) {
            if ("<init>".equals(name) ? m.isConstructor() : !m.isConstructor() && m.getName().equals(name)) {
                out.add(m.getKey());
            }
        }
        return out.toArray(new String[0]);
    }

    @Test
    public void theMethodsOfOneNameAreGetDeclaredMethodsOnesInItsOrder() throws IOException {
        Path root = Files.createTempDirectory("pybridge-selector-methods");
        // S lives on the sourcepath only: U calls one overload of it.
        TestSupport.write(root, "q/S.java", "package q;\nimport java.util.List;\npublic class S<T> {\n"
                + "  public S() {}\n  public S(int a) {}\n"
                + "  public void m(String s) {}\n  public void other(List<T> l) {}\n  public void m(int i) {}\n"
                + "  public <X> X m(X x, T t) { return x; }\n  static void m() {}\n}\n");
        TestSupport.write(root, "q/U.java", "package q;\nimport java.util.ArrayList;\npublic class U {\n"
                + "  void use(S<String> s, ArrayList<String> a) { s.m(1); a.add(\"x\"); new S<String>(2); }\n}\n");
        Map<String, ITypeBinding> owners = new LinkedHashMap<>();
        List<CompilationUnitDeclaration> units = new ArrayList<>();
        ASTParser parser = TestSupport.bindingParser(root, true);
        parser.createASTs(new String[] {root.resolve("q/U.java").toString()}, new String[] {"UTF-8"}, new String[0],
                new FileASTRequestor() {
                    @Override
                    public void acceptAST(String path, CompilationUnit ast) {
                        ast.accept(new ASTVisitor() {
                            @Override
                            public boolean visit(MethodInvocation node) {
                                IMethodBinding m = node.resolveMethodBinding();
                                owners.put(m.getName(), m.getDeclaringClass());
                                return true;
                            }

                            @Override
                            public boolean visit(SimpleType node) {
                                ITypeBinding t = node.resolveBinding();
                                if (t != null) owners.put(t.getErasure().getName(), t.getErasure());
                                return true;
                            }
                        });
                        // By name first (what Symbols asks), then the whole list, as getDeclaredMethods resolves it.
                        ITypeBinding parameterized = owners.get("m");
                        ITypeBinding generic = owners.get("S");
                        ITypeBinding list = owners.get("add");
                        // A parameterization is left to getDeclaredMethods: JDT lists its methods of one name
                        // in another order (S<String>'s static m() first).
                        assertTrue(parameterized.isParameterizedType() && list.isParameterizedType());
                        assertNull(SelectorMethods.named(parameterized, "m"));
                        assertNull(SelectorMethods.named(list, "add"));
                        ITypeBinding arrayList = list.getTypeDeclaration();
                        String[][] named = {
                            names(SelectorMethods.named(generic, "m")),
                            names(SelectorMethods.named(generic, "<init>")),
                            names(SelectorMethods.named(arrayList, "add")),
                            names(SelectorMethods.named(generic, "none")),
                        };
                        String[][] whole = {
                            declared(generic, "m"), declared(generic, "<init>"), declared(arrayList, "add"),
                            declared(generic, "none"),
                        };
                        for (int i = 0; i < named.length; i++) assertArrayEquals("case " + i, whole[i], named[i]);
                        assertEquals(4, named[0].length);
                        assertEquals(2, named[1].length);
                        assertTrue(named[2].length >= 2);
                        assertEquals(0, named[3].length);
                        units.add(UnitRelease.release(ast));
                        assertMapsEmpty(ast);
                    }
                }, null);
        assertEquals(1, units.size());
        CompilationUnitDeclaration unit = units.get(0);
        assertNotNull(unit);
        boolean bodies = false;
        for (TypeDeclaration t : unit.types) {
            for (AbstractMethodDeclaration m : t.methods) bodies |= m.statements != null;
        }
        assertTrue("the unit still has its bodies before strip", bodies);
        UnitRelease.strip(unit);
        for (TypeDeclaration t : unit.types) {
            for (AbstractMethodDeclaration m : t.methods) assertNull(m.statements);
        }
    }

    private static void assertMapsEmpty(CompilationUnit ast) {
        try {
            Method getResolver = AST.class.getDeclaredMethod("getBindingResolver");
            getResolver.setAccessible(true);
            Object resolver = getResolver.invoke(ast.getAST());
            for (String name : new String[] {"newAstToOldAst", "bindingsToAstNodes", "astNodesToBlockScope"}) {
                Field f = resolver.getClass().getDeclaredField(name);
                f.setAccessible(true);
                assertTrue(name, ((Map<?, ?>) f.get(resolver)).isEmpty());
            }
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
