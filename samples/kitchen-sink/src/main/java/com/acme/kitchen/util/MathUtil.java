package com.acme.kitchen.util;

/** Static helpers that {@code Kitchen} imports statically. */
public final class MathUtil {
    public static final double PI_ISH = 3.14;

    private MathUtil() {
    }

    public static int twice(int x) {
        return 2 * x;
    }

    public static double twice(double x) {
        return 2 * x;
    }
}
