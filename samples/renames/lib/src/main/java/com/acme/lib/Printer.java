package com.acme.lib;

/** Prints values: {@link #foo(Object)} takes anything, {@link Printer#bar(String)} text. */
public class Printer {
    /**
     * Prints any object.
     *
     * @see #bar(String)
     */
    public String foo(Object value) {
        return "object " + value;
    }

    public String bar(String text) {
        return "string " + text;
    }

    public String baz(Object value) {
        return "baz " + value;
    }
}
