"""The pure parts of library symbols (issue 26 parts 1-2): a jar's coordinates from its place in a
Maven repository or Gradle's cache, a library method's parameter types from its binding key, and a
declaration placed in a class's source text or javap signature listing."""

from __future__ import annotations

from pathlib import Path

from pybridge.query.library import display_of, owner_of, params_of, top_level
from pybridge.query.library_outline import scan
from pybridge.query.library_source import locate
from pybridge.store import SymbolInfo
from pybridge.workspace.library import coordinates, local_sources_jar


def test_coordinates_come_from_the_jar_s_place_in_a_maven_repository_or_gradle_s_cache():
    m2 = Path("/home/u/.m2/repository/org/apache/commons/commons-lang3/3.14.0/commons-lang3-3.14.0.jar")
    assert coordinates(m2) == "org.apache.commons:commons-lang3:3.14.0"
    gradle = Path("/home/u/.gradle/caches/modules-2/files-2.1/com.google.guava/guava/33.3.1-jre/0ab1/"
                  "guava-33.3.1-jre.jar")
    assert coordinates(gradle) == "com.google.guava:guava:33.3.1-jre"
    assert coordinates(Path("/opt/lib/thing.jar")) is None


def test_a_sources_jar_is_found_beside_the_jar_or_in_a_sibling_gradle_hash_folder(tmp_path):
    jar = tmp_path / "repository/g/a/1/a-1.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"")
    assert local_sources_jar(jar) is None
    (jar.parent / "a-1-sources.jar").write_bytes(b"")
    assert local_sources_jar(jar) == jar.parent / "a-1-sources.jar"
    cached = tmp_path / "files-2.1/g/a/1/aaa/a-1.jar"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"")
    (tmp_path / "files-2.1/g/a/1/bbb").mkdir()
    (tmp_path / "files-2.1/g/a/1/bbb/a-1-sources.jar").write_bytes(b"")
    assert local_sources_jar(cached) == tmp_path / "files-2.1/g/a/1/bbb/a-1-sources.jar"


def _info(key: str, kind: str, name: str, dotted: str) -> SymbolInfo:
    return SymbolInfo(1, key, kind, name, None, dotted, None, True)


def test_a_library_method_s_parameters_are_read_from_its_binding_key():
    assert params_of("Ljava/util/List;.add(TE;)Z") == ["E"]
    assert params_of("Lorg/junit/Assert;.assertEquals(Ljava/lang/String;[Ljava/lang/Object;[Ljava/lang/Object;)V") == [
        "String", "Object[]", "Object[]"]
    assert params_of("Ljava/lang/Iterable;.forEach(Ljava/util/function/Consumer<-TT;>;)V") == ["Consumer"]
    assert params_of("Ljava/util/List;.of<E:Ljava/lang/Object;>(TE;)Ljava/util/List<TE;>;") == ["E"]
    assert params_of("Ljava/util/Map;.entry(Ljava/util/Map$Entry;DJ)V") == ["Entry", "double", "long"]
    ctor = _info("Ljava/util/ArrayList;.(I)V", "CONSTRUCTOR", "ArrayList", "java.util.ArrayList.ArrayList")
    assert display_of(ctor) == "ArrayList(int)"
    assert owner_of("Ljava/util/Map$Entry<TK;TV;>;") == "java/util/Map$Entry"
    assert top_level("java/util/Map$Entry") == "java/util/Map"


SOURCE = '''package p;

/** A thing. */
public class Thing<E> {
    /** The size. */
    public static final int SIZE = 3;

    public Thing() { this(1); }

    /**
     * Adds one.
     */
    @Deprecated
    public boolean add(E e) {
        String s = "add(E e) {";   // add(E e) in a literal
        return other.add(e);
    }

    public boolean add(int index, E e) { return false; }
}
'''


def test_a_declaration_is_placed_in_its_source_by_name_and_parameters_with_its_javadoc():
    name, whole, doc = locate(SOURCE, _info("Lp/Thing;.add(TE;)Z", "METHOD", "add", "p.Thing.add"))
    assert (name.start_line, name.start_char) == (13, 19) and doc == "/**\n     * Adds one.\n     */"
    assert (whole.start_line, whole.end_line) == (9, 16)
    name, _, _ = locate(SOURCE, _info("Lp/Thing;.add(ITE;)Z", "METHOD", "add", "p.Thing.add"))
    assert name.start_line == 18
    name, _, doc = locate(SOURCE, _info("Lp/Thing;.SIZE)I", "FIELD", "SIZE", "p.Thing.SIZE"))
    assert name.start_line == 5 and doc == "/** The size. */"
    name, _, doc = locate(SOURCE, _info("Lp/Thing<TE;>;", "CLASS", "Thing", "p.Thing"))
    assert (name.start_line, name.start_char, doc) == (3, 13, "/** A thing. */")
    name, _, _ = locate(SOURCE, _info("Lp/Thing;.()V", "CONSTRUCTOR", "Thing", "p.Thing.Thing"))
    assert name.start_line == 7


def test_a_declaration_is_placed_in_a_javap_listing_too():
    listing = ('Compiled from "ArrayList.java"\n'
               'public class java.util.ArrayList<E> extends java.util.AbstractList<E> {\n'
               '  public java.util.ArrayList(int);\n  public java.util.ArrayList();\n  public boolean add(E);\n}\n')
    name, _, doc = locate(listing, _info("Ljava/util/ArrayList;.()V", "CONSTRUCTOR", "ArrayList",
                                         "java.util.ArrayList.ArrayList"))
    assert name.start_line == 3 and doc is None
    name, _, _ = locate(listing, _info("Ljava/util/ArrayList;.add(TE;)Z", "METHOD", "add", "java.util.ArrayList.add"))
    assert name.start_line == 4
    name, _, _ = locate(listing, _info("Ljava/util/ArrayList<TE;>;", "CLASS", "ArrayList", "java.util.ArrayList"))
    assert name.start_line == 1


def test_a_jdk_without_src_zip_still_names_a_class_s_module_from_its_runtime_image(tmp_path):
    from pybridge.query.library import jdk_library
    from pybridge.workspace.library import JdkLibrary

    real = jdk_library()
    assert real is not None
    bare = tmp_path / "jdk"              # the same JDK's bin and runtime image, without lib/src.zip
    (bare / "lib").mkdir(parents=True)
    (bare / "bin").symlink_to(real.home / "bin")
    (bare / "lib" / "modules").symlink_to(real.home / "lib" / "modules")
    jdk = JdkLibrary(bare)
    assert jdk.src_zip is None
    assert jdk.module_of("java/util/List") == "java.base"
    assert jdk.module_of("java/sql/Connection") == "java.sql"
    assert jdk.module_of("com/acme/Nothing") is None


def test_the_library_outline_scanner_lists_declarations_and_skips_bodies_and_initializers():
    text = '''package p;
import java.util.List;
/** Doc. */
@Deprecated(since = "9")
public class Outer<T> extends Base implements Runnable {
    public static final int A = 1, B[] = {2, 3};
    private final Runnable r = () -> { int hidden = 0; };
    static { int alsoHidden = 1; }
    public <X> Outer(@SuppressWarnings({"a", "b"}) X x) { class Local { int no; } }
    @Override public void run() { new Object() { void anon() {} }; }
    abstract java.util.Map<String, List<T>> map(int[] a, String... rest);
    enum E { ONE(1) { void body() {} }, TWO; E() {} E(int x) {} }
    interface I { int value() default 0; }
    record R(int x) { R {} }
    @interface Marker { String name(); }
}
'''
    def flat(ds, depth=0):
        return [x for d in ds for x in [(depth, d.kind, d.name), *flat(d.children, depth + 1)]]

    assert flat(scan(text)) == [
        (0, "CLASS", "Outer"), (1, "FIELD", "A"), (1, "FIELD", "B"), (1, "FIELD", "r"),
        (1, "CONSTRUCTOR", "Outer"), (1, "METHOD", "run"), (1, "METHOD", "map"),
        (1, "ENUM", "E"), (2, "ENUM_CONSTANT", "ONE"), (2, "ENUM_CONSTANT", "TWO"),
        (2, "CONSTRUCTOR", "E"), (2, "CONSTRUCTOR", "E"),
        (1, "INTERFACE", "I"), (2, "METHOD", "value"),
        (1, "RECORD", "R"), (1, "ANNOTATION", "Marker"), (2, "METHOD", "name")]
    [outer] = scan(text)
    assert text[outer.start:].startswith("/** Doc. */")       # the whole declaration from its Javadoc
