package com.acme.kitchen;

/** Counts things: reads, writes and read-writes of fields, locals and array elements. */
public class Counter {
    public static int TOTAL;
    public static final int LIMIT = 10;

    static {
        TOTAL = 0;
    }

    private int count;
    private final int[] slots = new int[LIMIT];
    private int größe = 1;

    public void add(int n) {
        count += n;
        TOTAL++;
    }

    public void add(int n, int times) {
        for (int i = 0; i < times; i++) {
            add(n);
        }
    }

    public static int sum(int... values) {
        int total = 0;
        for (int v : values) {
            total += v;
        }
        return total;
    }

    public static void reset() {
        TOTAL = 0;
    }

    public int step(int i) {
        count++;
        count--;
        ++count;
        int local = count;
        local += 3;
        local++;
        local--;
        slots[i]++;
        slots[i] += 2;
        slots[i]--;
        slots[0] = local;
        return slots[i];
    }

    public int measure() {
        größe = größe * 2;
        int total = 0;
        String s = "naïve 😀"; total += größe;
        return total + s.length();
    }

    public int getCount() {
        return count;
    }
}
