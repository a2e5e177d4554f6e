package com.acme.edits;

public class Shape {
    public String draw(Object o) {
        return "shape " + o;
    }
}
