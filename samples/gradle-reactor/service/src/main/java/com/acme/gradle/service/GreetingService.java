package com.acme.gradle.service;

import com.acme.gradle.core.Message;
import com.acme.gradle.core.Names;
import com.acme.textkit.Words;

/** Builds greetings from core's messages and textkit's words. */
public class GreetingService {
    public Greeting greet(String who) {
        String name = Names.normalize(who);
        return Greeting.builder()
                .who(name)
                .message(new Message(name, Words.join("hello", "there")))
                .build();
    }
}
