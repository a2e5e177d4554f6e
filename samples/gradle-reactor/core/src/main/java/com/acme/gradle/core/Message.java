package com.acme.gradle.core;

/** A text addressed to someone. */
public class Message {
    private final String to;
    private final String text;

    public Message(String to, String text) {
        this.to = Names.normalize(to);
        this.text = text;
    }

    public String to() {
        return to;
    }

    public String render() {
        return text + ", " + to;
    }
}
