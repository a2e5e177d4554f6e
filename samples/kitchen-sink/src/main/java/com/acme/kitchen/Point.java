package com.acme.kitchen;

/** A record with a compact constructor and a second constructor. */
public record Point(int x, int y) {
    public Point {
        if (x < 0 || y < 0) {
            throw new IllegalArgumentException("negative coordinate");
        }
    }

    public Point(int both) {
        this(both, both);
    }

    public int sum() {
        return x + y;
    }
}
