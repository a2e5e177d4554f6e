package com.acme.edits;

public class Client {
    private final Printer printer = new Printer();

    public String run() {
        String a = printer.show("text");
        String b = printer.show(42);
        int c = printer.twice(3);
        return a + b + c + printer.name();
    }
}
