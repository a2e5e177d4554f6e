package dev.pybridge.indexer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Text in UTF-8 as Python's {@code str.encode("utf-8", "surrogatepass")} writes it: a surrogate
 * pair as the four bytes of its code point, a lone surrogate in three (where the JDK's encoder
 * writes '?'), so that {@code bytes.decode("utf-8", "surrogatepass")} gives Python the same string.
 */
final class PythonUtf8 {
    private PythonUtf8() {
    }

    /** The bytes of {@code s}. Without a surrogate they are the JDK's UTF-8 (its fast encoder). */
    static byte[] encode(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
                return slow(s);
            }
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] slow(String s) {
        int n = s.length();
        byte[] b = new byte[n * 3];      // at most three bytes a char (a pair: four for two chars)
        int at = 0;
        for (int i = 0; i < n; ) {
            int cp = s.codePointAt(i);   // a lone surrogate comes back as itself
            i += Character.charCount(cp);
            at = put(b, at, cp);
        }
        return Arrays.copyOf(b, at);
    }

    /** Writes code point {@code cp} (or a lone surrogate) at {@code b[at]}; returns the index past it. */
    static int put(byte[] b, int at, int cp) {
        if (cp < 0x80) {
            b[at++] = (byte) cp;
        } else if (cp < 0x800) {
            b[at++] = (byte) (0xC0 | (cp >> 6));
            b[at++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            b[at++] = (byte) (0xE0 | (cp >> 12));
            b[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            b[at++] = (byte) (0x80 | (cp & 0x3F));
        } else {
            b[at++] = (byte) (0xF0 | (cp >> 18));
            b[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
            b[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
            b[at++] = (byte) (0x80 | (cp & 0x3F));
        }
        return at;
    }
}
