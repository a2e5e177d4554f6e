"""Watching the served workspaces for the edits that matter (watchfiles: OS events, polling fallback).

Only inputs of a sync count: `.java` files under a source folder the
workspace model knows, every build file (the build system's `is_input`:
Maven's `pom.xml`, Gradle's scripts and properties), and what happens at a place where the
build system lets a source root appear (`pybridge.workspace.candidate_roots`:
a module's `src/test/java` made, a source folder replaced by a symbolic
link, a new folder under `target/generated-sources`). Anything else under
`target/`, `.git/` or the state folder is ignored. The watcher hands each
relevant batch to `on_change(root, paths)`; debouncing and syncing are the
live index's.

OS events (inotify, FSEvents, ReadDirectoryChangesW) are used where the OS
gives them; where it gives none (watchfiles reports it, or the watch cannot
start) the watcher polls, as it does when asked to (`poll=True`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger("pybridge.live")

IGNORED_DIRS = frozenset({"target", ".git", ".hg", ".svn", ".idea", "node_modules", ".pybridge"})


class Scope:
    """What counts as an input in one workspace: its source folders, its build files (`is_input`:
    the build system's predicate, `BuildSystem.is_input` bound to the root), the places where a source
    folder can appear, not its state folder."""

    def __init__(self, root: Path, state: Path, is_input: Callable[[Path], bool]) -> None:
        self.root = root
        self.state = state
        self.is_input = is_input
        self.source_roots: tuple[Path, ...] = ()
        self.places: tuple[Path, ...] = ()      # a folder here is a source root once it exists
        self.parents: tuple[Path, ...] = ()     # every folder in these is a source root

    def set_source_roots(self, roots: Iterable[Path]) -> None:
        self.source_roots = tuple(sorted({Path(r) for r in roots}))

    def set_places(self, places: Iterable[Path], parents: Iterable[Path]) -> None:
        self.places = tuple(sorted({Path(p) for p in places}))
        self.parents = tuple(sorted({Path(p) for p in parents}))

    def relevant(self, path: Path) -> bool:
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return False
        if _under(path, self.state):
            return False
        if self._at_a_place(path):
            return True
        if path.suffix == ".java" and any(_under(path, src) for src in self.source_roots):
            return True         # a root the model knows, even under target/ (generated sources)
        if any(part in IGNORED_DIRS for part in rel.parts[:-1]):
            return False
        if self.is_input(path):
            return True
        if path.suffix != ".java":
            return False
        return not self.source_roots    # the model is unknown (never loaded): every .java counts

    def _at_a_place(self, path: Path) -> bool:
        """A place where a root can appear, a folder on the way to one, or a source file under one."""
        for place in self.places:
            if _under(place, path) or (path.suffix == ".java" and _under(path, place)):
                return True
        for parent in self.parents:
            if path.parent == parent or (path.suffix == ".java" and _under(path, parent)):
                return True
        return False


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


class Watcher:
    """One thread watching every served root; `on_change(root, paths)` for each relevant batch."""

    def __init__(self, scopes: list[Scope], on_change: Callable[[Path, list[Path]], None], *,
                 poll: bool = False, poll_ms: int = 300, step_ms: int = 20) -> None:
        self.scopes = sorted(scopes, key=lambda s: len(s.root.parts), reverse=True)   # innermost root first
        self.on_change = on_change
        self.poll = poll
        self.poll_ms = poll_ms
        self.step_ms = step_ms
        self.mode = "starting"
        self.error: str | None = None
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="pybridge-watcher", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _scope_of(self, path: Path) -> Scope | None:
        for scope in self.scopes:
            if scope.root == path or scope.root in path.parents:
                return scope
        return None

    def _run(self) -> None:
        force = self.poll
        while not self._stop.is_set():
            try:
                self._watch(force)
                return
            except Exception as exc:  # noqa: BLE001 - no OS events here: fall back to polling once
                if force:
                    self.mode, self.error = "failed", f"{type(exc).__name__}: {exc}"
                    log.error("watching failed even by polling: %s; catch-ups now happen only when a query "
                              "finds the workspace changed", exc)
                    self.ready.set()
                    return
                log.warning("file events unavailable (%s); polling every %d ms", exc, self.poll_ms)
                self.error = f"events unavailable ({type(exc).__name__}: {exc}); polling"
                force = True

    def _watch(self, force: bool) -> None:
        import watchfiles

        def keep(_change: object, path: str) -> bool:
            p = Path(path)
            scope = self._scope_of(p)
            return scope is not None and scope.relevant(p)

        roots = [str(s.root) for s in self.scopes]
        iterator = watchfiles.watch(*roots, watch_filter=keep, debounce=1000, step=self.step_ms,
                                    stop_event=self._stop, rust_timeout=500, yield_on_timeout=True,
                                    raise_interrupt=False, force_polling=force, poll_delay_ms=self.poll_ms,
                                    ignore_permission_denied=True)
        for changes in iterator:
            if not self.ready.is_set():
                self.mode = "polling" if force else "events"
                self.ready.set()
            by_root: dict[Path, list[Path]] = {}
            for _change, path in changes:
                p = Path(path)
                scope = self._scope_of(p)
                if scope is not None:
                    by_root.setdefault(scope.root, []).append(p)
            for root, paths in by_root.items():
                try:
                    self.on_change(root, paths)
                except Exception:  # a failing callback must not end the watch
                    log.exception("change handler failed for %s", root)
