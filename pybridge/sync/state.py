"""Where a workspace's state lives: its store, Maven scratch files, locks.

By default a per-workspace folder under the user cache directory
(`<cache>/pybridge/<folder-name>-<hash of the root path>`), so nothing is
written into the user's tree. `PYBRIDGE_STATE_DIR` (or the older name
`PYBRIDGE_STATE_HOME`) replaces that parent: each workspace still gets its
own `<folder-name>-<hash>` folder under it, so one setting serves any
number of workspaces. `--state-dir DIR` names one workspace's folder
exactly.

A state folder belongs to one workspace root (DESIGN section 9): the first
sync records the root in `<state>/workspace.json`, and a sync or query of
another root with that folder is refused with an `StateFolderError` that
says what to do. The folder is made 0700 and the files pybridge writes in
it 0600 (the store's facts and the key secret are nobody else's business).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
from pathlib import Path

import platformdirs

from pybridge.errors import PybridgeError

OWNER_FILE = "workspace.json"
SECRET_FILE = "secret"
SECRET_LEN = 32
STATE_ENVS = ("PYBRIDGE_STATE_DIR", "PYBRIDGE_STATE_HOME")


class StateFolderError(PybridgeError):
    """The state folder belongs to another workspace, or cannot be used."""

    code = "invalid_argument"


def default_state_dir(root: Path) -> Path:
    root = Path(root).resolve()
    base = next((os.environ[name] for name in STATE_ENVS if os.environ.get(name)), None)
    base = base or platformdirs.user_cache_dir("pybridge")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name) or "workspace"
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return Path(base).resolve() / f"{slug}-{digest}"


def state_dir_for(root: Path, state_dir: Path | str | None = None) -> Path:
    if state_dir:
        return Path(state_dir).resolve()
    return default_state_dir(root)


def store_path(state: Path) -> Path:
    return state / "store.sqlite"


def owner(state: Path) -> str | None:
    """The workspace root recorded in the state folder, or None (never synced, or older)."""
    try:
        data = json.loads((Path(state) / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    root = data.get("root") if isinstance(data, dict) else None
    return root if isinstance(root, str) else None


def check_owner(state: Path, root: Path) -> None:
    """Refuse a state folder that records another workspace root (reads only)."""
    recorded = owner(state)
    root = Path(root).resolve()
    if recorded is not None and recorded != str(root):
        raise StateFolderError(
            f"The state folder {state} belongs to the workspace {recorded}, not {root}. Give this "
            f"workspace its own state folder (another --state-dir, or leave it out: each workspace "
            f"gets its own folder under PYBRIDGE_STATE_DIR or the user cache), or delete {state} to "
            f"start it afresh for {root}.", state_dir=str(state), owner=recorded, root=str(root))


def prepare(state: Path, root: Path) -> None:
    """Before a sync writes: the folder exists (0700), is this workspace's, and has its secret."""
    state = Path(state)
    check_owner(state, root)
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    if owner(state) is None:
        _write_private(state / OWNER_FILE, json.dumps({"root": str(Path(root).resolve())}).encode())
    for name in ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite.lock",
                 "sync.lock", OWNER_FILE, SECRET_FILE):
        path = state / name
        if path.is_file() and not path.is_symlink():   # stores written before files were 0600
            os.chmod(path, 0o600)
    load_secret(state)


def load_secret(state: Path, create: bool = True) -> bytes:
    """The workspace's key secret (32 bytes, 0600); created atomically on first use when `create`."""
    path = Path(state) / SECRET_FILE
    try:
        data = _read_plain(path)
        if len(data) == SECRET_LEN:
            return data
    except FileNotFoundError:
        if not create:
            raise
    _write_private(path, secrets.token_bytes(SECRET_LEN))
    data = _read_plain(path)
    if len(data) != SECRET_LEN:
        raise OSError(f"{path} does not hold a {SECRET_LEN}-byte secret; delete it")
    return data


def _read_plain(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(SECRET_LEN + 1)
    finally:
        os.close(fd)


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to a new 0600 file at `path`, atomically; when another process won
    the race (the file exists), theirs stays."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)        # fails when another process won the race: use theirs
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise
    finally:
        os.unlink(tmp)
