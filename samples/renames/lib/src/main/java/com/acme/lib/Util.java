package com.acme.lib;

public final class Util {
    private Util() {
    }

    public static int twice(int x) {
        return 2 * x;
    }

    public static int half(int x) {
        return x / 2;
    }

    public static int max(int a, int b) {
        return a > b ? a : b;
    }
}
