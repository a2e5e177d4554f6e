package com.acme.lombok;

import lombok.Builder;

/** {@code @Builder} on a class: a static builder() and a nested OrderBuilder. */
@Builder
public class Order {
    private final String item;
    private final int quantity;

    public int total(int unitPrice) {
        return quantity * unitPrice;
    }
}
