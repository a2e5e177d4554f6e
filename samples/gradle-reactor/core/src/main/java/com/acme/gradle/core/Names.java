package com.acme.gradle.core;

import org.apache.commons.lang3.StringUtils;

/** Name handling shared by every project. */
public final class Names {
    private Names() {
    }

    public static String normalize(String name) {
        return StringUtils.capitalize(StringUtils.trimToEmpty(name));
    }
}
