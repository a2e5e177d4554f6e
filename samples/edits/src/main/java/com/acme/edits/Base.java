package com.acme.edits;

public class Base {
    protected int count = 1;
}
