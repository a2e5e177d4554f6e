package com.acme.lib;

/** A shape; {@link #area()} is implemented in another module. */
public interface Shape {
    double area();

    default String describe() {
        return "area " + area();
    }
}
