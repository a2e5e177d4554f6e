package com.acme.edits;

public class Circle extends Shape {
    @Override
    public String draw(Object o) {
        return "circle " + o;
    }
}
