package com.acme.kitchen;

import java.util.ArrayList;
import java.util.List;

/** Greets people: a static nested class, an inner class, a local class and a lambda. */
public class Greeter {
    private final String greeting;
    private int greeted;

    public Greeter(String greeting) {
        this.greeting = greeting;
    }

    public String greet(String name) {
        greeted++;
        return greeting + ", " + name;
    }

    public String greet(String name, int times) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < times; i++) {
            sb.append(greet(name));
        }
        return sb.toString();
    }

    /** Static nested class: needs no Greeter instance. */
    public static class Config {
        public static final String DEFAULT = "Hello";
        public final boolean loud;

        public Config(boolean loud) {
            this.loud = loud;
        }
    }

    /** Inner (non-static) class: uses the enclosing Greeter's members. */
    public class Session {
        private final String who;

        public Session(String who) {
            this.who = who;
        }

        public String open() {
            return greet(who) + " #" + greeted;
        }
    }

    public Session start(String who) {
        return new Session(who);
    }

    public List<String> greetAll(List<String> names) {
        class Prefixer {
            String apply(String s) {
                return greeting.charAt(0) + ":" + s;
            }
        }
        Prefixer prefixer = new Prefixer();
        List<String> out = new ArrayList<>();
        names.forEach(n -> out.add(prefixer.apply(greet(n))));
        return out;
    }

    public static Greeter fromConfig(Config config) {
        return new Greeter(config.loud ? Config.DEFAULT.toUpperCase() : Config.DEFAULT);
    }
}
