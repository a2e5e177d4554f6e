package com.acme.lib;

import java.util.List;

public final class Lists {
    private Lists() {
    }

    /** The first item. */
    public static <T> T first(List<T> items) {
        T head = items.get(0);
        return head;
    }
}
