package com.acme.gradle.app;

import static org.junit.Assert.assertTrue;

import com.acme.gradle.core.Names;
import org.junit.Test;

public class AppIT {
    @Test
    public void mainGreetsWorld() {
        assertTrue(App.run(Names.normalize("world")).endsWith("World"));
    }
}
