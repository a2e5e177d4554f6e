"""The javac differential (bench/javac_diff.py) on the bundled samples: real javac
(the Tree API extractor in bench/javac_refs), a real sync, the real store.

Every reference javac's Tree API finds in the kitchen-sink sample (records,
enums with constant bodies, anonymous classes, lambdas, method references,
static imports, annotations, compound assignments, ...) and in the reactor
sample is stored by pybridge with the same token span, target declaration
and kind, and pybridge stores nothing javac does not see. The lombok sample
too, with Lombok as javac's annotation processor (the rules for generated
members: bench/javac_diff.py); gradle-reactor (Lombok in an upstream module)
is opt-in. Every sample: bench/javac_diff_samples.py. The real-project runs
(commons-lang3, guava) are in bench/ (bench/README.md).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from pybridge.sync import sync
from tests.support.gradle_support import gradle_env
from tests.support.query_support import SAMPLES

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import javac_diff  # noqa: E402 - bench/ is not a package

# Added to the kitchen-sink copy (not to the sample, whose goldens stay): type annotations in
# supertype clauses, whose names JDT's DOM leaves unbound and the indexer binds as javac does
# (AnnotationNames): by a single-type import, in the same package (with an element), on demand.
_KITCHEN = "src/main/java/com/acme/kitchen"
_TYPE_USE = ("import java.lang.annotation.ElementType;\nimport java.lang.annotation.Target;\n\n"
             "@Target(ElementType.TYPE_USE)\n")
SUPERTYPE_ANNOTATIONS = {
    f"{_KITCHEN}/nullness/NonNull.java":
        f"package com.acme.kitchen.nullness;\n\n{_TYPE_USE}public @interface NonNull {{}}\n",
    f"{_KITCHEN}/headers/Local.java":
        f"package com.acme.kitchen.headers;\n\n{_TYPE_USE}public @interface Local {{\n    int level() default 0;\n}}\n",
    f"{_KITCHEN}/headers/Registry.java": (
        "package com.acme.kitchen.headers;\n\n"
        "import com.acme.kitchen.nullness.NonNull;\nimport java.util.Map;\n\n"
        "public interface Registry<B> extends Map<Class<? extends @NonNull B>, B> {}\n\n"
        "abstract class Counted<B> implements Comparable<Class<? extends @Local(level = 2) B>> {}\n"),
    f"{_KITCHEN}/headers/Starred.java": (
        "package com.acme.kitchen.headers;\n\n"
        "import com.acme.kitchen.nullness.*;\nimport java.util.List;\n\n"
        "public interface Starred<E> extends List<Class<? extends @NonNull E>> {}\n"),
}


@pytest.mark.parametrize("sample", ["kitchen-sink", "reactor", "lombok"])
def test_pybridge_and_javac_agree_on_every_reference_of_a_sample(tmp_path, worker, sample):
    root = tmp_path / sample
    shutil.copytree(SAMPLES / sample, root)
    if sample == "kitchen-sink":
        for rel, text in SUPERTYPE_ANNOTATIONS.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    try:
        sync(root, state_dir=tmp_path / "state", worker=worker)
    finally:
        # the lombok sample's sync gives the session worker Lombok's agent, which patches JDT for good:
        # tests after this one index with the raw worker, which must be agent-free as it started
        worker.use_agents(())
    results = javac_diff.run(root, tmp_path / "state", work=tmp_path / "work", say=lambda _: None)
    _assert_agree(results, sample)


def _assert_agree(results: dict, sample: str) -> None:
    assert results
    kinds_seen = set()
    for job, r in results.items():
        assert "0 errors" in r["javac_log"], (job, r["javac_log"])
        for kind, t in r["kinds"].items():
            if t["javac"]:
                kinds_seen.add(kind)
            assert (t["missed"], t["extra"]) == (0, 0), (job, kind, r["misses"], r["extras"])
            assert t["kind_agreement"] in (None, 1.0), (job, kind, r["kind_disagreements"])
    if sample == "kitchen-sink":
        assert kinds_seen == set(javac_diff.KINDS)   # the sample exercises every reference kind
    if sample == "lombok":
        # javac ran Lombok (without it: 13 errors, and every call of a generated member missing); the
        # calls of the generated members (getters, setters, builder, @Value's constructor, `log`) are
        # compared by owner, name and parameters, and generated code's own references left out, counted
        [r] = results.values()
        assert r["normalized"][javac_diff.LOMBOK_MEMBER] == 19
        javac_side, ours = r["excluded"][javac_diff.LOMBOK_CODE]
        assert javac_side > 0 and ours > 0


@pytest.mark.skipif(not os.environ.get("PYBRIDGE_GRADLE_DIFF") or shutil.which("gradle") is None,
                    reason="a Gradle run (about a minute here): set PYBRIDGE_GRADLE_DIFF=1, with `gradle` on PATH")
def test_pybridge_and_javac_agree_on_the_gradle_reactor_with_lombok_in_an_upstream_module(
        tmp_path, worker, gradle_home, monkeypatch):
    env = gradle_env(gradle_home)
    for name in ("GRADLE_USER_HOME", "JAVA_HOME"):
        monkeypatch.setenv(name, env[name])
    root = tmp_path / "gradle-reactor"
    shutil.copytree(SAMPLES / "gradle-reactor", root)
    try:
        sync(root, state_dir=tmp_path / "state", worker=worker)
    finally:
        worker.use_agents(())   # as above: the session worker stays agent-free
    results = javac_diff.run(root, tmp_path / "state", work=tmp_path / "work", say=lambda _: None)
    _assert_agree(results, "gradle-reactor")
    # app uses service's Lombok-generated members (Greeting.builder(), getWho()): service's files are
    # given to javac as files, so that Lombok runs on them
    app = results["dev.pybridge.samples.gradle:app:main"]
    assert app["lombok_upstream"] == ["dev.pybridge.samples.gradle:service:main"]


def _job(module: str, files: list[str], sourcepath: list[str], classpath: list[str], lombok: str | None) -> dict:
    return {"module": module, "scope": "main", "files": files, "sourcepath": sourcepath, "classpath": classpath,
            "lombok": lombok, "release": "11", "encoding": "UTF-8", "release_flag": "source"}


def test_an_upstream_module_with_lombok_on_the_sourcepath_is_given_to_javac_as_files():
    # javac never runs annotation processors on sourcepath files: the members Lombok generates in an
    # upstream module would not exist for it
    core = _job("core", ["/w/core/src/C.java"], ["/w/core/src"], ["/m2/lang3.jar"], None)
    service = _job("service", ["/w/service/src/S.java"], ["/w/service/src", "/w/core/src", "/w/textkit/src"],
                   ["/m2/lang3.jar", "/m2/lombok-1.18.42.jar"], "/m2/lombok-1.18.42.jar")
    app = _job("app", ["/w/app/src/A.java"], ["/w/app/src", "/w/service/src", "/w/core/src"],
               ["/m2/slf4j.jar", "/m2/lang3.jar"], None)
    run, upstream = javac_diff.with_lombok_upstream(app, [core, service, app])
    assert upstream == ["service:main"]
    assert run["files"] == ["/w/app/src/A.java", "/w/service/src/S.java"]
    assert run["lombok"] == "/m2/lombok-1.18.42.jar"
    # service's own dependencies after app's: they shadow nothing of app's
    assert run["sourcepath"] == ["/w/app/src", "/w/service/src", "/w/core/src", "/w/textkit/src"]
    assert run["classpath"] == ["/m2/slf4j.jar", "/m2/lang3.jar", "/m2/lombok-1.18.42.jar"]
    # no upstream with Lombok (core's view), or the job itself: run as it is
    assert javac_diff.with_lombok_upstream(core, [core, service, app]) == (core, [])
    assert javac_diff.with_lombok_upstream(service, [core, service, app]) == (service, [])


def test_a_pybridge_reference_javac_does_not_have_is_reported_as_an_extra():
    truth = {("A.java", 1, 2, 3, "src|A.java|0|6"): {"read"}}
    ours = {("A.java", 1, 2, 3, "src|A.java|0|6"): {"write"},
            ("A.java", 2, 2, 3, "bin|java/lang/String||"): {"type_use"}}
    r = javac_diff.compare(truth, ours)
    assert r["kinds"]["read"]["recall"] == 1.0 and r["kinds"]["read"]["kind_agreement"] == 0.0
    assert r["kinds"]["type_use"]["precision"] == 0.0
    assert r["extras"][0]["count"] == 1


def test_binding_keys_name_library_declarations_as_the_extractor_does():
    assert javac_diff.binary_id("Ljava/lang/Class<TT;>;") == "bin|java/lang/Class||"
    assert javac_diff.binary_id("Ljava/lang/System;.out)Ljava/io/PrintStream;") == "bin|java/lang/System|out|F"
    assert (javac_diff.binary_id("Ljava/util/Map;.computeIfAbsent(TK;Ljava/util/function/Function<-TK;+TV;>;)TV;")
            == "bin|java/util/Map|computeIfAbsent|(TK;Ljava/util/function/Function;)")
    assert javac_diff.binary_id("Ljava/util/Collections;.emptyList<T:Ljava/lang/Object;>()Ljava/util/List<TT;>;") \
        == "bin|java/util/Collections|emptyList|()"
    assert javac_diff.binary_id(".length)I") == "bin|Array|length|F"
