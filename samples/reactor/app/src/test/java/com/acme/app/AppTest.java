package com.acme.app;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import com.acme.core.Greeter;
import com.acme.core.Names;
import com.acme.service.GreetingService;
import com.acme.service.PoliteGreeter;
import org.junit.Test;

public class AppTest {
    @Test
    public void runFramesTheGreeting() {
        String out = new App("Dr.").run("ada");
        assertTrue(out.contains("Good day, Dr. Ada"));
        assertTrue(out.startsWith("=="));
    }

    @Test
    public void serviceCountsMessages() {
        GreetingService service = new GreetingService();
        service.welcome("x");
        service.welcome("y");
        assertEquals(2, service.sent());
    }

    @Test
    public void coreGreeterThroughService() {
        Greeter greeter = new PoliteGreeter("Ms.");
        assertEquals("Good day, Ms. " + Names.DEFAULT_NAME, greeter.greet(null));
    }
}
