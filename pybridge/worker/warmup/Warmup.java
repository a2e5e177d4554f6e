package warmup;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Indexed once by each new worker while Maven resolves classpaths, so that the
 * JDT classes the real sources need are loaded and partly compiled by then.
 * See {@link Shape#area()} and {@link Registry#register(String, Shape)}.
 */
public class Warmup {
    interface Shape {
        double area();

        default String describe() {
            return getClass().getSimpleName() + " " + area();
        }
    }

    record Circle(double radius) implements Shape {
        public double area() {
            return Math.PI * radius * radius;
        }
    }

    enum Unit {
        MM(0.001), CM(0.01), M(1) {
            @Override
            String label() {
                return "metre";
            }
        };

        private final double factor;

        Unit(double factor) {
            this.factor = factor;
        }

        String label() {
            return name().toLowerCase();
        }
    }

    static final class Registry<T extends Shape> {
        private final Map<String, T> byName = new HashMap<>();
        private int count;

        void register(String name, T shape) {
            byName.put(name, shape);
            count += 1;
        }

        Optional<T> find(String name) {
            return Optional.ofNullable(byName.get(name));
        }

        <R> List<R> map(Function<? super T, ? extends R> f) {
            List<R> out = new ArrayList<>();
            for (T t : byName.values()) {
                out.add(f.apply(t));
            }
            return out;
        }
    }

    private final Registry<Shape> registry = new Registry<>();
    private int[] counts = new int[4];

    public List<String> run(List<String> names) {
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            registry.register(name, new Circle(i));
            counts[i % counts.length]++;
        }
        registry.register("anon", new Shape() {
            @Override
            public double area() {
                return 1.0;
            }
        });
        List<String> described = registry.map(Shape::describe);
        Collections.sort(described);
        return described.stream().filter(s -> !s.isEmpty()).map(String::trim).collect(Collectors.toList());
    }

    public String label(Unit unit) {
        switch (unit) {
            case MM:
                return "small " + unit.label();
            default:
                return unit.label() + " x" + unit.factor;
        }
    }
}
