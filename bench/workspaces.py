"""Benchmark workspaces built from sources published on Maven Central.

Each workspace is a real one-module Maven project under `bench/work/<name>/`:
a generated pom.xml that declares the artifact's own dependencies (read
from its published POM through `mvn help:effective-pom`, so versions from
parents and BOMs are resolved), its Java release and source encoding, and
the `-sources.jar` / `-test-sources.jar` unpacked into src/main/java and
src/test/java (module-info.java skipped). A workspace that already exists
is reused; delete its folder to rebuild it.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

WORK = Path(__file__).resolve().parent / "work"
NS = {"m": "http://maven.apache.org/POM/4.0.0"}
DEP_SCOPES = ("compile", "provided", "runtime", "test")
BENCH_GROUP = "pybridge.bench"


@dataclass(frozen=True)
class Artifact:
    name: str            # workspace folder name
    group: str
    artifact: str
    version: str
    test_sources: bool   # whether a -test-sources.jar is published
    note: str = ""
    main_deps_only: bool = False   # drop test-scoped dependencies (a main-only workspace)
    release: str | None = None     # the Java release, where the published POM does not say it
    runtime_as_compile: bool = False   # a Gradle-published POM lists `implementation` dependencies as runtime

    @property
    def gav(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"


ARTIFACTS = {
    "commons-lang3": Artifact("commons-lang3", "org.apache.commons", "commons-lang3", "3.14.0", True),
    "guava": Artifact("guava", "com.google.guava", "guava", "33.3.1-jre", False,
                      note="guava publishes no test sources (its tests live in guava-tests/guava-testlib, "
                           "not published as sources of this artifact): main scope only"),
    "commons-collections4": Artifact("commons-collections4", "org.apache.commons", "commons-collections4", "4.4",
                                     False, main_deps_only=True,
                                     note="main scope only; it declares no compile dependency, so its POM has "
                                          "none (its test-scoped ones are left out with the tests)"),
    "commons-lang3-main": Artifact("commons-lang3-main", "org.apache.commons", "commons-lang3", "3.14.0", False,
                                   note="--quick: commons-lang3 main scope only (no test sources unpacked)"),
    # issue 27 part 2's large module: about 5,000 main files, Java 17
    # (Gradle publishes its POM: no compiler configuration, and the `implementation` dependencies the
    # code compiles against are listed with scope runtime)
    "hibernate-core": Artifact("hibernate-core", "org.hibernate.orm", "hibernate-core", "7.4.15.Final", False,
                               main_deps_only=True, release="17", runtime_as_compile=True,
                               note="main scope only (no test sources published); sources the build generates "
                                    "(the HQL/SQL ANTLR parsers, JAXB bindings) are not in the sources jar"),
}


def mvn(*args: str, cwd: Path | None = None) -> None:
    cmd = ["mvn", "-B", "-q", *args]
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")


def copy(gav_with_type: str, dest: Path) -> Path:
    """`mvn dependency:copy` one artifact (e.g. `g:a:v:jar:sources`) into dest; returns the file."""
    before = set(dest.iterdir()) if dest.exists() else set()
    mvn("dependency:copy", f"-Dartifact={gav_with_type}", f"-DoutputDirectory={dest}")
    new = set(dest.iterdir()) - before
    parts = gav_with_type.split(":")
    if new:
        return new.pop()
    # already there from an earlier run: guess the name Maven gives it
    name = f"{parts[1]}-{parts[2]}" + (f"-{parts[4]}" if len(parts) > 4 else "") + f".{parts[3]}"
    return dest / name


def _text(el: ET.Element | None, path: str) -> str | None:
    if el is None:
        return None
    found = el.find(path, NS)
    return found.text.strip() if found is not None and found.text else None


def read_effective_pom(pom: Path, scratch: Path) -> tuple[list[dict], tuple[str, str], str]:
    """(dependencies, (release|source, N), encoding) of a published POM, through Maven's effective POM."""
    out = scratch / "effective-pom.xml"
    mvn("help:effective-pom", "-f", str(pom), f"-Doutput={out}")
    root = ET.parse(out).getroot()
    deps = []
    for d in root.findall("m:dependencies/m:dependency", NS):
        scope = _text(d, "m:scope") or "compile"
        if scope not in DEP_SCOPES:
            continue
        deps.append({
            "groupId": _text(d, "m:groupId"), "artifactId": _text(d, "m:artifactId"),
            "version": _text(d, "m:version"), "scope": scope, "type": _text(d, "m:type"),
            "classifier": _text(d, "m:classifier"), "optional": _text(d, "m:optional"),
            "exclusions": [(_text(e, "m:groupId"), _text(e, "m:artifactId"))
                           for e in d.findall("m:exclusions/m:exclusion", NS)],
        })
    props = root.find("m:properties", NS)
    configs = [c for pl in root.findall("m:build/m:plugins/m:plugin", NS)
               if _text(pl, "m:artifactId") == "maven-compiler-plugin" for c in pl.iterfind(".//m:configuration", NS)]

    def config(tag: str) -> str | None:
        return next((v for c in configs if (v := _text(c, f"m:{tag}"))), None)

    # Maven's compiler plugin: <release> wins over <source>/<target>; keep the flavour the project uses
    release, flag = config("release") or _text(props, "m:maven.compiler.release"), "release"
    if not release:
        release, flag = config("source") or _text(props, "m:maven.compiler.source") or "8", "source"
    release = release[2:] if release.startswith("1.") else release
    encoding = config("encoding") or _text(props, "m:project.build.sourceEncoding") or "UTF-8"
    return deps, (flag, release), encoding


def render_pom(a: Artifact, deps: list[dict], release: tuple[str, str], encoding: str) -> str:
    flag, n = release
    level = (f"<maven.compiler.release>{n}</maven.compiler.release>" if flag == "release" else
             f"<maven.compiler.source>{n}</maven.compiler.source>\n"
             f"    <maven.compiler.target>{n}</maven.compiler.target>")
    lines = []
    for d in deps:
        lines.append("    <dependency>")
        for tag in ("groupId", "artifactId", "version", "type", "classifier", "scope", "optional"):
            if d.get(tag) and not (tag == "type" and d[tag] == "jar"):
                lines.append(f"      <{tag}>{escape(d[tag])}</{tag}>")
        if d["exclusions"]:
            lines.append("      <exclusions>")
            for g, art in d["exclusions"]:
                lines.append(f"        <exclusion><groupId>{escape(g or '*')}</groupId>"
                             f"<artifactId>{escape(art or '*')}</artifactId></exclusion>")
            lines.append("      </exclusions>")
        lines.append("    </dependency>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by bench/workspaces.py from the published POM of {a.gav}. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>{BENCH_GROUP}</groupId>
  <artifactId>{a.artifact}</artifactId>
  <version>{a.version}</version>
  <packaging>jar</packaging>
  <properties>
    {level}
    <project.build.sourceEncoding>{encoding}</project.build.sourceEncoding>
  </properties>
  <dependencies>
{chr(10).join(lines)}
  </dependencies>
</project>
"""


def unpack(jar: Path, dest: Path) -> int:
    """Unpack the .java files of a sources jar (no module-info.java); returns how many."""
    n = 0
    with zipfile.ZipFile(jar) as z:
        for info in z.infolist():
            name = info.filename
            if not name.endswith(".java") or name.rsplit("/", 1)[-1] == "module-info.java":
                continue
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
            n += 1
    return n


def _fetch_module(a: Artifact, dest: Path, siblings: dict[tuple[str, str], Artifact] | None = None) -> str:
    """Download and unpack one artifact as a Maven module at dest (which must not exist); returns a
    line saying what it holds. A dependency on a sibling (same groupId and artifactId as a module
    listed before it in the reactor) is pointed at that module, so the reactor's modules refer to
    each other; a dependency on a later one stays on Maven Central's jar (no cycle: commons-lang3's
    tests use commons-text, which uses commons-lang3)."""
    with tempfile.TemporaryDirectory(prefix="bench-dl-") as tmp:
        dl = Path(tmp)
        pom = copy(f"{a.gav}:pom", dl)
        deps, release, encoding = read_effective_pom(pom, dl)
        if a.main_deps_only:
            deps = [d for d in deps if d["scope"] != "test"]
        if a.runtime_as_compile:
            for d in deps:
                if d["scope"] == "runtime":
                    d["scope"] = "compile"
        if a.release:
            release = ("release", a.release)
        for d in deps:
            sib = (siblings or {}).get((d["groupId"], d["artifactId"]))
            if sib is not None and not d.get("classifier") and d.get("type") in (None, "jar"):
                d.update(groupId=BENCH_GROUP, artifactId=sib.artifact, version=sib.version)
        main_jar = copy(f"{a.gav}:jar:sources", dl)
        n_main = unpack(main_jar, dest / "src/main/java")
        n_test = 0
        if a.test_sources:
            test_jar = copy(f"{a.gav}:jar:test-sources", dl)
            n_test = unpack(test_jar, dest / "src/test/java")
        (dest / "pom.xml").write_text(render_pom(a, deps, release, encoding), encoding="utf-8")
    return f"{n_main} main + {n_test} test files, {release[0]} {release[1]}, encoding {encoding}, " \
           f"{len(deps)} dependencies"


def ensure(a: Artifact, say=print) -> Path:
    """The workspace of an artifact, built when missing. Returns its root."""
    root = WORK / a.name
    if (root / "pom.xml").exists():
        say(f"  workspace {a.name}: cached at {root}")
        return root
    say(f"  workspace {a.name}: building from {a.gav} on Maven Central")
    WORK.mkdir(parents=True, exist_ok=True)
    partial = WORK / f".{a.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    what = _fetch_module(a, partial)
    partial.rename(root)
    say(f"  workspace {a.name}: {what}")
    return root


# ------------------------------------------------------------------ a reactor of several projects

@dataclass(frozen=True)
class Reactor:
    name: str                          # workspace folder name
    modules: tuple[Artifact, ...]      # each a module folder named by its artifact
    note: str = ""


REACTORS = {
    # issue 27's big reactor: four projects, at least 1,500 files; commons-text's dependency on
    # commons-lang3 points at the sibling module, so hot symbols of commons-lang3 are used across modules
    "reactor4": Reactor("reactor4", (
        ARTIFACTS["guava"],
        ARTIFACTS["commons-lang3"],
        ARTIFACTS["commons-collections4"],
        Artifact("commons-text", "org.apache.commons", "commons-text", "1.12.0", True),
    ), note="guava main, commons-lang3 main+test, commons-collections4 main, commons-text main+test"),
}


def render_aggregator(r: Reactor) -> str:
    modules = "\n".join(f"    <module>{a.artifact}</module>" for a in r.modules)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by bench/workspaces.py: {escape(r.note)}. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>{BENCH_GROUP}</groupId>
  <artifactId>{r.name}</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <modules>
{modules}
  </modules>
</project>
"""


def ensure_reactor(r: Reactor, say=print) -> Path:
    """The reactor workspace, built when missing (each module as `ensure` builds a workspace).
    Returns its root."""
    root = WORK / r.name
    if (root / "pom.xml").exists():
        say(f"  workspace {r.name}: cached at {root}")
        return root
    say(f"  workspace {r.name}: building a reactor of {', '.join(a.gav for a in r.modules)} from Maven Central")
    WORK.mkdir(parents=True, exist_ok=True)
    partial = WORK / f".{r.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    for i, a in enumerate(r.modules):
        what = _fetch_module(a, partial / a.artifact, {(b.group, b.artifact): b for b in r.modules[:i]})
        say(f"    module {a.artifact}: {what}")
    (partial / "pom.xml").write_text(render_aggregator(r), encoding="utf-8")
    partial.rename(root)
    return root
