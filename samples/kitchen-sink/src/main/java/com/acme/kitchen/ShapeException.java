package com.acme.kitchen;

/** A custom checked exception. */
public class ShapeException extends Exception {
    public ShapeException(String message) {
        this(message, null);
    }

    public ShapeException(String message, Throwable cause) {
        super(message, cause);
    }
}
