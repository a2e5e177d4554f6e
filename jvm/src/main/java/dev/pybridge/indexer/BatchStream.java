package dev.pybridge.indexer;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * The batches of one {@link Indexer#stream} request, in order. {@link #next}
 * blocks until the next batch is ready and returns null after the last one;
 * a failure of the indexing thread is rethrown there.
 */
public final class BatchStream {
    private static final Object END = new Object();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

    void put(Batch batch) {
        queue.add(batch);
    }

    void finish(Throwable failure) {
        queue.add(failure == null ? END : failure);
    }

    public Batch next() throws Exception {
        Object o = queue.take();
        if (o == END) {
            queue.add(END);
            return null;
        }
        if (o instanceof Error) throw (Error) o;
        if (o instanceof Exception) throw (Exception) o;
        return (Batch) o;
    }
}
