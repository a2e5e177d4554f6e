"""PYBRIDGE_CLASS_CACHE: a warm worker serving unchanged sourcepath types from the class files it kept
gives the same facts as reading them from source (JUnit ClassCacheTest covers the JVM side: that it
serves, what it keeps, the JDT internals; this covers what the JUnit fixture cannot hold under Lombok's
agent, such as abstract methods, and the switch's way from the environment to the JVM)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pybridge.errors import PybridgeError
from pybridge.worker import IndexRequest, Worker
from pybridge.worker.client import class_cache
from tests.support.indexing import java_files

SOURCES = {
    "p/Shape.java": "package p;\npublic interface Shape extends Comparable<Shape> {\n  double area();\n"
                    "  default int compareTo(Shape o) { return Double.compare(area(), o.area()); }\n}\n",
    "p/Base.java": "package p;\npublic abstract class Base<T> implements Shape {\n  protected T value;\n"
                   "  public abstract T get();\n  public abstract T get(int i);\n  abstract void set(T t);\n"
                   "  public static class Nested { public int n; }\n  public class Inner { public T t; }\n}\n",
    "p/Op.java": "package p;\npublic enum Op {\n  PLUS { int apply(int a, int b) { return a + b; } },\n"
                 "  MINUS { int apply(int a, int b) { return a - b; } };\n  abstract int apply(int a, int b);\n"
                 "  public static Op valueOf(int i) { return values()[i]; }\n}\n",
    "p/Fn.java": "package p;\n@FunctionalInterface\npublic interface Fn<A, R> { R call(A a) throws Exception; }\n",
    "p/Impl.java": "package p;\npublic class Impl extends Base<String> {\n  public String get() { return value; }\n"
                   "  public String get(int i) { return value; }\n  void set(String s) { value = s; }\n"
                   "  public double area() { return 1; }\n}\n",
    "q/User.java": "package q;\nimport p.*;\npublic class User {\n"
                   "  int use(Impl i, Op op, Shape s) throws Exception {\n"
                   "    Fn<String, Integer> f = String::length; Fn<Shape, Double> g = Shape::area;\n"
                   "    Base.Nested n = new Base.Nested(); Base<String>.Inner in = i.new Inner();\n"
                   "    i.set(\"x\"); s.compareTo(i);\n"
                   "    return op.apply(1, 2) + Op.valueOf(0).apply(3, 4) + Op.valueOf(\"PLUS\").ordinal()\n"
                   "        + f.call(i.get())\n"
                   "        + g.call(s).intValue() + n.n + in.t.length() + i.get(1).length();\n  }\n}\n",
}


def _write(root: Path) -> None:
    for rel, text in SOURCES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_the_switch_is_off_by_default_and_reaches_the_request(monkeypatch):
    monkeypatch.delenv("PYBRIDGE_CLASS_CACHE", raising=False)
    assert class_cache() is False and IndexRequest(files=[]).as_message()["class_cache"] is False
    monkeypatch.setenv("PYBRIDGE_CLASS_CACHE", "1")
    assert IndexRequest(files=[]).as_message()["class_cache"] is True
    monkeypatch.setenv("PYBRIDGE_CLASS_CACHE", "yes")
    with pytest.raises(PybridgeError, match="PYBRIDGE_CLASS_CACHE"):
        class_cache()


def test_each_file_gives_the_same_facts_with_the_class_cache_as_without(tmp_path, monkeypatch):
    root = tmp_path / "src"
    _write(root)
    time.sleep(2.1)                 # files changed in the last 2 s are not kept
    files = java_files(root)

    with Worker(heap="1g") as w:    # a worker of its own: the cache lives as long as its JVM
        def index(fs: list[str], cache: str) -> list:
            monkeypatch.setenv("PYBRIDGE_CLASS_CACHE", cache)
            return w.index(IndexRequest(files=fs, sourcepath=[str(root)])).files

        alone = {f: index([f], "0") for f in files}
        assert index(files, "1") == index(files, "0")      # the first request fills the cache
        for f in files:
            assert index([f], "1") == alone[f], f
        # An edit: Impl loses get(int); User's call no longer binds, with or without the cache.
        impl = root / "p/Impl.java"
        impl.write_text(SOURCES["p/Impl.java"].replace("  public String get(int i) { return value; }\n", ""),
                        encoding="utf-8")
        user = str(root / "q/User.java")
        assert index([user], "1") == index([user], "0")
        assert index([str(impl), user], "1") == index([str(impl), user], "0")
