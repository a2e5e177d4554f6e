package dev.pybridge.indexer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Collects the rows of a batch and interns its strings. Not thread-safe; one per request. */
final class FactSink {
    private final Map<String, Integer> index = new HashMap<>();
    private final StringBuilder table = new StringBuilder(1 << 16);
    private final List<String> strings = new ArrayList<>();   // the table, by index
    private int count;

    final IntList files = new IntList();
    final IntList decls = new IntList();
    final IntList refs = new IntList();
    final IntList rels = new IntList();
    final IntList probs = new IntList();
    final IntList exts = new IntList();
    final IntList blocks = new IntList();
    /** supertypes digest, digest: one row per declaration row ({@link Signatures}); -1 for none. */
    final IntList sigs = new IntList();

    private int fileStart;
    private int declStart, refStart, relStart, probStart, extStart, blockStart;

    int str(String s) {
        if (s == null) {
            return -1;
        }
        Integer i = index.get(s);
        if (i != null) {
            return i;
        }
        if (s.indexOf('\0') >= 0) {
            s = s.replace('\0', ' ');
        }
        if (count > 0) {
            table.append('\0');
        }
        table.append(s);
        strings.add(s);
        index.put(s, count);
        return count++;
    }

    void beginFile() {
        declStart = decls.size() / Batch.DECL_WIDTH;
        refStart = refs.size() / Batch.REF_WIDTH;
        relStart = rels.size() / Batch.REL_WIDTH;
        probStart = probs.size() / Batch.PROB_WIDTH;
        extStart = exts.size() / Batch.EXT_WIDTH;
        blockStart = blocks.size() / Batch.BLOCK_WIDTH;
    }

    /**
     * Ends the current file. {@code text}: its text as Python reads the same bytes
     * ({@link SourceText#pythonText}), from which {@link Signatures} computes the signature digests of
     * its declarations (a row of {@link #sigs} for each, -1 for none); null, or a text it leaves to
     * Python, gives rows of none and a file row that says so.
     */
    void endFile(String path, boolean bindingComplete, String failure, String text) {
        int declEnd = decls.size() / Batch.DECL_WIDTH;
        String[][] signed = Signatures.ENABLED && text != null
                ? Signatures.compute(text, strings, decls, declStart, declEnd, rels, relStart,
                        rels.size() / Batch.REL_WIDTH)
                : null;
        for (int i = declStart; i < declEnd; i++) {
            String[] row = signed == null ? null : signed[i - declStart];
            sigs.add(row == null ? -1 : str(row[0]));
            sigs.add(row == null ? -1 : str(row[1]));
        }
        files.add(str(path));
        files.add(bindingComplete ? 1 : 0);
        files.add(declStart);
        files.add(decls.size() / Batch.DECL_WIDTH);
        files.add(refStart);
        files.add(refs.size() / Batch.REF_WIDTH);
        files.add(relStart);
        files.add(rels.size() / Batch.REL_WIDTH);
        files.add(probStart);
        files.add(probs.size() / Batch.PROB_WIDTH);
        files.add(extStart);
        files.add(exts.size() / Batch.EXT_WIDTH);
        files.add(str(failure));
        files.add(blockStart);
        files.add(blocks.size() / Batch.BLOCK_WIDTH);
        files.add(signed != null ? 1 : 0);
    }

    /** Drops whatever the current file emitted (used when its visitor fails midway). */
    int[] mark() {
        return new int[] {decls.size(), refs.size(), rels.size(), probs.size(), exts.size(), blocks.size()};
    }

    void decl(String key, int kind, String name, String display, String dotted, String scip,
              int[] nameSpan, int[] span, int modifiers, String declaringKey) {
        decls.add(str(key));
        decls.add(kind);
        decls.add(str(name));
        decls.add(str(display));
        decls.add(str(dotted));
        decls.add(str(scip));
        for (int v : nameSpan) decls.add(v);
        for (int v : span) decls.add(v);
        decls.add(modifiers);
        decls.add(str(declaringKey));
    }

    void ref(String targetKey, String targetScip, int[] span, int kind, String containerKey, int flags) {
        refs.add(str(targetKey));
        refs.add(str(targetScip));
        for (int v : span) refs.add(v);
        refs.add(kind);
        refs.add(str(containerKey));
        refs.add(flags);
    }

    void rel(int kind, String from, String to) {
        rels.add(kind);
        rels.add(str(from));
        rels.add(str(to));
    }

    void problem(int kind, String name, String message, int[] span, boolean isError) {
        probs.add(kind);
        probs.add(str(name));
        probs.add(str(message));
        for (int v : span) probs.add(v);
        probs.add(isError ? 1 : 0);
    }

    void ext(String key, int kind, String dotted, String scip) {
        exts.add(str(key));
        exts.add(kind);
        exts.add(str(dotted));
        exts.add(str(scip));
    }

    /** A token the file leaves unaccounted for (see {@link NameBlocks}): what it can name, and its call's arity. */
    void block(String name, int reason, int[] span, int canName, int arity) {
        blocks.add(str(name));
        blocks.add(reason);
        for (int v : span) blocks.add(v);
        blocks.add(canName);
        blocks.add(arity);
    }

    Batch toBatch(long elapsedMillis) {
        return new Batch(table.toString(), files.toArray(), decls.toArray(), refs.toArray(),
                rels.toArray(), probs.toArray(), exts.toArray(), blocks.toArray(), sigs.toArray(), elapsedMillis);
    }
}
