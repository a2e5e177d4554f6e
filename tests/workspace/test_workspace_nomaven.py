"""No Maven run when the POMs prove every classpath empty, and Maven's answer whenever they do not:
each case is checked against `mvn dependency:build-classpath` itself."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pybridge.workspace import load_workspace
from pybridge.workspace.maven import resolve_classpaths
from pybridge.workspace.maven.nomaven import maven_needed
from tests.workspace.test_workspace_model import GROUP, dep, write_pom

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs mvn on PATH")

SAMPLES = Path(__file__).resolve().parent.parent.parent / "samples"
LANG3 = "org.apache.commons:commons-lang3:3.14.0"
BUILD_CLASSPATH = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath"


def mavens_classpath(pom: Path, out: Path, *args: str) -> list[str]:
    """The test classpath (every scope) of one project, by `mvn dependency:build-classpath`, as file names."""
    run = subprocess.run(["mvn", "-B", "-q", "-o", "-f", str(pom), BUILD_CLASSPATH, f"-Dmdep.outputFile={out}",
                          "-DincludeScope=test", *args], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]
    raw = out.read_text(encoding="utf-8").strip()
    return [Path(p).name for p in raw.split(":")] if raw else []


def ours(root: Path, state: Path, module: str, **kw) -> tuple[list[str], list[str]]:
    """(test classpath file names, limitation kinds) of a module, from resolve_classpaths."""
    result = resolve_classpaths(load_workspace(root), state, **kw)[(module, "test")]
    return [p.name for p in result.classpath], [lim.kind for lim in result.limitations]


def test_a_workspace_without_dependencies_resolves_without_maven_to_mavens_empty_classpath(tmp_path):
    root = SAMPLES / "kitchen-sink"
    assert maven_needed(load_workspace(root)) is None
    messages: list[str] = []
    # A Maven that cannot run would name classpath_unresolved: the answer came without it.
    got, lims = ours(root, tmp_path / "state", "dev.pybridge.samples:kitchen-sink",
                     mvn_executable=str(tmp_path / "no-mvn"), progress=messages.append)
    assert got == [] and "classpath_unresolved" not in lims
    assert any("no Maven run needed" in m for m in messages)
    assert not (tmp_path / "state" / "maven").exists()
    assert mavens_classpath(root / "pom.xml", tmp_path / "cp.txt") == got


def test_a_reactor_of_siblings_only_needs_no_maven(tmp_path):
    root = tmp_path / "ws"
    write_pom(root, "root", packaging="pom", modules=("a", "b"))
    write_pom(root / "a", "a", group=None, parent=f"{GROUP}:root:1.0")
    write_pom(root / "b", "b", group=None, parent=f"{GROUP}:root:1.0", deps=(dep(f"{GROUP}:a:1.0"),))
    assert maven_needed(load_workspace(root)) is None
    result = resolve_classpaths(load_workspace(root), tmp_path / "state", mvn_executable=str(tmp_path / "none"))
    assert all(cp.classpath == () and not cp.limitations for cp in result.values())
    assert root / "a" / "src" / "main" / "java" in result[(f"{GROUP}:b", "main")].sourcepath


@pytest.mark.parametrize("activation", ["<jdk>[11,)</jdk>", "<property><name>!skipLang</name></property>"],
                         ids=["jdk", "property"])
def test_a_profile_activated_by_jdk_or_property_sends_the_workspace_to_maven(tmp_path, activation):
    root = tmp_path / "ws"
    profile = (f"<profiles><profile><id>p</id><activation>{activation}</activation>"
               f"<dependencies>{dep(LANG3)}</dependencies></profile></profiles>")
    write_pom(root, "solo", extra=profile)
    assert "profiles" in (maven_needed(load_workspace(root)) or "")
    got, lims = ours(root, tmp_path / "state", f"{GROUP}:solo")
    assert got == mavens_classpath(root / "pom.xml", tmp_path / "cp.txt") == ["commons-lang3-3.14.0.jar"]
    assert "classpath_unresolved" not in lims
    if "property" in activation:     # switched off by the property: Maven says empty, and so would we
        assert mavens_classpath(root / "pom.xml", tmp_path / "cp2.txt", "-DskipLang") == []


def test_a_parent_outside_the_workspace_sends_the_workspace_to_maven(tmp_path):
    outer = tmp_path / "outer"
    profile = ("<profiles><profile><id>p</id><activation><jdk>[11,)</jdk></activation>"
               f"<dependencies>{dep(LANG3)}</dependencies></profile></profiles>")
    write_pom(outer, "outer-parent", packaging="pom", extra=profile)   # a dependency our reading cannot see
    root = outer / "ws"
    write_pom(root, "inner", group=None, parent=f"{GROUP}:outer-parent:1.0")
    assert "outside the workspace" in (maven_needed(load_workspace(root)) or "")
    got, _ = ours(root, tmp_path / "state", f"{GROUP}:inner")
    assert got == mavens_classpath(root / "pom.xml", tmp_path / "cp.txt") == ["commons-lang3-3.14.0.jar"]


def test_a_bom_import_or_an_external_dependency_sends_the_workspace_to_maven(tmp_path):
    bom = ("<dependencyManagement><dependencies><dependency><groupId>org.junit</groupId>"
           "<artifactId>junit-bom</artifactId><version>5.10.2</version><type>pom</type><scope>import</scope>"
           "</dependency></dependencies></dependencyManagement>")
    write_pom(tmp_path / "bom", "bom", extra=bom)
    assert "BOM" in (maven_needed(load_workspace(tmp_path / "bom")) or "")
    write_pom(tmp_path / "ext", "ext", deps=(dep(LANG3),))
    assert "depends on org.apache.commons:commons-lang3" in (maven_needed(load_workspace(tmp_path / "ext")) or "")
    (tmp_path / "core" / ".mvn").mkdir(parents=True)
    write_pom(tmp_path / "core", "core")
    (tmp_path / "core" / ".mvn" / "extensions.xml").write_text("<extensions/>", encoding="utf-8")
    assert "extensions" in (maven_needed(load_workspace(tmp_path / "core")) or "")
