package dev.pybridge.indexer;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** Several requests streamed in order, two indexed at once: the same batches as one by one. */
public class StreamPlanTest {
    /** A batch's files and facts (keys and counts per file). */
    private static List<String> lines(Batch b) {
        List<String> out = new ArrayList<>();
        String[] strings = b.strings.split("\0", -1);
        for (int f = 0; f < b.files.length; f += Batch.FILE_WIDTH) {
            out.add(strings[b.files[f]] + " decls " + (b.files[f + 3] - b.files[f + 2])
                    + " refs " + (b.files[f + 5] - b.files[f + 4]));
        }
        return out;
    }

    /** Each request's files and facts, in the order the consumer reads them. */
    private static List<String> read(BatchStream[] streams) throws Exception {
        List<String> out = new ArrayList<>();
        for (BatchStream s : streams) {
            for (Batch b = s.next(); b != null; b = s.next()) out.addAll(lines(b));
            out.add("--");
        }
        return out;
    }

    private static StreamPlan requests(String[] files, Path root, int threads, int per) {
        StreamPlan plan = new StreamPlan(threads, 3);
        for (int i = 0; i < files.length; i += per) {
            plan.add(Arrays.copyOfRange(files, i, Math.min(i + per, files.length)), new String[] {root.toString()},
                    new String[0], "17", "", "UTF-8", true, true);
        }
        return plan;
    }

    private static BatchStream[] plan(String[] files, Path root, int threads, int per) {
        return requests(files, root, threads, per).start();
    }

    @Test
    public void readingBatchesAsTheyAreReadyGivesEachRequestItsOwnInOrder() throws Exception {
        Path root = Files.createTempDirectory("pybridge-plan-test");
        String[] files = TestSupport.module(root, 30, true);
        List<String> one = read(plan(files, root, 1, 7));
        StreamPlan plan = requests(files, root, 2, 7);
        BatchStream[] streams = plan.start();
        List<List<String>> each = new ArrayList<>();
        for (int i = 0; i < streams.length; i++) each.add(new ArrayList<>());
        int open = streams.length;
        int named = 0;
        while (open > 0) {
            int i = plan.nextReady();        // one index per batch and one for each request's end
            named++;
            Batch b = streams[i].next();
            if (b == null) {
                each.get(i).add("--");
                open--;
            } else {
                each.get(i).addAll(lines(b));
            }
        }
        List<String> two = new ArrayList<>();
        each.forEach(two::addAll);
        assertEquals(one, two);
        assertEquals(4 * 3 + 1 + 5, named);  // requests of 7, 7, 7, 7 and 2 files: batches of 3, 3 and 1 (or 2)
    }

    @Test
    public void twoThreadsStreamTheSameFactsInTheSameOrderAsOne() throws Exception {
        Path root = Files.createTempDirectory("pybridge-plan-test");
        String[] files = TestSupport.module(root, 30, true);
        List<String> one = read(plan(files, root, 1, 7));
        List<String> two = read(plan(files, root, 2, 7));
        assertEquals(30 + 5, one.size());      // 30 files, 5 requests
        assertEquals(one, two);
    }

    @Test
    public void aRequestIsIndexedAheadOnlyWithinTheThreads() throws Exception {
        Path root = Files.createTempDirectory("pybridge-plan-test");
        String[] files = TestSupport.module(root, 12, true);
        BatchStream[] streams = plan(files, root, 2, 4);    // 3 requests
        long until = System.nanoTime() + 60_000_000_000L;
        while ((streams[0].done() < 4 || streams[1].done() < 4) && System.nanoTime() < until) Thread.sleep(20);
        Thread.sleep(300);
        // Nobody read the first request yet: the third waits for it.
        assertEquals(4, streams[1].done());
        assertEquals(0, streams[2].done());
        read(new BatchStream[] {streams[0]});
        while (streams[2].done() < 4 && System.nanoTime() < until) Thread.sleep(20);
        assertEquals(4, streams[2].done());
        assertArrayEquals(new int[] {4, 4, 4}, new int[] {streams[0].done(), streams[1].done(), streams[2].done()});
        read(new BatchStream[] {streams[1], streams[2]});
        assertNull(streams[2].next());
    }

    @Test
    public void closingAStreamLetsTheNextOneStartAndEndsNothingElse() throws Exception {
        Path root = Files.createTempDirectory("pybridge-plan-test");
        String[] files = TestSupport.module(root, 12, true);
        BatchStream[] streams = plan(files, root, 1, 4);
        streams[0].close();
        List<String> rest = read(new BatchStream[] {streams[1], streams[2]});
        assertEquals(8 + 2, rest.size());
    }
}
