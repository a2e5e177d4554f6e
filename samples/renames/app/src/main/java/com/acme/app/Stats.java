package com.acme.app;

import static com.acme.lib.Util.max;

public class Stats {
    public int top(int a, int b) {
        return max(a, b);
    }

    public int biggest(int a, int b) {
        return a >= b ? a : b;
    }
}
