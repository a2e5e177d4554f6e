package com.acme.kitchen;

import java.util.function.Function;

/** A generic holder; {@link Box#map} transforms its content. */
public class Box<T> {
    private T value;

    public Box(T value) {
        this.value = value;
    }

    public T get() {
        return value;
    }

    public void set(T value) {
        this.value = value;
    }

    public <R> Box<R> map(Function<? super T, ? extends R> f) {
        return new Box<>(f.apply(value));
    }

    public static <U> Box<U> of(U value) {
        return new Box<U>(value);
    }
}
