package com.acme.broken;

/** Calls a method that Helper does not have. */
public class Unresolved {
    private final Helper helper = new Helper("unresolved");

    public String run() {
        helper.noSuchMethod();
        return helper.describe();
    }
}
