package com.acme.lib;

public enum Phase {
    START, RUN, STOP;

    public Phase next() {
        Phase[] all = values();
        return all[(ordinal() + 1) % all.length];
    }
}
