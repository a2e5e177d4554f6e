package com.acme.lombok;

import lombok.Value;

/** {@code @Value}: an immutable class with an all-args constructor and getters. */
@Value
public class Money {
    String currency;
    long cents;

    public Money plus(Money other) {
        return new Money(currency, cents + other.getCents());
    }
}
