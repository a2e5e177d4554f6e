package com.acme.core;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class NamesTest {
    @Test
    public void blankNameBecomesDefault() {
        assertEquals(Names.DEFAULT_NAME, Names.normalize("   "));
    }

    @Test
    public void nameIsCapitalized() {
        assertEquals("Ada", Names.normalize(" aDA "));
    }

    @Test
    public void messageKnowsItsLength() {
        assertEquals(2, new Message("hi").length());
    }
}
