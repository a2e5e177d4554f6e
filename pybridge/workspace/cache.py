"""A cache of resolved classpaths, so that a sync whose build inputs did not change runs no build tool.

Stored in `<state_dir>/classpath-cache.json`, and a copy shared by every
state folder of the user in `<cache dir>/classpaths/<key>.json`: a fresh
state folder (another `--state-dir`, a deleted one, a test's) for a
workspace already resolved with the same key runs no Maven either. `load`
tries the state file, then the shared entry (and the caller writes the
state file from it); `store` writes both. The cache dir is
PYBRIDGE_CACHE_DIR (empty or `off`: no shared cache), else
`$XDG_CACHE_HOME/pybridge`, else `~/.cache/pybridge`. The shared folder
keeps the 64 entries used last (by modification time; a hit touches its
entry); each is written to a temporary file and renamed into place, and
nothing that goes wrong there (a read-only home, a full disk) fails a
resolution: the shared copy is skipped, with a debug log line.

The key is the build system's: a hash of what its resolution depends on
that pybridge can see (Maven's: `maven/cachekey.py`), `VERSION` included.
Only a fully resolved workspace (no `classpath_unresolved` at all) is
stored, and an entry is used only when every classpath file it names still
exists.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .buildsystem import Key
from .userdirs import cache_home

VERSION = 2                 # of the entries' format; every build system's key includes it
SHARED_ENTRIES = 64         # the shared folder keeps the entries used last
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cached:
    classpaths: dict[Key, list[Path]]
    releases: dict[str, int]
    apis: dict[str, int | None]     # module id -> the release whose API javac binds against (ClasspathResult.api)
    shared: bool            # from the shared folder, not from this state folder's file


def shared_dir() -> Path | None:
    """The shared folder of cached classpaths, None when PYBRIDGE_CACHE_DIR turns it off."""
    home = cache_home()
    return None if home is None else home / "classpaths"


def load(path: Path, key: str) -> Cached | None:
    """The classpaths cached under `key`: this state folder's file first, then the shared entry.
    None when neither has the key, or a classpath file they name is gone."""
    found = _read(path, key)
    if found is not None:
        return Cached(*found, shared=False)
    folder = shared_dir()
    if folder is None:
        return None
    entry = folder / f"{key}.json"
    found = _read(entry, key)
    if found is None:
        return None
    try:
        os.utime(entry)         # used last: kept longest
    except OSError:
        pass
    return Cached(*found, shared=True)


def _read(path: Path, key: str) -> tuple[dict[Key, list[Path]], dict[str, int], dict[str, int | None]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        classpaths = {(e["module"], e["scope"]): [Path(p) for p in e["classpath"]] for e in data["entries"]}
        releases = {m: int(r) for m, r in data["releases"].items()}
        apis = {m: None if a is None else int(a) for m, a in data["apis"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not all(p.exists() for cp in classpaths.values() for p in cp):
        return None
    return classpaths, releases, apis


def store(path: Path, key: str, classpaths: dict[Key, list[Path]], releases: dict[str, int],
          apis: dict[str, int | None] | None = None, *, shared: bool = True) -> None:
    """Write the state folder's file (an OSError there is the caller's), and with `shared` the
    shared entry (never raises)."""
    data = {"key": key, "releases": releases, "apis": apis or {},
            "entries": [{"module": m, "scope": s, "classpath": [str(p) for p in cp]}
                        for (m, s), cp in classpaths.items()]}
    text = json.dumps(data, indent=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    if shared:
        _store_shared(key, text)


def _store_shared(key: str, text: str) -> None:
    folder = shared_dir()
    if folder is None:
        return
    tmp: str | None = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, folder / f"{key}.json")
        tmp = None
        _prune(folder)
    except OSError as exc:
        log.debug("classpath cache: not shared in %s: %s", folder, exc)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _prune(folder: Path) -> None:
    """Keep the SHARED_ENTRIES entries used last; drop temporary files an interrupted write left."""
    entries: list[tuple[float, Path]] = []
    for p in folder.iterdir():
        try:
            mtime = p.stat().st_mtime
        except OSError:
            continue
        if p.suffix == ".json":
            entries.append((mtime, p))
        elif p.suffix == ".tmp" and mtime < time.time() - 3600:
            p.unlink(missing_ok=True)
    entries.sort(reverse=True)
    for _, p in entries[SHARED_ENTRIES:]:
        p.unlink(missing_ok=True)
