package com.acme.kitchen;

/** An enum with a constructor, a field and a constant with its own class body. */
public enum Size {
    SMALL(1),
    MEDIUM(5),
    LARGE(10) {
        @Override
        public String label() {
            return "very " + super.label();
        }
    };

    private final int weight;

    Size(int weight) {
        this.weight = weight;
    }

    public int weight() {
        return weight;
    }

    public String label() {
        return name().toLowerCase();
    }
}
