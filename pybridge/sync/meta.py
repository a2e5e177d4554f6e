"""`GenerationMeta`: what one published generation was built from, as one typed record.

Sync writes it at publish (`to_json`, the store keeps the JSON in the
generation's row); query and live read it (`GenerationMeta.of(info)`), never
the dict and never a build file. The JSON shape is read and written here
only:

    {"commit", "root", "generated_at", "duration", "reindexed_files",
     "modules": [{"module", "scope", "release", "encoding", "files", "bindingComplete",
                  "references", "problems", "limitations": [kind, ...]}, ...],   # per indexed scope
     "module_ids": [id, ...],
     "limitations": [{"kind", "module", "scope", "path"?, "size"?, "message"}, ...],
     "environments": {"<module> <scope>": fingerprint},
     "agents": [jar, ...],          # the Java agents the indexer JVM needed (Lombok's), absolute
     "build": {"tool", "modules": [{"id", "version", "kind", "root", "buildFiles", "hasSources",
                                    "release", "encoding"}],
               "paths": [classpath entry, ...],
               "scopes": {"<module> <scope>": {"classpath": [index into paths], "processorPath": [...],
                                              "sourcepath": [path, ...], "api": release or null}}},
     "counts": {"files", "declarations", "references", "relations", "problems",
                "binding_complete_files"}}       # the store's, computed at publish

Older pybridge versions wrote everything but `build` and `agents`; `from_json` reads their
dicts too (a module's version is then unknown, its release and encoding come
from its indexed scopes), and anything malformed reads as absent, never as an
error. A sync that publishes nothing brings an older generation's record up
to this shape (`pipeline._unchanged`). Paths inside the workspace are
relative to its root (posix), others absolute.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pybridge.store import GenerationInfo


@dataclass(frozen=True)
class MetaLimitation:
    """A named limitation of the generation (DESIGN section 8)."""

    kind: str
    message: str
    module: str | None = None
    scope: str | None = None
    path: str | None = None          # a file's limitation (skipped, too large)
    size: int | None = None          # file_too_large: its size in bytes

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "module": self.module, "scope": self.scope}
        if self.path is not None:
            out["path"] = self.path
        if self.size is not None:
            out["size"] = self.size
        out["message"] = self.message
        return out

    @classmethod
    def from_json(cls, data: object) -> MetaLimitation | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
            return None
        return cls(data["kind"], _str(data.get("message")) or "", _str(data.get("module")), _str(data.get("scope")),
                   _str(data.get("path")), _int(data.get("size")))


@dataclass(frozen=True)
class ScopeMeta:
    """One indexed (module, scope): how it was compiled and what the index holds."""

    module: str
    scope: str
    release: int | None
    encoding: str | None
    files: int = 0
    binding_complete: int = 0
    references: int = 0
    problems: int = 0
    limitations: tuple[str, ...] = ()      # the kinds of its limitations
    classpath: tuple[str, ...] = ()        # absolute, in the compiler's order
    processor_path: tuple[str, ...] = ()
    sourcepath: tuple[str, ...] = ()       # workspace-relative where inside it
    api: int | None = None                 # the release whose API it was bound against (None: the running JDK's)

    def to_json(self) -> dict[str, Any]:
        """The entry of the `modules` list (counts, release, encoding; the paths go to `build`)."""
        return {"module": self.module, "scope": self.scope, "release": self.release, "encoding": self.encoding,
                "files": self.files, "bindingComplete": self.binding_complete, "references": self.references,
                "problems": self.problems, "limitations": list(self.limitations)}

    @classmethod
    def from_json(cls, data: object, build: Mapping[str, Any]) -> ScopeMeta | None:
        """An entry of `modules`, with its paths from `build` (empty in an older generation's)."""
        if not isinstance(data, Mapping):
            return None
        module, scope = _str(data.get("module")), _str(data.get("scope"))
        if module is None or scope is None:
            return None
        own = _map(_map(build.get("scopes")).get(f"{module} {scope}"))
        table = _list(build.get("paths"))

        def entries(key: str) -> tuple[str, ...]:
            return tuple(table[i] for i in _list(own.get(key))
                         if isinstance(i, int) and 0 <= i < len(table) and isinstance(table[i], str))

        return cls(module, scope, _int(data.get("release")), _str(data.get("encoding")),
                   _int(data.get("files")) or 0, _int(data.get("bindingComplete")) or 0,
                   _int(data.get("references")) or 0, _int(data.get("problems")) or 0,
                   _strs(data.get("limitations")), entries("classpath"), entries("processorPath"),
                   _strs(own.get("sourcepath")), _int(own.get("api")))


@dataclass(frozen=True)
class ModuleMeta:
    """One module of the workspace model the generation was built from."""

    id: str
    version: str | None = None
    kind: str | None = None                 # the build's word for what it makes (Maven: its packaging)
    root: str | None = None                 # workspace-relative
    build_files: tuple[str, ...] = ()       # workspace-relative where inside it
    has_sources: bool = True
    release: int | None = None
    encoding: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "version": self.version, "kind": self.kind, "root": self.root,
                "buildFiles": list(self.build_files), "hasSources": self.has_sources, "release": self.release,
                "encoding": self.encoding}

    @classmethod
    def from_json(cls, data: object) -> ModuleMeta | None:
        if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
            return None
        return cls(data["id"], _str(data.get("version")), _str(data.get("kind")), _str(data.get("root")),
                   _strs(data.get("buildFiles")), data.get("hasSources") is not False, _int(data.get("release")),
                   _str(data.get("encoding")))


@dataclass(frozen=True)
class Counts:
    """The stored totals of the generation (the store computes them at publish)."""

    files: int = 0
    declarations: int = 0
    references: int = 0
    relations: int = 0
    problems: int = 0
    binding_complete_files: int = 0

    def to_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, data: object) -> Counts:
        if not isinstance(data, Mapping):
            return cls()
        return cls(**{f.name: _int(data.get(f.name)) or 0 for f in fields(cls)})


@dataclass(frozen=True)
class GenerationMeta:
    """What one generation was built from, and what it holds in summary."""

    commit: str | None = None               # the workspace's git HEAD at sync
    root: str | None = None                 # the workspace root, absolute
    generated_at: str | None = None         # ISO 8601, UTC, when the sync published it
    duration: float | None = None           # seconds the sync took
    build_tool: str | None = None           # the BuildSystem.name that read the workspace; None: before it was recorded
    modules: tuple[ModuleMeta, ...] = ()    # every module of the model, in its order
    scopes: tuple[ScopeMeta, ...] = ()      # every indexed (module, scope)
    limitations: tuple[MetaLimitation, ...] = ()
    # "<module> <scope>" -> its environment's fingerprint (the planner's); None: not recorded (an old sync)
    environments: Mapping[str, str] | None = None
    reindexed_files: int = 0
    counts: Counts = Counts()
    # The Java agent jars (Lombok's) its classpaths called for: a server's warm worker starts with them,
    # so that its first catch-up does not restart the JVM to load them. Empty: none, or not recorded.
    agents: tuple[str, ...] = ()

    def module(self, module_id: str) -> ModuleMeta | None:
        return next((m for m in self.modules if m.id == module_id), None)

    def scope(self, module_id: str, scope: str) -> ScopeMeta | None:
        return next((s for s in self.scopes if s.module == module_id and s.scope == scope), None)

    def scopes_of(self, module_id: str) -> list[ScopeMeta]:
        return [s for s in self.scopes if s.module == module_id]

    def encoding(self, module_id: str) -> str:
        """The source encoding of a module's files (UTF-8 when the generation does not say)."""
        m = self.module(module_id)
        return (m.encoding if m is not None else None) or "UTF-8"

    def to_json(self) -> dict[str, Any]:
        """The stored dict, without `counts` (the store adds them at publish)."""
        table: dict[str, int] = {}

        def index(entries: tuple[str, ...]) -> list[int]:
            return [table.setdefault(e, len(table)) for e in entries]

        paths = {f"{s.module} {s.scope}": {"classpath": index(s.classpath), "processorPath": index(s.processor_path),
                                           "sourcepath": list(s.sourcepath), "api": s.api} for s in self.scopes}
        out: dict[str, Any] = {
            "commit": self.commit, "root": self.root, "generated_at": self.generated_at, "duration": self.duration,
            "modules": [s.to_json() for s in self.scopes],
            "limitations": [lim.to_json() for lim in self.limitations],
            "module_ids": [m.id for m in self.modules],
            "reindexed_files": self.reindexed_files,
            "agents": list(self.agents),
            "build": {"tool": self.build_tool, "modules": [m.to_json() for m in self.modules],
                      "paths": list(table), "scopes": paths},
        }
        if self.environments is not None:
            out["environments"] = dict(self.environments)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GenerationMeta:
        """The record of a stored dict, written by this version or an older one (see the module doc)."""
        build = _map(data.get("build"))
        scopes = tuple(s for e in _list(data.get("modules")) if (s := ScopeMeta.from_json(e, build)))
        modules = tuple(m for e in _list(build.get("modules")) if (m := ModuleMeta.from_json(e)))
        if not modules:         # written before `build`: the ids, release and encoding of indexed scopes
            ids = [i for i in _list(data.get("module_ids")) if isinstance(i, str)] + [s.module for s in scopes]
            modules = tuple(_module_of_scopes(mid, [s for s in scopes if s.module == mid])
                            for mid in dict.fromkeys(ids))
        return cls(
            commit=_str(data.get("commit")), root=_str(data.get("root")), generated_at=_str(data.get("generated_at")),
            duration=_float(data.get("duration")), build_tool=_str(build.get("tool")), modules=modules,
            scopes=scopes,
            limitations=tuple(x for e in _list(data.get("limitations")) if (x := MetaLimitation.from_json(e))),
            environments=None if not isinstance(envs := data.get("environments"), Mapping) else
            {k: v for k, v in envs.items() if isinstance(k, str) and isinstance(v, str)},
            reindexed_files=_int(data.get("reindexed_files")) or 0, counts=Counts.from_json(data.get("counts")),
            agents=_strs(data.get("agents")))

    @classmethod
    def of(cls, info: GenerationInfo) -> GenerationMeta:
        """The record of a stored generation, parsed once per metadata dict (the store hands back the
        same dict while a generation's row is unchanged)."""
        return _parsed(info.meta)


REFLECTION_NOT_TRACKED = MetaLimitation(
    "reflection_not_tracked", "Uses through reflection (Class.forName, method handles, frameworks that wire by "
    "name) are not references the compiler sees.")
"""Every generation has it (DESIGN section 8): what no coverage flag can see."""


def _module_of_scopes(module_id: str, scopes: list[ScopeMeta]) -> ModuleMeta:
    first = scopes[0] if scopes else None
    return ModuleMeta(module_id, has_sources=bool(scopes), release=first.release if first else None,
                      encoding=first.encoding if first else None)


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _strs(value: object) -> tuple[str, ...]:
    return tuple(v for v in _list(value) if isinstance(v, str))


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


_CACHE: dict[int, tuple[Mapping[str, Any], GenerationMeta]] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_KEPT = 16


def _parsed(meta: Mapping[str, Any]) -> GenerationMeta:
    # Keyed by the dict's identity, which the entry keeps alive (so the id is not reused meanwhile).
    with _CACHE_LOCK:
        hit = _CACHE.get(id(meta))
        if hit is not None and hit[0] is meta:
            return hit[1]
    record = GenerationMeta.from_json(meta)
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_KEPT:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[id(meta)] = (meta, record)
    return record


def relative(root: Path, paths: Iterable[Path]) -> tuple[str, ...]:
    """Paths as the record keeps them: workspace-relative (posix) inside `root`, else absolute."""
    return tuple(p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p) for p in paths)


def scip_coordinates(meta: GenerationMeta) -> dict[str, tuple[str, str]]:
    """module id -> (SCIP package `groupId/artifactId`, version or `.`), from the record's modules."""
    return {m.id: (m.id.replace(":", "/", 1), m.version or ".") for m in meta.modules}


def scip_symbol(descriptor: str | None, module: str | None, coords: Mapping[str, tuple[str, str]]) -> str | None:
    """The full SCIP symbol of a descriptor declared in `module` (None: a library's or the JDK's, no
    coordinates); a local's descriptor stays as it is."""
    if not descriptor:
        return None
    if descriptor.startswith("local "):
        return descriptor
    if module is None:
        return f"scip-java maven . . {descriptor}"
    package, version = coords.get(module, (module.replace(":", "/", 1), "."))
    return f"scip-java maven {package} {version} {descriptor}"
