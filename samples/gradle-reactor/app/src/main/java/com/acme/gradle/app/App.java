package com.acme.gradle.app;

import com.acme.gradle.core.Message;
import com.acme.gradle.service.Greeting;
import com.acme.gradle.service.GreetingService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Prints a greeting. Reaches core only through service's API. */
public class App {
    private static final Logger LOG = LoggerFactory.getLogger(App.class);

    public static String run(String who) {
        Greeting greeting = new GreetingService().greet(who);
        Message message = greeting.getMessage();
        LOG.info("greeted {}", greeting.getWho());
        return message.render();
    }

    public static void main(String[] args) {
        System.out.println(run(args.length > 0 ? args[0] : "world"));
    }
}
