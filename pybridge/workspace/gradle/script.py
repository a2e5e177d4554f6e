"""The init script (`pybridge-model.gradle`, package data) and its output, read into typed records.

The script writes one JSON file per Gradle project (see the script's header
for what it reads and how). This module installs the script into the state
folder and reads those files into `ProjectJson` records; nothing past this
module sees a dict of Gradle's output.

A file that is not what the script writes (truncated by a killed run, an
older script version) raises `GradleOutputError`, which the caller turns into
a limitation.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pybridge.errors import WorkspaceError

SCRIPT = Path(__file__).resolve().parent / "pybridge-model.gradle"
SCRIPT_VERSION = 1          # the script's PYBRIDGE_SCRIPT_VERSION; output of another version is refused
TASK = ":pybridgeModel"
OUT_PROPERTY, OUT_ENV, ONLY_PROPERTY = "pybridge.out", "PYBRIDGE_GRADLE_OUT", "pybridge.only"


class GradleOutputError(WorkspaceError):
    """A file the init script wrote cannot be read. `path` names it."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}; delete pybridge's state folder and sync again.", path=str(path))
        self.path = path


def script_sha256() -> str:
    return hashlib.sha256(SCRIPT.read_bytes()).hexdigest()


def install(folder: Path) -> Path:
    """Copy the init script into `folder` (the state folder's gradle/), returning its path."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / SCRIPT.name
    shutil.copyfile(SCRIPT, target)
    return target


@dataclass(frozen=True)
class Entry:
    """One artifact of a resolved configuration, as Gradle identifies it."""

    file: Path
    kind: str                       # "project" | "module" | "file"
    project: str | None = None      # kind project: the project's path in its build, e.g. ":core"
    build: str | None = None        # kind project: the build's name (":" for the root build)
    gav: str | None = None          # kind module: group:name:version


@dataclass(frozen=True)
class Resolved:
    """A configuration resolved leniently: what resolved, and Gradle's message for what did not."""

    name: str
    entries: tuple[Entry, ...]
    failures: tuple[str, ...]


@dataclass(frozen=True)
class SourceSetJson:
    name: str
    java_dirs: tuple[Path, ...]             # configured, existing or not
    resource_dirs: tuple[Path, ...]
    classes_dirs: tuple[Path, ...]
    resources_dir: Path | None
    compile_task: str | None
    source_compatibility: str | None = None
    target_compatibility: str | None = None
    release: int | None = None              # options.release (Gradle 6.6+)
    toolchain: int | None = None            # the compile task's toolchain language version (6.7+)
    encoding: str | None = None             # options.encoding
    compiler_args: tuple[str, ...] = ()
    generated_dir: Path | None = None       # javac's -s (annotation processors' output)
    classpath: tuple[Path, ...] | None = None   # the compile task's classpath: javac's -classpath, in order
    classpath_error: str | None = None      # why `classpath` could not be resolved
    processor_path: tuple[Path, ...] = ()
    processor_rule: str | None = None       # which rule gave processor_path
    processor_jars: tuple[Path, ...] = ()   # entries of processor_path that declare a processor
    compile_classpath: Resolved | None = None
    annotation_processor: Resolved | None = None
    declared_projects: tuple[str, ...] = ()     # project paths it declares dependencies on
    declared_modules: tuple[str, ...] = ()      # group:name of the modules it declares


@dataclass(frozen=True)
class BuildRef:
    root_dir: Path
    name: str
    root: bool                  # the build Gradle was started in (not an included build)


@dataclass(frozen=True)
class ProjectJson:
    """One Gradle project as the init script saw it."""

    gradle: str
    path: str                   # ":" for a build's root project
    name: str
    dir: Path
    build_file: Path
    build: BuildRef
    build_dir: Path | None
    group: str
    version: str | None
    plugins: tuple[str, ...]
    java_home: str
    java_version: str
    file_encoding: str | None
    source_sets: tuple[SourceSetJson, ...]
    diagnostics: tuple[str, ...]
    jar: Path | None = None
    toolchain: int | None = None
    included_builds: tuple[tuple[str, Path], ...] = ()

    @property
    def key(self) -> tuple[Path, str]:
        """(the build's root folder, the project's path): unique in a composite."""
        return self.build.root_dir, self.path

    def source_set(self, name: str) -> SourceSetJson | None:
        return next((s for s in self.source_sets if s.name == name), None)


def read_output(folder: Path) -> dict[str, ProjectJson]:
    """Every project file in `folder`, by file stem (what `-Dpybridge.only` names)."""
    out: dict[str, ProjectJson] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        out[path.stem] = read_project(path)
    return out


def read_raw(folder: Path) -> list[dict[str, Any]]:
    """The project files in `folder` as JSON values (what the model cache stores)."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def read_project(path: Path) -> ProjectJson:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return parse_project(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GradleOutputError(path, f"not the init script's output ({type(exc).__name__}: {exc})") from None


def parse_project(d: dict[str, Any]) -> ProjectJson:
    if d["scriptVersion"] != SCRIPT_VERSION:
        raise ValueError(f"script version {d['scriptVersion']}, expected {SCRIPT_VERSION}")
    build = d["build"]
    return ProjectJson(
        gradle=str(d["gradle"]), path=str(d["path"]), name=str(d["name"]), dir=Path(d["dir"]),
        build_file=Path(d["buildFile"]),
        build=BuildRef(Path(build["rootDir"]), str(build["name"]), bool(build["root"])),
        build_dir=_path(d.get("buildDir")), group=str(d.get("group") or ""), version=d.get("version"),
        plugins=tuple(d["plugins"]), java_home=str(d["jvm"]["home"]), java_version=str(d["jvm"]["version"]),
        file_encoding=d["jvm"].get("fileEncoding"),
        source_sets=tuple(_source_set(s) for s in d["sourceSets"]),
        diagnostics=tuple(f"{x['what']}: {x['error']}" for x in d["diagnostics"]),
        jar=_path(d.get("jar")), toolchain=d.get("toolchain"),
        included_builds=tuple((str(b["name"]), Path(b["dir"])) for b in d.get("includedBuilds") or ()))


def _source_set(s: dict[str, Any]) -> SourceSetJson:
    return SourceSetJson(
        name=str(s["name"]), java_dirs=_paths(s["javaDirs"]), resource_dirs=_paths(s["resourceDirs"]),
        classes_dirs=_paths(s["classesDirs"]), resources_dir=_path(s.get("resourcesDir")),
        compile_task=s.get("compileTask"),
        source_compatibility=_str(s.get("sourceCompatibility")),
        target_compatibility=_str(s.get("targetCompatibility")),
        release=s.get("release"), toolchain=s.get("toolchain"), encoding=s.get("encoding"),
        compiler_args=tuple(str(a) for a in s.get("compilerArgs") or ()), generated_dir=_path(s.get("generatedDir")),
        classpath=None if s.get("classpath") is None else _paths(s["classpath"]),
        classpath_error=s.get("classpathError"), processor_path=_paths(s.get("processorPath") or ()),
        processor_rule=s.get("processorRule"), processor_jars=_paths(s.get("processorJars") or ()),
        compile_classpath=_resolved(s.get("compileClasspath")),
        annotation_processor=_resolved(s.get("annotationProcessor")),
        declared_projects=tuple(s.get("declaredProjects") or ()),
        declared_modules=tuple(s.get("declaredModules") or ()))


def _resolved(r: dict[str, Any] | None) -> Resolved | None:
    if r is None:
        return None
    return Resolved(str(r["name"]), tuple(Entry(Path(e["file"]), str(e["kind"]), e.get("project"), e.get("build"),
                                                e.get("gav")) for e in r["entries"]),
                    tuple(str(f) for f in r["failures"]))


def _path(v: object) -> Path | None:
    return None if v is None else Path(str(v))


def _paths(vs: Any) -> tuple[Path, ...]:
    return tuple(Path(str(v)) for v in vs)


def _str(v: object) -> str | None:
    return None if v is None else str(v)
