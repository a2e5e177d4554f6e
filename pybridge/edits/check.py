"""`check_edit`: compile a proposed change in memory and diff its facts against the current generation.

Binding preservation (DESIGN section 10): before the edit every reference is bound to a
declaration (the generation's facts); the check compiles the changed files, and every file the
incremental planner says could bind differently (`pybridge.sync.planner`: `Units`, then
`Propagation.after_round` until a round changes no signature), on the worker, against an
`Overlay` of the source roots; then it compares the new facts of those files with their stored
ones. The classpaths, sourcepaths, releases and encodings are the ones the generation recorded
(no build tool runs). Nothing is written to the workspace; nothing is staged or published.

Matching through the edit (`TextMap`): in a changed file, a reference, declaration or problem
of the old text is compared with the one at the same text in the new file; what lies in edited
text is not a rebind (the agent wrote it). A declaration found at its old name's place under
another key (a parameter type changed) is the same declaration: references that followed it are
not rebound, and it is listed as `changed`.
"""

from __future__ import annotations

import codecs
import hashlib
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from pybridge import switches
from pybridge.errors import PybridgeError
from pybridge.facts import DECL_GENERATED, DECL_KINDS, Declaration, FileFacts, Span
from pybridge.store import Reader
from pybridge.store.codec import canonicalize
from pybridge.store.rows import DeclRow, FileInfo, FileRows
from pybridge.sync.meta import GenerationMeta, ScopeMeta
from pybridge.sync.planner import FileEntry, Job, Units
from pybridge.sync.summary import Signatures
from pybridge.sync.summary import signatures as declaration_signatures
from pybridge.worker import IndexRequest, IndexTask, Worker

from .model import (
    STALE_BASE,
    Checked,
    DeclarationChange,
    DeclarationsDiff,
    Diagnostic,
    DiagnosticsDiff,
    EditCheck,
    FileChange,
    Range,
    Rebound,
    RelationChange,
    RelationsDiff,
    SymbolRef,
    verdict_of,
)
from .overlay import Overlay
from .plan import plan_kind, propagation_class
from .textmap import TextMap

NAMED_KINDS = frozenset(DECL_KINDS[:10])     # CLASS … RECORD_COMPONENT: what `declarations` lists
TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "RECORD", "ANNOTATION"})
RELATION_KINDS = ("overrides", "implements", "extends")


class StaleBaseError(PybridgeError):
    """A file's bytes on disk are not the ones the agent read (`base`): nothing was compiled."""

    code = STALE_BASE

    def __init__(self, changed: list[str]) -> None:
        shown = ", ".join(changed[:10]) + (" …" if len(changed) > 10 else "")
        super().__init__(f"These files changed on disk since you read them ({shown}): nothing was checked. "
                         "Read them again and redo the change against their current text.", changed=changed)
        self.changed = changed


class WorkspaceMovedError(PybridgeError):
    """Files the check compiled as they are changed on disk meanwhile (they no longer match the generation)."""

    code = "stale_snapshot"

    def __init__(self, changed: list[str]) -> None:
        shown = ", ".join(changed[:10]) + (" …" if len(changed) > 10 else "")
        super().__init__(f"Files changed on disk while the check ran ({shown}); its answer would mix two "
                         "versions. Repeat the check once the edits are done.", changed=changed)
        self.changed = changed


class EditError(PybridgeError):
    """A change that cannot be checked (a path outside the source roots, not a Java file, …)."""


@dataclass
class Phases:
    """Where one check's time goes, phase by phase (`bench/check_edit.py --phases`): wall time
    (`time.perf_counter`) and this process's CPU time (`time.process_time`, every thread: the pipe
    reader's too) of each phase, exclusive of the phases nested in it; `jvm_ms`, the worker's own
    time in the JVM (what its answers report: parse, resolve and fact extraction); `counts`, the work
    done (files compiled, stored facts read, links made, ...), which tests assert on."""

    wall: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    jvm_ms: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    _stack: list[list[float]] = field(default_factory=list, repr=False)

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        frame = [0.0, 0.0]                # wall and CPU of the phases nested in this one
        self._stack.append(frame)
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            self._stack.pop()
            self.wall[name] = self.wall.get(name, 0.0) + wall - frame[0]
            self.cpu[name] = self.cpu.get(name, 0.0) + cpu - frame[1]
            if self._stack:
                self._stack[-1][0] += wall
                self._stack[-1][1] += cpu


@dataclass
class EditSession:
    """What a check needs: the workspace root, a reader pinned to the generation compared against
    (its facts and its recorded classpaths), a worker (started or not; the live index's warm one
    under `serve`), and how answers name symbols: `symbol_key(symbol id, binding key)` makes a
    symbolKey, `scip(descriptor, module)` a full SCIP symbol (`pybridge.query.view.View` has both)."""

    root: Path
    reader: Reader
    worker: Worker
    symbol_key: Callable[[int, str], str]
    scip: Callable[[str | None, str | None], str | None]
    # Which files after the first round: 'narrow' (what a check can see change, `plan`) or 'broad'
    # (the sync planner's); None: PYBRIDGE_CHECK_PLAN, else narrow.
    plan: str | None = None
    phases: Phases = field(default_factory=Phases)     # the last checks' times and counts, added up


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return None


def relpath(root: Path, path: str, field_name: str = "path") -> str:
    """A workspace-relative posix path from a relative or absolute one inside `root`."""
    if not path or "\0" in path:
        raise EditError(f"{field_name} {path!r} is not a path; give one relative to the workspace root.",
                        field=field_name)
    try:
        p = Path(path)
        full = (p if p.is_absolute() else root / p).resolve()
    except (OSError, ValueError):        # a name the file system cannot hold (a lone surrogate, …)
        raise EditError(f"{field_name} {path!r} is not a usable path; give one relative to the workspace root.",
                        field=field_name) from None
    if not full.is_relative_to(root):
        raise EditError(f"{path!r} is outside the workspace {root}; give a path inside it.", field=field_name)
    return full.relative_to(root).as_posix()


def verify_base(root: Path, base: dict[str, str] | None) -> None:
    """Raise `StaleBaseError` naming every path of `base` whose SHA-256 on disk differs (a missing
    file differs from any digest)."""
    if not base:
        return
    stale = sorted(rel for path, digest in base.items()
                   if sha256_of(root / (rel := relpath(root, path, "base"))) != digest.strip().lower())
    if stale:
        raise StaleBaseError(stale)


def _codec(encoding: str | None) -> str:
    try:
        return codecs.lookup(encoding or "utf-8").name
    except LookupError:
        return "utf-8"


@dataclass
class Environment:
    """The generation's compilation environment (what the last sync recorded)."""

    root: Path
    scopes: dict[Job, ScopeMeta]
    files: dict[str, FileEntry]                  # relpath -> where it is compiled (after the change)
    roots: dict[Job, list[Path]]
    visible: dict[Job, set[Job]]
    encodings: dict[Job, str]
    stored: dict[str, FileInfo] = field(default_factory=dict)    # the generation's files by relpath

    def sourcepath(self, job: Job) -> list[Path]:
        return [p if p.is_absolute() else self.root / p for p in map(Path, self.scopes[job].sourcepath)]


ENV_CACHE_ENV = "PYBRIDGE_CHECK_ENV_CACHE"
# The environment of a reader's generation before any change, by reader (a generation never changes;
# the live index keeps one reader per published generation): the first check reads it, the next
# ones copy its file table and apply their own changes.
_BASES: weakref.WeakKeyDictionary[Reader, tuple[Path, Environment]] = weakref.WeakKeyDictionary()
_BASES_LOCK = threading.Lock()


def env_cache_enabled() -> bool:
    return switches.enabled(ENV_CACHE_ENV, "read the generation's files, source roots and scopes on each check")


def environment(root: Path, reader: Reader, changes: dict[str, str | None]) -> Environment:
    """The generation's compilation environment with `changes` applied (relpath -> new text, None:
    deleted): a deleted file leaves `files`, a new one joins the module and scope of its source root."""
    base = None
    if env_cache_enabled():
        with _BASES_LOCK:
            cached = _BASES.get(reader)
        if cached is not None and cached[0] == root:
            base = cached[1]
    if base is None:
        base = _environment(root, reader)
        if env_cache_enabled():
            with _BASES_LOCK:
                _BASES[reader] = (root, base)
    files = dict(base.files)
    roots = base.roots
    for rel, text in sorted(changes.items()):
        if text is None:
            if rel not in files:
                raise EditError(f"{rel} cannot be deleted: the generation does not hold it (sync first if it is "
                                "new).", field="changes")
            del files[rel]
        elif rel not in files:
            job = _job_of(root / rel, roots)
            if job is None:
                raise EditError(f"{rel} is under none of the workspace's indexed source roots; add Java files "
                                "under one (status lists the modules and scopes).", field="changes")
            files[rel] = FileEntry(rel, job[0], job[1], str(root / rel))
    return Environment(root, base.scopes, files, roots, base.visible, base.encodings, base.stored)


def _environment(root: Path, reader: Reader) -> Environment:
    """The generation's environment before any change (read-only once made: it may be cached)."""
    gen = reader.generation
    meta = GenerationMeta.of(gen)
    scopes = {(s.module, s.scope): s for s in meta.scopes}
    stored = dict(reader.files_by_path())
    source_roots = [root / r for r in gen.snapshot.get("source_roots", [])]
    files: dict[str, FileEntry] = {}
    roots: dict[Job, list[Path]] = {}
    for f in stored.values():
        if (f.module, f.scope) not in scopes:
            continue
        files[f.path] = FileEntry(f.path, f.module, f.scope, str(root / f.path))
        mine = _longest(root / f.path, source_roots)
        if mine is not None and mine not in roots.setdefault((f.module, f.scope), []):
            roots[(f.module, f.scope)].append(mine)
    visible: dict[Job, set[Job]] = {job: set() for job in roots}
    for viewer, scope in scopes.items():
        path = {str(p if Path(p).is_absolute() else root / p) for p in scope.sourcepath}
        for job, job_roots in roots.items():
            if job != viewer and any(str(r) in path for r in job_roots):
                visible[job].add(viewer)
    encodings = {job: meta.encoding(job[0]) for job in scopes}
    return Environment(root, scopes, files, roots, visible, encodings, stored)


def _longest(path: Path, roots: Iterable[Path]) -> Path | None:
    best = None
    for r in roots:
        if path.is_relative_to(r) and (best is None or len(r.parts) > len(best.parts)):
            best = r
    return best


def _job_of(path: Path, roots: dict[Job, list[Path]]) -> Job | None:
    best: tuple[int, Job] | None = None
    for job, job_roots in roots.items():
        for r in job_roots:
            if path.is_relative_to(r) and (best is None or len(r.parts) > best[0]):
                best = (len(r.parts), job)
    return best[1] if best else None


@dataclass
class Compiled:
    facts: dict[str, FileFacts] = field(default_factory=dict)    # relpath -> its new facts
    texts: dict[str, str] = field(default_factory=dict)          # relpath -> the text compiled
    # Files compiled only because they could bind differently whose new facts digest to their
    # stored version's: the same rows (their text is not read; their summary is the stored one).
    same: set[str] = field(default_factory=set)
    digests: dict[str, bytes] | None = None        # the generation's version digests, once needed
    # The changed files' signatures digest the generation's SCIP symbol of each declaration that kept
    # its key (PYBRIDGE_CHECK_STABLE_SCIP, narrow plan only): see `stable_scip_enabled`.
    stable_scip: bool = False
    # PYBRIDGE_CHECK_SKIP_GAINED (see `skip_gained_enabled`): binding key -> the generation's SCIP symbol
    # of each declaration of a changed file that kept its key but whose SCIP symbol moved (an overload
    # index), and the keys the changed files declare that their stored versions did not.
    moved_scip: dict[str, str] = field(default_factory=dict)
    new_keys: set[str] = field(default_factory=set)
    rounds: int = 0
    compiled: int = 0


STABLE_SCIP_ENV = "PYBRIDGE_CHECK_STABLE_SCIP"


def stable_scip_enabled() -> bool:
    """Whether the narrow plan digests a changed file's declarations with their stored SCIP symbols
    (PYBRIDGE_CHECK_STABLE_SCIP, default 1). An overload added or removed moves the overload index
    in the SCIP symbol of every other overload of its name declared after it (`m(+1)` becomes
    `m(+2)`): the sync planner must count them changed (the files that refer to them store the new
    symbol), so it re-indexed every caller of every overload of the name. Nothing a check answers
    holds a new SCIP symbol of a declaration the generation has: bindings are compared by binding
    key, and names come from the generation (`Names`); a declaration that kept its key and differs
    only in that symbol changes no binding, diagnostic, relation or declaration elsewhere. The
    added or removed overload itself still counts (its key is new or gone)."""
    return switches.enabled(STABLE_SCIP_ENV, "count a declaration whose SCIP overload index moved as changed "
                                             "(every caller of every overload of an added one is compiled)")


SKIP_GAINED_ENV = "PYBRIDGE_CHECK_SKIP_GAINED"


def skip_gained_enabled() -> bool:
    """Whether a file compiled only because it could bind differently counts as `same` (not diffed,
    its stored facts not read) when its new facts equal its stored ones but for references to the
    declarations the change added (an import `import static p.C.m` also names an added `m`) and the
    target SCIP symbols of references to declarations whose overload index moved
    (PYBRIDGE_CHECK_SKIP_GAINED, default 1). Exact: the diff compares each stored reference's targets
    with the new targets at its place and reports only targets lost; a reference gained next to
    unchanged ones, or at a new place, is no rebind; and bindings are compared by key, not by SCIP
    symbol. So such a file's diff is empty, as a `same` file's."""
    return switches.enabled(SKIP_GAINED_ENV, "diff every file whose facts differ from its stored ones in anything "
                                             "(a static import of an overloaded name, a moved overload index)")


def compile_overlay(session: EditSession, env: Environment, changes: dict[str, str | None]) -> Compiled:
    """The changed files and all they can affect, compiled in the planner's rounds on the overlay
    (`session.plan` says which planner: `pybridge.edits.plan`). `env`: `environment(...)` of the
    same changes; `changes`: relpath -> new text, None to delete."""
    root = env.root
    phase = session.phases
    out = Compiled()
    absolute = {root / rel: text for rel, text in changes.items()}
    all_roots = [r for rs in env.roots.values() for r in rs]
    root_encodings = {r: _codec(env.encodings.get(job)) for job, rs in env.roots.items() for r in rs}
    overlay = Overlay(absolute, all_roots, root_encodings)
    with phase("overlay"):
        overlay.__enter__()
    try:
        with phase("overlay"):
            files = {rel: FileEntry(rel, e.module, e.scope, overlay.shadow(e.abs_path)) for rel, e in env.files.items()}
            back = {e.abs_path: rel for rel, e in files.items()}
            shadow_roots = {job: [overlay.path(r) for r in rs] for job, rs in env.roots.items()}
        with phase("plan"):
            kind = plan_kind(session.plan)
            propagation = propagation_class(kind)(session.reader, files, env.visible)
            out.stable_scip = kind == "narrow" and stable_scip_enabled()
            # What placement read of a file's content before is taken again (the stored digest of
            # each unchanged file; PYBRIDGE_PLACEMENT_CACHE): the changed files are read.
            units = Units(files, shadow_roots, env.visible, env.encodings,
                          {rel: info.content_sha256 for rel, info in env.stored.items()
                           if rel in files and rel not in changes})
        done: set[str] = set()
        batch = {rel for rel, text in changes.items() if text is not None}
        deleted = {rel for rel, text in changes.items() if text is None}
        while batch or deleted:
            out.rounds += 1
            with phase("plan"):
                batch, along = units.round(batch, done)
            signatures, edges = _round(session, env, overlay, files, back, batch, along, changes, out)
            done |= batch
            with phase("plan"):
                batch = propagation.after_round(signatures, edges, deleted, done)
            deleted = set()
    finally:
        with phase("cleanup"):
            overlay.__exit__(None, None, None)
        phase.counts.update(overlay.counts)
    return out


def _round(session: EditSession, env: Environment, overlay: Overlay, files: dict[str, FileEntry],
           back: dict[str, str], batch: set[str], along: set[str], changes: dict[str, str | None], out: Compiled
           ) -> tuple[dict[str, Signatures], list[tuple[str, str, str]]]:
    signatures: dict[str, Signatures] = {}
    edges: list[tuple[str, str, str]] = []
    tasks = []
    reader = session.reader
    phase = session.phases
    if out.digests is None and batch - set(changes):
        with phase("stored"):
            out.digests = reader.file_digests()
    known = out.digests or {}
    reused: list[str] = []
    old_scip: dict[str, dict[str, str]] = {}       # changed file -> its stored declarations' SCIP symbols
    skip_gained = skip_gained_enabled()
    if out.stable_scip or skip_gained:
        with phase("stored"):
            old_scip = {rel: {d.key: d.scip for d in reader.file_declarations(rel)}
                        for rel in sorted(batch) if rel in changes and rel in env.stored}
    for job, scope in env.scopes.items():
        paths = sorted(files[rel].abs_path for rel in batch | along if (files[rel].module, files[rel].scope) == job)
        if not paths:
            continue
        encoding = env.encodings.get(job, "UTF-8")

        def take(chunk: list[FileFacts], _encoding: str = encoding) -> None:
            for ff in chunk:
                rel = back.get(ff.path)
                if rel is None or rel not in batch:
                    continue         # compiled along: an earlier round has its facts
                out.facts[rel] = ff
                edges.extend((rel, r.from_key, r.to_key) for r in ff.relations if r.kind in ("extends", "implements"))
                info = env.stored.get(rel)
                if rel not in changes and info is not None and rel in known:
                    with phase("digest"):
                        same = canonicalize(info.module, info.scope, rel, info.content_sha256,
                                            _without_gained(ff, out.moved_scip, out.new_keys) if skip_gained else ff
                                            ).digest == known[rel]
                    if same:
                        phase.counts["same"] += 1
                        out.same.add(rel)
                        reused.append(rel)
                        continue
                text = changes.get(rel)
                if text is None:
                    text = (env.root / rel).read_bytes().decode(_codec(_encoding), errors="replace")
                out.texts[rel] = text
                with phase("summary"):
                    # Only the signatures: the planner's name round reads the generation's name index,
                    # never the new text's names (`summarize` would tokenize the whole file for them).
                    stored_scip = old_scip.get(rel)
                    signatures[rel] = declaration_signatures(text, ff, stored_scip if out.stable_scip else None)
                    if rel in changes and skip_gained:
                        for d in ff.declarations:
                            if stored_scip is None or d.key not in stored_scip:
                                out.new_keys.add(d.key)
                            elif stored_scip[d.key] != d.scip:
                                out.moved_scip[d.key] = stored_scip[d.key]

        release = str(scope.release) if scope.release is not None else "17"
        request = IndexRequest(files=paths, sourcepath=[str(p) for p in overlay.sourcepath(env.sourcepath(job))],
                               classpath=list(scope.classpath), release=release, encoding=encoding,
                               api=str(scope.api or ""),     # the API the generation was bound against
                               # what the shadows stand for, for the class cache; none when the change deletes a
                               # file (a class file kept may name a type it declares: served, it would still be there)
                               cache_roots=None if None in changes.values() else [str(p) for p in env.sourcepath(job)])
        tasks.append(IndexTask(request, None, take))
        out.compiled += len(paths)
    if tasks:
        with phase("worker"):
            results = session.worker.index_all(tasks)
        phase.jvm_ms += sum(r.elapsed_ms for r in results)
        phase.counts["compiled"] += sum(len(t.request.files) for t in tasks)
    if reused:
        with phase("stored"):
            stored = reader.signatures(env.stored[rel].file_version_id for rel in reused)
        for rel in reused:
            signatures[rel] = stored.get(env.stored[rel].file_version_id, {})
    return signatures, edges


def _without_gained(ff: FileFacts, moved: Mapping[str, str], new_keys: set[str]) -> FileFacts:
    """`ff` without its references to `new_keys`, and with the target SCIP symbol of each reference
    to a declaration in `moved` (binding key -> the generation's SCIP symbol) set back to the
    generation's (`skip_gained_enabled`). `ff` itself when no reference points to either."""
    if not (moved or new_keys) or not any(r.target_key in moved or r.target_key in new_keys for r in ff.references):
        return ff
    return replace(ff, references=[r._replace(target_scip=moved[r.target_key]) if r.target_key in moved else r
                                   for r in ff.references if r.target_key not in new_keys])


# ------------------------------------------------------------------ the diff


class Names:
    """SymbolRefs for binding keys: keys and SCIP symbols from `reader`'s generation (a declaration
    it does not declare has no symbolKey), else from the new facts (declarations, library targets)."""

    def __init__(self, reader: Reader, symbol_key: Callable[[int, str], str],
                 scip: Callable[[str | None, str | None], str | None], facts: dict[str, FileFacts],
                 modules: dict[str, str]) -> None:
        self.r = reader
        self.symbol_key = symbol_key
        self.scip = scip
        self.new_decls: dict[str, tuple[Declaration, str]] = {}      # key -> (declaration, module)
        self.targets: dict[str, str] = {}                            # key -> SCIP descriptor of a target
        for rel, ff in facts.items():
            module = modules.get(rel, "")
            for d in ff.declarations:
                self.new_decls.setdefault(d.key, (d, module))
            for key, (_kind, _dotted, scip_of) in ff.external.items():
                self.targets.setdefault(key, scip_of)
            for r in ff.references:
                if r.target_scip:
                    self.targets.setdefault(r.target_key, r.target_scip)
        self._cache: dict[str, SymbolRef] = {}

    def ref(self, key: str) -> SymbolRef:
        if key not in self._cache:
            self._cache[key] = self._make(key)
        return self._cache[key]

    def _make(self, key: str) -> SymbolRef:
        r = self.r
        info = r.symbol(key)
        stored = r.declarations(symbol=info.id, limit=1) if info is not None else []
        symbol_key = self.symbol_key(info.id, key) if info is not None and (stored or info.external) else None
        if stored:
            d = stored[0]
            return SymbolRef(symbolKey=symbol_key, symbol=self.scip(d.scip, d.module) or key,
                             display=d.display or d.name)
        if key in self.new_decls:
            nd, module = self.new_decls[key]
            return SymbolRef(symbolKey=symbol_key, symbol=self.scip(nd.scip, module) or key,
                             display=nd.display or nd.name)
        if info is not None:
            return SymbolRef(symbolKey=symbol_key, symbol=self.scip(info.scip, None) or key,
                             display=info.display or info.name or key)
        return SymbolRef(symbolKey=None, symbol=self.scip(self.targets.get(key), None) or key, display=key)


def _successors(old: list[DeclRow], new: list[Declaration], tm: TextMap) -> dict[str, str]:
    """old key -> new key for the declarations of one file that kept their place (their name is
    outside the edited text) and kind but not their key."""
    new_keys = {d.key for d in new}
    at: dict[tuple[Span, str], str] = {(d.name_span, d.kind): d.key for d in new}
    out: dict[str, str] = {}
    for d in old:
        if d.key in new_keys:
            continue
        span = tm.map(d.name_span)
        if span is not None and (span, d.kind) in at:
            out[d.key] = at[(span, d.kind)]
    return out


@dataclass
class StoredFacts:
    """The stored facts of one file of the generation."""

    refs: list[tuple[Span, str, str]]                 # (span, kind, target key)
    decls: list[DeclRow]
    relations: list[tuple[str, str, str]]             # (kind, from key, to key)
    problems: list[tuple[Span, str, str, str]]        # (span, kind, name, message)


def stored_facts(reader: Reader, rel: str) -> StoredFacts:
    return _stored(FileRows(reader.file_references(rel), reader.file_declarations(rel), reader.file_relations(rel),
                            reader.problems(path=rel, errors_only=True)))


def _stored(rows: FileRows) -> StoredFacts:
    """The parts of a file's stored rows that a check compares (its problems: the errors)."""
    return StoredFacts([(r.span, r.kind, r.target_key) for r in rows.references], rows.declarations,
                       [(x.kind, x.from_key, x.to_key) for x in rows.relations if x.kind in RELATION_KINDS],
                       [(p.span, p.kind, p.name, p.message) for p in rows.problems])


BATCH_FACTS_ENV = "PYBRIDGE_CHECK_BATCH_FACTS"


def batch_facts_enabled() -> bool:
    """Whether a check reads the stored facts of the files it compares in one query per table
    (`Reader.files_rows`, PYBRIDGE_CHECK_BATCH_FACTS, default 1) instead of four queries per file,
    three of them looking the file's row up again."""
    return switches.enabled(BATCH_FACTS_ENV, "read each compared file's stored facts with its own queries")


def stored_facts_of(reader: Reader, paths: Iterable[str]) -> dict[str, StoredFacts]:
    """`stored_facts` of each of `paths` the generation holds, by path."""
    if not batch_facts_enabled():
        return {rel: stored_facts(reader, rel) for rel in paths}
    return {rel: _stored(rows) for rel, rows in reader.files_rows(paths, errors_only=True).items()}


def _rng(span: Span) -> Range:
    return Range.of((span.start_line, span.start_char, span.end_line, span.end_char))


def _diagnostic(rel: str, span: Span, kind: str, name: str, message: str) -> Diagnostic:
    return Diagnostic(path=rel, range=_rng(span), kind=kind, message=message, name=name or None)


def check_edit(session: EditSession, changes: list[FileChange], base: dict[str, str] | None = None) -> EditCheck:
    """The binding diff of `changes` (see `pybridge.edits.model`). `base`: path -> SHA-256 of the
    bytes the agent read; any that differs on disk raises `StaleBaseError` before anything is
    compiled. Nothing is written to the workspace and nothing is staged or published."""
    root = session.root
    phase = session.phases
    with phase("input"):
        verify_base(root, base)
        wanted = _wanted(root, changes)
    with phase("environment"):
        reader = session.reader
        env = environment(root, reader, wanted)
        # A file given with its current text is no change.
        stored = env.stored
        changed = {rel: text for rel, text in wanted.items()
                   if text is None or rel not in stored
                   or hashlib.sha256(text.encode(_codec(env.encodings.get((stored[rel].module, stored[rel].scope)))))
                   .hexdigest() != stored[rel].content_sha256}
    compiled = compile_overlay(session, env, changed) if changed else Compiled()
    # The unchanged files were read from disk: they must still be the generation's (under serve a
    # catch-up may publish meanwhile; the reader stays on the generation the answer names).
    with phase("moved"):
        moved = sorted(rel for rel in compiled.facts if rel not in changed and rel in stored
                       and sha256_of(root / rel) != stored[rel].content_sha256)
    if moved:
        raise WorkspaceMovedError(moved)
    return diff(session, env, compiled, changed, stored)


def _wanted(root: Path, changes: list[FileChange]) -> dict[str, str | None]:
    """relpath -> new text (None: deleted) of each change, refused when it cannot be checked."""
    wanted: dict[str, str | None] = {}
    for change in changes:
        rel = relpath(root, change.path)
        if not rel.endswith(".java"):
            raise EditError(f"{rel} is not a Java source: check_edit compiles .java files only (a build file "
                            "change needs a sync).", field="changes")
        if rel in wanted:
            raise EditError(f"{rel} is changed twice; give each file once.", field="changes")
        try:
            (change.text or "").encode("utf-8")
        except UnicodeEncodeError:
            raise EditError(f"The text of {rel} is not valid Unicode (it holds a lone surrogate); send the file's "
                            "text as it should read.", field="changes") from None
        wanted[rel] = change.text
    return wanted


def diff(session: EditSession, env: Environment, compiled: Compiled, changed: dict[str, str | None],
         stored: Mapping[str, FileInfo]) -> EditCheck:
    """The binding diff of the compiled facts against the generation's (`stored`: its files by path)."""
    reader = session.reader
    phase = session.phases
    with phase("names"):
        names = Names(reader, session.symbol_key, session.scip, compiled.facts,
                      {rel: env.files[rel].module for rel in compiled.facts})
    # A file compiled only because it could bind differently, whose new facts digest to its stored
    # version's (`compile_overlay` found them), has the same rows: nothing of it can differ, so its
    # old facts are not read.
    same = compiled.same
    paths = sorted((set(compiled.facts) - same) | {rel for rel, text in changed.items() if text is None})
    with phase("stored_facts"):
        olds = stored_facts_of(reader, [rel for rel in paths if rel in stored])
    phase.counts["stored_facts"] += len(olds)
    maps: dict[str, TextMap] = {}
    with phase("textmap"):
        for rel in paths:
            if rel in olds and rel in compiled.facts:
                new_text = compiled.texts[rel]
                if rel in changed:
                    encoding = _codec(env.encodings.get((env.files[rel].module, env.files[rel].scope)))
                    old_text = (env.root / rel).read_bytes().decode(encoding, errors="replace")
                    maps[rel] = TextMap(old_text, new_text)
                else:
                    maps[rel] = TextMap(new_text, new_text)
    news = {rel: ff for rel, ff in compiled.facts.items() if rel not in same}
    with phase("diff"):
        return diff_facts(olds, news, maps, names, Checked(
            generation=reader.generation.number, changed=sorted(changed), compiled=compiled.compiled,
            rounds=compiled.rounds))


def diff_facts(olds: dict[str, StoredFacts], news: dict[str, FileFacts], maps: dict[str, TextMap], names: Names,
               checked: Checked) -> EditCheck:
    """The binding diff of files whose facts were `olds` and are `news` (a file in one only was deleted
    or added), each file of both matched through `maps` (see the module doc)."""
    paths = sorted(set(olds) | set(news))
    # Declarations that kept their place under another key: the same declaration.
    succ: dict[str, str] = {}
    for rel, textmap in maps.items():
        succ.update(_successors(olds[rel].decls, news[rel].declarations, textmap))

    def same(key: str) -> str:
        return succ.get(key, key)

    diagnostics = DiagnosticsDiff()
    rebound: list[Rebound] = []
    relations = RelationsDiff()
    declarations = DeclarationsDiff()
    old_types = {d.key for o in olds.values() for d in o.decls if d.kind in TYPE_KINDS}
    new_types = {d.key for ff in news.values() for d in ff.declarations if d.kind in TYPE_KINDS}
    surviving_types = {same(k) for k in old_types} & new_types
    new_owner = {d.key: (d.key if d.kind in TYPE_KINDS else d.declaring_key)
                 for ff in news.values() for d in ff.declarations}
    old_owner = {d.key: (d.key if d.kind in TYPE_KINDS else (d.container_key or "")) for o in olds.values()
                 for d in o.decls}

    for rel in paths:
        old = olds.get(rel)
        new = news.get(rel)
        tm: TextMap | None = maps.get(rel)
        # diagnostics
        new_problems = [(p.span, p.kind, p.name, p.message) for p in new.problems if p.is_error] if new else []
        old_problems = old.problems if old else []
        added, removed = _match_problems(old_problems, new_problems, tm)
        diagnostics.added += [_diagnostic(rel, *p) for p in added]
        diagnostics.removed += [_diagnostic(rel, *p) for p in removed]
        if old is None or new is None or tm is None:
            _declarations_only(rel, old, new, names, declarations)
            continue
        # rebound references
        before: dict[tuple[Span, str], list[str]] = {}
        for span, kind, target in old.refs:
            mapped = tm.map(span)
            if mapped is not None:
                before.setdefault((mapped, kind), []).append(same(target))
        after: dict[tuple[Span, str], list[str]] = {}
        for r in new.references:
            after.setdefault((r.span, r.kind), []).append(r.target_key)
        for (span, kind), targets in sorted(before.items()):
            now_bound = after.get((span, kind), [])
            if targets == now_bound or (len(targets) > 1 and sorted(targets) == sorted(now_bound)):
                continue                 # the usual case: bound as before
            lost = sorted((Counter(targets) - Counter(now_bound)).elements())
            gained = sorted((Counter(now_bound) - Counter(targets)).elements())
            for i, target in enumerate(lost):
                to = names.ref(gained[i]) if i < len(gained) else None
                rebound.append(Rebound.model_validate({"path": rel, "range": _rng(span), "kind": kind,
                                                       "from": names.ref(target), "to": to}))
        # relations
        was = {(k, same(a), same(b)) for k, a, b in old.relations}
        now = {(x.kind, x.from_key, x.to_key) for x in new.relations if x.kind in RELATION_KINDS}
        for kind, a, b in sorted(now - was):
            if new_owner.get(a, a) in surviving_types:
                relations.gained.append(_relation(kind, names.ref(a), names.ref(b), rel))
        for kind, a, b in sorted(was - now):
            if same(old_owner.get(a, a)) in surviving_types or new_owner.get(a) in surviving_types:
                relations.lost.append(_relation(kind, names.ref(a), names.ref(b), rel))
        _declarations(rel, old, new, tm, succ, names, declarations)
    return EditCheck(verdict=verdict_of(diagnostics, rebound, relations), diagnostics=diagnostics, rebound=rebound,
                     relations=relations, declarations=declarations, checked=checked)


Problem = tuple[Span, str, str, str]


def _match_problems(old: list[Problem], new: list[Problem], tm: TextMap | None) -> tuple[list[Problem], list[Problem]]:
    """(added, removed): problems matched first at the same text (the old span mapped through the
    edit), then by kind, name and message (a problem inside the edited text that the edit kept)."""
    def at(p: Problem) -> tuple[object, ...]:
        return (tm.map(p[0]) if tm is not None else None, p[1], p[2], p[3])

    def what(p: Problem) -> tuple[object, ...]:
        return (p[1], p[2], p[3])

    old, new = _pair(old, new, at, lambda p: (p[0], p[1], p[2], p[3]))
    return _pair(old, new, what, what)[::-1]


def _pair(old: list[Problem], new: list[Problem], key_old: Callable[[Problem], tuple[object, ...]],
          key_new: Callable[[Problem], tuple[object, ...]]) -> tuple[list[Problem], list[Problem]]:
    """(old unmatched, new unmatched) when each new problem takes an old one of the same key."""
    available = Counter(key_old(p) for p in old)
    taken: Counter[tuple[object, ...]] = Counter()
    new_left = []
    for p in new:
        k = key_new(p)
        if available[k] > 0:
            available[k] -= 1
            taken[k] += 1
        else:
            new_left.append(p)
    old_left = []
    for p in old:
        k = key_old(p)
        if taken[k] > 0:
            taken[k] -= 1
        else:
            old_left.append(p)
    return old_left, new_left


def _relation(kind: str, a: SymbolRef, b: SymbolRef, rel: str) -> RelationChange:
    return RelationChange.model_validate({"kind": kind, "from": a, "to": b, "path": rel})


def _declarations_only(rel: str, old: StoredFacts | None, new: FileFacts | None, names: Names,
                       out: DeclarationsDiff) -> None:
    """A file added or deleted whole: all its declarations are added or removed."""
    if old is not None and new is None:
        out.removed += [DeclarationChange(path=rel, range=_rng(d.name_span), kind=d.kind, symbol=names.ref(d.key))
                        for d in old.decls if d.kind in NAMED_KINDS]
    if new is not None and old is None:
        out.added += [DeclarationChange(path=rel, range=_rng(d.name_span), kind=d.kind, symbol=names.ref(d.key))
                      for d in new.declarations if d.kind in NAMED_KINDS]


def _declarations(rel: str, old: StoredFacts, new: FileFacts, tm: TextMap, succ: dict[str, str], names: Names,
                  out: DeclarationsDiff) -> None:
    olds = {d.key: d for d in old.decls if d.kind in NAMED_KINDS}
    news = {d.key: d for d in new.declarations if d.kind in NAMED_KINDS}
    images = set()
    for key, d in olds.items():
        image = succ.get(key, key)
        nd = news.get(image)
        if nd is None:
            out.removed.append(DeclarationChange(path=rel, range=_rng(d.name_span), kind=d.kind,
                                                 symbol=names.ref(key)))
            continue
        images.add(image)
        mods = (d.modifiers & ~DECL_GENERATED, nd.modifiers & ~DECL_GENERATED)
        if image != key or (d.display or d.name) != (nd.display or nd.name) or mods[0] != mods[1]:
            out.changed.append(DeclarationChange(
                path=rel, range=_rng(nd.name_span), kind=nd.kind, symbol=names.ref(image),
                before=(d.display or d.name) if (d.display or d.name) != (nd.display or nd.name) else None))
    for key, nd in news.items():
        if key not in images and key not in olds:
            out.added.append(DeclarationChange(path=rel, range=_rng(nd.name_span), kind=nd.kind,
                                               symbol=names.ref(key)))
