package dev.pybridge.samples.dual.app;

import dev.pybridge.samples.dual.core.Names;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Greets through core's Names; logs with slf4j. */
public class Greeter {
    private static final Logger LOG = LoggerFactory.getLogger(Greeter.class);
    private final Names names = new Names("");

    public String greet(String who) {
        if (Names.blank(who)) {
            LOG.warn("nobody to greet");
            return "Hello!";
        }
        return "Hello, " + names.tidy(who) + "!";
    }

    public static void main(String[] args) {
        System.out.println(new Greeter().greet(args.length > 0 ? args[0] : ""));
    }
}
