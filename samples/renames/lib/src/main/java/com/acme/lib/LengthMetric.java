package com.acme.lib;

public class LengthMetric implements Metric {
    @Override
    public int measure(String text) {
        return text.length();
    }
}
