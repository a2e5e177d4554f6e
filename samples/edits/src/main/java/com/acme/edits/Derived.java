package com.acme.edits;

public class Derived extends Base {
    public int next() {
        return count + 1;
    }

    public String describe() {
        return "derived";
    }
}
