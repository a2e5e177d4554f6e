package com.acme.lib;

public class Job implements Runnable {
    @Override
    public void run() {
        System.out.println(this);
    }

    @Override
    public String toString() {
        return "job";
    }
}
