package dev.pybridge.indexer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Several index requests (the batches of a sync: module, scope and up to
 * {@code PYBRIDGE_INDEX_BATCH_FILES} files each), each streamed in its order, with up to
 * {@code threads} of them indexed at once, each on a thread of its own with its own
 * {@code ASTParser} (JDT's batch resolver keeps its state per {@code createASTs} call,
 * so two calls share nothing but what {@link SecondaryTypes} shares by design).
 *
 * <p>The consumer reads either the streams one after the other, as it read the
 * requests, a stream being indexed ahead of its turn while an earlier one is read; or
 * the batches of all of them as they come ({@link #nextReady}), so that it stores the
 * facts of two requests at the pace the two threads make them. Stream k
 * starts once stream k - threads has been read to its end (or closed): at most
 * {@code threads} requests are in memory at once, whatever their count. A stream
 * indexed ahead keeps all its batches (its queue holds the whole request) so that its
 * thread does not wait for the consumer.
 *
 * <p>A request starts only once the one before it has indexed its first file (or ended), so
 * that no two requests build their name environment (classpath entries, the running JDK's
 * {@code jrt} image) at once, at the start of {@code createASTs}. A precaution: the DOM's way
 * to the {@code jrt} image goes through concurrent maps ({@code ClasspathJrt}, {@code JRTUtil});
 * only {@code FileSystem}'s own cache, used for a classpath entry that is the image itself, is
 * a plain static map. Starting both at once measured within the noise (bench/RESULTS.md,
 * "Chunks as they come"), so the gate stays.
 *
 * <p>One thread ({@code threads} 1) is the single stream of {@link Indexer#stream}
 * request after request, but without the consumer's round trip between them.
 */
public final class StreamPlan {
    private final int threads;
    private final int chunkFiles;
    private final List<Object[]> requests = new ArrayList<>();
    /** One stream index per batch, end or failure queued, in the order they were queued. */
    private final LinkedBlockingQueue<Integer> ready = new LinkedBlockingQueue<>();

    public StreamPlan(int threads, int chunkFiles) {
        this.threads = Math.max(1, threads);
        this.chunkFiles = Math.max(1, chunkFiles);
    }

    /** Adds a request, with the arguments of {@link Indexer#stream}. */
    public void add(String[] files, String[] sourcepath, String[] classpath, String release, String api,
                    String encoding, boolean javadoc, boolean secondaryTypeCache) {
        requests.add(new Object[] {files, sourcepath, classpath, release, api, encoding, javadoc, secondaryTypeCache});
    }

    /** Starts the requests; their streams, in the order they were added. */
    public BatchStream[] start() {
        int n = requests.size();
        BatchStream[] streams = new BatchStream[n];
        CountDownLatch[] read = new CountDownLatch[n];
        for (int i = 0; i < n; i++) {
            Object[] r = requests.get(i);
            int chunks = ((String[]) r[0]).length / chunkFiles + 2;
            streams[i] = new BatchStream(Math.max(BatchStream.CAPACITY, chunks));
            read[i] = new CountDownLatch(1);
            streams[i].onDone(read[i]::countDown);
            Integer index = i;
            streams[i].onItem(() -> ready.add(index));
        }
        for (int i = 0; i < n; i++) {
            Object[] r = requests.get(i);
            BatchStream stream = streams[i];
            CountDownLatch gate = i >= threads ? read[i - threads] : null;
            CountDownLatch previous = i > 0 ? streams[i - 1].started : null;
            stream.fill(() -> {
                if (gate != null) gate.await();
                if (previous != null) previous.await();
                if (stream.isClosed()) return;
                Indexer.run((String[]) r[0], (String[]) r[1], (String[]) r[2], (String) r[3], (String) r[4],
                        (String) r[5], (Boolean) r[6], (Boolean) r[7], false, null, stream, chunkFiles, stream::put);
            });
        }
        return streams;
    }

    /**
     * The index of a stream whose {@link BatchStream#next} has a batch, its end or its failure
     * waiting (one index per item, in the order they were queued); blocks until there is one.
     * A consumer that reads this way reads each stream only after its index came.
     */
    public int nextReady() throws InterruptedException {
        return ready.take();
    }
}
