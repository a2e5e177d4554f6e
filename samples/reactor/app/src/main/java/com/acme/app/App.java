package com.acme.app;

import com.acme.core.Message;
import com.acme.core.Names;
import com.acme.service.GreetingService;
import com.acme.service.PoliteGreeter;

/** Entry point: core types are reached only through the service dependency. */
public class App {
    private final GreetingService service;

    public App(String title) {
        this.service = new GreetingService(new PoliteGreeter(title));
    }

    public String run(String name) {
        Message message = service.welcome(Names.normalize(name));
        return Banner.frame(message.getText());
    }

    public static void main(String[] args) {
        App app = new App("Dr.");
        System.out.println(app.run(args.length > 0 ? args[0] : ""));
    }
}
