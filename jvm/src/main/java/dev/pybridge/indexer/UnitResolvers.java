package dev.pybridge.indexer;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.function.UnaryOperator;
import org.eclipse.jdt.core.dom.ASTParser;
import org.eclipse.jdt.internal.core.dom.ICompilationUnitResolver;

/**
 * The one place that reaches into {@code ASTParser.unitResolver} (JDT internal, pinned by the
 * canaries of {@link ReleaseLibrary} and {@link SecondaryTypes}): each call wraps the parser's
 * resolver so that every list argument (the classpath entries JDT's resolver is given) passes
 * through {@code entries} before the resolver sees it. Wrappers stack.
 */
final class UnitResolvers {
    private UnitResolvers() {}

    static void wrap(ASTParser parser, UnaryOperator<List<?>> entries) throws ReflectiveOperationException {
        Field field = ASTParser.class.getDeclaredField("unitResolver");
        field.setAccessible(true);
        ICompilationUnitResolver inner = (ICompilationUnitResolver) field.get(parser);
        Object wrapped = Proxy.newProxyInstance(ICompilationUnitResolver.class.getClassLoader(),
                new Class<?>[] {ICompilationUnitResolver.class}, (proxy, method, args) -> {
                    if (args != null) {
                        for (int i = 0; i < args.length; i++) {
                            if (args[i] instanceof List) args[i] = entries.apply((List<?>) args[i]);
                        }
                    }
                    try {
                        return method.invoke(inner, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        field.set(parser, wrapped);
    }
}
