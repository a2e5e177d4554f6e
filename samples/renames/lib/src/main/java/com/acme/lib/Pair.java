package com.acme.lib;

public record Pair(int left, int right) {
    public Pair {
        if (left > right) {
            throw new IllegalArgumentException("left after right");
        }
    }

    public int sum() {
        return left + right;
    }
}
