package com.acme.kitchen;

import static com.acme.kitchen.util.MathUtil.PI_ISH;
import static com.acme.kitchen.util.MathUtil.twice;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Uses everything else. The entry point is {@link Kitchen#main(String[])};
 * shapes are sorted with {@link #BY_AREA}.
 */
public class Kitchen {
    /** A lambda in a field initializer: its container is this field. */
    static final Comparator<Shape> BY_AREA = (a, b) -> Double.compare(a.area(), b.area());

    public static void main(String[] args) {
        List<Shape> shapes = shapes();
        shapes.sort(BY_AREA);
        for (Shape shape : shapes) {
            System.out.println(shape.describe());
        }
        System.out.println(generics());
        System.out.println(methodReferences());
        System.out.println(counting());
        System.out.println(records(Size.LARGE));
        System.out.println(greetings());
        System.out.println(checked("2.5"));
    }

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Circle(2.0));
        shapes.add(new Circle("small", 0.5));
        shapes.add(Circle.unit());
        shapes.add(new BaseShape("square") {
            @Override
            public double area() {
                return 4.0;
            }
        });
        BaseShape first = (BaseShape) shapes.get(0);
        System.out.println(first.name());
        return shapes;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    static String generics() {
        Box<String> typed = new Box<>("pybridge");
        typed.set("java");
        Box<Integer> length = typed.map(s -> s.length());
        Box raw = new Box("raw");
        raw.set(42);
        Object content = raw.get();
        Box<Circle> circle = Box.of(Circle.unit());
        return typed.get() + length.get() + content + circle.get().getRadius();
    }

    static double methodReferences() {
        Supplier<Circle> make = Circle::unit;
        DoubleFunction<Circle> ctor = Circle::new;
        Greeter greeter = new Greeter("Hi");
        Function<String, String> hello = greeter::greet;
        ToDoubleFunction<Shape> area = Shape::area;
        hello.apply("ann");
        return area.applyAsDouble(make.get()) + area.applyAsDouble(ctor.apply(3.0));
    }

    static int counting() {
        Counter counter = new Counter();
        counter.add(5);
        counter.add(2, 3);
        counter.step(1);
        int none = Counter.sum();
        int one = Counter.sum(1);
        int many = Counter.sum(1, 2, 3);
        int total = Counter.TOTAL;
        Counter.reset();
        return none + one + many + total + twice(counter.getCount()) + (int) twice(PI_ISH)
                + counter.measure();
    }

    static String records(Size size) {
        Point p = new Point(1, 2);
        Point q = new Point(3);
        int weight = switch (size) {
            case SMALL -> 0;
            case LARGE -> size.weight() * 2;
            default -> size.weight();
        };
        return size.label() + " " + (p.x() + q.sum() + weight);
    }

    static String greetings() {
        Greeter greeter = Greeter.fromConfig(new Greeter.Config(false));
        Greeter.Session session = greeter.new Session("bob");
        Object started = greeter.start("amy");
        String opened = started instanceof Greeter.Session s ? s.open() : "";
        return session.open() + opened + greeter.greet("cy", 2) + greeter.greetAll(List.of("dee"));
    }

    static String checked(String text) {
        try {
            Shape shape = Circle.parse(text);
            if (shape instanceof Circle) {
                Circle c = (Circle) shape;
                c.grow(1.0);
                return "grown " + c.sameSize(Circle.unit());
            }
            return shape.name();
        } catch (ShapeException e) {
            return e.getMessage();
        }
    }
}
