"""Where a library or JDK class comes from, and where its sources are (DESIGN section 7).

- `find_class(jars, entry)`: the first classpath jar (or class folder) holding a class file, in
  the compiler's order, as javac would pick it;
- `coordinates(jar)`: `groupId:artifactId:version` read from the jar's place in a Maven local
  repository (`<repo>/g/r/o/u/p/artifact/version/artifact-version.jar`) or Gradle's module cache
  (`files-2.1/group/artifact/version/<hash>/artifact-version.jar`); None elsewhere;
- `local_sources_jar(jar)`: its `-sources.jar` where the build tool would have put it, if it is
  there (never a download: fetching one is a build system's `SourcesFetcher`);
- `JdkLibrary`: the JDK's `lib/src.zip`, which names every class's module
  (`java.base/java/util/List.java`); without it, the runtime image's listing (`jimage list`).

Each jar's listing is read once per process (keyed by path, size and mtime) and kept for the
last `_JARS_KEPT` jars.
"""

from __future__ import annotations

import subprocess
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_JARS_KEPT = 256
_lock = threading.Lock()
_listings: OrderedDict[tuple[str, int, int], frozenset[str]] = OrderedDict()


def _listing(jar: Path) -> frozenset[str]:
    try:
        st = jar.stat()
    except OSError:
        return frozenset()
    key = (str(jar), st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _listings:
            _listings.move_to_end(key)
            return _listings[key]
    try:
        with zipfile.ZipFile(jar) as z:
            names = frozenset(z.namelist())
    except (OSError, zipfile.BadZipFile):
        names = frozenset()
    with _lock:
        _listings[key] = names
        while len(_listings) > _JARS_KEPT:
            _listings.popitem(last=False)
    return names


def find_class(entries: Iterable[Path], entry: str) -> Path | None:
    """The first classpath entry (jar or class folder) that holds `entry` (`java/util/List.class`)."""
    for path in entries:
        if path.is_dir():
            if (path / entry).is_file():
                return path
        elif entry in _listing(path):
            return path
    return None


def coordinates(jar: Path) -> str | None:
    """`groupId:artifactId:version` from a jar's place in a Maven repository or Gradle's cache."""
    parts = jar.parts
    if len(parts) < 4 or not jar.name.endswith(".jar"):
        return None
    artifact, version = parts[-3], parts[-2]
    if jar.name.startswith(f"{artifact}-{version}"):
        if "repository" in parts[:-3]:
            start = len(parts) - 1 - parts[::-1].index("repository")
            group = ".".join(parts[start + 1:-3])
            return f"{group}:{artifact}:{version}" if group else None
    artifact, version = parts[-4], parts[-3]          # Gradle: .../group/artifact/version/<hash>/x.jar
    if len(parts) >= 6 and parts[-6] == "files-2.1" and jar.name.startswith(f"{artifact}-{version}"):
        return f"{parts[-5]}:{artifact}:{version}"
    return None


def local_sources_jar(jar: Path) -> Path | None:
    """The jar's `-sources.jar` where Maven (beside it) or Gradle (a sibling hash folder) keeps it."""
    if not jar.name.endswith(".jar"):
        return None
    name = jar.name[:-len(".jar")] + "-sources.jar"
    beside = jar.with_name(name)
    if beside.is_file():
        return beside
    if len(jar.parts) >= 6 and jar.parts[-6] == "files-2.1":
        for sibling in sorted(jar.parent.parent.glob(f"*/{name}")):
            return sibling
    return None


def read_entry(archive: Path, entry: str) -> bytes | None:
    """One entry of a zip or jar; None when it is not there."""
    if entry not in _listing(archive):
        return None
    try:
        with zipfile.ZipFile(archive) as z:
            return z.read(entry)
    except (OSError, KeyError, zipfile.BadZipFile):
        return None


@dataclass(frozen=True)
class JdkLibrary:
    """The JDK's own library as its `lib/src.zip` describes it (absent in a JRE or a slim JDK)."""

    home: Path

    @property
    def src_zip(self) -> Path | None:
        path = self.home / "lib" / "src.zip"
        return path if path.is_file() else None

    def source_entry(self, top_level: str) -> str | None:
        """`java.base/java/util/List.java` for `java/util/List`, when src.zip has it."""
        src = self.src_zip
        if src is None:
            return None
        wanted = "/" + top_level + ".java"
        package = top_level.rsplit("/", 1)[0] if "/" in top_level else ""
        for module in _packages(src).get(package, ()):
            if module + wanted in _listing(src):
                return module + wanted
        return None

    def module_of(self, top_level: str) -> str | None:
        """The module of a JDK class: from src.zip, else from the runtime image's listing (`jimage
        list`, read once per process: a JDK without its sources still names its modules)."""
        entry = self.source_entry(top_level)
        if entry is not None:
            return entry.split("/", 1)[0]
        if self.src_zip is not None:
            return None
        return _image_classes(self.home).get(top_level + ".class")


_images: dict[str, dict[str, str]] = {}


def _image_classes(home: Path) -> dict[str, str]:
    """class file (`java/util/List.class`) -> module, from `jimage list` of the JDK's lib/modules."""
    with _lock:
        if str(home) in _images:
            return _images[str(home)]
    out: dict[str, str] = {}
    jimage, image = home / "bin" / "jimage", home / "lib" / "modules"
    if jimage.is_file() and image.is_file():
        try:
            proc = subprocess.run([str(jimage), "list", str(image)], capture_output=True, text=True, timeout=120,
                                  stdin=subprocess.DEVNULL)
            module = None
            for line in proc.stdout.splitlines():
                if line.startswith("Module: "):
                    module = line[len("Module: "):].strip()
                elif module and line.startswith("    ") and line.endswith(".class"):
                    out[line.strip()] = module
        except (OSError, subprocess.SubprocessError):
            pass
    with _lock:
        _images[str(home)] = out
    return out


_package_maps: dict[tuple[str, int], dict[str, tuple[str, ...]]] = {}


def _packages(src: Path) -> dict[str, tuple[str, ...]]:
    """package (`java/util`) -> the modules of src.zip holding it."""
    key = (str(src), len(_listing(src)))
    with _lock:
        if key in _package_maps:
            return _package_maps[key]
    out: dict[str, set[str]] = {}
    for name in _listing(src):
        module, _, rest = name.partition("/")
        if rest.endswith(".java"):
            out.setdefault(rest.rsplit("/", 1)[0] if "/" in rest else "", set()).add(module)
    result = {package: tuple(sorted(modules)) for package, modules in out.items()}
    with _lock:
        _package_maps[key] = result
    return result
