package com.acme.app;

import com.acme.lib.Base;

public class Child extends Base {
    public String hello() {
        return "child " + value;
    }

    public String both() {
        return greet() + hello();
    }
}
