package com.acme.edits;

public class Printer {
    public String show(Object o) {
        return "object " + o;
    }

    public int twice(int n) {
        return n * 2;
    }

    public String name() {
        return "printer";
    }
}
