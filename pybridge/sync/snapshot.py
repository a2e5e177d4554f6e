"""Snapshots: the fingerprint of every input of a sync, and a cheap check of it.

A snapshot records each source file (workspace-relative path, size, mtime,
sha256), each build file (`BuildSystem.inputs` that exist inside the workspace:
Maven's POMs, Gradle's scripts and properties; path, size, mtime, sha256), each classpath entry
(path, size, mtime), each module's Java release and encoding, and the
indexer version. `changes()` compares a snapshot with the disk by `stat`
(size and mtime; a new or vanished source file counts too), which is what
the freshness check, the live index's catch-up and the sync's end-of-run
check use. It costs one `stat` per file and one directory walk per source
root, and reads a file's contents only when its stat cannot tell:

- Size and mtime can be kept by an edit (`touch -r`, `cp -p`, `rsync -t`,
  `os.utime`), but not the inode's change time (ctime), which the kernel
  sets on every write, truncate, rename, link or utime and which no call
  can set back. A snapshot records each file's ctime (`ctimes`, from the
  stat taken before the file was hashed); a file whose size and mtime match
  but whose ctime differs is hashed and compared with the recorded sha256.
  So the stat sweep reaches the verdict of the sync's content hash while
  hashing only files whose inode changed since (a no-op sync records the
  new ctimes). As with size and mtime, an edit within the same timestamp
  tick as the snapshot's stat keeps the ctime too on file systems with
  coarse timestamps (Linux 6.13+ stamps a change after a stat finer).
- Source roots can appear without a build-file change (a module's first
  `src/test/java`) or be replaced (a source folder turned into a symbolic
  link to a sibling). A snapshot records, for each place where the build
  system lets a root appear (`pybridge.workspace.candidate_roots`), the
  roots found there (their real, workspace-relative paths); a place whose
  roots differ now counts as changed (named by its path), so the catch-up
  syncs and the sync's model reload picks the new root up.

Digests reused (as git reuses its index's): `take(previous=...)` hashes only the files whose stat
differs from the previous snapshot's record of them. A file is taken as unchanged, its digest
copied, when its size, mtime, ctime and inode all equal that record (the ctime, which no call can
set back, changes on every write). Git's racy-file rule guards the one hole: an edit within the
same timestamp tick as the previous snapshot's stat keeps every stat field, so a record whose mtime
or ctime is not older than that snapshot's start (`taken_ns`) by `RACY_MARGIN_NS` (the coarsest
timestamp granularity of a common file system, FAT's 2 s, which also covers the kernel's coarse
clock lagging `time.time_ns()`) is suspect, and that file is hashed anyway. A snapshot without
`taken_ns`, ctimes or inodes (an older pybridge's) reuses nothing. `PYBRIDGE_SNAPSHOT_REUSE=0`
hashes every file. Timestamps set by another machine's clock (a network file system whose server
runs behind) can escape the margin: switch reuse off there.

Hostile trees (DESIGN section 9: nothing outside a served workspace is ever
read). A `*.java` entry that cannot be read (a dangling symlink, a symlink
loop, no permission, not a regular file) or that resolves outside the
workspace root (a symlink out of it), and a source root that resolves
outside it, are *skipped*: never opened, recorded in `skipped` with the
reason, and named as limitations (`file_unreadable`,
`file_outside_workspace`); the sync goes on with the other files. Symlinked
folders inside a source root are not descended into (`os.walk` default).

Very large files: a file larger than `max_file_bytes()`
(`PYBRIDGE_MAX_FILE_BYTES`, default 2 MiB) is fingerprinted but not handed
to the indexer (JDT's time grows faster than linearly with one file's size:
see the README); it is stored without facts and not binding-complete, so it
blocks coverage of its module and scope, and is named as the limitation
`file_too_large` with its path and size.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybridge import switches
from pybridge.facts import FileFacts, Problem, Span
from pybridge.workspace import Workspace, candidate_roots

MAX_FILE_BYTES_ENV = "PYBRIDGE_MAX_FILE_BYTES"
REUSE_ENV = "PYBRIDGE_SNAPSHOT_REUSE"
RACY_MARGIN_NS = 2_000_000_000     # see the module docstring (digests reused)
DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024
# The JSON key of the build-file table in stores written before the build systems' seam (issue 23);
# read, never written.
LEGACY_BUILD_FILES_KEY = "poms"
PARENT_MARK = "/*"       # a place key ending so: every folder directly inside is a root


def max_file_bytes() -> int:
    """The size bound above which a source file is not indexed (PYBRIDGE_MAX_FILE_BYTES; 0 = none)."""
    return switches.count(MAX_FILE_BYTES_ENV, DEFAULT_MAX_FILE_BYTES, "no bound")


def reuse_enabled() -> bool:
    """Whether `take` may copy a digest from the previous snapshot (PYBRIDGE_SNAPSHOT_REUSE, default 1)."""
    return switches.enabled(REUSE_ENV, "hash every file on each sync (1: reuse the digest of a file whose "
                                       "stat did not change)")


def sha256_file(path: Path | str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def source_files(root: Path) -> list[Path]:
    return [Path(path) for path, _linked in source_entries(str(root))]


def source_entries(top: str) -> list[tuple[str, bool]]:
    """(path, whether it is a symbolic link) of each `*.java` file under `top`, in `os.walk`'s order
    (a folder's files sorted, then its subfolders sorted; symlinked folders not descended into,
    unreadable folders left out), from the directory entries alone (no `stat` per file)."""
    out: list[tuple[str, bool]] = []
    try:
        with os.scandir(top) as it:
            entries = list(it)
    except OSError:
        return out
    files: list[tuple[str, bool]] = []
    folders: list[str] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            try:
                if not entry.is_symlink():
                    folders.append(entry.name)
            except OSError:
                continue
        elif entry.name.endswith(".java"):
            try:
                linked = entry.is_symlink()
            except OSError:
                linked = True
            files.append((entry.name, linked))
    for name, linked in sorted(files):
        out.append((os.path.join(top, name), linked))
    for name in sorted(folders):
        out.extend(source_entries(os.path.join(top, name)))
    return out


def _rel(root: Path, path: Path) -> str:
    """The workspace-relative spelling of `path` as listed (a symlink keeps its own name)."""
    absolute = Path(os.path.abspath(path))
    if absolute.is_relative_to(root):
        return absolute.relative_to(root).as_posix()
    try:
        return path.resolve().relative_to(root).as_posix()
    except (ValueError, OSError, RuntimeError):
        return str(absolute)


def _inside(root: Path, path: Path) -> bool:
    try:
        return Path(os.path.realpath(path)).is_relative_to(root)
    except (OSError, ValueError):
        return False


def _passable(name: str) -> bool:
    """Whether JDT gets this path back unchanged: it reads `\\` as a separator, and the JVM
    cannot spell bytes that are not UTF-8 (Python holds them as lone surrogates)."""
    if "\\" in name:
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def classify(root: Path, path: Path | str, walked_inside: bool = False) -> tuple[os.stat_result | None, str | None]:
    """(stat, None) for a readable regular file inside `root`; (None, reason) for a file to skip.
    `walked_inside`: the path is no symbolic link, reached by walking real folders down from a
    source root whose real path is inside `root`, so it is inside too (no `realpath` per file)."""
    if not _passable(str(path)):
        return None, ("unreadable: its name cannot be handed to the compiler (a backslash, or bytes "
                      "that are not UTF-8); rename it")
    try:
        st = os.stat(path)
    except OSError as exc:
        what = "a symbolic link loop" if exc.errno == errno.ELOOP else (
            "a dangling symbolic link" if os.path.islink(path) else exc.strerror or str(exc))
        return None, f"unreadable: {what}"
    if not walked_inside and not _inside(root, Path(path)):
        return None, f"outside_workspace: it resolves to {os.path.realpath(path)}"
    if not stat.S_ISREG(st.st_mode):
        return None, "unreadable: not a regular file"
    return st, None


@dataclass
class Snapshot:
    root: Path
    files: dict[str, list[Any]] = field(default_factory=dict)        # relpath -> [size, mtime_ns, sha256]
    build_files: dict[str, list[Any]] = field(default_factory=dict)  # relpath -> [size, mtime_ns, sha256]
    source_roots: list[str] = field(default_factory=list)       # relpaths of every scanned source root
    classpath: dict[str, list[Any]] = field(default_factory=dict)    # path -> [size, mtime_ns]
    modules: dict[str, dict[str, Any]] = field(default_factory=dict)      # module id -> {release, encoding}
    indexer_version: str = ""
    # relpath -> [module id, scope, reason]: entries never read (see the module docstring)
    skipped: dict[str, list[Any]] = field(default_factory=dict)
    # relpath -> [module id, scope, size]: fingerprinted, not indexed (above max_file_bytes)
    oversized: dict[str, list[Any]] = field(default_factory=dict)
    # (module id, scope) -> {absolute path as handed to the indexer: relpath}; not persisted
    scope_files: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    # place where a root can appear (relpath; PARENT_MARK-suffixed for a parent) -> the roots there now
    places: dict[str, list[str]] = field(default_factory=dict)
    # relpath of a source file or build file -> its ctime (ns) when it was hashed
    ctimes: dict[str, int] = field(default_factory=dict)
    # relpath of a source file or build file -> its inode number when it was hashed (or reused)
    inodes: dict[str, int] = field(default_factory=dict)
    # time.time_ns() when `take` began, before any stat (0: unknown, a snapshot from before it was recorded)
    taken_ns: int = 0
    # read from a snapshot written before `places` and `ctimes` were recorded: changes() then cannot see
    # a new source root or an edit that kept size and mtime (a sync brings it up to date); not persisted
    legacy: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"files": self.files, "build_files": self.build_files, "source_roots": self.source_roots,
                "classpath": self.classpath, "modules": self.modules, "indexer_version": self.indexer_version,
                "skipped": self.skipped, "oversized": self.oversized, "places": self.places,
                "ctimes": self.ctimes, "inodes": self.inodes, "taken_ns": self.taken_ns,
                "fingerprint": self.fingerprint(), "inputs": self.inputs_fingerprint()}

    @classmethod
    def from_json(cls, root: Path, data: dict[str, Any]) -> "Snapshot":
        return cls(Path(root), dict(data.get("files", {})), stored_build_files(data),
                   list(data.get("source_roots", [])), dict(data.get("classpath", {})),
                   dict(data.get("modules", {})), data.get("indexer_version", ""),
                   dict(data.get("skipped") or {}), dict(data.get("oversized") or {}),
                   places={str(k): list(v) for k, v in (data.get("places") or {}).items()},
                   ctimes={str(k): v for k, v in (data.get("ctimes") or {}).items() if isinstance(v, int)},
                   inodes={str(k): v for k, v in (data.get("inodes") or {}).items() if isinstance(v, int)},
                   taken_ns=data["taken_ns"] if isinstance(data.get("taken_ns"), int) else 0,
                   legacy="places" not in data or "ctimes" not in data)

    def reusable(self, rel: str, st: os.stat_result, build_file: bool = False) -> str | None:
        """The recorded sha256 of `rel` (a source file; `build_file`: a build file) when `st` says its
        bytes cannot have changed since this snapshot hashed it: size, mtime, ctime and inode equal the
        record, and the record is not racy (see the module docstring); else None (hash it)."""
        entry = (self.build_files if build_file else self.files).get(rel)
        if entry is None or self.legacy or not self.taken_ns:
            return None
        ctime, inode = self.ctimes.get(rel), self.inodes.get(rel)
        if ctime is None or inode is None:
            return None
        size, mtime, digest = entry[0], entry[1], entry[-1]
        if (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) != (size, mtime, ctime, inode):
            return None
        if self.racy(mtime, ctime):
            return None
        return str(digest)

    def racy(self, mtime_ns: int, ctime_ns: int) -> bool:
        """Whether a record with these times may miss an edit made in the same tick as its stat."""
        return max(mtime_ns, ctime_ns) >= self.taken_ns - RACY_MARGIN_NS

    def any_racy(self) -> bool:
        """Whether a record of this snapshot is racy (its next `take` hashes that file again)."""
        ctimes = self.ctimes
        return any(self.racy(entry[1], ctimes.get(rel, 0))
                   for table in (self.files, self.build_files) for rel, entry in table.items())

    def inputs_fingerprint(self) -> str:
        """The fingerprint of the sources, build files, releases and indexer version (not the classpath).
        The build files' label stays `p` (from when they were POMs only): stored fingerprints stay equal."""
        h = hashlib.sha256()
        for name, table in (("f", self.files), ("p", self.build_files)):
            for key in sorted(table):
                h.update(f"{name}\0{key}\0{table[key][-1]}\n".encode())
        for key in sorted(self.modules):
            h.update(f"m\0{key}\0{sorted(self.modules[key].items())}\n".encode())
        for name, table in (("s", self.skipped), ("o", self.oversized)):   # nothing when empty
            for key in sorted(table):
                h.update(f"{name}\0{key}\0{table[key]}\n".encode())
        h.update(f"i\0{self.indexer_version}".encode())
        return h.hexdigest()

    def fingerprint(self) -> str:
        """The fingerprint of every input: `inputs_fingerprint()` plus the classpath entries."""
        h = hashlib.sha256(self.inputs_fingerprint().encode())
        for key in sorted(self.classpath):
            h.update(f"c\0{key}\0{self.classpath[key]}\n".encode())
        return h.hexdigest()


def stored_build_files(data: Mapping[str, Any]) -> dict[str, list[Any]]:
    """The build-file table of a stored snapshot (JSON), also from a store written before the build
    systems' seam, when the key named POMs (`LEGACY_BUILD_FILES_KEY`)."""
    table = data.get("build_files")
    if table is None:
        table = data.get(LEGACY_BUILD_FILES_KEY)
    return dict(table) if isinstance(table, Mapping) else {}


def take(workspace: Workspace, indexer_version: str = "", max_bytes: int | None = None,
         build_files: Iterable[Path] | None = None, previous: Snapshot | None = None) -> Snapshot:
    """Fingerprint the sources and build files of a workspace (hashes every file once, or with
    `previous`, the last published snapshot of this workspace, only the files whose stat differs from
    its record: see the module docstring; PYBRIDGE_SNAPSHOT_REUSE=0 hashes every file).

    `build_files`: the build system's inputs to fingerprint (`BuildSystem.inputs`); those outside the
    workspace or absent are left out. Default: every module's own build files (`Workspace.build_files`).

    Files that cannot be read or lie outside the workspace are skipped and
    recorded; files above `max_bytes` (default `max_file_bytes()`) are
    fingerprinted but left out of `scope_files` (see the module docstring).
    """
    root = workspace.root
    bound = max_file_bytes() if max_bytes is None else max_bytes
    snap = Snapshot(root, indexer_version=indexer_version, taken_ns=time.time_ns())
    prefix = os.path.join(str(root), "")
    if previous is not None and (previous.root != root or not reuse_enabled()):
        previous = None
    for m in workspace.modules:
        candidates = candidate_roots(m)
        for place in [*(_rel(root, p) for p in candidates.folders),
                      *(_rel(root, p) + PARENT_MARK for p in candidates.parents)]:
            if not os.path.isabs(place):        # a place outside the workspace is never looked at
                snap.places[place] = place_roots(root, place)
        snap.modules[m.id] = {"release": m.release, "encoding": m.encoding}
        for scope in m.scopes.values():
            listed = snap.scope_files.setdefault((m.id, scope.name), {})
            for src_root in scope.roots:
                if not _inside(root, src_root):
                    snap.skipped[_shown(_rel(root, src_root))] = [
                        m.id, scope.name, f"outside_workspace: the source folder resolves to "
                                          f"{os.path.realpath(src_root)}"]
                    continue
                snap.source_roots.append(_rel(root, src_root))
                top = str(src_root)
                plain = top.startswith(prefix) and os.path.normpath(top) == top and os.sep == "/"
                for path, linked in source_entries(top):
                    # the relpath by string (pathlib cost about a third of a no-edit snapshot on guava)
                    rel = path[len(prefix):] if plain else _rel(root, Path(path))
                    fst, reason = classify(root, path, walked_inside=not linked)
                    if fst is None:
                        snap.skipped[_shown(rel)] = [m.id, scope.name, reason]
                        continue
                    digest = previous.reusable(rel, fst) if previous is not None else None
                    if digest is None:
                        try:
                            digest = sha256_file(path)
                        except OSError as exc:     # vanished or unreadable between stat and read
                            snap.skipped[rel] = [m.id, scope.name, f"unreadable: {exc.strerror or exc}"]
                            continue
                    snap.files[rel] = [fst.st_size, fst.st_mtime_ns, digest]
                    snap.ctimes[rel] = fst.st_ctime_ns
                    snap.inodes[rel] = fst.st_ino
                    if bound and fst.st_size > bound:
                        snap.oversized[rel] = [m.id, scope.name, fst.st_size]
                    else:
                        listed[path] = rel
    for build_file in (workspace.build_files if build_files is None else build_files):
        rel = _rel(root, build_file)
        if os.path.isabs(rel) or rel in snap.build_files:
            continue
        try:
            st = build_file.stat()
            if not stat.S_ISREG(st.st_mode):
                continue
            digest = previous.reusable(rel, st, build_file=True) if previous is not None else None
            snap.build_files[rel] = [st.st_size, st.st_mtime_ns, digest or sha256_file(build_file)]
            snap.ctimes[rel] = st.st_ctime_ns
            snap.inodes[rel] = st.st_ino
        except OSError:
            continue        # absent: its appearance is the build system's watchers' (is_input) to see
    snap.source_roots = sorted(set(snap.source_roots))
    return snap


def place_roots(root: Path, place: str) -> list[str]:
    """The roots at a place (see `Snapshot.places`), as the real paths the workspace model gives them
    (workspace-relative; absolute when outside): the folder itself when it exists, or for a parent
    (`PARENT_MARK`) each folder in it, sorted."""
    prefix = os.path.join(str(root), "")
    if place.endswith(PARENT_MARK):
        parent = prefix + place[:-len(PARENT_MARK)]
        try:
            entries = sorted(e.path for e in os.scandir(parent) if e.is_dir())
        except OSError:
            return []
        return [_real_rel(root, prefix, path) for path in entries]
    folder = prefix + place
    return [_real_rel(root, prefix, folder)] if os.path.isdir(folder) else []


def _real_rel(root: Path, prefix: str, path: str) -> str:
    real = os.path.realpath(path)
    return real[len(prefix):] if real.startswith(prefix) and os.sep == "/" else _rel(root, Path(real))


def _content_changed(path: str, digest: object) -> bool:
    """Whether a file whose stat matches holds other bytes than the recorded sha256 (unreadable: yes)."""
    try:
        return sha256_file(Path(path)) != str(digest)
    except OSError:
        return True


def limitations(snap: Snapshot) -> list[dict[str, Any]]:
    """The named limitations of the files a sync skipped or did not index (sorted by path)."""
    out: list[dict[str, Any]] = []
    for rel, (module, scope, reason) in sorted(snap.skipped.items()):
        kind, _, detail = str(reason).partition(": ")
        if kind == "outside_workspace":
            out.append({"kind": "file_outside_workspace", "module": module, "scope": scope, "path": rel,
                        "message": f"{rel} was not read: {detail}, outside the workspace (pybridge never "
                                   f"reads outside a served workspace). Its references are not indexed."})
        else:
            out.append({"kind": "file_unreadable", "module": module, "scope": scope, "path": rel,
                        "message": f"{rel} was skipped: {detail}. Fix or remove it, then sync again; "
                                   f"its references are not indexed meanwhile."})
    for rel, (module, scope, size) in sorted(snap.oversized.items()):
        out.append({"kind": "file_too_large", "module": module, "scope": scope, "path": rel, "size": size,
                    "message": f"{rel} ({size:,} bytes) is larger than the {max_file_bytes():,}-byte bound "
                               f"({MAX_FILE_BYTES_ENV}); it was not indexed, so it has no facts and blocks "
                               f"coverage of {module} {scope}. Raise the bound (0: none) to index it."})
    return out


def _shown(rel: str) -> str:
    """A path as answers show it: bytes that are not UTF-8 as `\\xNN` escapes (valid JSON text)."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _unshown(rel: str) -> str:
    """The file name `_shown` escaped (`\\xNN` back to the byte)."""
    raw = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), rel.encode("utf-8"))
    return os.fsdecode(raw)


def oversized_facts(snap: Snapshot, module: str, scope: str) -> list[tuple[str, FileFacts]]:
    """(relpath, facts) of the oversized files of one module and scope: no facts, not
    binding-complete, one problem that says why (so diagnostics and coverage see them)."""
    out = []
    for rel, (m, s, size) in sorted(snap.oversized.items()):
        if (m, s) == (module, scope):
            message = (f"Not indexed: {size:,} bytes is above the {max_file_bytes():,}-byte bound "
                       f"({MAX_FILE_BYTES_ENV}).")
            # `failure` makes the file block every name (coverage), as a file the indexer failed on.
            out.append((rel, FileFacts(path=str(snap.root / rel), binding_complete=False, failure=message,
                                       problems=[Problem("other_error", "", message, Span(0, 0, 0, 0), False)])))
    return out


def add_classpath(snap: Snapshot, entries: Iterable[Path | str]) -> None:
    for entry in entries:
        p = Path(entry)
        try:
            st = p.stat()
            snap.classpath[str(p)] = [st.st_size, st.st_mtime_ns]
        except OSError:
            snap.classpath[str(p)] = [-1, -1]


def changes(snap: Snapshot, limit: int = 100) -> list[str]:
    """Workspace-relative paths that no longer match the snapshot (new, changed or deleted; a skipped
    file that became readable, or a readable one that no longer is; a place whose roots differ), by
    `stat`, and by content for a file whose size and mtime match but whose ctime does not (see the
    module docstring)."""
    return _changes(snap, limit, first=False)


def any_change(snap: Snapshot) -> bool:
    """Whether `changes(snap)` would name anything, stopping at the first change found: an edit of
    a file the snapshot holds is seen by its `stat`, before the walk of every source folder (the
    live index's catch-up asks this once per edit; on a 6,000-file module the walk is most of a
    sweep). PYBRIDGE_SWEEP_EARLY_EXIT=0: the whole sweep every time."""
    return bool(_changes(snap, 1, first=early_exit_enabled()))


SWEEP_EARLY_EXIT_ENV = "PYBRIDGE_SWEEP_EARLY_EXIT"


def early_exit_enabled() -> bool:
    return switches.enabled(SWEEP_EARLY_EXIT_ENV, "sweep every file and folder before each catch-up")


def _changes(snap: Snapshot, limit: int, first: bool) -> list[str]:
    root = snap.root
    # Plain strings, not Path objects: a live server runs this on every exact query, and pathlib's
    # parsing cost about 25 ms per call on guava's 627 files (now a few ms).
    prefix = os.path.join(str(root), "")
    changed: list[str] = []
    ctimes = snap.ctimes
    for table in (snap.files, snap.build_files):
        for rel, (size, mtime, *rest) in table.items():
            try:
                st = os.stat(prefix + rel)
            except OSError:
                changed.append(rel)
                continue
            if st.st_size != size or st.st_mtime_ns != mtime:
                changed.append(rel)
            elif rest and st.st_ctime_ns != ctimes.get(rel, st.st_ctime_ns) and \
                    _content_changed(prefix + rel, rest[-1]):
                changed.append(rel)         # an edit that kept size and mtime
            if first and changed:
                return changed
    for place, roots in snap.places.items():
        if place_roots(root, place) != roots:
            changed.append(place)           # a root appeared, vanished or now resolves elsewhere
    if first and changed:
        return changed
    for src in snap.source_roots:
        start = os.path.normpath(os.path.join(prefix, src))     # then every walked path is normalized
        for dirpath, _dirnames, filenames in os.walk(start):
            for name in filenames:
                if not name.endswith(".java"):
                    continue
                full = os.path.join(dirpath, name)
                rel = full[len(prefix):] if full.startswith(prefix) and os.sep == "/" else _rel(root, Path(full))
                if rel in snap.files:
                    continue
                path = Path(full)
                if _shown(rel) in snap.skipped:
                    if classify(root, path)[0] is None:    # still skipped
                        continue
                changed.append(rel)
    for rel in snap.skipped:    # a skipped entry that is gone
        if rel not in changed and not os.path.isabs(rel) and not os.path.lexists(root / _unshown(rel)):
            changed.append(rel)
    return sorted(set(changed))[:limit]
