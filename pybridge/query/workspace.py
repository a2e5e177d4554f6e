"""The served workspaces: slugs, `repo` resolution, stores, secrets, coordinates.

A workspace is named by its slug (the root folder's name, made unique among
those served in the order given: `reactor`, `reactor-2`) or by its root
path (as given or resolved; compared as text, so a `repo` argument never
makes the server look at a path outside the served workspaces).

The store is opened lazily, and only when its file exists: asking about a
never-synced workspace creates nothing.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any

from pybridge.errors import StoreError
from pybridge.store import GenerationInfo, Reader, Store
from pybridge.sync import state_dir_for
from pybridge.sync.meta import GenerationMeta, scip_coordinates
from pybridge.sync.state import StateFolderError, check_owner, store_location

from . import keys
from .errors import QueryError, invalid, show
from .freshness import Freshness, NotSynced
from .source import Sources

log = logging.getLogger("pybridge.query")


class Served:
    """One served workspace."""

    def __init__(self, slug: str, given: str, root: Path, state: Path) -> None:
        self.slug = slug
        self.given = given
        self.root = root
        self.state = state
        self.freshness = Freshness(root)
        self.sources = Sources(root)
        self.spellings = tuple(dict.fromkeys(
            os.path.normpath(os.path.abspath(p)) for p in (given, str(root))))
        self._lock = threading.RLock()
        self._store: Store | None = None
        self._secret: bytes | None = None
        self._coords: tuple[GenerationMeta, dict[str, tuple[str, str]]] | None = None
        self._memo_generation: int | None = None
        self._memo: dict[Hashable, Any] = {}
        self._closed = False

    # store -----------------------------------------------------------------

    def store(self) -> Store | None:
        """The open store, or None when the workspace was never synced."""
        with self._lock:
            if self._closed:
                raise invalid("This query facade is closed; create a new one.")
            if self._store is None:
                location = store_location(self.state)   # its own, or its repository's shared store
                if not location.path.exists():
                    return None
                try:
                    check_owner(self.state, self.root)
                except StateFolderError as exc:
                    raise QueryError("invalid_argument", exc.message, **exc.details) from exc
                try:   # read-only: a query never writes (nor collects), so it answers on a full disk
                    self._store = Store.open(location.path, readonly=True, checkout=location.checkout)
                except StoreError as exc:
                    raise self.not_synced(f"The index of {self.slug} cannot be opened: {exc.message}") from exc
            return self._store

    def store_exists(self) -> bool:
        """Whether its store file exists: the open store's (one stat), else where the state folder's
        record says (read from the folder)."""
        store = self._store
        return (store.path if store is not None else store_location(self.state).path).exists()

    def reader(self) -> Reader:
        """A reader pinned to the current generation; not_synced when there is none."""
        store = self.store()
        if store is None:
            raise self.not_synced()
        try:
            return store.reader()
        except StoreError as exc:
            if exc.details.get("reason") == "not_synced":
                raise self.not_synced() from exc
            raise self.not_synced(f"The index of {self.slug} cannot be read: {exc.message}") from exc

    def current(self) -> GenerationInfo | None:
        store = self.store()
        if store is None:
            return None
        try:
            return store.current_generation()
        except StoreError:
            return None

    def generations(self) -> list[int]:
        store = self.store()
        try:
            return [g.number for g in store.generations()] if store is not None else []
        except StoreError:
            return []

    def not_synced(self, message: str | None = None) -> NotSynced:
        return NotSynced(message or f"Workspace {self.slug} ({self.root}) has not been synced yet; call sync "
                         f"with repo {self.slug!r}, then repeat the query.", self.freshness, self.slug)

    # secret ----------------------------------------------------------------

    def secret(self) -> bytes:
        with self._lock:
            if self._secret is None:
                try:
                    self.state.mkdir(parents=True, exist_ok=True)
                    self._secret = keys.load_secret(self.state)
                except OSError as exc:
                    log.warning("no secret in %s (%s); keys are valid in this process only",
                                self.state, exc)
                    self._secret = os.urandom(keys.SECRET_LEN)
            return self._secret

    def tag(self) -> bytes:
        return keys.workspace_tag(self.secret())

    # module coordinates ----------------------------------------------------

    def coordinates(self, generation: GenerationInfo) -> dict[str, tuple[str, str]]:
        """module id -> (SCIP package `groupId/artifactId`, version or `.`), from the generation's
        record of its modules (no build file is read: a generation an older pybridge published
        has no versions until a sync brings its record up to date)."""
        meta = GenerationMeta.of(generation)     # a new record when a sync refreshed it in place
        with self._lock:
            if self._coords is not None and self._coords[0] is meta:
                return self._coords[1]
        coords = scip_coordinates(meta)
        with self._lock:
            self._coords = (meta, coords)
        return coords

    def encoding(self, generation: GenerationInfo, module: str) -> str:
        """The source encoding of a module's files in this generation."""
        return GenerationMeta.of(generation).encoding(module)

    def memo(self, generation: int) -> Callable[[Hashable, Callable[[], Any]], Any]:
        """A cache for values computed from one generation (which never changes once
        published); it is emptied when another generation is asked for."""

        def cached(key: Hashable, compute: Callable[[], Any]) -> Any:
            with self._lock:
                if self._memo_generation != generation:
                    self._memo_generation, self._memo = generation, {}
                if key in self._memo:
                    return self._memo[key]
            value = compute()
            with self._lock:
                if self._memo_generation == generation:
                    self._memo[key] = value
            return value

        return cached

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._store is not None:
                self._store.close()
                self._store = None


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "workspace"


class Workspaces:
    """The served workspaces, in the order given."""

    def __init__(self, repos: list[str | Path], state_dirs: Mapping[str | Path, Path] | None) -> None:
        if isinstance(repos, (str, Path)):
            repos = [repos]
        if not repos:
            raise ValueError("Serve at least one workspace root.")
        given_dirs = {}
        for key, value in (state_dirs or {}).items():
            given_dirs[str(key)] = Path(value)
            given_dirs[os.path.normpath(os.path.abspath(str(key)))] = Path(value)
            given_dirs[str(Path(key).resolve())] = Path(value)
        self.served: list[Served] = []
        taken: set[str] = set()
        for repo in repos:
            given = str(repo)
            root = Path(repo).resolve()
            if any(w.root == root for w in self.served):
                continue
            state = (given_dirs.get(given) or given_dirs.get(os.path.normpath(os.path.abspath(given)))
                     or given_dirs.get(str(root)))
            state = state_dir_for(root, state)
            base = _slug(root.name)
            slug, n = base, 1
            while slug in taken:
                n += 1
                slug = f"{base}-{n}"
            taken.add(slug)
            self.served.append(Served(slug, given, root, Path(state).resolve()))

    def slugs(self) -> list[str]:
        return [w.slug for w in self.served]

    def pick(self, repo: str | None) -> Served:
        """The workspace `repo` names; the only one when `repo` is None."""
        if repo is None:
            if len(self.served) == 1:
                return self.served[0]
            raise invalid(f"Several workspaces are served ({self._listing()}); name one in repo.",
                          field="repo")
        for w in self.served:
            if repo == w.slug:
                return w
        text = repo.strip()
        if text and "\0" not in text:
            spelled = os.path.normpath(os.path.abspath(os.path.expanduser(text)))
            for w in self.served:
                if spelled in w.spellings:
                    return w
            lowered = [w for w in self.served if w.slug.lower() == text.lower()]
            if len(lowered) == 1:
                return lowered[0]
        raise QueryError("unknown_repo", f"No served workspace is named {show(repo)}; use one of: "
                         f"{self._listing()} (a slug or the root path).", served=self.slugs())

    def by_tag(self, tag: bytes) -> list[Served]:
        """The workspaces whose secret makes this key tag (normally one)."""
        out = []
        for w in self.served:
            if not w.store_exists():   # never synced: it issued no key
                continue
            try:
                if w.tag() == tag:
                    out.append(w)
            except Exception:  # noqa: BLE001 - an unreadable secret: not this workspace
                continue
        return out

    def _listing(self) -> str:
        return ", ".join(f"{w.slug} ({w.root})" for w in self.served)

    def close(self) -> None:
        for w in self.served:
            w.close()
