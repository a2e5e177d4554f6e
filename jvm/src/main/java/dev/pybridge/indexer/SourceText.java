package dev.pybridge.indexer;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Paths;

/** The text of a source file, read on first need (keyword tokens, problem names). */
final class SourceText {
    private final String path;
    private final Charset charset;
    private String text;
    private boolean unread;

    SourceText(String path, String encoding) {
        this.path = path;
        Charset cs;
        try {
            cs = Charset.forName(encoding);
        } catch (RuntimeException e) {
            cs = java.nio.charset.StandardCharsets.UTF_8;
        }
        this.charset = cs;
    }

    String path() {
        return path;
    }

    String text() {
        if (text == null) {
            try {
                text = new String(Files.readAllBytes(Paths.get(path)), charset);
            } catch (IOException e) {
                text = "";
                unread = true;
            }
        }
        return text;
    }

    /**
     * The text as Python's sync reads the same bytes ({@code bytes.decode(encoding, errors="replace")}),
     * for {@link Signatures}: null unless the charset is UTF-8 (whose decoding both agree on for
     * well-formed bytes), or when the file could not be read.
     */
    String pythonText() {
        if (!charset.equals(java.nio.charset.StandardCharsets.UTF_8)) return null;
        String t = text();
        return unread ? null : t;
    }

    /** The offset of {@code word} as a whole token in [from, to), or -1. */
    int find(String word, int from, int to) {
        String t = text();
        to = Math.min(to, t.length());
        int at = Math.max(from, 0);
        while (true) {
            at = t.indexOf(word, at);
            if (at < 0 || at + word.length() > to) return -1;
            boolean startOk = at == 0 || !Character.isJavaIdentifierPart(t.charAt(at - 1));
            int after = at + word.length();
            boolean endOk = after >= t.length() || !Character.isJavaIdentifierPart(t.charAt(after));
            if (startOk && endOk) return at;
            at = after;
        }
    }

    /** The last Java identifier in [start, end], or the whole trimmed text. */
    String lastIdentifier(int start, int end) {
        String t = text();
        if (start < 0 || start >= t.length()) return "";
        end = Math.min(end, t.length() - 1);
        int i = end;
        while (i >= start && !Character.isJavaIdentifierPart(t.charAt(i))) i--;
        int stop = i + 1;
        while (i >= start && Character.isJavaIdentifierPart(t.charAt(i))) i--;
        return t.substring(i + 1, stop);
    }
}
