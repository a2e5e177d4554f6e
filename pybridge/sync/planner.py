"""Which files a sync must index: the incremental planner (DESIGN section 5).

A sync indexes in rounds. The first round is what the inputs say changed:

- every file of a module and scope whose environment changed (its POM, the
  classpath entries Maven resolved and their stats, the sourcepath, the Java
  release or the encoding), or of every module when there is no usable
  previous generation (the first sync, `force`, another indexer version, a
  store written before the name index existed);
- the added and changed files (by content hash); the deleted files are
  dropped from the manifest.

After each round, `Propagation.after_round` compares the declaration
signatures (`summary`) of every file indexed or deleted in it with those of
its previous version. What changed decides the next round:

- files that mention a simple name that was declared or changed (the
  per-file name index: a new declaration can capture a name elsewhere, a
  more specific overload, a newly resolvable type), including, for an enum
  whose constants changed, the names of all its constants (a switch that is
  no longer exhaustive); for an added or deleted file, the package names
  that appeared or vanished;
- for a removed or changed declaration: the files whose stored references
  point into it (also a `super(...)` or an enum constant, whose token is not
  the constructor's name), the files whose stored relations point to it
  (an override), and the files with a problem naming it (an ambiguity it
  caused). A file that mentions a removed declaration's name without any of
  these did not bind to it, and removing a declaration it did not bind to
  cannot change its bindings: so a removal alone does not consult the name
  index (deleting a test class with an `equals` re-indexes its users, not
  every file that says `equals`);
- files declaring a subtype (transitively) of a type whose members changed
  (a new abstract method, an implicit `super()` that no longer binds, an
  override that appears or goes);
- files that mention an interface or annotation type one of whose members
  changed (`implements I` with a new abstract method, `@A` with a new
  element);
- none of the three rules above for a static or private method of an
  interface (not inherited, JLS 8.4.8, and no lambda's function type): only
  the files that name it or refer to its old version;
- every file that can see the changed one (its module and scope, and the
  modules and scopes whose sourcepath holds its source root) when a type's
  supertypes changed, when a method of an interface with at most two
  methods was added or changed (a lambda's target type need not be named in
  the file that holds the lambda), or when a `close` or `iterator` method changed
  (try-with-resources and for-each call them without naming them);
- after a static final field changed, the fields of the files re-indexed
  for it count as changed too (a constant computed from it).

A file whose own signatures change because of that (a field whose type
moved) feeds the next round the same way, until a round changes nothing
more.

A file's path is part of what it declares. JDT finds a type of the
sourcepath by its folder (`p.T` in `p/T.java` under a source root), so a
file whose folder does not match its `package` line (a mid-refactor `git mv`,
a project that ignores the convention: javac and Maven accept it) declares
its types only to the files compiled together with it, while a type looked
up by that folder's name loads it as a side effect, declaring its real types
to whatever the compiler resolves next. A full sync compiles each module and
scope whole; a round compiles only some of its files, and then what a file
resolves depends on which files are compiled with it. So a move is a
deletion at the old path and an addition at the new one (the names of both,
the references into the old one, the folder names that appeared or
vanished), and `Units` decides each round's compilation: a
module and scope compiles its misplaced files whenever it compiles anything
(their facts staged once, in the first round that compiles them), with the
files that declare a type one of them declares too (a copy left where a
file was moved from: which one gets "already defined" depends on both being
compiled); and one whose sourcepath holds another's misplaced file compiles
whole, as in a full sync, since which of its files load that file first
decides what the others resolve.

The result equals a from-scratch sync (tests/sync/test_incremental_diff.py
compares them fact by fact after hundreds of random edits).
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pybridge import switches
from pybridge.store import Reader
from pybridge.workspace import ClasspathResult

from .summary import DECLARING, KIND, MODIFIERS, NAME, SUPERS, Signature, Signatures, changed_entries

Job = tuple[str, str]   # (module id, scope)


def environment(cp: ClasspathResult, encoding: str, classpath_stats: dict[str, list[int]]) -> str:
    """The fingerprint of everything but the sources that one module and scope is indexed with."""
    payload: tuple[object, ...] = ([[str(p), classpath_stats.get(str(p))] for p in cp.classpath],
                                   [str(p) for p in cp.sourcepath], str(cp.release), encoding)
    if cp.api is not None:          # the release whose library it binds against (sync/release.py)
        payload += (cp.api,)
    return hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:24]


@dataclass
class FileEntry:
    rel: str
    module: str
    scope: str
    abs_path: str


@dataclass
class Plan:
    full: bool
    why: str                                   # why a full index, or '' for incremental
    first: set[str] = field(default_factory=set)       # relpaths to index in the first round
    deleted: set[str] = field(default_factory=set)     # relpaths of the previous generation now gone
    reusable: dict[str, int] = field(default_factory=dict)   # relpath -> previous file version id

    @property
    def unchanged(self) -> bool:
        return not self.full and not self.first and not self.deleted


def plan(files: dict[str, FileEntry], sha: dict[str, str], envs: dict[Job, str], build_changed: set[str],
         previous: Reader | None, previous_envs: dict[str, str] | None, *, force: bool, indexer_changed: bool,
         oversized: dict[str, str] | None = None, was_oversized: Iterable[str] = ()) -> Plan:
    """The first round. `files`: the files to be in the new generation; `sha`: their content
    hashes; `envs`: each job's environment fingerprint; `build_changed`: module ids whose build files changed;
    `oversized`: relpath -> content hash of the files too large to index (staged without facts:
    one that is new or changed counts as deleted, since whatever it declared is gone);
    `was_oversized`: the files the previous generation stored without facts (indexed now if they fit)."""
    oversized = oversized or {}
    was_oversized = set(was_oversized)
    why = ("no previous generation" if previous is None else "forced" if force
           else "new indexer version" if indexer_changed
           else "the previous generation has no per-file summaries" if previous_envs is None
           or previous.unsummarized_files() else "")
    if why:
        return Plan(True, why, first=set(files))
    assert previous is not None and previous_envs is not None
    old = previous.files_by_path()
    p = Plan(False, "")
    whole = {job for job, env in envs.items() if previous_envs.get(f"{job[0]} {job[1]}") != env
             or job[0] in build_changed}
    for rel, entry in files.items():
        before = old.get(rel)
        if (entry.module, entry.scope) in whole or before is None or before.content_sha256 != sha[rel] \
                or (before.module, before.scope) != (entry.module, entry.scope) or rel in was_oversized:
            p.first.add(rel)
        else:
            p.reusable[rel] = before.file_version_id
    p.deleted = {rel for rel in old if rel not in files and rel not in oversized}
    p.deleted |= {rel for rel, digest in oversized.items()
                  if rel not in old or old[rel].content_sha256 != digest}
    return p


class Propagation:
    """Decides each next round from what the last one changed (see the module doc)."""

    def __init__(self, previous: Reader, files: dict[str, FileEntry], visible: dict[Job, set[Job]]) -> None:
        self.r = previous
        self.files = files
        self.visible = visible       # job -> the jobs that can see its sources
        self.old_files = previous.files_by_path()
        self._old_sigs: dict[str, Signatures] = {}
        self._edges: list[tuple[str, str, str]] | None = None
        self._new_edges: dict[str, list[tuple[str, str, str]]] = {}   # relpath -> edges as re-indexed
        self.escalated: set[Job] = set()
        self._redone: set[str] = set()     # files re-indexed or deleted so far: their old edges are void
        self._constants: set[str] = set()  # names of the fields the last round changed

    def old_signatures(self, paths: Iterable[str]) -> dict[str, Signatures]:
        want = [p for p in paths if p not in self._old_sigs and p in self.old_files]
        if want:
            got = self.r.signatures(self.old_files[p].file_version_id for p in want)
            for p in want:
                self._old_sigs[p] = got.get(self.old_files[p].file_version_id, {})
        return {p: self._old_sigs.get(p, {}) for p in paths}

    def after_round(self, new_sigs: dict[str, Signatures], new_edges: list[tuple[str, str, str]],
                    deleted: Iterable[str], done: set[str]) -> set[str]:
        """The files the next round must index, given the signatures of the files just indexed
        (`new_sigs`, by relpath), their supertype edges, the files deleted, and every file
        indexed so far (`done`)."""
        deleted = set(deleted)
        self._redone |= set(new_sigs) | deleted
        for edge in new_edges:
            self._new_edges.setdefault(edge[0], []).append(edge)
        old_sigs = self.old_signatures([*new_sigs, *deleted])
        names: set[str] = set()
        members: dict[str, dict[str, Signature]] = {}   # member name declared or changed -> key -> signature
        owners: dict[str, Signature] = {}    # interfaces and annotations one of whose members changed
        gone_keys: set[str] = set()
        gone_names: set[str] = set()
        member_of: set[str] = set()      # types whose members or header changed
        # type -> the names of its changed fields, while every change to that type is a field's
        fields_of: dict[str, set[str] | None] = {}
        escalate: set[str] = set()       # relpaths whose viewers must all be re-indexed
        fields: set[str] = set()         # names of fields and enum constants that changed
        if self._constants:
            # A constant's value flows into constants of the files that use it (B = C + 1): their
            # fields count as changed too, though their text is not.
            users = self.r.paths_mentioning(self._constants) & set(new_sigs)
            for path in users:
                fields.update(e[NAME] for e in new_sigs[path].values() if _constant(e, new_sigs[path]))
            names |= fields
        for path in [*new_sigs, *deleted]:
            before, after = old_sigs.get(path, {}), new_sigs.get(path, {})
            both = {**before, **after}
            for key, a, b in changed_entries(before, after):
                entry = b or a
                assert entry is not None
                if b is not None:            # declared or changed: it may capture a name elsewhere
                    if b[KIND] in _TYPE_KINDS:
                        names.add(b[NAME])
                    else:
                        members.setdefault(b[NAME], {})[key] = b
                if a is not None:
                    gone_keys.add(key)       # removed or changed: its users, overriders, ambiguities
                    gone_names.add(a[NAME])
                owner = both.get(entry[DECLARING])
                if _interface_static_or_private(entry, owner, a, b):
                    # Not inherited (JLS 8.4.8), not part of a lambda's function type: no implementor,
                    # subtype or lambda can bind to it; its callers name it (the name and key rules).
                    continue
                member_of.add(entry[DECLARING] if entry[KIND] not in _TYPE_KINDS else key)
                if entry[KIND] == "FIELD":
                    known = fields_of.setdefault(entry[DECLARING], set())
                    if known is not None:
                        known.add(entry[NAME])
                else:
                    fields_of[entry[DECLARING] if entry[KIND] not in _TYPE_KINDS else key] = None
                if entry[KIND] in _TYPE_KINDS:
                    member_of.add(key)
                if a is not None and b is not None and a[SUPERS] != b[SUPERS]:
                    escalate.add(path)
                if entry[KIND] == "ENUM_CONSTANT":
                    for k, e in both.items():
                        if e[KIND] == "ENUM_CONSTANT" and e[DECLARING] == entry[DECLARING]:
                            members.setdefault(e[NAME], {})[k] = e
                if owner is not None and owner[KIND] in ("INTERFACE", "ANNOTATION"):
                    owners[entry[DECLARING]] = owner  # `@A` with a new element, `implements I` with a new method
                if entry[KIND] == "METHOD" and entry[NAME] in _IMPLICITLY_CALLED and self.may_be_called_implicitly(key):
                    escalate.add(path)
                if entry[KIND] == "METHOD" and b is not None and self.may_retarget_lambdas(a, b):
                    # A removed method reaches its lambdas through the stored references to the
                    # methods whose parameter types named its interface (their keys change too).
                    if owner is not None and owner[KIND] in ("INTERFACE", "ANNOTATION") and any(
                            sum(1 for e in sigs.values() if e[KIND] == "METHOD" and e[DECLARING] == entry[DECLARING])
                            <= 2 for sigs in (before, after)):
                        escalate.add(path)
                if _constant(entry, both):
                    fields.add(entry[NAME])
            if path in deleted or path not in self.old_files:
                names.update(self._package_names(path, deleted))
        self._constants = fields - {""}
        names.discard("")
        members.pop("", None)
        out = self.name_users(names, members, owners)
        if gone_keys:
            out |= self.r.paths_referencing(gone_keys) | self.r.paths_relating_to(gone_keys)
        gone_names.discard("")
        if gone_names:
            out |= self.r.paths_with_problems_named(gone_names)
        out |= self.subtype_users(member_of, {t: names for t, names in fields_of.items() if names})
        for path in escalate:
            out |= self._viewers(path)
        return {p for p in out if p in self.files and p not in done}

    def name_users(self, names: set[str], members: dict[str, dict[str, Signature]], owners: dict[str, Signature]
                   ) -> set[str]:
        """The files that may bind differently because of the names declared or changed: those
        that mention one of them (a type's name, a member's, or the name of an interface or
        annotation whose members changed). `members`: member name -> the keys declared or changed
        under it -> their (new) signatures; `owners`: those interfaces and
        annotations by key. A check narrows this
        (`pybridge.edits.plan`); a sync must equal a fresh one, and stays with names."""
        wanted = names | set(members) | {owner[NAME] for owner in owners.values()}
        wanted.discard("")
        return self.r.paths_mentioning(wanted) if wanted else set()

    def may_be_called_implicitly(self, key: str) -> bool:
        """Whether the method `key` named `close` or `iterator` may be the one try-with-resources or a
        for-each calls without naming it (then every file that can see it is re-indexed). A sync
        answers yes for each; a check may look at its parameters."""
        return True

    def subtype_users(self, types: set[str], fields: dict[str, set[str]]) -> set[str]:
        """The files that may bind differently because members of `types` changed: those declaring
        a subtype (`fields`: the types whose only changes are fields, by their names; a sync takes
        their subtypes' files all the same, a check may look closer)."""
        return self._subtype_files(types)

    def may_retarget_lambdas(self, before: Signature | None, after: Signature) -> bool:
        """Whether a method of an interface declared or changed as `after` (`before`: its old
        signature) may change which lambdas and method references target the interface. A sync
        answers yes for every method; a check may look closer."""
        return True

    def edges(self) -> list[tuple[str, str, str]]:
        """Every supertype edge (path, subtype key, supertype key): the stored ones of the files
        not re-indexed since, and those of the files re-indexed so far."""
        if self._edges is None:
            self._edges = self.r.supertype_edges()
        edges = [e for e in self._edges if e[0] not in self._new_edges and e[0] not in self._redone]
        edges += [e for per_file in self._new_edges.values() for e in per_file]
        return edges

    def _subtype_files(self, types: set[str]) -> set[str]:
        """The files declaring a subtype, direct or not, of one of `types`."""
        if not types:
            return set()
        if self._edges is None and subtype_walk_enabled():
            return self._walk_subtypes(types)
        edges = self.edges()
        subs_of: dict[str, list[tuple[str, str]]] = {}
        for path, sub, sup in edges:
            subs_of.setdefault(sup, []).append((path, sub))
        seen, todo, paths = set(types), list(types), set()
        while todo:
            for path, sub in subs_of.get(todo.pop(), []):
                paths.add(path)
                if sub not in seen:
                    seen.add(sub)
                    todo.append(sub)
        return paths

    def _walk_subtypes(self, types: set[str]) -> set[str]:
        """`_subtype_files` level by level from `types`, asking the store for the stored edges to
        each level's types (`Reader.subtype_edges`, by index) instead of reading every edge of the
        generation: an edit's few types have few subtypes, a 6,000-file module many edges."""
        seen, level, paths = set(types), set(types), set()
        while level:
            stored = [e for e in self.r.subtype_edges(level)
                      if e[0] not in self._new_edges and e[0] not in self._redone]
            fresh = [e for per_file in self._new_edges.values() for e in per_file if e[2] in level]
            level = set()
            for path, sub, _sup in stored + fresh:
                paths.add(path)
                if sub not in seen:
                    seen.add(sub)
                    level.add(sub)
        return paths

    def _viewers(self, path: str) -> set[str]:
        entry = self.files.get(path)
        old = self.old_files.get(path)
        jobs: set[Job] = set()
        for job in ([(entry.module, entry.scope)] if entry else []) + ([(old.module, old.scope)] if old else []):
            jobs |= {job} | self.visible.get(job, set())
        self.escalated |= jobs
        return {rel for rel, f in self.files.items() if (f.module, f.scope) in jobs}

    def _package_names(self, path: str, deleted: set[str]) -> set[str]:
        """Segments of the file's folder that no other file of the workspace lives under:
        packages that appeared or vanished with it (an `import p.*` elsewhere changes)."""
        parent = PurePosixPath(path).parent
        others = [PurePosixPath(p).parent for p in {*self.files, *self.old_files}
                  if p != path and p not in deleted]
        out: set[str] = set()
        folder = parent
        while folder.name and not any(o == folder or folder in o.parents for o in others):
            out.add(folder.name)
            folder = folder.parent
        return out


_TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"})
_STATIC_FINAL = 0x8 | 0x10   # JDT Modifier.STATIC | Modifier.FINAL
# Methods that code calls without naming them: try-with-resources, for-each.
_IMPLICITLY_CALLED = frozenset({"close", "iterator"})


_STATIC_OR_PRIVATE = 0x8 | 0x2   # JDT Modifier.STATIC | Modifier.PRIVATE
SUBTYPE_WALK_ENV = "PYBRIDGE_PLAN_SUBTYPE_WALK"


def subtype_walk_enabled() -> bool:
    """Whether propagation finds the subtypes of changed types by walking the stored relations to
    them (on by default), instead of reading every supertype edge of the generation."""
    return switches.enabled(SUBTYPE_WALK_ENV, "read every supertype edge of the previous generation "
                                              "to find the subtypes of the changed types")


INTERFACE_STATICS_ENV = "PYBRIDGE_PLAN_INTERFACE_STATICS"


def _interface_static_or_private(entry: Signature, owner: Signature | None, a: Signature | None,
                                 b: Signature | None) -> bool:
    """Whether a changed entry is a static or private method of an interface, before and after (the
    planner then skips the implementors, subtypes and mentions of the interface for it; on
    hibernate-core a static method added to `Session` re-indexed 213 files).
    PYBRIDGE_PLAN_INTERFACE_STATICS=0 treats it as any other member."""
    if entry[KIND] != "METHOD" or owner is None or owner[KIND] != "INTERFACE":
        return False
    if os.environ.get(INTERFACE_STATICS_ENV, "").strip() == "0":
        return False
    return all(e is None or (len(e) > MODIFIERS and e[MODIFIERS] & _STATIC_OR_PRIVATE) for e in (a, b))


def _constant(entry: Signature, sigs: Signatures) -> bool:
    """Whether a declaration may be a compile-time constant (a static final field, or any field
    of an interface or annotation, static and final implicitly)."""
    if entry[KIND] != "FIELD":
        return False
    owner = sigs.get(entry[DECLARING])
    modifiers = entry[MODIFIERS] if len(entry) > MODIFIERS else _STATIC_FINAL
    return (modifiers & _STATIC_FINAL) == _STATIC_FINAL or \
        (owner is not None and owner[KIND] in ("INTERFACE", "ANNOTATION"))


class Units:
    """Which files each round compiles (see the module doc): the files to index and stage,
    and the files compiled along only, whose facts an earlier round staged."""

    def __init__(self, files: dict[str, FileEntry], roots: dict[Job, list[Path]], visible: dict[Job, set[Job]],
                 encodings: dict[Job, str], digests: Mapping[str, str] | None = None) -> None:
        self.files = files
        self.by_job: dict[Job, set[str]] = {}
        for rel, entry in files.items():
            self.by_job.setdefault((entry.module, entry.scope), set()).add(rel)
        self.placement = placement(files, roots, encodings, digests)
        self.whole = {viewer for job, paths in self.placement.misplaced.items() if paths
                      for viewer in visible.get(job, ())}

    def round(self, batch: set[str], done: set[str]) -> tuple[set[str], set[str]]:
        """(files to index and stage, files to compile along), given the files the planner chose
        and every file indexed in earlier rounds."""
        compiled = set(batch)
        for job in {(self.files[rel].module, self.files[rel].scope) for rel in batch}:
            compiled |= self.by_job.get(job, set()) if job in self.whole else self.placement.along.get(job, set())
        return compiled - done, compiled & done - batch


@dataclass
class Placement:
    """Files whose types the sourcepath cannot stand for, per module and scope."""

    # Their folder under their source root is not the package they declare (or their beginning
    # does not say which package).
    misplaced: dict[Job, set[str]] = field(default_factory=dict)
    # Those, and the files that declare a type another file of the job declares too (a copy left
    # where a moved file was, one path in two source roots): which of them declares it first
    # decides which one the other's "already defined" error goes to, as in a full sync.
    along: dict[Job, set[str]] = field(default_factory=dict)


PLACEMENT_CACHE_ENV = "PYBRIDGE_PLACEMENT_CACHE"
# What placement read from a file's bytes, by (sha256 of the content, codec): the package its beginning
# declares (None: it cannot tell) and, once read whole (a misplaced file), the type names it may declare.
# Content-addressed, so never stale; kept by the process (the live index's warm `serve`), bounded.
_PACKAGES: dict[tuple[str, str], str | None] = {}
_NAMES: dict[tuple[str, str], frozenset[str]] = {}
PLACEMENT_CACHE_MAX = 200_000


def placement_cache_enabled() -> bool:
    """Whether placement may take a file's package from what it read of the same content before
    (PYBRIDGE_PLACEMENT_CACHE, default 1)."""
    return switches.enabled(PLACEMENT_CACHE_ENV, "read every file's package on each incremental sync")


def forget_placements() -> None:
    """Empty the placement cache (tests; a process that wants its memory back)."""
    _PACKAGES.clear()
    _NAMES.clear()
    with _PATCHED_LOCK:
        _PATCHED.clear()


def _remember(cache: dict[tuple[str, str], Any], key: tuple[str, str], value: object) -> None:
    if len(cache) >= PLACEMENT_CACHE_MAX:
        cache.clear()           # rare (a process that saw 200,000 file versions): start again
    cache[key] = value


def placement(files: dict[str, FileEntry], roots: dict[Job, list[Path]], encodings: dict[Job, str],
              digests: Mapping[str, str] | None = None) -> Placement:
    """Reads the first few KB of every file (12-18 ms for guava's 627 files here), all of a
    misplaced one (the names of the types it may declare). With `digests` (relpath -> the sha256
    the sync's snapshot recorded), a content read before in this process is not read again
    (`_PACKAGES`; PYBRIDGE_PLACEMENT_CACHE=0 reads every file): an edit's sync reads the edited
    files, not the module. A file whose bytes changed since the snapshot fails the sync as stale
    when it is staged or at the end-of-run check, so the snapshot's digest names what is indexed.

    With digests, the placement is patched from the one this process made last for the same
    source roots and encodings (`_Patched`; PYBRIDGE_PLACEMENT_PATCH=0 builds it over every file):
    only the files whose path, module, scope or digest changed are looked at again (on a 6,000-file
    module the loop over every file was about 0.05 s of each catch-up)."""
    if not placement_cache_enabled():
        digests = None
    prefixes = {job: [os.path.join(str(root), "") for root in job_roots] for job, job_roots in roots.items()}
    codecs_of = {job: _codec(encoding) for job, encoding in encodings.items()}
    if digests is not None and placement_patch_enabled():
        key = (tuple(sorted((job, tuple(p)) for job, p in prefixes.items())), tuple(sorted(codecs_of.items())))
        with _PATCHED_LOCK:
            state = _PATCHED.pop(key, None) or _Patched()
            _PATCHED[key] = state           # the most recently used last
            while len(_PATCHED) > PATCHED_KEPT:
                _PATCHED.pop(next(iter(_PATCHED)))
            return state.update(files, prefixes, codecs_of, digests)
    return _Patched().update(files, prefixes, codecs_of, digests or {})   # built over every file


def _place(entry: FileEntry, prefixes: Iterable[str], codec: str,
           digest: str | None) -> tuple[bool, tuple[str, ...], bool]:
    """One file's part of the placement: (misplaced, the "p/q/Name" types it may declare, whether
    that can be kept for its digest: False when the file could not be read)."""
    folder = os.path.dirname(entry.abs_path) + "/"
    folders = {folder[len(prefix):] for prefix in prefixes if folder.startswith(prefix)}
    key = (digest or "", codec)
    cacheable = True
    if digest is not None and key in _PACKAGES:
        package = _PACKAGES[key]
    else:
        try:
            package = _package_of(entry.abs_path, codec)
            if digest is not None:
                _remember(_PACKAGES, key, package)
        except OSError:
            package, cacheable = None, False    # gone or unreadable: the sync finds it stale or skips it
    if package is None:
        return True, (), cacheable
    folder = package.replace(".", "/") + "/" if package else ""
    names = {os.path.basename(entry.abs_path).removesuffix(".java")}
    misplaced = folder not in folders
    if misplaced:
        found = _NAMES.get(key) if digest is not None else None
        if found is None:
            try:
                found = frozenset(_TYPE_NAME.findall(
                    Path(entry.abs_path).read_bytes().decode(codec, errors="replace")))
                if digest is not None:
                    _remember(_NAMES, key, found)
            except OSError:
                found, cacheable = frozenset(), False
        names |= found
    return misplaced, tuple(sorted(folder + name for name in names)), cacheable


PLACEMENT_PATCH_ENV = "PYBRIDGE_PLACEMENT_PATCH"
PATCHED_KEPT = 8        # placements kept per process (one per served workspace's roots and encodings)


def placement_patch_enabled() -> bool:
    """Whether a placement is patched from the last one of the same roots and encodings
    (PYBRIDGE_PLACEMENT_PATCH, default 1)."""
    return switches.enabled(PLACEMENT_PATCH_ENV, "build each incremental sync's placement over every file")


class _Patched:
    """The last placement made for one set of source roots and encodings, with each file's part
    (`_place`), so that the next is patched where files differ. A part depends only on the file's
    path, its module and scope (their roots and codec are the key) and its digest (the content it
    read, content-addressed): while those are the same, so is the part."""

    def __init__(self) -> None:
        self.inputs: dict[str, tuple[str, str, str, str | None]] = {}   # rel -> (module, scope, path, digest)
        self.parts: dict[str, tuple[bool, tuple[str, ...]]] = {}
        self.misplaced: dict[Job, set[str]] = {}
        self.declared: dict[Job, dict[str, set[str]]] = {}
        self.twice: dict[Job, set[str]] = {}          # names that more than one file declares

    def update(self, files: dict[str, FileEntry], prefixes: dict[Job, list[str]], codecs_of: dict[Job, str],
               digests: Mapping[str, str]) -> Placement:
        for rel in [rel for rel in self.inputs if rel not in files]:
            self._drop(rel)
        for rel, entry in files.items():
            now = (entry.module, entry.scope, entry.abs_path, digests.get(rel))
            was = self.inputs.get(rel)
            if was == now and now[3] is not None:
                continue
            if was is not None:
                self._drop(rel)
            job = (entry.module, entry.scope)
            misplaced, names, cacheable = _place(entry, prefixes.get(job, ()), codecs_of.get(job, "utf-8"), now[3])
            self._add(rel, job, misplaced, names)
            # a part read without its digest, or from a file that could not be read, is made again next time
            self.inputs[rel] = now if cacheable else (*now[:3], None)
        out = Placement({job: set(paths) for job, paths in self.misplaced.items() if paths})
        for job, paths in out.misplaced.items():
            out.along[job] = set(paths)
        for job, twice in self.twice.items():
            for name in twice:
                out.along.setdefault(job, set()).update(self.declared[job][name])
        return out

    def _add(self, rel: str, job: Job, misplaced: bool, names: tuple[str, ...]) -> None:
        self.parts[rel] = (misplaced, names)
        if misplaced:
            self.misplaced.setdefault(job, set()).add(rel)
        by_name = self.declared.setdefault(job, {})
        for name in names:
            declarers = by_name.setdefault(name, set())
            declarers.add(rel)
            if len(declarers) == 2:
                self.twice.setdefault(job, set()).add(name)

    def _drop(self, rel: str) -> None:
        module, scope, _path, _digest = self.inputs.pop(rel)
        misplaced, names = self.parts.pop(rel)
        job = (module, scope)
        if misplaced:
            self.misplaced[job].discard(rel)
        by_name = self.declared[job]
        for name in names:
            declarers = by_name[name]
            declarers.discard(rel)
            if len(declarers) == 1:
                self.twice[job].discard(name)
            elif not declarers:
                del by_name[name]


_PATCHED: dict[tuple[Any, ...], _Patched] = {}
_PATCHED_LOCK = threading.Lock()


# Anything that may name a declared type (comments included: a superset).
_TYPE_NAME = re.compile(r"\b(?:class|interface|enum|record)\s+([\w$]+)")
# Comments, annotations (one level of nested parentheses in their arguments), then the package.
# Possessive: nothing backtracks into a comment.
_PREAMBLE = (r"(?:\s++|//[^\n]*+|/\*[^*]*+\*++(?:[^/*][^*]*+\*++)*+/"
             r"|@\s*+[\w$.]++(?:\s*+\((?:[^()]|\([^()]*+\))*+\))?+)*+")
_PACKAGE = re.compile(_PREAMBLE + r"package\s+([\w$]+(?:\s*\.\s*[\w$]+)*)\s*;")
_NO_PACKAGE = re.compile(_PREAMBLE + r"(?!package\b)[\w$]")   # `import`, `public`, `class` …
_SPACE = re.compile(r"\s+")
_HEAD = 4096


def _package_of(path: str, codec: str) -> str | None:
    """The package a Java source declares ('' for none); None when its beginning is neither a
    package declaration nor anything else (a broken or cut `package` line, a comment left open)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.read(fd, _HEAD)
        package = declared_package(data.decode(codec, errors="replace"))
        while package is None and len(data) % _HEAD == 0 and data:    # a longer header (rare): read on
            more = os.read(fd, 1 << 20)
            if not more:
                break
            data += more
            package = declared_package(data.decode(codec, errors="replace"))
    finally:
        os.close(fd)
    return package


def declared_package(text: str) -> str | None:
    """The package a Java source text declares ('' for the default package), None when unsure."""
    text = text.lstrip("\ufeff")
    m = _PACKAGE.match(text)
    if m:
        return _SPACE.sub("", m.group(1))
    return "" if _NO_PACKAGE.match(text) else None


def _codec(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return "utf-8"


def visibility(jobs: dict[Job, ClasspathResult], roots: dict[Job, list[Path]]) -> dict[Job, set[Job]]:
    """job -> the jobs whose sourcepath holds one of its source roots (who can see its code)."""
    out: dict[Job, set[Job]] = {job: set() for job in roots}
    for viewer, cp in jobs.items():
        path = {str(p) for p in cp.sourcepath}
        for job, job_roots in roots.items():
            if job != viewer and any(str(r) in path for r in job_roots):
                out[job].add(viewer)
    return out
