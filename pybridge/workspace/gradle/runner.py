"""Running Gradle: which Gradle, on which JDK, with which flags, and what a failure means.

Which Gradle (`find_launcher`):

- the project's wrapper (`./gradlew`) when there is one. Its version comes
  from `distributionUrl` in `gradle/wrapper/gradle-wrapper.properties`, read
  before running. The wrapper unpacks its distribution under
  `<GRADLE_USER_HOME>/wrapper/dists/gradle-<v>-<bin|all>/<hash>/`, marked done
  by a `gradle-<v>-<type>.zip.ok` file; when that is absent and going online is
  not allowed, the run is not even tried: `gradle_distribution_unavailable`.
  Online, the wrapper tries to download it, and a failure says the same;
- else `gradle` on the PATH (no version known before it runs: the init script
  reports it); neither: `gradle_unavailable`.

Which JDK: `org.gradle.java.home` (the workspace's gradle.properties, then the
Gradle user home's), else JAVA_HOME, else `java` on the PATH. For a wrapper
whose version is known, Gradle's compatibility table (`MAX_JAVA`, from
Gradle's documentation: the newest Java each Gradle version runs on) is
checked before the run; when the JDK is too new, the newest installed JDK
that is old enough (`/usr/lib/jvm`, ~/.sdkman, ~/.jdks, /opt/java) is used
instead; when there is none: `gradle_jdk_incompatible`. After a run, Gradle's
own complaints about the JVM (`JDK_MESSAGES`) give the same limitation. Not
for `gradle` on the PATH, whose version is unknown before it runs: Debian
patches its 4.4.1 to run on Java 17, where upstream 4.4 stops at Java 9.
Measured here: that 4.4.1 also reads the sample's model, and compiles, on
Temurin 25 (printing only JDK warnings about sun.misc.Unsafe); the repository's
build.gradle notes that its test task fails on Java 24+, which the model never
runs.

Flags: `--no-daemon --console=plain`, `--offline` for the first run,
`-I <state>/gradle/pybridge-model.gradle`, `-Dpybridge.out=<state>/gradle/out`
(also as PYBRIDGE_GRADLE_OUT: included builds do not see `-P`),
`--project-cache-dir <state>/gradle/project-cache` (so Gradle writes no
`.gradle/` into the tree), and the configuration cache off through its
properties (`-Dorg.gradle.configuration-cache=false`, and the `unsafe` name
of 6.6-8.0; unknown properties are ignored by older versions). Each run is
one process group with a timeout; on timeout the group is killed, and after
every run whatever is left of the group (a single-use daemon Gradle forked
for `org.gradle.jvmargs`) is killed too. Output goes to a log file.

What Gradle still writes into the tree: `buildSrc/.gradle` and
`buildSrc/build` (Gradle builds buildSrc before it configures anything), and
whatever the build's own scripts write at configuration time.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Limitation
from ..proc import run_bounded
from .script import ONLY_PROPERTY, OUT_ENV, OUT_PROPERTY, TASK

WRAPPER_PROPERTIES = Path("gradle") / "wrapper" / "gradle-wrapper.properties"
_DIST = re.compile(r"gradle-(\d+(?:\.\d+)+(?:-[\w.]+)?)-(bin|all)\.zip$")

# Gradle's compatibility matrix: (first Gradle version that runs on a Java, that Java).
_RUNS_ON = [((2, 0), 8), ((4, 3), 9), ((4, 7), 10), ((5, 0), 11), ((5, 4), 12), ((6, 0), 13), ((6, 3), 14),
            ((6, 7), 15), ((7, 0), 16), ((7, 3), 17), ((7, 5), 18), ((7, 6), 19), ((8, 3), 20), ((8, 5), 21),
            ((8, 8), 22), ((8, 10), 23), ((8, 14), 24), ((9, 1), 25)]
# Gradle 9 runs on Java 17+ only; 5 to 8 on Java 8+.
_MIN_JAVA = [((9, 0), 17), ((5, 0), 8), ((0, 0), 7)]

# What Gradle (or Groovy under it) prints when the JVM is too new or too old for it.
JDK_MESSAGES = re.compile(
    r"Unsupported class file major version \d+|Could not determine java version from '[^']*'|"
    r"Gradle requires JVM \d+ or later to run|Unsupported Java\.? ?(?:version)?|"
    r"Could not initialize class org\.codehaus\.groovy\.(?:vmplugin|reflection)[\w.]*|"
    r"java\.lang\.NoClassDefFoundError: Could not initialize class org\.codehaus\.groovy[\w.]*|"
    r"BUG! exception in phase 'semantic analysis'|is not compatible with Java \d+")
DOWNLOAD_MESSAGES = re.compile(
    r"Downloading https?://\S+|java\.net\.(?:UnknownHostException|ConnectException|SocketException)[^\n]*|"
    r"Could not (?:download|install) Gradle distribution[^\n]*|Exception in thread \"main\" java\.(?:net|io)\.[^\n]*")


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version.split("-")[0])[:3])


def max_java(gradle_version: str) -> int | None:
    """The newest Java major this Gradle version runs on (None: older than the table)."""
    v = version_tuple(gradle_version)[:2]
    best = None
    for first, java in _RUNS_ON:
        if v >= first:
            best = java
    return best


def min_java(gradle_version: str) -> int:
    v = version_tuple(gradle_version)[:2]
    return next(java for first, java in _MIN_JAVA if v >= first)


def java_major(home: Path) -> int | None:
    """A JDK's major version from its `release` file (no JVM started)."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r'^JAVA_VERSION="(?:1\.)?(\d+)', text, re.M)
    return int(m.group(1)) if m else None


def installed_jdks(env: Mapping[str, str]) -> list[Path]:
    homes: list[Path] = []
    bases = [Path("/usr/lib/jvm"), Path("/opt/java"), Path.home() / ".jdks",
             Path.home() / ".sdkman" / "candidates" / "java"]
    for base in bases:
        try:
            homes += sorted(p.resolve() for p in base.iterdir() if (p / "bin" / "java").exists())
        except OSError:
            continue
    return list(dict.fromkeys(homes))


def read_properties(path: Path) -> dict[str, str]:
    """A Java .properties file, simply: `key=value` or `key: value` lines, `\\:` unescaped."""
    out: dict[str, str] = {}
    try:
        text = path.read_text(encoding="latin-1")
    except OSError:
        return out
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#!":
            continue
        m = re.match(r"^([^=:\s]+)\s*[=:\s]\s*(.*)$", line)
        if m:
            out[m.group(1)] = m.group(2).replace("\\:", ":").replace("\\=", "=").replace("\\\\", "\\")
    return out


def gradle_user_home(env: Mapping[str, str]) -> Path:
    return Path(env["GRADLE_USER_HOME"]).expanduser() if env.get("GRADLE_USER_HOME") else Path.home() / ".gradle"


@dataclass(frozen=True)
class Launcher:
    """How Gradle is started for a workspace."""

    command: tuple[str, ...]        # the executable (wrapper script or gradle)
    kind: str                       # "wrapper" | "path"
    version: str | None             # known before running only for the wrapper
    distribution: Path | None       # the wrapper's unpacked distribution folder, when present
    distribution_url: str | None
    java_home: Path | None          # the JDK the run gets (JAVA_HOME), None: whatever is on PATH
    java_note: str | None = None    # why another JDK than JAVA_HOME was chosen


def find_launcher(root: Path, env: Mapping[str, str], *, allow_online: bool,
                  executable: str | None = None) -> Launcher | Limitation:
    """The Gradle to run for `root`, or the limitation that says why none can run."""
    java = _configured_java(root, env)
    wrapper = root / "gradlew"
    if executable is None and wrapper.is_file():
        props = read_properties(root / WRAPPER_PROPERTIES)
        url = props.get("distributionUrl")
        m = _DIST.search(url or "")
        version = m.group(1) if m else None
        dist = _distribution(env, m.group(1), m.group(2)) if m else None
        if url and dist is None and not allow_online and not url.startswith("file:"):
            return Limitation("gradle_distribution_unavailable", None, (
                f"The workspace's Gradle wrapper wants Gradle {version or '?'} ({url}), which is not in "
                f"{gradle_user_home(env) / 'wrapper' / 'dists'}, and going online is not allowed. Run `./gradlew "
                "--version` once with network access (or sync with online access allowed), then sync again."))
        command: tuple[str, ...] = (str(wrapper),) if os.access(wrapper, os.X_OK) else ("sh", str(wrapper))
        launcher = Launcher(command, "wrapper", version, dist, url, java)
        return _check_java(launcher, env) if version else launcher
    exe = executable or "gradle"
    found = exe if os.sep in exe and os.access(exe, os.X_OK) else shutil.which(exe, path=env.get("PATH", ""))
    if found is None:
        return Limitation("gradle_unavailable", None, (
            f"Gradle is needed to read this workspace, but it has no ./gradlew and {exe} is not on PATH; install "
            "Gradle (or add the wrapper with `gradle wrapper`), then sync again."))
    return Launcher((found,), "path", None, None, None, java)


def _configured_java(root: Path, env: Mapping[str, str]) -> Path | None:
    for props in (root / "gradle.properties", gradle_user_home(env) / "gradle.properties"):
        home = read_properties(props).get("org.gradle.java.home")
        if home:
            return Path(home)
    if env.get("JAVA_HOME"):
        return Path(env["JAVA_HOME"])
    java = shutil.which("java", path=env.get("PATH", ""))
    return Path(os.path.realpath(java)).parent.parent if java else None


def _distribution(env: Mapping[str, str], version: str, kind: str) -> Path | None:
    base = gradle_user_home(env) / "wrapper" / "dists" / f"gradle-{version}-{kind}"
    try:
        for hashed in sorted(base.iterdir()):
            if (hashed / f"gradle-{version}-{kind}.zip.ok").exists() and (hashed / f"gradle-{version}").is_dir():
                return hashed / f"gradle-{version}"
    except OSError:
        pass
    return None


def _check_java(launcher: Launcher, env: Mapping[str, str]) -> Launcher | Limitation:
    assert launcher.version is not None
    newest, oldest = max_java(launcher.version), min_java(launcher.version)
    have = java_major(launcher.java_home) if launcher.java_home else None
    if newest is None or have is None or oldest <= have <= newest:
        return launcher
    fits = [(major, h) for h in installed_jdks(env) if (major := java_major(h)) and oldest <= major <= newest]
    if fits:
        major, home = max(fits)
        return Launcher(launcher.command, launcher.kind, launcher.version, launcher.distribution,
                        launcher.distribution_url, home,
                        f"Gradle {launcher.version} runs on Java {oldest} to {newest}, not on Java {have} "
                        f"({launcher.java_home}); using Java {major} ({home})")
    return Limitation("gradle_jdk_incompatible", None, (
        f"The workspace's Gradle {launcher.version} runs on Java {oldest} to {newest}, but the JDK found is Java "
        f"{have} ({launcher.java_home}) and no installed JDK fits; install a JDK {newest} (or set JAVA_HOME or "
        "org.gradle.java.home to one), or upgrade the wrapper (`./gradlew wrapper --gradle-version <newer>` on "
        "another JDK), then sync again."))


@dataclass
class GradleRun:
    command: list[str]
    returncode: int | None          # None: timed out
    output: str
    seconds: float
    log: Path | None = None
    problem: str | None = None      # why it did not run to the end (timeout)

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def what_went_wrong(self) -> str | None:
        """Gradle's `* What went wrong:` paragraph, on one line."""
        m = re.search(r"\* What went wrong:\n(.*?)(?:\n\s*\n|\n\* Try:|\Z)", self.output, re.S)
        return " ".join(x.strip() for x in m.group(1).splitlines() if x.strip()) if m else None

    def summary(self, limit: int = 1500) -> str:
        if self.problem:
            return self.problem
        msg = self.what_went_wrong()
        if msg is None:
            tail = [ln.strip() for ln in self.output.splitlines() if ln.strip() and not ln.startswith("WARNING")]
            msg = " | ".join([f"Gradle exited with code {self.returncode}", *tail[-5:]])
        return msg if len(msg) <= limit else msg[: limit - 1] + "…"

    def jdk_problem(self) -> str | None:
        m = JDK_MESSAGES.search(self.output)
        return m.group(0) if m and not self.ok else None

    def download_problem(self) -> str | None:
        if self.ok:
            return None
        hits = [m.group(0) for m in DOWNLOAD_MESSAGES.finditer(self.output)]
        errors = [h for h in hits if not h.startswith("Downloading")]
        return (errors or hits)[-1] if hits else None


@dataclass
class GradleRunner:
    launcher: Launcher
    env: Mapping[str, str]
    timeout: float = 600.0
    log_dir: Path | None = None
    runs: list[GradleRun] = field(default_factory=list)

    def model_args(self, script: Path, out: Path, project_cache: Path, *, offline: bool,
                   only: list[str] | None = None) -> list[str]:
        args = ["--no-daemon", "--console=plain", *(["--offline"] if offline else []),
                "-I", str(script), f"-D{OUT_PROPERTY}={out}", "--project-cache-dir", str(project_cache),
                "-Dorg.gradle.configuration-cache=false", "-Dorg.gradle.unsafe.configuration-cache=false"]
        if only:
            args.append(f"-D{ONLY_PROPERTY}={','.join(only)}")
        return [*args, TASK]

    def run(self, name: str, args: list[str], cwd: Path, *, out: Path | None = None) -> GradleRun:
        cmd = [*self.launcher.command, *args]
        env = dict(self.env)
        if self.launcher.java_home is not None:
            env["JAVA_HOME"] = str(self.launcher.java_home)
        if out is not None:
            env[OUT_ENV] = str(out)
        done = run_bounded(cmd, cwd=cwd, env=env, timeout=self.timeout)
        problem = None
        if done.timed_out:
            problem = (f"Gradle did not finish within {self.timeout:g} s ({' '.join(cmd)}); raise the timeout or "
                       "run that command in the workspace to see what it waits for.")
        code, text = done.returncode, done.output
        run = GradleRun(cmd, code, text, done.seconds, problem=problem)
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            run.log = self.log_dir / f"{len(self.runs):02d}-{name}.log"
            java = f"JAVA_HOME={env.get('JAVA_HOME', '')} "
            run.log.write_text(f"$ (cd {cwd} && {java}{' '.join(cmd)})\n# exit {code}, {run.seconds:.1f} s\n{text}",
                               encoding="utf-8")
        self.runs.append(run)
        return run

