package com.acme.gradle.app;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class AppTest {
    @Test
    public void runGreetsTheNormalizedName() {
        assertEquals("Hello there, Ada", App.run(" ada"));
    }
}
