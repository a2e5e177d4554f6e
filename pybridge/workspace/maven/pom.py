"""A light model of one pom.xml with its parents (read safely: `xmlread.py`).

This is not Maven: `PomView` does what pybridge needs without running Maven
(properties through the parent chain, inherited dependencies, managed
versions, the compiler plugin's configuration). Parents are found through
`<relativePath>` (default `../pom.xml`, checked against the parent's
groupId:artifactId), else in the local repository (~/.m2/repository or the
`<localRepository>` of ~/.m2/settings.xml). A parent that is found nowhere
just contributes nothing. Modules and properties of profiles marked
`<activeByDefault>true</activeByDefault>` are taken as active; other
activations (JDK, OS, property, file) are not evaluated. Maven's own
effective POM, used for classpaths, evaluates all of them.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Dependency
from .mvnconfig import local_repository
from .xmlread import PomError, children_text, is_dir, is_file, parse_xml, text

COMPILER_PLUGIN = "maven-compiler-plugin"
_PROP = re.compile(r"\$\{([^}]+)\}")
_MAX_VALUE = 64 * 1024


DepKey = tuple[str, str, str, str | None]
"""(groupId, artifactId, type, classifier): how Maven tells dependencies apart."""


@dataclass(frozen=True)
class ParentRef:
    group_id: str | None
    artifact_id: str | None
    version: str | None
    relative_path: str | None   # None: default ../pom.xml; "": look only in the repository


@dataclass
class RawPom:
    """One pom.xml as written (profiles active by default merged in)."""

    path: Path
    xml: ET.Element
    group_id: str | None
    artifact_id: str | None
    version: str | None
    packaging: str
    parent: ParentRef | None
    properties: dict[str, str]
    modules: list[str]
    dependencies: list[ET.Element]
    managed: list[ET.Element]
    builds: list[ET.Element] = field(default_factory=list)   # <build> of the project, then of profiles

    @property
    def effective_group_id(self) -> str | None:
        return self.group_id or (self.parent.group_id if self.parent else None)


def read_pom(path: Path) -> RawPom:
    root = parse_xml(path)
    if root.tag != "project":
        raise PomError(path, f"{path} has root element <{root.tag}>, not <project>; is this a Maven pom.xml?")
    parent_el = root.find("parent")
    parent = None
    if parent_el is not None:
        rel = parent_el.find("relativePath")
        parent = ParentRef(text(parent_el, "groupId"), text(parent_el, "artifactId"),
                           text(parent_el, "version"),
                           None if rel is None else (rel.text or "").strip())
    props: dict[str, str] = {}
    modules: list[str] = []
    deps: list[ET.Element] = []
    managed: list[ET.Element] = []
    builds: list[ET.Element] = []
    sections = [root] + [p for p in root.findall("profiles/profile")
                         if text(p, "activation/activeByDefault") == "true"]
    for sec in sections:
        for p in sec.findall("properties/*"):
            props[p.tag] = (p.text or "").strip()
        modules += children_text(sec, "modules/module")
        deps += sec.findall("dependencies/dependency")
        managed += sec.findall("dependencyManagement/dependencies/dependency")
        b = sec.find("build")
        if b is not None:
            builds.append(b)
    pom = RawPom(path, root, text(root, "groupId"), text(root, "artifactId"), text(root, "version"),
                 text(root, "packaging") or "jar", parent, props, modules, deps, managed, builds)
    if not pom.artifact_id:
        raise PomError(path, f"{path} has no <artifactId>; add one.")
    if not pom.effective_group_id:
        raise PomError(path, f"{path} has no <groupId> and no <parent> to inherit it from; add a <groupId>.")
    return pom


def dependency_from_xml(el: ET.Element, interp: Callable[[str], str] = lambda s: s) -> Dependency | None:
    """A Dependency from a `<dependency>` element; None when groupId/artifactId are missing."""
    def get(tag: str) -> str | None:
        v = text(el, tag)
        return interp(v) if v is not None else None

    g, a = get("groupId"), get("artifactId")
    if not g or not a:
        return None
    exclusions = tuple((interp(text(x, "groupId") or "*"), interp(text(x, "artifactId") or "*"))
                       for x in el.findall("exclusions/exclusion"))
    return Dependency(g, a, get("version"), get("type") or "jar", get("classifier"),
                      get("scope") or "compile", (get("optional") or "false") == "true",
                      exclusions, get("systemPath"))


class PomReader:
    """Reads POMs once each and finds parents. `workspace_root` bounds strictness:
    a broken POM inside it raises; outside (parents found elsewhere) it is skipped."""

    def __init__(self, workspace_root: Path) -> None:
        self.root = workspace_root
        self._cache: dict[Path, RawPom] = {}
        self._repo: Path | None = None

    def read(self, path: Path) -> RawPom:
        path = path.resolve()
        if path not in self._cache:
            self._cache[path] = read_pom(path)
        return self._cache[path]

    def _try_read(self, path: Path) -> RawPom | None:
        if path.resolve().is_relative_to(self.root):
            return self.read(path)
        try:
            return self.read(path)
        except PomError:
            return None

    def parent_of(self, pom: RawPom) -> RawPom | None:
        ref = pom.parent
        if ref is None or not ref.artifact_id:
            return None
        rel = "../pom.xml" if ref.relative_path is None else ref.relative_path
        if rel:
            cand = pom.path.parent / rel
            if is_dir(cand):
                cand = cand / "pom.xml"
            if is_file(cand):
                found = self._try_read(cand)
                if (found is not None and found.artifact_id == ref.artifact_id
                        and found.effective_group_id == ref.group_id):
                    return found
        if ref.group_id and ref.version and "${" not in ref.version:
            if self._repo is None:
                self._repo = local_repository(self.root)
            cand = (self._repo / ref.group_id.replace(".", "/") / ref.artifact_id / ref.version
                    / f"{ref.artifact_id}-{ref.version}.pom")
            if is_file(cand):
                try:
                    return self.read(cand)
                except PomError:
                    return None
        return None

    def chain(self, pom: RawPom) -> list[RawPom]:
        """`pom` and its ancestors, nearest first (a parent loop stops the walk)."""
        out = [pom]
        seen = {pom.path}
        while (parent := self.parent_of(out[-1])) is not None and parent.path not in seen:
            out.append(parent)
            seen.add(parent.path)
        return out


class PomView:
    """One module's POM seen through its parent chain: properties, inherited
    dependencies, managed versions and the compiler plugin's configuration."""

    def __init__(self, chain: list[RawPom]) -> None:
        self.chain = chain
        me = chain[0]
        self.group_id = me.effective_group_id or ""
        self.artifact_id = me.artifact_id or ""
        self.version = me.version or (me.parent.version if me.parent else None)
        self.packaging = me.packaging
        props: dict[str, str] = {}
        for pom in reversed(chain):
            props.update(pom.properties)
        base = str(me.path.parent)
        builtins = {
            "groupId": self.group_id, "artifactId": self.artifact_id,
            "version": self.version or "", "packaging": self.packaging,
            "basedir": base,
            "parent.groupId": me.parent.group_id if me.parent else "",
            "parent.artifactId": me.parent.artifact_id if me.parent else "",
            "parent.version": me.parent.version if me.parent else "",
        }
        for k, v in builtins.items():
            if v:
                props[f"project.{k}"] = v
                props[f"pom.{k}"] = v
        props["basedir"] = base
        props.setdefault("project.build.directory", str(Path(base) / "target"))
        self.props = props
        self.build_directory = self.resolve_dir(self.build_text("directory"), "target")
        props["project.build.directory"] = str(self.build_directory)
        self.managed = self._deps(lambda pom: pom.managed, managed=None)
        self.dependencies = self._deps(lambda pom: pom.dependencies, managed=self.managed)

    def interp(self, value: str) -> str:
        """`${...}` replaced from properties (nested up to 10 levels); unknown ones stay."""
        for _ in range(10):
            parts, pos, size = [], 0, 0
            for m in _PROP.finditer(value):
                rep = self._lookup(m)
                size += m.start() - pos + len(rep)
                if size > _MAX_VALUE:                 # a self-referencing property stops here
                    return value
                parts += [value[pos:m.start()], rep]
                pos = m.end()
            new = "".join(parts) + value[pos:]
            if new == value:
                break
            value = new
        return value

    def _lookup(self, m: re.Match[str]) -> str:
        name = m.group(1)
        if name in self.props:
            return self.props[name]
        if name.startswith("env."):
            return os.environ.get(name[4:], m.group(0))
        return m.group(0)

    def prop(self, name: str) -> str | None:
        v = self.props.get(name)
        if v is None:
            return None
        v = self.interp(v)
        return None if "${" in v else v

    def build_text(self, tag: str) -> str | None:
        """The nearest `<build><tag>` in the chain, interpolated."""
        for pom in self.chain:
            for b in pom.builds:
                v = text(b, tag)
                if v:
                    return self.interp(v)
        return None

    def resolve_dir(self, value: str | None, default: str) -> Path:
        p = Path(value or default)
        if not p.is_absolute():
            p = self.chain[0].path.parent / p
        return Path(os.path.normpath(p))

    def _deps(self, pick: Callable[[RawPom], list[ET.Element]],
              managed: dict[DepKey, Dependency] | None) -> dict[DepKey, Dependency]:
        out: dict[DepKey, Dependency] = {}
        for pom in reversed(self.chain):          # ancestors first, children override
            for el in pick(pom):
                d = dependency_from_xml(el, self.interp)
                if d is None:
                    continue
                key = (d.group_id, d.artifact_id, d.type, d.classifier)
                if managed is not None and key in managed:
                    m = managed[key]
                    scope = d.scope if text(el, "scope") else (m.scope if m.scope != "import" else "compile")
                    d = Dependency(d.group_id, d.artifact_id, d.version or m.version, d.type,
                                   d.classifier, scope, d.optional, d.exclusions or m.exclusions,
                                   d.system_path or m.system_path)
                out[key] = d
        return out

    def compiler_configs(self) -> list[ET.Element]:
        """maven-compiler-plugin configurations, strongest first: `<plugins>` of the
        POM and then of its ancestors (inheritance, child wins), then their
        `<pluginManagement>` (only defaults for what the plugins leave unset)."""
        out: list[ET.Element] = []
        for plugins in ("plugins/plugin", "pluginManagement/plugins/plugin"):
            for pom in self.chain:
                for b in pom.builds:
                    out += compiler_configs_of(b.findall(plugins))
        return out


def compiler_configs_of(plugins: list[ET.Element]) -> list[ET.Element]:
    out: list[ET.Element] = []
    for p in plugins:
        if text(p, "artifactId") != COMPILER_PLUGIN:
            continue
        c = p.find("configuration")
        if c is not None:
            out.append(c)
        for ex in p.findall("executions/execution"):
            c = ex.find("configuration")
            if c is not None and text(ex, "id") in (None, "default-compile"):
                out.append(c)
        for ex in p.findall("executions/execution"):
            c = ex.find("configuration")
            if c is not None and text(ex, "id") not in (None, "default-compile"):
                out.append(c)
    return out
