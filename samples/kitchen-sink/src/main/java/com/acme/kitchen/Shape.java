package com.acme.kitchen;

/**
 * A shape with an area. {@link Circle} is one; the default method
 * {@link Shape#describe()} combines {@link #name()} and {@link #area()}.
 */
public interface Shape {
    double area();

    String name();

    default String describe() {
        return name() + " with area " + area();
    }
}
