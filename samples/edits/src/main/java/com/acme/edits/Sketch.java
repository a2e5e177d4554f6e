package com.acme.edits;

public class Sketch {
    public String draw(String s) {
        return s;
    }

    public String twice() {
        return draw("a") + draw("b");
    }
}
