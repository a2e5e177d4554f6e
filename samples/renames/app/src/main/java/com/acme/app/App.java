package com.acme.app;

import static com.acme.lib.Util.twice;

import com.acme.lib.Counter;
import com.acme.lib.LengthMetric;
import com.acme.lib.Level;
import com.acme.lib.Lists;
import com.acme.lib.Metric;
import com.acme.lib.Pair;
import com.acme.lib.Printer;
import com.acme.lib.Shape;
import com.acme.lib.Widget;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/** Uses the library; see {@link Widget} and {@link Level#HIGH}. */
public class App {
    public static void main(String[] args) {
        Printer printer = new Printer();
        System.out.println(printer.foo("x") + printer.foo(1));

        Shape square = new Square(2);
        Shape unit = new Shape() {
            @Override
            public double area() {
                return 1;
            }
        };
        ToDoubleFunction<Shape> areas = Shape::area;
        System.out.println(square.area() + areas.applyAsDouble(unit) + unit.describe());

        Metric lambda = text -> text.isEmpty() ? 0 : 1;
        Metric length = new LengthMetric();
        BiFunction<Metric, String, Integer> measuring = Metric::measure;
        System.out.println(lambda.measure("a") + length.measure("bb") + measuring.apply(length, "c"));

        Level level = Level.of(twice(3));
        switch (level) {
            case HIGH:
                System.out.println(level.label() + Level.HIGH.label());
                break;
            default:
                System.out.println(level);
        }

        Pair pair = new Pair(1, 2);
        System.out.println(pair.left() + pair.sum());

        String head = Lists.<String>first(List.of("a", "b"));
        Supplier<Widget> widgets = Widget::new;
        Widget widget = new Widget(head);
        System.out.println(widget.copy() + " " + widgets.get());

        Counter counter = new Counter();
        counter.inc(2);
        System.out.println(counter.full() + new Child().both() + new Stats().top(1, 2));
    }
}
