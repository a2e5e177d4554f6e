package com.acme.service;

import com.acme.core.Greeter;
import com.acme.core.Message;

/** Turns greetings into messages and counts them. */
public class GreetingService {
    private final Greeter greeter;
    private int sent;

    public GreetingService(Greeter greeter) {
        this.greeter = greeter;
    }

    public GreetingService() {
        this(new PoliteGreeter("Dear"));
    }

    public Message welcome(String name) {
        sent++;
        return new Message(greeter.greet(name));
    }

    public int sent() {
        return sent;
    }
}
