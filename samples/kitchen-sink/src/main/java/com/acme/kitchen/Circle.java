package com.acme.kitchen;

@Label(name = "circle", count = 2)
public class Circle extends BaseShape {
    public static final double PI = 3.14159;

    private double radius;

    public Circle(double radius) {
        this("circle", radius);
    }

    public Circle(String label, double radius) {
        super(label);
        this.radius = radius;
    }

    public static Circle unit() {
        return new Circle(1.0);
    }

    public static Circle parse(String text) throws ShapeException {
        if (text.isBlank()) {
            throw new ShapeException("empty");
        }
        try {
            return new Circle(Double.parseDouble(text));
        } catch (NumberFormatException e) {
            throw new ShapeException("not a radius: " + text, e);
        }
    }

    public double getRadius() {
        return radius;
    }

    public boolean sameSize(Circle other) {
        return this.radius == other.radius;
    }

    public void grow(double by) {
        radius += by;
    }

    @Override
    public double area() {
        return PI * radius * radius;
    }

    @Override
    public String name() {
        return "round " + super.name();
    }
}
