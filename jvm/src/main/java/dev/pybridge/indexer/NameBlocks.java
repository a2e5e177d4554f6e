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
 * <p>The facts are one row per blocked occurrence (token): its name, reason
 * and position, the kinds of declaration the token can name there (a mask of
 * {@link #TYPE}, {@link #METHOD}, {@link #CONSTRUCTOR}, {@link #FIELD},
 * {@link #VARIABLE}, and {@link #VIA_INTERFACES} for a lookup whose missing
 * supertypes can only be interfaces), and the number of arguments of the call
 * the token names (-1: not a call, or not known). A token blocked for two
 * reasons keeps the stronger one, the union of the kinds and the arity only
 * when both agree.
 */
final class NameBlocks {
    static final int UNBOUND = 0, UNCERTAIN_CALL = 1, INCOMPLETE_HIERARCHY = 2, SYNTAX = 3, JAVADOC = 4;
    /** What a blocked token can name (the kinds of declaration javac could bind it to). */
    static final int TYPE = 1, METHOD = 2, CONSTRUCTOR = 4, FIELD = 8, VARIABLE = 16, ALL = 31;
    /** Flag of an incomplete-hierarchy token: only interfaces are missing from the types it was looked up in. */
    static final int VIA_INTERFACES = 32;
    /** What a lookup may miss (Symbols.missingSupertypes): nothing, only interfaces, any type. */
    static final int COMPLETE = 0, MISSING_INTERFACES = 1, MISSING_ANY = 2;

    /** Contextual keywords: identifiers to the scanner, never a reference where the tree has no name node. */
    private static final Set<String> CONTEXTUAL = new HashSet<>(java.util.Arrays.asList(
            "var", "record", "yield", "sealed", "permits", "non", "when", "module", "open", "requires",
            "transitive", "exports", "opens", "to", "uses", "provides", "with"));

    /** Token start -> its row, in order of position once sorted at emit. */
    private final Map<Integer, Occurrence> byToken = new LinkedHashMap<>();
    private final Set<Integer> nameNodes = new HashSet<>();
    private final List<int[]> damaged = new ArrayList<>();

    private static final class Occurrence {
        final String name;
        final int start, length;
        int reason, canName, arity;

        Occurrence(String name, int reason, int start, int length, int canName, int arity) {
            this.name = name;
            this.reason = reason;
            this.start = start;
            this.length = length;
            this.canName = canName;
            this.arity = arity;
        }
    }

    /** A SimpleName node starts here (so its token is in the tree). */
    void node(int start) {
        nameNodes.add(start);
    }

    /** A token that may name any kind of declaration (a scanned token, code a syntax error damaged). */
    void block(String name, int reason, int start, int length) {
        block(name, reason, start, length, ALL, -1);
    }

    void block(String name, int reason, int start, int length, int canName, int arity) {
        if (name == null || name.isEmpty()) return;
        Occurrence o = byToken.get(start);
        if (o == null) {
            byToken.put(start, new Occurrence(name, reason, start, length, canName, arity));
            return;
        }
        // The same token blocked again (a call's token, then its name): whatever either allows.
        int via = o.canName & canName & VIA_INTERFACES;
        o.canName = ((o.canName | canName) & ALL) | via;
        if (o.arity != arity) o.arity = -1;
        if (strength(reason) > strength(o.reason)) o.reason = reason;
    }

    /** How much a reason blocks: a bound token (incomplete hierarchy, then uncertain call) the least. */
    private static int strength(int reason) {
        return reason == INCOMPLETE_HIERARCHY ? 0 : reason == UNCERTAIN_CALL ? 1 : 2;
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

    /** Emits one row per blocked token, by position. */
    void emit(FactSink sink, FactVisitor spans) {
        List<Occurrence> all = new ArrayList<>(byToken.values());
        all.sort((a, b) -> Integer.compare(a.start, b.start));
        for (Occurrence o : all) {
            sink.block(o.name, o.reason, spans.span(o.start, o.length), o.canName, o.arity);
        }
    }
}
