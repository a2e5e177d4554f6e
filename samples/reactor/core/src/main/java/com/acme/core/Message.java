package com.acme.core;

/** A greeting ready to be shown. */
public class Message {
    private final String text;

    public Message(String text) {
        this.text = text;
    }

    public String getText() {
        return text;
    }

    public int length() {
        return text.length();
    }
}
