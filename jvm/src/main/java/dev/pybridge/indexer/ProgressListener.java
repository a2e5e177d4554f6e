package dev.pybridge.indexer;

/** Told how many files of a batch are done. Python implements it (JPype proxies interfaces). */
public interface ProgressListener {
    void filesDone(int done, int total);
}
