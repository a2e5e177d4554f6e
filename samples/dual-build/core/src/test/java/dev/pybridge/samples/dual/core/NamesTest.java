package dev.pybridge.samples.dual.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class NamesTest {
    @Test
    public void tidiesAName() {
        assertEquals("Dr. Ada", new Names("Dr. ").tidy("  ada "));
        assertTrue(Names.blank(" "));
    }
}
