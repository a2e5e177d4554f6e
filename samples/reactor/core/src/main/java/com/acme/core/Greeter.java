package com.acme.core;

/** Something that greets; implemented in the service module. */
public interface Greeter {
    String greet(String name);
}
