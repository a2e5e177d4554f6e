package dev.pybridge.indexer;

import static org.junit.Assert.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** The string table's bytes are what Python's str.encode("utf-8", "surrogatepass") writes. */
public class PythonUtf8Test {
    private static byte[] hex(String spaced) {
        String[] parts = spaced.split(" ");
        byte[] out = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return out;
    }

    @Test
    public void loneSurrogatesTakeThreeBytesAndPairsTheirCodePointsFour() {
        // Python: "cannot resolve \ud800X \U0001f600 \u00e9 \udc01".encode("utf-8", "surrogatepass").hex(" ")
        // (tests/worker/test_decode.py decodes the same string); the JDK's encoder writes '?' for each lone one.
        String text = "cannot resolve \uD800X \uD83D\uDE00 \u00E9 \uDC01";
        assertArrayEquals(hex("63 61 6e 6e 6f 74 20 72 65 73 6f 6c 76 65 20 ed a0 80 58 20 f0 9f 98 80 20 c3 a9 20 ed b0 81"),
                PythonUtf8.encode(text));
    }

    @Test
    public void withoutSurrogatesTheBytesAreTheJdksUtf8() {
        for (String text : new String[] {"", "Lp/A;.m()V\0scip m", "caf\u00E9 \u4E2D\u6587 \u0000 end"}) {
            assertArrayEquals(text, text.getBytes(StandardCharsets.UTF_8), PythonUtf8.encode(text));
        }
    }

    @Test
    public void aHighSurrogateAtTheEndStandsAlone() {
        assertArrayEquals(hex("61 ed a0 bd"), PythonUtf8.encode("a\uD83D"));
        assertArrayEquals(hex("ed b8 80 ed a0 bd"), PythonUtf8.encode("\uDE00\uD83D"));   // low before high: two lone ones
    }
}
