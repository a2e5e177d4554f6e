package dev.pybridge.indexer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The signature digests of one file's declarations, as {@code pybridge.sync.summary.signatures}
 * computes them (its module doc says what a digest covers), so that a sync's parent does not
 * compute them again in Python. The two must give the same digests for the same text and facts:
 * the planner compares a stored digest with one Python computed for an edit, and a test checks
 * them against each other on the samples.
 *
 * <p>{@link #compute} answers null, and Python computes the file's signatures itself, for a text
 * this class may not read as Python reads it: one in another charset than UTF-8
 * ({@link SourceText#pythonText}), or with a replacement character (Python and Java may replace
 * malformed bytes differently). A character beyond the BMP is one code point to Python and two
 * UTF-16 units here, but the spans (UTF-16, never inside a pair) pick the same text either way.
 *
 * <p>{@code -Dpybridge.jvmSignatures=false} (in {@code PYBRIDGE_JVM_ARGS}) turns it off.
 */
final class Signatures {
    private Signatures() {}

    static final boolean ENABLED = !"false".equals(System.getProperty("pybridge.jvmSignatures"));

    /** facts.DECL_KINDS, by wire code. */
    private static final String[] KIND_NAMES = {"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION", "METHOD",
        "CONSTRUCTOR", "FIELD", "ENUM_CONSTANT", "RECORD_COMPONENT", "PARAMETER", "LOCAL", "TYPE_PARAMETER",
        "INITIALIZER"};
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** One declaration row, read from the sink's table. */
    private static final class Decl {
        String key, name, display, dotted, scip, declaringKey;
        int kind, modifiers;
        int[] nameSpan = new int[4], span = new int[4];
    }

    /**
     * The digests of declarations [first, end) of {@code decls} (rows of {@link Batch#DECL_WIDTH}):
     * per row {supertypes digest, digest}, or nulls for a declaration with no signature (not
     * visible outside its file's bodies, or a key an earlier row already gave one). Null for the
     * whole file when the text cannot be read as Python reads it (the class doc).
     */
    static String[][] compute(String text, List<String> strings, IntList decls, int first, int end,
                              IntList rels, int relFirst, int relEnd) {
        if (text.indexOf('\uFFFD') >= 0) return null;
        int[] starts = lineStarts(text);
        int w = Batch.DECL_WIDTH;
        Decl[] rows = new Decl[end - first];
        Map<String, Decl> byKey = new HashMap<>();
        for (int r = first; r < end; r++) {
            int o = r * w;
            Decl d = new Decl();
            d.key = str(strings, decls.get(o));
            d.kind = decls.get(o + 1);
            d.name = str(strings, decls.get(o + 2));
            d.display = str(strings, decls.get(o + 3));
            d.dotted = str(strings, decls.get(o + 4));
            d.scip = str(strings, decls.get(o + 5));
            for (int j = 0; j < 4; j++) {
                d.nameSpan[j] = decls.get(o + 6 + j);
                d.span[j] = decls.get(o + 10 + j);
            }
            d.modifiers = decls.get(o + 14);
            d.declaringKey = str(strings, decls.get(o + 15));
            if (d.kind < 0 || d.kind >= KIND_NAMES.length) return null;
            rows[r - first] = d;
            byKey.put(d.key, d);      // the last row of a key wins, as in Python's dict
        }
        Map<String, List<String>> supers = new HashMap<>();
        for (int r = relFirst; r < relEnd; r++) {
            int kind = rels.get(r * Batch.REL_WIDTH);
            if (kind != Kinds.EXTENDS && kind != Kinds.IMPLEMENTS) continue;
            String from = str(strings, rels.get(r * Batch.REL_WIDTH + 1));
            String to = str(strings, rels.get(r * Batch.REL_WIDTH + 2));
            supers.computeIfAbsent(from, k -> new ArrayList<>()).add((kind == Kinds.EXTENDS ? "extends " : "implements ") + to);
        }
        MessageDigest sha = sha256();
        Map<String, Boolean> inBody = new HashMap<>();
        Set<String> done = new HashSet<>();
        String[][] out = new String[rows.length][];
        Utf8 json = new Utf8();
        for (int i = 0; i < rows.length; i++) {
            Decl d = rows[i];
            if (done.contains(d.key) || !visible(d, byKey, inBody)) continue;
            Decl parent = byKey.get(d.declaringKey);
            String sig = signatureText(text, starts, d, parent != null && parent.kind == Kinds.ANNOTATION);
            if (sig == null) return null;
            String sup = "";
            if (isType(d.kind)) {
                List<String> list = supers.getOrDefault(d.key, new ArrayList<>());
                list.sort(Signatures::byCodePoint);
                sup = hex(sha.digest(String.join("\n", list).getBytes(StandardCharsets.UTF_8)), 16);
            }
            // json.dumps([kind, name, display, dotted, scip, modifiers, declaring key, sup, sig], ensure_ascii=False)
            json.size = 0;
            json.ascii("[");
            json.string(KIND_NAMES[d.kind]).ascii(", ").string(d.name).ascii(", ").string(d.display).ascii(", ")
                    .string(d.dotted).ascii(", ").string(d.scip).ascii(", ").ascii(Integer.toString(d.modifiers))
                    .ascii(", ").string(d.declaringKey).ascii(", ").string(sup).ascii(", ").string(sig).ascii("]");
            sha.update(json.bytes, 0, json.size);
            String digest = hex(sha.digest(), 20);
            out[i] = new String[] {sup, digest};
            done.add(d.key);
        }
        return out;
    }

    private static String str(List<String> strings, int index) {
        return index < 0 ? "" : strings.get(index);
    }

    private static boolean isType(int kind) {
        return kind <= Kinds.ANNOTATION;
    }

    private static boolean isBody(int kind) {
        return kind == Kinds.METHOD || kind == Kinds.CONSTRUCTOR || kind == Kinds.INITIALIZER || kind == Kinds.FIELD
                || kind == Kinds.ENUM_CONSTANT || kind == Kinds.LOCAL || kind == Kinds.PARAMETER;
    }

    /** summary.signatures' `visible`: a member kind that no body encloses. */
    private static boolean visible(Decl d, Map<String, Decl> byKey, Map<String, Boolean> inBody) {
        if (d.kind > Kinds.RECORD_COMPONENT) return false;     // MEMBER_KINDS are the codes 0 to 9
        Boolean known = inBody.get(d.declaringKey);
        if (known != null) return !known;
        Decl parent = byKey.get(d.declaringKey);
        int seen = 0;
        boolean inside = false;
        while (parent != null && seen < 64) {
            if (isBody(parent.kind)) {
                inside = true;
                break;
            }
            parent = byKey.get(parent.declaringKey);
            seen++;
        }
        inBody.put(d.declaringKey, inside);
        return !inside;
    }

    /** The offsets where lines start: 0 and after each \r\n, \r or \n. */
    static int[] lineStarts(String text) {
        IntList starts = new IntList();
        starts.add(0);
        if (text.indexOf('\r') < 0) {        // only \n: found by String.indexOf, faster than a loop here
            for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
                starts.add(nl + 1);
            }
            return starts.toArray();
        }
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c == '\r') {
                if (i + 1 < n && text.charAt(i + 1) == '\n') i++;
                starts.add(i + 1);
            } else if (c == '\n') {
                starts.add(i + 1);
            }
        }
        return starts.toArray();
    }

    /** summary.SourceText.offset, in UTF-16 units; -1 for a negative line (Python would index from
     * the end: the file is left to it). */
    private static int offset(String text, int[] starts, int line, int ch) {
        if (line >= starts.length) return text.length();
        if (line < 0) return -1;
        int start = starts[line];
        int end = line + 1 < starts.length ? starts[line + 1] : text.length();
        return start + Math.max(Math.min(ch, end - start), 0);
    }

    private static String signatureText(String text, int[] starts, Decl d, boolean inAnnotation) {
        int start = offset(text, starts, d.span[0], d.span[1]);
        int end = offset(text, starts, d.span[2], d.span[3]);
        if (start < 0 || end < 0) return null;
        boolean callable = d.kind == Kinds.METHOD || d.kind == Kinds.CONSTRUCTOR;
        if (isType(d.kind) || d.kind == Kinds.ENUM_CONSTANT || (callable && !inAnnotation)) {
            int nameEnd = offset(text, starts, d.nameSpan[2], d.nameSpan[3]);
            if (nameEnd < 0) return null;
            end = bodyStart(text, Math.max(nameEnd, start), end);
        }
        return start >= end ? "" : text.substring(start, end);     // both at most text.length()
    }

    /** summary.body_start: the first { or ; at bracket depth 0 in [pos, end), skipping comments and literals. */
    static int bodyStart(String text, int pos, int end) {
        int depth = 0;
        int i = pos;
        while (i < end) {
            char c = text.charAt(i);
            if (c == '/') {
                if (text.startsWith("//", i)) {
                    int nl = text.indexOf('\n', i);
                    i = nl < 0 ? end : nl + 1;
                    continue;
                }
                if (text.startsWith("/*", i)) {
                    int close = text.indexOf("*/", i + 2);
                    i = close < 0 ? end : close + 2;
                    continue;
                }
            } else if (c == '"' || c == '\'') {
                String quote = text.startsWith("\"\"\"", i) ? "\"\"\"" : String.valueOf(c);
                int j = i + quote.length();
                while (j < end && !text.startsWith(quote, j)) {
                    j += text.charAt(j) == '\\' ? 2 : 1;
                }
                i = j + quote.length();
                continue;
            } else if (c == '(' || c == '[') {
                depth++;
            } else if (c == ')' || c == ']') {
                depth--;
            } else if ((c == '{' || c == ';') && depth <= 0) {
                return i;
            }
            i++;
        }
        return end;
    }

    /**
     * A JSON text as Python's json module writes it (ensure_ascii=False), straight into UTF-8 bytes
     * ({@code str.encode("utf-8", "surrogatepass")}: a lone surrogate takes three bytes).
     */
    static final class Utf8 {
        byte[] bytes = new byte[1024];
        int size;

        private void room(int more) {
            if (size + more > bytes.length) bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }

        /** Text known to be ASCII and to need no escape. */
        Utf8 ascii(String s) {
            room(s.length());
            for (int i = 0, n = s.length(); i < n; i++) bytes[size++] = (byte) s.charAt(i);
            return this;
        }

        Utf8 string(String s) {
            int n = s.length();
            room(n * 3 + 2);     // at most 3 bytes a char and the quotes (an escape, up to 6, makes room again)
            byte[] b = bytes;
            int at = size;
            b[at++] = '"';
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                    b[at++] = (byte) c;
                } else if (c < 0x20 || c == '"' || c == '\\') {
                    size = at;
                    room(6 + (n - i) * 3 + 1);
                    b = bytes;
                    b[at++] = '\\';
                    switch (c) {
                        case '"': b[at++] = '"'; break;
                        case '\\': b[at++] = '\\'; break;
                        case '\n': b[at++] = 'n'; break;
                        case '\r': b[at++] = 'r'; break;
                        case '\t': b[at++] = 't'; break;
                        case '\b': b[at++] = 'b'; break;
                        case '\f': b[at++] = 'f'; break;
                        default:
                            b[at++] = 'u'; b[at++] = '0'; b[at++] = '0';
                            b[at++] = (byte) HEX[c >> 4]; b[at++] = (byte) HEX[c & 15];
                    }
                } else {
                    int cp = s.codePointAt(i);     // a lone surrogate comes back as itself
                    i += Character.charCount(cp) - 1;
                    at = PythonUtf8.put(b, at, cp);
                }
            }
            b[at++] = '"';
            size = at;
            return this;
        }
    }

    /** Python's order of strings: by code point. */
    static int byCodePoint(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i), y = b.charAt(i);
            if (x != y) {
                // A surrogate (part of a code point above U+FFFF) sorts after every other BMP character.
                boolean sx = Character.isSurrogate(x), sy = Character.isSurrogate(y);
                if (sx != sy) return sx ? 1 : -1;
                return x - y;
            }
        }
        return a.length() - b.length();
    }

    private static String hex(byte[] digest, int chars) {
        char[] out = new char[chars];
        for (int i = 0; i < chars; i++) {
            int b = digest[i >> 1] & 0xff;
            out[i] = HEX[(i & 1) == 0 ? b >> 4 : b & 15];
        }
        return new String(out);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
