package dev.pybridge.indexer;

import java.util.Arrays;

/** A growable int array: facts are rows of ints, handed to Python as one int[]. */
final class IntList {
    private int[] data = new int[1024];
    private int size;

    void add(int value) {
        if (size == data.length) {
            data = Arrays.copyOf(data, size * 2);
        }
        data[size++] = value;
    }

    void truncate(int newSize) {
        size = Math.min(size, newSize);
    }

    int get(int index) {
        return data[index];
    }

    int size() {
        return size;
    }

    int[] toArray() {
        return Arrays.copyOf(data, size);
    }
}
