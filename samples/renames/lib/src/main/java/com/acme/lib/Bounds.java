package com.acme.lib;

/** A record with a canonical constructor and an accessor written out. */
public record Bounds(int low, int high) {
    public Bounds(int low, int high) {
        this.low = Math.min(low, high);
        this.high = Math.max(low, high);
    }

    @Override
    public int low() {
        return low;
    }

    public static int width(Bounds b) {
        return b.high() - b.low();
    }
}
