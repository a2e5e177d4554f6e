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
    private final ArrayBlockingQueue<Object> queue;
    private volatile boolean closed;
    /** Counted down when the indexing thread has finished its first file, or ended ({@link StreamPlan}). */
    final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    /** Run once, when the consumer has taken the last batch or closed the stream ({@link StreamPlan}). */
    private Runnable onDone;
    /** Run after each batch, end or failure is queued for the consumer ({@link StreamPlan#nextReady}). */
    private volatile Runnable onItem;
    private volatile int done;
    private volatile int total;

    /** Thrown on the indexing thread when the consumer closed the stream. */
    static final class Closed extends RuntimeException {
        Closed() {
            super("the stream was closed", null, false, false);
        }
    }

    BatchStream() {
        this(CAPACITY);
    }

    /** A stream holding up to {@code capacity} batches for the consumer. */
    BatchStream(int capacity) {
        queue = new ArrayBlockingQueue<>(capacity + 1);
    }

    synchronized void onDone(Runnable action) {
        onDone = action;
    }

    void onItem(Runnable action) {
        onItem = action;
    }

    private void ended() {
        Runnable action;
        synchronized (this) {
            action = onDone;
            onDone = null;
        }
        if (action != null) action.run();
    }

    /** What an indexing thread runs: it fills the stream, and may be interrupted or fail. */
    interface Work {
        void run() throws Exception;
    }

    /**
     * Starts the thread that runs {@code work} into this stream (a daemon, named pybridge-indexer):
     * the stream ends when the work returns, or hands its failure to the consumer.
     */
    BatchStream fill(Work work) {
        Thread t = new Thread(() -> {
            try {
                work.run();
                finish(null);
            } catch (Throwable e) {
                finish(e);
            }
        }, "pybridge-indexer");
        t.setDaemon(true);
        t.start();
        return this;
    }

    void put(Batch batch) {
        offer(batch);
    }

    void finish(Throwable failure) {
        started.countDown();
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
        Runnable action = onItem;
        if (action != null) action.run();
    }

    @Override
    public void filesDone(int done, int total) {
        started.countDown();
        this.total = total;
        this.done = done;
    }

    /** Files the indexing thread has finished so far (ahead of the batches handed out). */
    public int done() {
        return done;
    }

    boolean isClosed() {
        return closed;
    }

    public int total() {
        return total;
    }

    /** Abandon the request (the consumer failed): the indexing thread stops at its next batch. */
    public void close() {
        closed = true;
        started.countDown();
        queue.clear();
        ended();
    }

    public Batch next() throws Exception {
        Object o = queue.take();
        if (o == END) {
            queue.offer(END);
            ended();
            return null;
        }
        if (o instanceof Throwable) ended();
        if (o instanceof Error) throw (Error) o;
        if (o instanceof Exception) throw (Exception) o;
        return (Batch) o;
    }
}
