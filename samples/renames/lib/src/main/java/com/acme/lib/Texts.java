package com.acme.lib;

public final class Texts {
    private Texts() {
    }

    public static String pad(int n) {
        return "" + n;
    }

    public static String pad(String s) {
        return s + " ";
    }
}
