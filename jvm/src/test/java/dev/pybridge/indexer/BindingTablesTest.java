package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.core.dom.ASTVisitor;
import org.eclipse.jdt.core.dom.CompilationUnit;
import org.eclipse.jdt.core.dom.FileASTRequestor;
import org.eclipse.jdt.core.dom.ITypeBinding;
import org.junit.Test;

/** The DOM's compiler-binding table becomes an identity map, and bindings stay one object each. */
public class BindingTablesTest {
    @Test
    public void theTableIsAnIdentityMapAndParameterizationsStayDistinctAndCanonical() throws IOException {
        Path root = Files.createTempDirectory("pybridge-binding-tables");
        // Many parameterizations of one generic type: their compiler bindings share a hashCode.
        StringBuilder src = new StringBuilder("package q;\nimport java.util.List;\npublic class P {\n");
        for (int i = 0; i < 40; i++) src.append("  List<P").append(i).append("> f").append(i).append(";\n");
        src.append("}\n");
        for (int i = 0; i < 40; i++) TestSupport.write(root, "q/P" + i + ".java", "package q;\npublic class P" + i + " {}\n");
        TestSupport.write(root, "q/P.java", src.toString());
        TestSupport.write(root, "q/R.java", "package q;\nimport java.util.List;\npublic class R { List<P3> a; List<P3> b; }\n");

        ASTParser parser = TestSupport.bindingParser(root, false);
        List<Object> tables = new ArrayList<>();
        List<ITypeBinding> types = new ArrayList<>();
        parser.createASTs(new String[] {root.resolve("q/P.java").toString(), root.resolve("q/R.java").toString()},
                new String[] {"UTF-8", "UTF-8"}, new String[0], new FileASTRequestor() {
                    @Override
                    public void acceptAST(String path, CompilationUnit ast) {
                        BindingTables.useIdentity(ast);
                        tables.add(BindingTables.table(ast));
                        ast.accept(new ASTVisitor() {
                            @Override
                            public boolean visit(org.eclipse.jdt.core.dom.ParameterizedType node) {
                                types.add(node.resolveBinding());
                                return false;
                            }
                        });
                    }
                }, null);
        assertEquals(2, tables.size());
        assertTrue("an IdentityHashMap: " + tables.get(0).getClass(), tables.get(0) instanceof IdentityHashMap);
        assertSame("one table for the whole batch", tables.get(0), tables.get(1));
        assertEquals(42, types.size());
        // Forty distinct parameterizations in P, then List<P3> twice in R: the same DOM binding as in P.
        assertEquals(40, types.subList(0, 40).stream().map(ITypeBinding::getKey).distinct().count());
        assertSame(types.get(3), types.get(40));
        assertSame(types.get(40), types.get(41));
        assertEquals("java.util.List<q.P3>", types.get(40).getQualifiedName());
    }

}
