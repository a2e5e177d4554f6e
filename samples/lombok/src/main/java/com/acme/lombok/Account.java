package com.acme.lombok;

import lombok.Getter;
import lombok.Setter;

/** Plain {@code @Getter} and {@code @Setter} on fields. */
public class Account {
    @Getter @Setter
    private String owner;

    @Getter
    private long balance;

    public void deposit(long amount) {
        balance += amount;
    }
}
