package dev.pybridge.indexer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Test;

/** The stream indexes ahead of its consumer (a bounded queue), and stops when the consumer leaves. */
public class BatchStreamTest {
    private static void awaitDone(BatchStream stream, int atLeast) throws InterruptedException {
        long until = System.nanoTime() + 60_000_000_000L;
        while (stream.done() < atLeast && System.nanoTime() < until) Thread.sleep(20);
    }

    @Test
    public void indexesAheadOfTheConsumerUpToItsCapacityThenWaits() throws Exception {
        Path root = Files.createTempDirectory("pybridge-stream-test");
        int n = 40;
        String[] sources = TestSupport.module(root, n, false);
        BatchStream stream = Indexer.stream(sources, new String[] {root.toString()}, new String[0], "17",
                "UTF-8", false, 2);
        // Nobody consumes yet: the indexing thread fills the queue, then waits.
        awaitDone(stream, 2 * BatchStream.CAPACITY);
        Thread.sleep(500);
        int ahead = stream.done();
        assertTrue("indexed ahead: " + ahead, ahead >= 2 * BatchStream.CAPACITY);
        assertTrue("bounded: " + ahead, ahead < n);
        int files = 0;
        for (Batch b = stream.next(); b != null; b = stream.next()) files += b.files.length / Batch.FILE_WIDTH;
        assertEquals(n, files);
        assertEquals(n, stream.done());
        assertNull(stream.next());
    }

    @Test
    public void closingTheStreamEndsTheIndexingThread() throws Exception {
        Path root = Files.createTempDirectory("pybridge-stream-test");
        String[] sources = TestSupport.module(root, 40, false);
        BatchStream stream = Indexer.stream(sources, new String[] {root.toString()}, new String[0], "17",
                "UTF-8", false, 1);
        awaitDone(stream, BatchStream.CAPACITY);
        stream.close();
        long until = System.nanoTime() + 60_000_000_000L;
        boolean alive = true;
        while (alive && System.nanoTime() < until) {
            alive = Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("pybridge-indexer"));
            Thread.sleep(20);
        }
        assertTrue("the indexing thread ended", !alive);
    }
}
