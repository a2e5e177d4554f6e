package dev.pybridge.indexer;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The batches of one {@link Indexer#stream} request, in order. The indexing
 * thread puts each batch into a bounded queue and goes on with the next files
 * while the consumer ships the previous ones: indexing overlaps with whatever
 * the consumer (and the process it ships to) does with a batch, and at most
 * {@link #CAPACITY} batches wait in memory. {@link #next} blocks until the
 * next batch is ready and returns null after the last one; a failure of the
 * indexing thread is rethrown there.
 *
 * <p>Progress is kept here ({@link #done}, {@link #total}) instead of being
 * pushed to the consumer, so the indexing thread never waits on it.
 * {@link #close} abandons the request: the indexing thread's next hand-over
 * fails and it ends without waiting for a consumer that is gone.
 */
public final class BatchStream implements ProgressListener {
    /** How many batches may wait for the consumer before the indexing thread waits. */
    static final int CAPACITY = 4;

    private static final Object END = new Object();
    private final ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(CAPACITY + 1);
    private volatile boolean closed;
    private volatile int done;
    private volatile int total;

    /** Thrown on the indexing thread when the consumer closed the stream. */
    static final class Closed extends RuntimeException {
        Closed() {
            super("the stream was closed", null, false, false);
        }
    }

    void put(Batch batch) {
        offer(batch);
    }

    void finish(Throwable failure) {
        if (failure instanceof Closed) return;
        try {
            offer(failure == null ? END : failure);
        } catch (Closed e) {
            // nobody listens any more
        }
    }

    private void offer(Object item) {
        try {
            while (!queue.offer(item, 100, TimeUnit.MILLISECONDS)) {
                if (closed) throw new Closed();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Closed();
        }
        if (closed) {
            queue.clear();
            throw new Closed();
        }
    }

    @Override
    public void filesDone(int done, int total) {
        this.total = total;
        this.done = done;
    }

    /** Files the indexing thread has finished so far (ahead of the batches handed out). */
    public int done() {
        return done;
    }

    public int total() {
        return total;
    }

    /** Abandon the request (the consumer failed): the indexing thread stops at its next batch. */
    public void close() {
        closed = true;
        queue.clear();
    }

    public Batch next() throws Exception {
        Object o = queue.take();
        if (o == END) {
            queue.offer(END);
            return null;
        }
        if (o instanceof Error) throw (Error) o;
        if (o instanceof Exception) throw (Exception) o;
        return (Batch) o;
    }
}
