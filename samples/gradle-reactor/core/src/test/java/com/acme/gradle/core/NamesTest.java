package com.acme.gradle.core;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class NamesTest {
    @Test
    public void normalizeTrimsAndCapitalizes() {
        assertEquals("Ada", Names.normalize("  ada "));
    }
}
