package dev.pybridge.indexer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jdt.core.ToolFactory;
import org.eclipse.jdt.core.compiler.IScanner;
import org.eclipse.jdt.core.compiler.ITerminalSymbols;
import org.eclipse.jdt.core.compiler.InvalidInputException;

/**
 * The names one file leaves unaccounted for (DESIGN section 8): the simple
 * names that could be a reference the compiler did not bind, or bound
 * uncertainly. A query certifies that nothing references a symbol only when
 * no file in its filter blocks the symbol's simple name.
 *
 * <p>What blocks a name, by reason:
 * <ul>
 *   <li>{@link #UNBOUND}: an identifier the compiler could not bind (no
 *       binding, or a recovered one), except labels, which never name a
 *       declaration, and the element names of an annotation whose type is
 *       unresolved (they can only name that annotation's own elements).</li>
 *   <li>{@link #UNCERTAIN_CALL}: a call, constructor call or method
 *       reference whose overload the compiler chose with an argument (or
 *       target) type it could not resolve: it blocks the name it was bound
 *       to (a constructor: its class's name), since another overload of that
 *       name may be the one javac chooses.</li>
 *   <li>{@link #INCOMPLETE_HIERARCHY}: a member or type name looked up in a
 *       type whose supertypes are not all resolved (the receiver's type; for
 *       a simple name, an enclosing type): a member of the missing supertype,
 *       or one it inherits, may be the one meant.</li>
 *   <li>{@link #SYNTAX}: every identifier token of a member declaration that
 *       holds a syntax error or a recovered node, and every identifier token
 *       of a file with a syntax error that the recovered tree lost.</li>
 *   <li>{@link #JAVADOC}: a name in a Javadoc reference ({@code @link},
 *       {@code @see}) that did not resolve.</li>
 * </ul>
 *
 * <p>Everything else is accounted for: a declaration's name, a bound
 * reference (emitted as a fact), a name bound to a package, a label, and
 * the contextual keywords ({@code record}, {@code sealed}, {@code yield}, …)
 * that the scanner returns as identifiers in a file without syntax errors.
 * Identifier tokens come from JDT's scanner over the file's text, so a token
 * that recovery dropped from the tree is still seen.
 *
 * <p>The facts are one row per blocked name: the reason and position of its
 * first occurrence and the number of occurrences.
 */
final class NameBlocks {
    static final int UNBOUND = 0, UNCERTAIN_CALL = 1, INCOMPLETE_HIERARCHY = 2, SYNTAX = 3, JAVADOC = 4;

    /** Contextual keywords: identifiers to the scanner, never a reference where the tree has no name node. */
    private static final Set<String> CONTEXTUAL = new HashSet<>(java.util.Arrays.asList(
            "var", "record", "yield", "sealed", "permits", "non", "when", "module", "open", "requires",
            "transitive", "exports", "opens", "to", "uses", "provides", "with"));

    /** name -> {reason, start, length, count}, in order of first occurrence. */
    private final Map<String, int[]> byName = new LinkedHashMap<>();
    private final Set<Integer> nameNodes = new HashSet<>();
    private final Set<Integer> blockedTokens = new HashSet<>();
    private final List<int[]> damaged = new ArrayList<>();

    /** A SimpleName node starts here (so its token is in the tree). */
    void node(int start) {
        nameNodes.add(start);
    }

    void block(String name, int reason, int start, int length) {
        if (name == null || name.isEmpty() || !blockedTokens.add(start)) return;   // a token counts once
        int[] row = byName.get(name);
        if (row == null) {
            byName.put(name, new int[] {reason, start, length, 1});
        } else {
            row[3]++;
            if (start < row[1]) {
                row[0] = reason;
                row[1] = start;
                row[2] = length;
            }
        }
    }

    /** [start, end) was damaged by a syntax error: every identifier token in it blocks. */
    void damage(int start, int end) {
        damaged.add(new int[] {start, end});
    }

    private boolean isDamaged(int offset) {
        for (int[] r : damaged) {
            if (r[0] <= offset && offset < r[1]) return true;
        }
        return false;
    }

    /**
     * Scans the file's tokens: identifiers in damaged regions, and identifiers
     * the tree has no name node for, block their names.
     */
    void scan(char[] text, String level, boolean syntaxErrors) {
        IScanner scanner = ToolFactory.createScanner(false, false, false, level, level);
        scanner.setSource(text);
        while (true) {
            int token;
            try {
                token = scanner.getNextToken();
            } catch (InvalidInputException e) {
                continue;   // an invalid character or literal: the scanner has moved past it
            }
            if (token == ITerminalSymbols.TokenNameEOF) break;
            if (!isIdentifier(token)) continue;
            int start = scanner.getCurrentTokenStartPosition();
            int length = scanner.getCurrentTokenEndPosition() - start + 1;
            String name = new String(scanner.getCurrentTokenSource());
            if (isDamaged(start)) {
                block(name, SYNTAX, start, length);
            } else if (!nameNodes.contains(start)) {
                if (syntaxErrors) block(name, SYNTAX, start, length);
                else if (!CONTEXTUAL.contains(name)) block(name, UNBOUND, start, length);
            }
        }
    }

    // ITerminalSymbols is deprecated as a whole in favour of internal token kinds; IScanner,
    // the public scanner, still returns these codes, so they are the public way to read it.
    @SuppressWarnings("deprecation")
    private static boolean isIdentifier(int token) {
        return token == ITerminalSymbols.TokenNameIdentifier
                || token == ITerminalSymbols.TokenNameRestrictedIdentifierYield
                || token == ITerminalSymbols.TokenNameRestrictedIdentifierpermits
                || token == ITerminalSymbols.TokenNameRestrictedIdentifierrecord
                || token == ITerminalSymbols.TokenNameRestrictedIdentifiersealed
                || token == ITerminalSymbols.TokenNameRestrictedIdentifierWhen;
    }

    /** Emits one row per blocked name. */
    void emit(FactSink sink, FactVisitor spans) {
        for (Map.Entry<String, int[]> e : byName.entrySet()) {
            int[] r = e.getValue();
            sink.block(e.getKey(), r[0], spans.span(r[1], r[2]), r[3]);
        }
    }
}
