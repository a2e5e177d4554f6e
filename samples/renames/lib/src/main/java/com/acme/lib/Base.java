package com.acme.lib;

public class Base {
    protected int value;

    public String greet() {
        return "base";
    }
}
