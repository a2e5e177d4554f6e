package com.acme.broken;

import com.example.ghost.Ghost;

/** Uses a class from ghost-lib, a dependency that cannot be resolved. */
public class MissingDep {
    private final Helper helper = new Helper("ghost");

    public String haunt() {
        Ghost ghost = new Ghost();
        return ghost.boo(helper.describe());
    }
}
