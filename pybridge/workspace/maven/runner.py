"""Running Maven: the effective POMs, classpaths of the real POMs, and throwaway POM trees that only resolve.

Every call runs `mvn -B -ntp -Dstyle.color=never` with a timeout, in its own
process group (killed as a group on timeout), output captured to a log file
in the state folder. Nothing is ever written into the user's tree: the
effective POMs are read with `help:effective-pom -Doutput=<state file>`, and
every classpath file goes to the state folder.

The one run (when no module depends on a sibling): the effective POMs, and
per project of the real POMs its test classpath and each entry's mediated
scope (which gives the main classpath: compile, provided and system), one pair
of files per project named `<groupId>~<artifactId>` (`.test.cp`: the entries
joined with the path separator; `.list`: dependency:list's lines). By default
a Maven core extension (`pybridge-maven-ext.jar` beside the indexer's jars,
built from jvm/maven-ext; `ext_jar`, `one_run_ext_args`) writes them, with
no goal and no plugin: once Maven has read the projects it writes every
effective model (`MavenXpp3Writer`, as help:effective-pom does) and resolves
each project as Maven does for a mojo that requires test resolution
(`ProjectDependenciesResolver`, the artifacts in the order
`LifecycleDependencyResolver` gives them, which is build-classpath's order),
then stops Maven before any goal with an error (exit code 1: the files, not
the exit code, tell the outcome). A project that does not resolve gets a
`.error` file instead. That saves building the realms of maven-help-plugin
and maven-dependency-plugin (resolving their own dependency trees, most of
the run's time). The plugin path (`one_run_goals`, PYBRIDGE_MAVEN_EXT=0, or
when the jar is missing or Maven did not load it): `help:effective-pom`,
`dependency:build-classpath` and `dependency:list` on the same POMs, the file
names interpolated by Maven per project from
`${project.groupId}~${project.artifactId}`, under `--fail-never`. A project
whose files are missing (resolution failed, e.g. a test-only artifact) is
resolved again by the throwaway reactor. It cannot serve a module with a
sibling dependency (MDEP-409: the sibling is not built), nor one whose POM
configures maven-dependency-plugin at plugin level or for `default-cli`
(that configuration would win over the `-D` values, and could send the
files into the user's tree): such a POM in the workspace keeps the whole
workspace on the two runs; one in a parent outside the workspace is seen
only in the effective POM, after the run (its module then goes to the
throwaway reactor). Both rules hold for the extension path too, although it
runs no plugin (a configuration of maven-dependency-plugin does not touch it):
both paths settle the same modules.

The throwaway reactor (one Maven run for the whole workspace), per real
module M with sources:

- `mN-main`: M's external dependencies of scope compile/provided/system,
- `mN-test`: all of M's external dependencies,
- `mN-lib` (for modules others depend on): M's compile/runtime dependencies,

each with M's effective `dependencyManagement`, repositories and build
extensions. A dependency on a sibling S becomes a `<type>pom</type>`
dependency (same scope, same exclusions) on S's `-lib` throwaway: Maven's
reactor resolves a pom-packaged project to its POM file without building
anything, which is what sidesteps MDEP-409/MDEP-724, and Maven itself then
applies scope mediation, exclusions, optional flags and nearest-wins to what
siblings bring in transitively. `-main` and `-test` are separate projects
because a mojo resolves the test scope before it runs, so a missing
test-only artifact would otherwise also fail the main classpath. The run uses
`--fail-never`, so one module that cannot resolve does not stop the others.

Plugin versions are pinned (maven-help-plugin 3.4.1, maven-dependency-plugin
3.8.1; both need Maven 3.6.3+); offline, they must already be in the local
repository (the throwaway reactor always needs maven-dependency-plugin; the
one run needs neither while the extension serves it: compiled for Java 8
against Maven 3.6.3's API). Every run, on the real POMs or on throwaway ones, starts in the
workspace root with Maven's project base directory set to the one Maven
itself takes for the workspace (`maven_basedir`, passed as MAVEN_BASEDIR to
the mvn script): so `.mvn/maven.config` (`-s settings.xml`, `-D` properties
that activate profiles, `-Dmaven.repo.local`, `-o`), `.mvn/jvm.config` and
`.mvn/extensions.xml` apply to the throwaway reactor as they do when the user
runs mvn, and relative paths in them resolve from the root as theirs do.
Known gaps: only build extensions and `<extensions>true</extensions>` plugins
are carried over from the real POMs; a `.mvn/maven.config` that selects
projects (`-pl`) or fails fast (`-ff`) applies to the throwaway reactor too;
and a launcher that ignores MAVEN_BASEDIR (Maven 3's mvn script and the
Maven wrapper honour it) would run the throwaway reactor without `.mvn`.
Two resolutions must not share one state folder at the same time.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Dependency
from ..proc import run_bounded
from . import mavencds
from .mvnconfig import maven_basedir
from .pom import COMPILER_PLUGIN, compiler_configs_of, dependency_from_xml
from .xmlread import text

HELP_PLUGIN = "org.apache.maven.plugins:maven-help-plugin:3.4.1"
DEPENDENCY_PLUGIN = ("org.apache.maven.plugins", "maven-dependency-plugin", "3.8.1")
THROWAWAY_GROUP = "pybridge.throwaway"
# The files the Maven core extension of the one run (jvm/maven-ext) writes in its folder besides the
# classpath files: the effective POMs, and `started` as soon as Maven loaded it (before reading projects).
EXT_EFFECTIVE_POM, EXT_STARTED = "effective-pom.xml", "started"
MAIN_EXEC, TEST_EXEC = "pb-main", "pb-test"
BUILD_CLASSPATH = [f"{':'.join(DEPENDENCY_PLUGIN)}:build-classpath@{MAIN_EXEC}",
                   f"{':'.join(DEPENDENCY_PLUGIN)}:build-classpath@{TEST_EXEC}"]
_LIST_LINE = re.compile(r"^\s+((?:[^\s:]+:){3,4}[^\s:]+):(compile|provided|system|runtime|test):(.+)$")

_BOILERPLATE = re.compile(r"^(|To see the full stack trace.*|Re-run Maven using.*|For more information about "
                          r"the errors.*|\[Help \d+\].*|After correcting the problems.*|\s*mvn <args> .*)$")
_ON_PROJECT = re.compile(r"^Failed to execute goal.* on project ([\w.\-]+): (.*)$")

FAST_MAVEN_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@dataclass
class MavenRun:
    command: list[str]
    returncode: int | None          # None: did not start or timed out
    output: str
    seconds: float
    log: Path | None = None
    problem: str | None = None      # why it did not run to the end (missing mvn, timeout)

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def error_lines(self) -> list[str]:
        """The `[ERROR]` lines minus Maven's boilerplate, `-> [Help n]` trimmed."""
        out = []
        for line in self.output.splitlines():
            if line.startswith("[ERROR]"):
                msg = re.sub(r"^(\[ERROR\]\s*)+", "", line).strip()
                msg = re.sub(r"\s*-> \[Help \d+\]$", "", msg)
                if not _BOILERPLATE.match(msg) and msg not in out:
                    out.append(msg)
        return out

    def project_errors(self) -> dict[str, str]:
        """artifactId -> Maven's message, for `Failed to execute goal ... on project X: ...`."""
        out: dict[str, str] = {}
        for msg in self.error_lines():
            m = _ON_PROJECT.match(msg)
            if m:
                out.setdefault(m.group(1), m.group(2))
        return out

    def summary(self, limit: int = 1500) -> str:
        if self.problem:
            return self.problem
        tail = [ln.strip() for ln in self.output.splitlines() if ln.strip()][-5:]
        lines = self.error_lines() or [f"Maven exited with code {self.returncode}", *tail]
        msg = " | ".join(lines)
        return msg if len(msg) <= limit else msg[: limit - 1] + "…"


@dataclass
class MavenRunner:
    executable: str | None = None           # default: `mvn` found on env's PATH
    env: Mapping[str, str] | None = None    # default: os.environ
    timeout: float = 300.0
    log_dir: Path | None = None
    runs: list[MavenRun] = field(default_factory=list)
    # The workspace root: every run starts there, with its Maven base directory (see the module doc).
    project_dir: Path | None = None

    def find(self) -> str | None:
        env = dict(os.environ if self.env is None else self.env)
        if self.executable:
            if os.sep in self.executable:
                return self.executable if os.access(self.executable, os.X_OK) else None
            return shutil.which(self.executable, path=env.get("PATH", ""))
        return shutil.which("mvn", path=env.get("PATH", ""))

    def run(self, name: str, args: list[str], cwd: Path, *, offline: bool) -> MavenRun:
        """Run mvn with `args`, in `project_dir` when it is set (else in `cwd`)."""
        exe = self.find()
        cmd = [exe or self.executable or "mvn", "-B", "-ntp", "-Dstyle.color=never",
               *(["-o"] if offline else []), *args]
        if exe is None:
            run = MavenRun(cmd, None, "", 0.0, problem=(
                f"Maven ({self.executable or 'mvn'}) was not found on PATH, so Maven could not resolve the "
                "classpath; install Maven 3.6.3+ or put mvn on PATH, then sync again."))
            self.runs.append(run)
            return run
        env = dict(os.environ if self.env is None else self.env)
        if self.project_dir is not None:
            cwd = self.project_dir
            env.setdefault("MAVEN_BASEDIR", str(maven_basedir(self.project_dir)))
        dump = None
        if not env.get("MAVEN_OPTS"):
            # Maven's runs here are short: C1 only and the serial collector made the two runs for
            # guava 1.3 s faster on 2 cores, and a class-data archive (mavencds.py) maps Maven's
            # classes instead of loading them. A MAVEN_OPTS of the user's own is left as it is.
            sharing, dump = mavencds.options(exe, env, FAST_MAVEN_OPTS)
            env["MAVEN_OPTS"] = " ".join([FAST_MAVEN_OPTS, *sharing])
        done = run_bounded(cmd, cwd=cwd, env=env, timeout=self.timeout)
        problem = None
        if done.timed_out:
            problem = (f"Maven did not finish within {self.timeout:g} s ({' '.join(cmd[1:])}); raise the timeout "
                       "or run that command by hand to see what it waits for.")
        code, text_out = done.returncode, done.output
        mavencds.keep(dump)
        run = MavenRun(cmd, code, text_out, done.seconds, problem=problem)
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            run.log = self.log_dir / f"{len(self.runs):02d}-{name}.log"
            base = f"MAVEN_BASEDIR={env['MAVEN_BASEDIR']} " if env.get("MAVEN_BASEDIR") else ""
            run.log.write_text(f"$ (cd {cwd} && {base}{' '.join(cmd)})\n# exit {code}, {run.seconds:.1f} s\n{text_out}")
        self.runs.append(run)
        return run


# ---------------------------------------------------------------- effective POMs

@dataclass
class EffectivePom:
    """What the throwaway POMs need from one project's effective POM."""

    group_id: str
    artifact_id: str
    packaging: str
    dependencies: list[tuple[Dependency, ET.Element]]
    managed: list[ET.Element]
    repositories: ET.Element | None
    plugin_repositories: ET.Element | None
    extensions: list[ET.Element]           # build extensions and plugins with <extensions>true
    properties: dict[str, str]
    compiler_configs: list[ET.Element]
    # maven-dependency-plugin has a plugin-level or `default-cli` configuration (plugins or
    # pluginManagement): it would apply to our command-line goals on this project
    dependency_plugin_configured: bool = False

    @property
    def id(self) -> str:
        return f"{self.group_id}:{self.artifact_id}"

    def prop(self, name: str) -> str | None:
        v = self.properties.get(name)
        return v if v and "${" not in v else None


def read_effective_poms(root: ET.Element) -> dict[str, EffectivePom]:
    projects = [root] if root.tag == "project" else root.findall("project")
    out: dict[str, EffectivePom] = {}
    for p in projects:
        deps = [(d, el) for el in p.findall("dependencies/dependency")
                if (d := dependency_from_xml(el)) is not None]
        build = p.find("build")
        ext: list[ET.Element] = []
        if build is not None:
            ext = build.findall("extensions/extension") + [
                pl for pl in build.findall("plugins/plugin") if text(pl, "extensions") == "true"]
        configs = compiler_configs_of(build.findall("plugins/plugin")) if build is not None else []
        eff = EffectivePom(text(p, "groupId") or "", text(p, "artifactId") or "", text(p, "packaging") or "jar",
                           deps, p.findall("dependencyManagement/dependencies/dependency"),
                           p.find("repositories"), p.find("pluginRepositories"), ext,
                           {c.tag: (c.text or "").strip() for c in p.findall("properties/*")}, configs,
                           build is not None and configures_dependency_plugin(build))
        out[eff.id] = eff
    return out


def configures_dependency_plugin(build: ET.Element) -> bool:
    """Whether a `<build>` gives maven-dependency-plugin a configuration that applies to a goal
    run from the command line: at plugin level, or in a `default-cli` execution."""
    for plugin in build.findall("plugins/plugin") + build.findall("pluginManagement/plugins/plugin"):
        if text(plugin, "artifactId") != DEPENDENCY_PLUGIN[1] or (text(plugin, "groupId") or DEPENDENCY_PLUGIN[0]) \
                != DEPENDENCY_PLUGIN[0]:
            continue
        config = plugin.find("configuration")
        if (config is not None and len(config)) or any(
                text(ex, "id") == "default-cli" for ex in plugin.findall("executions/execution")):
            return True
    return False


# ---------------------------------------------------------------- the one run on the real POMs

def one_run_goals(effective_pom: Path, outdir: Path) -> list[str]:
    """The goals (and their -D values) of the one run: the effective POMs to `effective_pom`, and per
    project `<g>~<a>.test.cp` (build-classpath) and `<g>~<a>.list` (list, with scopes and paths) in `outdir`."""
    name = "${project.groupId}~${project.artifactId}"
    plugin = ":".join(DEPENDENCY_PLUGIN)
    return [f"{HELP_PLUGIN}:effective-pom", f"-Doutput={effective_pom}",
            f"{plugin}:build-classpath", f"-Dmdep.outputFile={outdir / name}.test.cp",
            f"{plugin}:list", f"-DoutputFile={outdir / name}.list", "-DoutputScope=true",
            "-DoutputAbsoluteArtifactFilename=true"]


def ext_jar() -> Path | None:
    """The Maven core extension that serves the one run without plugins (`MAVEN_EXT_JAR` beside
    the indexer's jars), None when it is missing or PYBRIDGE_MAVEN_EXT=0 asks for the plugin goals."""
    if os.environ.get("PYBRIDGE_MAVEN_EXT") == "0":
        return None
    from pybridge.worker.client import MAVEN_EXT_JAR, jars_dir

    jar = jars_dir() / MAVEN_EXT_JAR
    return jar if jar.is_file() else None


def one_run_ext_args(jar: Path, outdir: Path) -> list[str]:
    """The arguments (no goal) of the one run through the extension: it writes the effective POMs to
    `<outdir>/effective-pom.xml` and per project the same `.test.cp` and `.list` files as
    `one_run_goals`, then stops Maven before any goal (exit code 1, the files tell the outcome)."""
    return [f"-Dmaven.ext.class.path={jar}", f"-Dpybridge.out={outdir}"]


def one_run_files(outdir: Path, group_id: str, artifact_id: str) -> tuple[Path, Path]:
    """(build-classpath file, list file) of one project in the one run."""
    return outdir / f"{group_id}~{artifact_id}.test.cp", outdir / f"{group_id}~{artifact_id}.list"


def read_dependency_list(path: Path) -> dict[Path, tuple[str, str]] | None:
    """`dependency:list` output (with scopes and absolute file names): file -> (groupId:artifactId, scope).
    None when the file is missing or a line that names an artifact cannot be read. A line reads
    `   g:a:type[:classifier]:version:scope:/abs/path[ (optional)][ -- module name [auto]]`."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    out: dict[Path, tuple[str, str]] = {}
    for line in lines:
        if not line.strip() or not line[:1].isspace() or line.strip() == "none":
            continue        # blank, the "The following files have been resolved:" header, or no dependency
        m = _LIST_LINE.match(line)
        if m is None:
            return None
        where = m.group(3).split(" -- ", 1)[0].removesuffix(" (optional)").strip()
        ga = ":".join(m.group(1).split(":")[:2])
        out[Path(where)] = (ga, m.group(2))
    return out


# ---------------------------------------------------------------- throwaway POMs

def _sub(parent: ET.Element, tag: str, value: str | None = None) -> ET.Element:
    el = ET.SubElement(parent, tag)
    if value is not None:
        el.text = value
    return el


def throwaway_pom(artifact_id: str, *, eff: EffectivePom | None = None,
                  dependencies: Sequence[ET.Element] = (),
                  executions: Mapping[str, tuple[str, Path]] | None = None, modules: Sequence[str] = ()) -> ET.Element:
    """A standalone pom-packaged project. `executions`: id -> (includeScope, outputFile)."""
    project = ET.Element("project")
    _sub(project, "modelVersion", "4.0.0")
    _sub(project, "groupId", THROWAWAY_GROUP)
    _sub(project, "artifactId", artifact_id)
    _sub(project, "version", "0")
    _sub(project, "packaging", "pom")
    if modules:
        mods = _sub(project, "modules")
        for m in modules:
            _sub(mods, "module", m)
    if eff is not None:
        for el in (eff.repositories, eff.plugin_repositories):
            if el is not None:
                project.append(copy.deepcopy(el))
        if eff.managed:
            dm = _sub(_sub(project, "dependencyManagement"), "dependencies")
            for el in eff.managed:
                dm.append(copy.deepcopy(el))
    if dependencies:
        deps = _sub(project, "dependencies")
        for el in dependencies:
            deps.append(el)
    build = _sub(project, "build")
    if eff is not None:
        exts = [e for e in eff.extensions if e.tag == "extension"]
        if exts:
            holder = _sub(build, "extensions")
            for e in exts:
                holder.append(copy.deepcopy(e))
    plugins = _sub(build, "plugins")
    if eff is not None:
        for e in eff.extensions:
            if e.tag == "plugin" and text(e, "artifactId") != COMPILER_PLUGIN:
                slim = ET.SubElement(plugins, "plugin")
                for tag in ("groupId", "artifactId", "version", "extensions"):
                    if text(e, tag):
                        _sub(slim, tag, text(e, tag))
    plugin = _sub(plugins, "plugin")
    for tag, value in zip(("groupId", "artifactId", "version"), DEPENDENCY_PLUGIN, strict=True):
        _sub(plugin, tag, value)
    _sub(_sub(plugin, "configuration"), "skip", "true")
    if executions:
        holder = _sub(plugin, "executions")
        for exec_id, (scope, out) in executions.items():
            ex = _sub(holder, "execution")
            _sub(ex, "id", exec_id)
            cfg = _sub(ex, "configuration")
            _sub(cfg, "skip", "false")
            _sub(cfg, "includeScope", scope)
            _sub(cfg, "outputFile", str(out))
    return project


def dependency_xml(d: Dependency, *, extra_exclusions: tuple[tuple[str, str], ...] = ()) -> ET.Element:
    el = ET.Element("dependency")
    _sub(el, "groupId", d.group_id)
    _sub(el, "artifactId", d.artifact_id)
    if d.version:
        _sub(el, "version", d.version)
    if d.type != "jar":
        _sub(el, "type", d.type)
    if d.classifier:
        _sub(el, "classifier", d.classifier)
    _sub(el, "scope", d.scope)
    if d.system_path:
        _sub(el, "systemPath", d.system_path)
    if d.optional:
        _sub(el, "optional", "true")
    excl = tuple(dict.fromkeys(d.exclusions + extra_exclusions))
    if excl:
        holder = _sub(el, "exclusions")
        for g, a in excl:
            x = _sub(holder, "exclusion")
            _sub(x, "groupId", g)
            _sub(x, "artifactId", a)
    return el


def write_pom(project: ET.Element, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.indent(project)
    path.write_bytes(b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(project, encoding="utf-8"))


def read_classpath_file(path: Path, throwaway_root: Path | None = None) -> list[Path] | None:
    """The entries of a build-classpath output file; None when Maven wrote none.
    POM files (our throwaway siblings, pom-typed dependencies) and anything under
    `throwaway_root` are left out."""
    try:
        raw = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    out = []
    for entry in raw.split(os.pathsep) if raw else []:
        p = Path(entry.strip())
        if not entry.strip() or p.suffix == ".pom" or (throwaway_root is not None and p.is_relative_to(throwaway_root)):
            continue
        out.append(p)
    return out
