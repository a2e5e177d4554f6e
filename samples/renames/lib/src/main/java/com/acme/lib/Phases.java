package com.acme.lib;

import java.util.EnumSet;

public final class Phases {
    private Phases() {
    }

    public static int count() {
        return Phase.values().length;
    }

    public static Phase parse(String name) {
        return Phase.valueOf(name);
    }

    public static EnumSet<Phase> all() {
        return EnumSet.allOf(Phase.class);
    }
}
