package com.acme.lib;

public class Counter {
    private int count;
    private int limit = 10;

    /**
     * Adds twice the step.
     *
     * @param step how much
     */
    public void inc(int step) {
        int delta = step * 2;
        int extra = 0;
        count += delta + extra;
    }

    public boolean full() {
        return count >= limit;
    }
}
