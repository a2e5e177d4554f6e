"""The module's Java release: JDT binds against the API javac binds against (issue 26 part 4).

`--release 8` (maven.compiler.release) binds against Java 8's API from the running JDK's ct.sym;
`-source 8 -target 8` alone (maven.compiler.source) binds against the running JDK's library, as javac
does. `ByteBuffer.flip()` is declared by `Buffer` in Java 8 and overridden by `ByteBuffer` from Java 9;
`String.isBlank()` appeared in Java 11.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.store import Store
from pybridge.sync import store_path, sync
from pybridge.sync.release import UNAVAILABLE, settle_api
from pybridge.worker.jdk import api_releases, find_jdk
from pybridge.workspace.java import api_release
from pybridge.workspace.model import ClasspathResult
from tests.support.query_support import facade_for, ok

POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId>
  <artifactId>{name}</artifactId>
  <version>1</version>
  <packaging>{packaging}</packaging>
  <properties>{properties}<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  {modules}
</project>
"""

SOURCE = """package p;

import java.nio.ByteBuffer;

public class Use {
    ByteBuffer flip(ByteBuffer b) {
        b.flip();
        return b;
    }

    boolean blank(String s) {
        return s.isBlank();
    }
}
"""

FLIP_8 = "Ljava/nio/Buffer;.flip()Ljava/nio/Buffer;"
FLIP_9 = "Ljava/nio/ByteBuffer;.flip()Ljava/nio/ByteBuffer;"
IS_BLANK = "Ljava/lang/String;.isBlank()Z"


def _module(root: Path, name: str, properties: str) -> None:
    (root / name / "src/main/java/p").mkdir(parents=True)
    (root / name / "pom.xml").write_text(POM.format(name=name, packaging="jar", properties=properties, modules=""))
    (root / name / "src/main/java/p/Use.java").write_text(SOURCE)


@pytest.fixture(scope="module")
def synced(tmp_path_factory, worker):
    """A reactor: `release8` says maven.compiler.release 8, `source8` only maven.compiler.source 1.8."""
    base = tmp_path_factory.mktemp("release")
    root = base / "ws"
    root.mkdir()
    (root / "pom.xml").write_text(POM.format(name="parent", packaging="pom", properties="",
                                             modules="<modules><module>release8</module>"
                                                     "<module>source8</module></modules>"))
    _module(root, "release8", "<maven.compiler.release>8</maven.compiler.release>")
    _module(root, "source8", "<maven.compiler.source>1.8</maven.compiler.source>"
                             "<maven.compiler.target>1.8</maven.compiler.target>")
    result = sync(root, state_dir=base / "state", worker=worker)
    return base / "state", result


def _users(state: Path, key: str) -> set[str]:
    with Store.open(store_path(state)) as store, store.reader() as r:
        symbol = r.symbol(key)
        return set() if symbol is None else {ref.module for ref in r.references(symbol.id)}


def test_release_8_binds_against_java_8s_api(synced):
    state, result = synced
    assert _users(state, FLIP_8) == {"t:release8"}          # Java 8: Buffer.flip(), not ByteBuffer's
    assert "t:release8" not in _users(state, FLIP_9) | _users(state, IS_BLANK)
    with Store.open(store_path(state)) as store, store.reader() as r:
        problems = [(p.kind, p.name) for p in r.problems(module="t:release8")]
    assert problems == [("unresolved_method", "isBlank")]    # javac --release 8: cannot find symbol
    assert not [lim for lim in result.limitations if lim["kind"] == UNAVAILABLE]


def test_source_8_without_release_binds_against_the_running_jdk_as_javac_does(synced):
    state, _ = synced
    assert _users(state, FLIP_9) == {"t:source8"}
    assert _users(state, IS_BLANK) == {"t:source8"}
    with Store.open(store_path(state)) as store, store.reader() as r:
        assert r.problems(module="t:source8") == []


def test_a_release_the_running_jdk_cannot_supply_is_a_named_limitation():
    jdk = find_jdk()
    running, supplied = api_releases(jdk.home)
    assert running == jdk.major and 8 in supplied and running in supplied
    cps = {("m", "main"): ClasspathResult((), (), (), 8, api=8),
           ("m", "test"): ClasspathResult((), (), (), running, api=running),
           ("n", "main"): ClasspathResult((), (), (), running + 1, api=running + 1),
           ("o", "main"): ClasspathResult((), (), (), 6, api=6),
           ("s", "main"): ClasspathResult((), (), (), 8)}
    settled = settle_api(cps, str(jdk.libjvm))
    assert settled[("m", "main")].api == 8 and not settled[("m", "main")].limitations
    assert settled[("m", "test")].api is None and not settled[("m", "test")].limitations   # its own library
    assert settled[("s", "main")] == cps[("s", "main")]
    for key in (("n", "main"), ("o", "main")):
        assert settled[key].api is None
        [lim] = settled[key].limitations
        assert (lim.kind, lim.module, lim.scope) == (UNAVAILABLE, key[0], "main")
    assert "newer than the JDK" in settled[("n", "main")].limitations[0].message
    assert "no Java 6 in its lib/ct.sym" in settled[("o", "main")].limitations[0].message


@pytest.mark.parametrize("source, api", [
    ("compiler plugin <release>", 8), ("maven.compiler.release", 8),      # Maven: --release
    ("options.release", 8), ("compilerArgs --release", 8),               # Gradle: --release
    ("toolchain", 8), ("java.toolchain", 8),                             # Gradle: JDK 8's own javac
    ("compiler plugin <source>", None), ("maven.compiler.source", None),  # -source/-target only
    ("compilerArgs -source", None), ("sourceCompatibility", None), ("default", None)])
def test_only_a_release_flag_or_a_toolchain_binds_against_the_releases_api(source, api):
    assert api_release(8, source) == api


def test_check_edit_compiles_against_the_api_the_generation_was_bound_against(synced, worker):
    """check_edit used to compile a `--release 8` module against the running JDK's library: a comment
    added to Use.java then 'rebound' `b.flip()` from Buffer.flip() to ByteBuffer.flip() and 'removed'
    the isBlank() error. The generation records each scope's API, and the check uses it."""
    state, _ = synced
    root = state.parent / "ws"
    path = "release8/src/main/java/p/Use.java"
    text = (root / path).read_text(encoding="utf-8") + "\n// a comment\n"
    facade = facade_for((root, state), worker=worker)
    try:
        answer = ok(facade, "check_edit", {"changes": [{"path": path, "text": text}]})
    finally:
        facade.close()
    assert answer["rebound"] == [] and answer["diagnostics"]["removed"] == [], answer
    assert answer["verdict"] == "clean", answer
