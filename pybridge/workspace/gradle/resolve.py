"""`resolve_gradle`: one Gradle run (two when going online helps), cached, mapped to the workspace model.

Steps:

1. Choose the Gradle and JDK (`runner.find_launcher`); a limitation there
   (`gradle_unavailable`, `gradle_distribution_unavailable`,
   `gradle_jdk_incompatible`) ends the resolution with no module: without
   Gradle nothing says what the modules are.
2. The cache key (`fingerprint`): every input file and fact. A cached model
   whose key matches, whose model-named build files are unchanged and whose
   classpath files all still exist is used without running Gradle: the state
   folder's `gradle/model-cache.json`, else the shared one in pybridge's cache
   folder (`<cache dir>/gradle-models/<key>.json`).
3. Otherwise the init script runs offline. When something did not resolve (a
   source set with failures, or no output at all) and `allow_online`, it runs
   again online, writing only the projects that failed (`-Dpybridge.only`),
   or all of them when the offline run wrote nothing; not when Gradle could
   not run on the JDK, nor when the wrapper could not download its
   distribution (it tries whatever the flags say: the offline run did).
4. The output is mapped (`mapping.build_model`). It is cached only when no
   classpath is unresolved and the run had no limitation.

Nothing here raises for a Gradle problem: each becomes a named limitation
with Gradle's message and what to do. A state folder that cannot be written
raises WorkspaceError.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pybridge.errors import WorkspaceError

from ..model import Limitation, Workspace
from ..userdirs import cache_home
from .fingerprint import cache_key, digest, facts, inputs, model_files
from .mapping import GradleModel, build_model
from .runner import GradleRun, GradleRunner, Launcher, find_launcher
from .script import GradleOutputError, ProjectJson, install, parse_project, read_output, read_raw

Progress = Callable[[str], None]
CACHE_VERSION = 1
log = logging.getLogger(__name__)


def resolve_gradle(root: Path | str, state_dir: Path | str, *, allow_online: bool = True, timeout: float = 600,
                   env: Mapping[str, str] | None = None, use_cache: bool = True, progress: Progress | None = None,
                   gradle_executable: str | None = None) -> GradleModel:
    """The Gradle workspace at `root`: modules, scopes, classpaths and limitations.

    Gradle's files go to `<state_dir>/gradle/` (the init script, `out/`,
    `project-cache/`, `logs/`). `gradle_executable` forces a Gradle (no
    wrapper). Each run is limited to `timeout` seconds."""
    say = progress or (lambda _msg: None)
    root = Path(root).resolve()
    env = dict(os.environ if env is None else env)
    state = Path(state_dir).resolve() / "gradle"
    found = find_launcher(root, env, allow_online=allow_online, executable=gradle_executable)
    if isinstance(found, Limitation):
        return GradleModel(Workspace(root, (), "gradle"), {}, {}, (found,))
    launcher = found
    if launcher.java_note:
        say(launcher.java_note)
    fact = facts(root, launcher, env, allow_online)
    key = cache_key(inputs(root, env), fact)
    try:
        if use_cache:
            cached = _load(state / "model-cache.json", key) or _load_shared(key)
            if cached is not None:
                say("The Gradle build did not change since it was last read: using the cached model")
                _store(state / "model-cache.json", key, cached, shared=False)
                return build_model(root, [parse_project(r) for r in cached])
        projects, problems = _run(root, state, launcher, env, timeout, allow_online, say)
        model = build_model(root, projects.values())
        model = GradleModel(model.workspace, model.classpaths, model.scopes, (*model.limitations, *problems),
                            model.agents, model.gradle_version, model.notes, model.projects)
        unresolved = any(lim.kind == "classpath_unresolved" for cp in model.classpaths.values()
                         for lim in cp.limitations)
        if not problems and not unresolved and projects:
            _store(state / "model-cache.json", key, read_raw(state / "out"), shared=True)
        return model
    except OSError as exc:
        raise WorkspaceError(f"Cannot write pybridge's state folder {state}: {exc}; free some space or choose "
                             "another folder with --state-dir.") from None


def _run(root: Path, state: Path, launcher: Launcher, env: Mapping[str, str], timeout: float, allow_online: bool,
         say: Progress) -> tuple[dict[str, ProjectJson], list[Limitation]]:
    script = install(state)
    out, pcache = state / "out", state / "project-cache"
    runner = GradleRunner(launcher, env, timeout, state / "logs")
    shutil.rmtree(out, ignore_errors=True)
    say(f"Reading the Gradle build with {' '.join(launcher.command)} (offline)")
    run = runner.run("model-offline", runner.model_args(script, out, pcache, offline=True), root, out=out)
    projects, problems = _read(out)
    # Online helps what did not resolve; not a JDK Gradle cannot run on, nor a wrapper distribution
    # (the wrapper downloads it whatever the flags say, so the first run already tried)
    hopeless = run.jdk_problem() or (launcher.kind == "wrapper" and run.download_problem())
    if allow_online and run.returncode is not None and not hopeless and (not run.ok or _failed(projects)):
        failed = _failed(projects) if run.ok else []
        say(f"Reading the Gradle build online, for {len(failed) or 'all'} project(s) that did not resolve offline")
        run = runner.run("model-online", runner.model_args(script, out, pcache, offline=False, only=failed), root,
                         out=out)
        projects, problems = _read(out)
    if not run.ok:
        problems.append(_run_limitation(run, launcher, bool(projects)))
    return projects, problems


def _read(out: Path) -> tuple[dict[str, ProjectJson], list[Limitation]]:
    try:
        return read_output(out), []
    except GradleOutputError as exc:
        return {}, [Limitation("classpath_unresolved", None, str(exc))]


def _failed(projects: Mapping[str, ProjectJson]) -> list[str]:
    return [stem for stem, p in projects.items()
            if any(ss.classpath_error or (ss.compile_classpath and ss.compile_classpath.failures)
                   for ss in p.source_sets)]


def _run_limitation(run: GradleRun, launcher: Launcher, partial: bool) -> Limitation:
    jdk = run.jdk_problem()
    log_hint = f" (log: {run.log})" if run.log else ""
    if jdk:
        return Limitation("gradle_jdk_incompatible", None, (
            f"Gradle{' ' + launcher.version if launcher.version else ''} cannot run on the JDK "
            f"{launcher.java_home or 'on PATH'}: {jdk}{log_hint}. Set JAVA_HOME (or org.gradle.java.home) to a JDK "
            "this Gradle supports, or upgrade the Gradle wrapper, then sync again."))
    download = run.download_problem() if launcher.kind == "wrapper" else None
    if download and launcher.distribution is None:
        return Limitation("gradle_distribution_unavailable", None, (
            f"The Gradle wrapper could not download Gradle {launcher.version or ''} ({launcher.distribution_url}): "
            f"{download}{log_hint}. Run `./gradlew --version` with network access, or put the distribution in "
            "the Gradle user home's wrapper/dists, then sync again."))
    what = "Some projects were read, but" if partial else "No project was read:"
    return Limitation("classpath_unresolved", None, (
        f"{what} Gradle failed: {run.summary()}{log_hint}. Run `{' '.join(launcher.command)} help` in the "
        "workspace to see the problem, fix it, then sync again."))


# ---------------------------------------------------------------- cache

def _shared_dir() -> Path | None:
    home = cache_home()
    return None if home is None else home / "gradle-models"


def _load(path: Path, key: str) -> list[dict[str, Any]] | None:
    """The cached script output under `key`, when the build files the model names are unchanged and every
    external classpath file still exists."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("key") != key:
            return None
        if digest(Path(p) for p in data["files"]) != data["files"]:
            return None
        raws = list(data["projects"])
        projects = [parse_project(p) for p in raws]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    for p in projects:
        for ss in p.source_sets:
            for r in (ss.compile_classpath, ss.annotation_processor):
                if r is not None and not all(e.file.exists() for e in r.entries if e.kind != "project"):
                    return None
    return raws


def _load_shared(key: str) -> list[dict[str, Any]] | None:
    folder = _shared_dir()
    return None if folder is None else _load(folder / f"{key}.json", key)


def _store(path: Path, key: str, raws: list[dict[str, Any]], *, shared: bool) -> None:
    projects = [parse_project(r) for r in raws]
    text = json.dumps({"version": CACHE_VERSION, "key": key, "files": digest(model_files(projects)),
                       "projects": raws})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    folder = _shared_dir()
    if not shared or folder is None:
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(name, folder / f"{key}.json")
    except OSError as exc:
        log.debug("gradle model cache: not shared in %s: %s", folder, exc)
