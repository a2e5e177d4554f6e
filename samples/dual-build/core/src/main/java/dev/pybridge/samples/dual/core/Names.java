package dev.pybridge.samples.dual.core;

import org.apache.commons.lang3.StringUtils;

/** Names, tidied with commons-lang3. */
public class Names {
    private final String prefix;

    public Names(String prefix) {
        this.prefix = prefix;
    }

    public String tidy(String name) {
        return prefix + StringUtils.capitalize(StringUtils.trimToEmpty(name));
    }

    public static boolean blank(String name) {
        return StringUtils.isBlank(name);
    }
}
