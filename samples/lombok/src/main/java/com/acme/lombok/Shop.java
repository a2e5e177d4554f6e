package com.acme.lombok;

import lombok.extern.slf4j.Slf4j;

/** {@code @Slf4j}: a static {@code log} field; and the uses of every generated member. */
@Slf4j
public class Shop {
    public String open(Account account) {
        account.setOwner("ada");
        account.deposit(5);
        log.info("opened for {}", account.getOwner());
        return account.getOwner() + ":" + account.getBalance();
    }

    public int sell() {
        Order order = Order.builder().item("tea").quantity(3).build();
        return order.total(2);
    }

    public String regular(Customer customer) {
        customer.setVisits(customer.getVisits() + 1);
        customer.setName("Grace");
        return customer.getId() + customer.getName() + customer;
    }

    public Money price() {
        Money base = new Money("EUR", 250);
        return base.plus(new Money(base.getCurrency(), 50));
    }
}
