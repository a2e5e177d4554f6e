package com.acme.edits;

public class Canvas {
    public String paint() {
        return new Circle().draw("text");
    }
}
