package com.acme.textkit;

/** Joins words into a capitalized phrase. */
public final class Words {
    private Words() {
    }

    public static String join(String... words) {
        String phrase = String.join(" ", words);
        return phrase.isEmpty() ? phrase : Character.toUpperCase(phrase.charAt(0)) + phrase.substring(1);
    }
}
