package com.acme.lombok;

import lombok.Data;

/** {@code @Data}: getters, setters, equals/hashCode, toString, a constructor for final fields. */
@Data
public class Customer {
    private final String id;
    private String name;
    private int visits;
}
