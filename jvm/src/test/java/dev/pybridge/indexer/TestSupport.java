package dev.pybridge.indexer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jdt.core.JavaCore;
import org.eclipse.jdt.core.dom.AST;
import org.eclipse.jdt.core.dom.ASTParser;

/** What the indexer's tests share: source files written under a root, generated modules, a DOM parser. */
final class TestSupport {
    private TestSupport() {}

    /** Writes {@code text} (UTF-8) to {@code root/rel}, making its folders; returns the file. */
    static Path write(Path root, String rel, String text) throws IOException {
        Path p = root.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.write(p, text.getBytes(StandardCharsets.UTF_8));
        return p;
    }

    /**
     * A package {@code gen} of {@code classes} classes {@code C0..Cn-1} under {@code root}; with {@code linked},
     * each class has a field of the next one's type (the last one's of C0), so that compiling one resolves the
     * others. Returns the files, in class order.
     */
    static String[] module(Path root, int classes, boolean linked) throws IOException {
        String[] files = new String[classes];
        for (int i = 0; i < classes; i++) {
            String next = "C" + ((i + 1) % classes);
            String body = linked ? " int f; " + next + " n; int m() { return n.f + f; } }\n"
                    : " int f; int m() { return f; } }\n";
            files[i] = write(root, "gen/C" + i + ".java", "package gen;\npublic class C" + i + " {" + body).toString();
        }
        return files;
    }

    /**
     * A DOM parser of compilation units with bindings, Java 17, the source folder {@code root} on its sourcepath
     * (UTF-8) and the running JDK's classes; with {@code bindingsRecovery} as the indexer's own parser has it.
     */
    static ASTParser bindingParser(Path root, boolean bindingsRecovery) {
        ASTParser parser = ASTParser.newParser(AST.getJLSLatest());
        Map<String, String> options = JavaCore.getOptions();
        JavaCore.setComplianceOptions(JavaCore.VERSION_17, options);
        parser.setCompilerOptions(options);
        parser.setKind(ASTParser.K_COMPILATION_UNIT);
        parser.setResolveBindings(true);
        parser.setBindingsRecovery(bindingsRecovery);
        parser.setEnvironment(new String[0], new String[] {root.toString()}, new String[] {"UTF-8"}, true);
        return parser;
    }
}
