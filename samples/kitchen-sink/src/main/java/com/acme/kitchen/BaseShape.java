package com.acme.kitchen;

/** Common base of the shapes; see {@link Shape#area()} for the contract. */
public abstract class BaseShape implements Shape {
    protected String label;

    protected BaseShape(String label) {
        this.label = label;
    }

    @Override
    public String name() {
        return label;
    }
}
