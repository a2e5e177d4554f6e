package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The Lombok hooks of the visitor, with Lombok's agent in this JVM (build.gradle passes
 * {@code -javaagent} and the jar as {@code pybridge.lombok.jar}, as the worker does for Lombok
 * projects): generated members are marked and placed at their annotation, references made by
 * generated code are flagged, and generated accessors are linked to their fields.
 */
public class LombokIndexerTest {
    private static Batch batch;
    private static String[] strings;

    @BeforeClass
    public static void setUp() throws IOException {
        String lombok = System.getProperty("pybridge.lombok.jar");
        assumeTrue("needs Lombok's agent (run through gradle test)", lombok != null);
        Path root = Files.createTempDirectory("pybridge-lombok-test");
        Path dir = Files.createDirectories(root.resolve("q"));
        Files.write(dir.resolve("Bean.java"), ("package q;\n"
                + "public class Bean {\n"
                + "  @lombok.Getter @lombok.Setter private String name;\n"
                + "}\n").getBytes(StandardCharsets.UTF_8));
        Files.write(dir.resolve("User.java"), ("package q;\n"
                + "class User {\n"
                + "  String use(Bean b) { b.setName(\"x\"); return b.getName(); }\n"
                + "}\n").getBytes(StandardCharsets.UTF_8));
        batch = Indexer.index(new String[] {dir.resolve("Bean.java").toString(), dir.resolve("User.java").toString()},
                new String[] {root.toString()}, new String[] {lombok}, "17", "UTF-8", true, null);
        strings = batch.strings.split("\0", -1);
    }

    private static List<int[]> rows(int[] data, int width) {
        List<int[]> out = new ArrayList<>();
        for (int o = 0; o < data.length; o += width) out.add(java.util.Arrays.copyOfRange(data, o, o + width));
        return out;
    }

    private static int[] decl(String key) {
        for (int[] d : rows(batch.decls, Batch.DECL_WIDTH)) if (strings[d[0]].equals(key)) return d;
        throw new AssertionError("no declaration " + key);
    }

    @Test
    public void aGeneratedGetterIsDeclaredAtItsAnnotationAndMarkedGenerated() {
        int[] getter = decl("Lq/Bean;.getName()Ljava/lang/String;");
        // Lombok gives generated nodes the annotation's range (from its '@'; for a qualified name, up to its first segment)
        assertEquals("line 2, at @lombok.Getter", "2:2", getter[6] + ":" + getter[7]);
        assertTrue((getter[14] & Kinds.GENERATED) != 0);
        assertEquals(0, decl("Lq/Bean;.name)Ljava/lang/String;")[14] & Kinds.GENERATED);
    }

    @Test
    public void generatedAccessorsAreLinkedToTheirField() {
        List<String> links = new ArrayList<>();
        for (int[] r : rows(batch.rels, Batch.REL_WIDTH)) {
            if (r[0] == Kinds.GENERATED_FROM) links.add(strings[r[1]] + " -> " + strings[r[2]]);
        }
        assertEquals(List.of("Lq/Bean;.getName()Ljava/lang/String; -> Lq/Bean;.name)Ljava/lang/String;",
                "Lq/Bean;.setName(Ljava/lang/String;)V -> Lq/Bean;.name)Ljava/lang/String;"),
                links.stream().sorted().collect(java.util.stream.Collectors.toList()));
    }

    @Test
    public void callsOfGeneratedMembersAreOrdinaryReferencesAndReferencesInsideThemAreFlagged() {
        int userCalls = 0, generatedRefs = 0;
        for (int[] r : rows(batch.refs, Batch.REF_WIDTH)) {
            String target = strings[r[0]];
            boolean generated = (r[8] & Kinds.IN_GENERATED) != 0;
            if (r[2] == 2 && (target.contains("getName") || target.contains("setName"))) {
                assertEquals("a call in User is not generated", false, generated);
                userCalls++;
            }
            String container = r[7] < 0 ? "" : strings[r[7]];
            if (container.startsWith("Lq/Bean;.setName") || container.startsWith("Lq/Bean;.getName")) {
                assertTrue("inside a generated accessor: " + target, generated);
                generatedRefs++;
            }
        }
        assertEquals(2, userCalls);
        assertTrue(generatedRefs > 0);
    }
}
