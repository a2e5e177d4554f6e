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

Checkouts of one repository share one store (DESIGN section 5, issue 27).
A workspace whose root lies in a git checkout (a worktree, or the main
checkout) and whose state folder is the default one gets, at its first sync,
a store in the *repository's* state folder,
`<parent>/repositories/<name>-<hash of the git common dir and the root's
path inside the checkout>/store.sqlite`, where `<parent>` is the parent the
default folders live under. Every checkout of that repository (the same git
common directory, the same subfolder) is a checkout of that store: file
versions, facts and symbols stored once, while each keeps its own state
folder with its key secret (keys and cursors stay per checkout), its sync
lock, its Maven scratch files, and in the store its own generations and
current pointer. Why there: the repository folder outlives any one checkout
(removing a worktree and its state folder leaves its siblings' store whole),
and it is found from any checkout without a registry (the common directory
names it). `workspace.json` records the decision (`store`, `checkout`), so a
folder keeps its store for good. A state folder named explicitly
(`--state-dir`) keeps its own store, as does a workspace outside git, one
whose state folder already has a store (an older pybridge's: it keeps
working as it is; delete the folder to join the repository's store), and
every workspace when `PYBRIDGE_SHARE_CHECKOUTS=0`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import platformdirs

from pybridge.errors import PybridgeError

OWNER_FILE = "workspace.json"
SECRET_FILE = "secret"
SECRET_LEN = 32
STATE_ENVS = ("PYBRIDGE_STATE_DIR", "PYBRIDGE_STATE_HOME")
SHARE_ENV = "PYBRIDGE_SHARE_CHECKOUTS"
STORE_FILE = "store.sqlite"
REPOSITORIES = "repositories"
OWN_CHECKOUT = ""     # the checkout name of a store of one workspace (pybridge.store.store.OWN)


class StateFolderError(PybridgeError):
    """The state folder belongs to another workspace, or cannot be used."""

    code = "invalid_argument"


def state_parent() -> Path:
    """The folder the default state folders live in: PYBRIDGE_STATE_DIR, else the user cache."""
    base = next((os.environ[name] for name in STATE_ENVS if os.environ.get(name)), None)
    return Path(base or platformdirs.user_cache_dir("pybridge")).resolve()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name) or "workspace"


def default_state_dir(root: Path) -> Path:
    root = Path(root).resolve()
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:12]
    return state_parent() / f"{_slug(root.name)}-{digest}"


@dataclass(frozen=True)
class Repository:
    """The git repository a workspace root is checked out from."""

    common_dir: Path      # the git common directory (shared by all worktrees of the repository)
    top: Path             # the top folder of this checkout (where its `.git` is)
    subpath: str          # the workspace root inside the checkout ('' at the top)

    def state_dir(self) -> Path:
        """The repository's state folder: where its checkouts' shared store lives."""
        name = self.common_dir.parent.name if self.common_dir.name == ".git" else self.common_dir.name
        name = name.removesuffix(".git") or "repository"
        if self.subpath:
            name += "-" + PurePosixPath(self.subpath).name
        digest = hashlib.sha256(f"{self.common_dir}\0{self.subpath}".encode()).hexdigest()[:12]
        return state_parent() / REPOSITORIES / f"{_slug(name)}-{digest}"


def git_repository(root: Path) -> Repository | None:
    """The repository `root` is checked out from, read from the `.git` folder or file found
    upward (a worktree's `.git` file names its git dir, whose `commondir` names the shared one);
    no git process. None outside git, or when what `.git` says cannot be read."""
    root = Path(root).resolve()
    for top in (root, *root.parents):
        dot = top / ".git"
        try:
            if dot.is_dir():
                gitdir = dot
            elif dot.is_file():
                text = dot.read_text(encoding="utf-8", errors="replace").strip()
                if not text.startswith("gitdir:"):
                    return None
                gitdir = (top / text[len("gitdir:"):].strip()).resolve()
            else:
                continue
            common = gitdir
            pointer = gitdir / "commondir"
            if pointer.is_file():
                common = (gitdir / pointer.read_text(encoding="utf-8", errors="replace").strip()).resolve()
            if not (common / "objects").is_dir():
                return None
        except OSError:
            return None
        subpath = root.relative_to(top).as_posix()
        return Repository(common.resolve(), top, "" if subpath == "." else subpath)
    return None


@dataclass(frozen=True)
class StoreLocation:
    """Where a workspace's facts are stored."""

    path: Path                  # the SQLite file
    checkout: str               # its name in that store: OWN_CHECKOUT, or the root in a shared one
    repository: Path | None     # the repository's state folder when shared (its sync lock lives there)

    @property
    def shared(self) -> bool:
        return self.repository is not None


def store_location(state: Path) -> StoreLocation:
    """The store a state folder's workspace uses (read only; the first sync decides, `prepare`)."""
    state = Path(state)
    recorded = _owner_record(state)
    store = recorded.get("store")
    checkout = recorded.get("checkout")
    if isinstance(store, str) and isinstance(checkout, str) and checkout:
        return StoreLocation(Path(store), checkout, Path(store).parent)
    return StoreLocation(store_path(state), OWN_CHECKOUT, None)


def sharing_enabled() -> bool:
    return os.environ.get(SHARE_ENV, "1").strip() != "0"


def state_dir_for(root: Path, state_dir: Path | str | None = None) -> Path:
    if state_dir:
        return Path(state_dir).resolve()
    return default_state_dir(root)


def store_path(state: Path) -> Path:
    """The state folder's own store file (a shared checkout's is elsewhere: `store_location`)."""
    return state / STORE_FILE


def _owner_record(state: Path) -> dict[str, object]:
    try:
        data = json.loads((Path(state) / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def owner(state: Path) -> str | None:
    """The workspace root recorded in the state folder, or None (never synced, or older)."""
    root = _owner_record(state).get("root")
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


def prepare(state: Path, root: Path) -> StoreLocation:
    """Before a sync writes: the folder exists (0700), is this workspace's, and has its secret;
    returns where its store is (decided at the first sync, and recorded: the module doc)."""
    state = Path(state)
    root = Path(root).resolve()
    check_owner(state, root)
    state.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    if owner(state) is None:
        _write_private(state / OWNER_FILE, json.dumps({"root": str(root)}).encode())
    for name in ("store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite.lock",
                 "sync.lock", OWNER_FILE, SECRET_FILE):
        path = state / name
        if path.is_file() and not path.is_symlink():   # stores written before files were 0600
            os.chmod(path, 0o600)
    load_secret(state)
    location = store_location(state)
    if location.shared or store_path(state).exists():
        return location
    repository = git_repository(root) if sharing_enabled() and state.resolve() == default_state_dir(root) else None
    if repository is None:
        return location
    folder = repository.state_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not (folder / "repository.json").exists():
        _write_private(folder / "repository.json", json.dumps(
            {"git_common_dir": str(repository.common_dir), "subpath": repository.subpath}).encode())
    _replace_private(state / OWNER_FILE, json.dumps(
        {"root": str(root), "store": str(folder / STORE_FILE), "checkout": str(root)}).encode())
    return store_location(state)


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


def _private_temp(path: Path, data: bytes) -> Path:
    """A new 0600 file beside `path` holding `data`, synced to disk (the caller renames or links it)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return tmp


def _replace_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` (0600) through a temporary file renamed over it."""
    os.replace(_private_temp(path, data), path)


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to a new 0600 file at `path`, atomically; when another process won
    the race (the file exists), theirs stays."""
    tmp = _private_temp(path, data)
    try:
        os.link(tmp, path)        # fails when another process won the race: use theirs
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise
    finally:
        os.unlink(tmp)
