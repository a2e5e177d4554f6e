package com.acme.app;

import static com.acme.lib.Texts.pad;

public class Padding {
    public String both() {
        return pad(1) + pad("x");
    }
}
