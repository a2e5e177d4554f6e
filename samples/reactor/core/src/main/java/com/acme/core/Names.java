package com.acme.core;

import org.apache.commons.lang3.StringUtils;

/** Name helpers built on commons-lang3. */
public final class Names {
    public static final String DEFAULT_NAME = "World";

    private Names() {
    }

    public static String normalize(String name) {
        if (StringUtils.isBlank(name)) {
            return DEFAULT_NAME;
        }
        return StringUtils.capitalize(name.trim().toLowerCase());
    }
}
