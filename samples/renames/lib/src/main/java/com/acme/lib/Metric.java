package com.acme.lib;

@FunctionalInterface
public interface Metric {
    int measure(String text);
}
