package com.acme.edits;

public class Outer {
    int limit = 3;

    class Inner extends Base {
        int get() {
            return limit;
        }
    }
}
