package com.acme.lib;

/** A widget; made by {@link Widget#Widget(String)}. */
public class Widget {
    private final String label;

    public Widget() {
        this("plain");
    }

    public Widget(String label) {
        this.label = label;
    }

    public Widget copy() {
        return new Widget(label);
    }
}
