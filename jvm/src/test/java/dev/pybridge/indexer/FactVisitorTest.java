package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A diamond allocation passed to a call that does not resolve: JDT's recovery leaves it bound to
 * its synthetic {@code <factory>} method, which declares nothing. The reference must land on the
 * constructor it stands for, as in a compiling call, and no fact may name {@code <factory>}.
 */
public class FactVisitorTest {
    private static Batch batch;
    private static String[] strings;
    private static String use;

    @BeforeClass
    public static void setUp() throws IOException {
        Path root = Files.createTempDirectory("pybridge-factory-test");
        Path box = TestSupport.write(root, "d/Box.java",
                "package d;\n"
                + "public class Box<T> {\n"
                + "  T v;\n"
                + "  public Box(T v) { this.v = v; }\n"
                + "  public Box(T v, int n) { this.v = v; }\n"
                + "  public <U extends T> Box(U u, U w) { this.v = u; }\n"
                + "  @SafeVarargs public Box(int n, T... more) { this.v = more[0]; }\n"
                + "  public class Inner<S> { public Inner(S s, T t) {} }\n"
                + "  public static class Nested<S extends Comparable<S>> { public Nested(S s) {} }\n"
                + "}\n");
        Path u = TestSupport.write(root, "d/Use.java",
                "package d;\n"
                + "import java.util.HashMap;\n"
                + "public class Use {\n"
                + "  static void ok(Object o) {}\n"
                + "  void m(String value) {\n"
                + "    ok(new HashMap<>()); ok(new Box<>(value)); ok(new Box<>(value, 1)); ok(new Box<>(value, value));\n"
                + "    undefinedMethod(new HashMap<>()); undefined(new Box<>(value)); undefined(new Box<>(value, 1)); undefined(new Box<>(value, value));\n"
                + "    Use.gone(new HashMap<>(), new Box<>(value));\n"
                + "    undefined(new Box<>(1, value, value), new Box<>(value) { }, new Box.Nested<>(value));\n"
                + "    undefined(new Box<>(value).new Inner<>(1, value), undefined(new Box<>(value, 2)));\n"
                + "    ok(new Box<>(value).new Inner<>(1, value)); Box<String>.Inner<Integer> in = new Box<>(value).new Inner<>(1, value);\n"
                + "    undefined(Box<String>::new, new Box<>(new Box<>(value)));\n"
                + "  }\n"
                + "}\n");
        use = u.toString();
        batch = Indexer.index(new String[] {box.toString(), use}, new String[] {root.toString()}, new String[0],
                "17", "UTF-8", true, null);
        strings = batch.strings.split("\0", -1);
    }


    /** The constructor keys (keys with a parameter list) of Use.java's construction references on {@code line}, in order. */
    private static List<String> constructions(int line) {
        List<String> out = new ArrayList<>();
        for (int f = 0; f < batch.files.length; f += Batch.FILE_WIDTH) {
            if (!strings[batch.files[f]].equals(use)) continue;
            for (int r = batch.files[f + 4]; r < batch.files[f + 5]; r++) {
                int o = r * Batch.REF_WIDTH;
                String key = strings[batch.refs[o]];
                if (batch.refs[o + 2] == line && batch.refs[o + 6] == Kinds.CONSTRUCTION && key.contains("(")) out.add(key);
            }
        }
        return out;
    }

    @Test
    public void aDiamondPassedToAnUnresolvedCallConstructsTheConstructorAsInACompilingCall() {
        List<String> compiling = constructions(5);
        assertEquals(List.of("Ljava/util/HashMap;.()V", "Ld/Box;.(TT;)V", "Ld/Box;.(TT;I)V", "Ld/Box;.<U:TT;>(TU;TU;)V"),
                compiling);
        assertEquals(compiling, constructions(6));
        assertEquals(compiling.subList(0, 2), constructions(7));
    }

    /**
     * Canary of the JDT internals Symbols.diamondConstructor reads: the factory's name
     * ({@code TypeConstants.SYNTHETIC_STATIC_FACTORY}) and the compiler binding behind a DOM method
     * binding ({@code org.eclipse.jdt.core.dom.MethodBinding.binding}).
     */
    /**
     * Canary of the JDT internals SelectorMethods reads (the compiler binding and the resolver behind
     * a DOM type binding, and the resolver's getMethodBinding) and UnitRelease empties (the resolver's
     * node maps and its scope): when they change, both fall back (slower, or more heap) and this fails.
     */
    @Test
    public void jdtStillHasTheInternalsSelectorMethodsAndUnitReleaseRead() throws ReflectiveOperationException {
        assertTrue(SelectorMethods.available());
        assertTrue(UnitRelease.available());
        Class<?> resolver = Class.forName("org.eclipse.jdt.core.dom.DefaultBindingResolver");
        for (String map : new String[] {"newAstToOldAst", "bindingsToAstNodes", "astNodesToBlockScope"}) {
            assertEquals(java.util.Map.class, resolver.getDeclaredField(map).getType());
        }
        assertEquals(org.eclipse.jdt.internal.compiler.lookup.CompilationUnitScope.class,
                resolver.getDeclaredField("scope").getType());
        assertEquals(org.eclipse.jdt.internal.compiler.lookup.TypeBinding.class,
                Class.forName("org.eclipse.jdt.core.dom.TypeBinding").getDeclaredField("binding").getType());
    }

    @Test
    public void jdtStillNamesTheDiamondFactoryAndKeepsItsCompilerBindingAsSymbolsExpects() throws ReflectiveOperationException {
        assertEquals(Symbols.DIAMOND_FACTORY,
                new String(org.eclipse.jdt.internal.compiler.lookup.TypeConstants.SYNTHETIC_STATIC_FACTORY));
        java.lang.reflect.Field f = Class.forName("org.eclipse.jdt.core.dom.MethodBinding").getDeclaredField("binding");
        assertEquals(org.eclipse.jdt.internal.compiler.lookup.MethodBinding.class, f.getType());
        assertEquals(org.eclipse.jdt.internal.compiler.lookup.MethodBinding.class,
                org.eclipse.jdt.internal.compiler.lookup.SyntheticFactoryMethodBinding.class.getMethod("getConstructor").getReturnType());
    }

    /**
     * Varargs, an anonymous class, a nested class, an inner class of a parameterized class (whose
     * factory has the outer type argument substituted: matching erasures would miss it), nested
     * diamonds: each constructs its constructor, as the compiling line 10 does.
     */
    @Test
    public void everyFormOfDiamondInAnUnresolvedCallConstructsItsConstructor() {
        assertEquals(List.of("Ld/Box;.(I[TT;)V", "Ld/Box;.(TT;)V", "Ld/Box$Nested;.(TS;)V"), constructions(8));
        assertEquals(List.of("Ld/Box$Inner;.(TS;TT;)V", "Ld/Box;.(TT;)V", "Ld/Box$Inner;.(TS;TT;)V", "Ld/Box;.(TT;)V"),
                constructions(10));
        assertEquals(constructions(10).subList(0, 2), constructions(9).subList(0, 2));
        assertEquals(List.of("Ld/Box$Inner;.(TS;TT;)V", "Ld/Box;.(TT;)V", "Ld/Box;.(TT;I)V"), constructions(9));
        assertEquals(List.of("Ld/Box;.(TT;)V", "Ld/Box;.(TT;)V"), constructions(11));
    }

    @Test
    public void noFactNamesTheSyntheticFactory() {
        assertFalse(batch.strings, batch.strings.contains("<factory>"));
    }
}
