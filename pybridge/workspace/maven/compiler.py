"""What maven-compiler-plugin would do: Java release, source encoding, annotation processing.

Works on a property lookup and the maven-compiler-plugin `<configuration>`
elements (strongest first), so it serves both our own POM reading and
Maven's effective POM.

Release, first that yields a number: the plugin's `<release>`, the property
`maven.compiler.release`, the plugin's `<source>`, the property
`maven.compiler.source`; else `DEFAULT_RELEASE` (17). `1.8` means 8
(`pybridge.workspace.java.parse_release`).
One release per module: `testRelease`/`testSource` are not read.

Encoding: the plugin's `<encoding>`, else `project.build.sourceEncoding`,
else UTF-8.

Annotation processing is reported (heuristically) when the compiler is not
told `<proc>none</proc>` / `-proc:none` and either the plugin lists
`<annotationProcessorPaths>` or `<annotationProcessors>`, or a dependency is
a well-known processor that javac discovers on the classpath (Lombok,
MapStruct's processor, AutoValue, Dagger, Immutables, Hibernate's JPA
metamodel generator, Querydsl APT).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable

from ..java import DEFAULT_ENCODING, DEFAULT_RELEASE, parse_release
from ..model import Dependency
from .xmlread import children_text, text

KNOWN_PROCESSORS = {
    ("org.projectlombok", "lombok"),
    ("org.mapstruct", "mapstruct-processor"),
    ("com.google.auto.value", "auto-value"),
    ("com.google.dagger", "dagger-compiler"),
    ("org.immutables", "value"),
    ("org.hibernate", "hibernate-jpamodelgen"),
    ("org.hibernate.orm", "hibernate-jpamodelgen"),
    ("com.querydsl", "querydsl-apt"),
}


def java_release(prop: Callable[[str], str | None], configs: list[ET.Element],
                 interp: Callable[[str], str] = lambda s: s) -> tuple[int, str]:
    """(release, where it came from)."""
    def config(tag: str) -> str | None:
        for c in configs:
            v = text(c, tag)
            if v is not None:
                return interp(v)
        return None

    for value, source in ((config("release"), "compiler plugin <release>"),
                          (prop("maven.compiler.release"), "maven.compiler.release"),
                          (config("source"), "compiler plugin <source>"),
                          (prop("maven.compiler.source"), "maven.compiler.source")):
        release = parse_release(value)
        if release is not None:
            return release, source
    return DEFAULT_RELEASE, "default"


def source_encoding(prop: Callable[[str], str | None], configs: list[ET.Element],
                    interp: Callable[[str], str] = lambda s: s) -> str:
    for c in configs:
        v = text(c, "encoding")
        if v is not None and "${" not in interp(v):
            return interp(v)
    return prop("project.build.sourceEncoding") or DEFAULT_ENCODING


def annotation_processors(dependencies: Iterable[Dependency], configs: list[ET.Element],
                          interp: Callable[[str], str] = lambda s: s) -> tuple[str, ...]:
    """What makes the module run annotation processors; empty when none."""
    for c in configs:
        proc = text(c, "proc")
        args = children_text(c, "compilerArgs/arg") + [text(c, "compilerArgument") or ""]
        if (proc and interp(proc) == "none") or "-proc:none" in args:
            return ()
        if proc:
            break
    found: list[str] = []
    for c in configs:
        for path in c.findall("annotationProcessorPaths/path"):
            g, a = text(path, "groupId"), text(path, "artifactId")
            if g and a:
                found.append(f"{interp(g)}:{interp(a)}")
        for name in children_text(c, "annotationProcessors/annotationProcessor"):
            found.append(interp(name))
    for d in dependencies:
        if (d.group_id, d.artifact_id) in KNOWN_PROCESSORS:
            found.append(d.ga)
    return tuple(dict.fromkeys(found))
