package dev.pybridge.indexer;

/**
 * The facts of one indexing request, flat: a string table and int rows.
 *
 * <p>Python reads each array with one buffer copy and splits the string table
 * ({@link #stringsUtf8}) once, so moving a batch costs a handful of JPype calls, never one per fact.
 * Every string column holds an index into the table ({@code -1} for none).
 * Spans are (startLine, startChar, endLine, endChar): 0-based, UTF-16 code
 * units, end exclusive. The row layouts are the {@code *_WIDTH} constants
 * and the order of fields documented beside them.
 */
public final class Batch {
    /** path, bindingComplete, declStart, declEnd, refStart, refEnd, relStart, relEnd, probStart, probEnd, extStart, extEnd, failure, blockStart, blockEnd, signed (1: {@link #sigs} holds the file's signature digests). */
    public static final int FILE_WIDTH = 16;
    /** key, kind, name, display, dotted, scip, nameSpan[4], span[4], modifiers, declaringKey. */
    public static final int DECL_WIDTH = 16;
    /** targetKey, targetScip, span[4], kind, containerKey, flags. */
    public static final int REF_WIDTH = 9;
    /** kind, fromKey, toKey. */
    public static final int REL_WIDTH = 3;
    /** kind, name, message, span[4], isError. */
    public static final int PROB_WIDTH = 8;
    /** key, kind, dotted, scip: library and JDK declarations that references point at. */
    public static final int EXT_WIDTH = 4;
    /** name, reason, span[4], canName, arity: one per token a file leaves unaccounted for ({@link NameBlocks}). */
    public static final int BLOCK_WIDTH = 8;
    /** supertypes digest, digest: one row per declaration row, -1 for a declaration without a signature ({@link Signatures}). */
    public static final int SIG_WIDTH = 2;

    /** The string table, entries separated by NUL. */
    public final String strings;
    /**
     * The same table in UTF-8 ({@link PythonUtf8}), which Python reads with one buffer copy: turning
     * the String into a Python str through JPype took the worker's Python thread about 0.9 s of CPU
     * on hibernate-core's 92 MB of tables (bench/RESULTS.md, "String tables as bytes").
     */
    public final byte[] stringsUtf8;
    public final int[] files;
    public final int[] decls;
    public final int[] refs;
    public final int[] rels;
    public final int[] probs;
    public final int[] exts;
    public final int[] blocks;
    public final int[] sigs;
    /** Milliseconds spent in createASTs (parse, resolve and visit). */
    public final long elapsedMillis;

    Batch(String strings, int[] files, int[] decls, int[] refs, int[] rels, int[] probs, int[] exts, int[] blocks, int[] sigs, long elapsedMillis) {
        this.strings = strings;
        this.stringsUtf8 = PythonUtf8.encode(strings);
        this.files = files;
        this.decls = decls;
        this.refs = refs;
        this.rels = rels;
        this.probs = probs;
        this.exts = exts;
        this.blocks = blocks;
        this.sigs = sigs;
        this.elapsedMillis = elapsedMillis;
    }
}
