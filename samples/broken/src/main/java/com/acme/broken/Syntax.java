package com.acme.broken;

/** Valid code, then a missing ';' and a brace that is never closed, then valid code again. */
public class Syntax {
    private final Helper helper = new Helper("syntax");

    public String before() {
        return helper.describe();
    }

    public int broken(int x) {
        int y = helper.twice(x)
        if (y > 10) {
            y = y - 1;
        return y;
    }

    public String after() {
        return helper.describe() + "!";
    }
}
