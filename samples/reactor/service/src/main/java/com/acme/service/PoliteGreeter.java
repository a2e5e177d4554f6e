package com.acme.service;

import com.acme.core.Greeter;
import com.acme.core.Names;

/** Implements the core interface and reads a core constant. */
public class PoliteGreeter implements Greeter {
    private final String title;

    public PoliteGreeter(String title) {
        this.title = title;
    }

    @Override
    public String greet(String name) {
        String who = name == null ? Names.DEFAULT_NAME : Names.normalize(name);
        return "Good day, " + title + " " + who;
    }
}
