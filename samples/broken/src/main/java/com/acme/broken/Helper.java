package com.acme.broken;

/** The one healthy class; the broken files use it. */
public class Helper {
    private final String name;

    public Helper(String name) {
        this.name = name;
    }

    public String describe() {
        return "helper " + name;
    }

    public int twice(int x) {
        return 2 * x;
    }
}
