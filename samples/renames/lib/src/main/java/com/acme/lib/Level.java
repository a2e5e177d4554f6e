package com.acme.lib;

public enum Level {
    LOW, MEDIUM, HIGH {
        @Override
        public String label() {
            return "top";
        }
    };

    public String label() {
        return name().toLowerCase();
    }

    public static Level of(int n) {
        return n > 5 ? HIGH : LOW;
    }
}
