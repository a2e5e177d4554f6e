package com.acme.app;

import org.apache.commons.lang3.StringUtils;

/** Frames text; commons-lang3 reaches this module only through service -> core. */
public final class Banner {
    private Banner() {
    }

    public static String frame(String text) {
        String line = StringUtils.repeat('=', text.length());
        return line + "\n" + text + "\n" + line;
    }
}
