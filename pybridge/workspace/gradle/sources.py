"""A library jar's sources jar through Gradle (issue 26 part 2: the `SourcesFetcher` of a Gradle
workspace), offline first.

1. Where Gradle keeps it: a sibling hash folder of the jar in its cache (`local_sources_jar`).
2. Else, online allowed and once per jar and state folder: a one-task Gradle build written into
   `<state>/library-sources/gradle-fetch/` resolves `group:artifact:version:sources@jar` through a
   configuration of its own, with the jar's Gradle user home (so the jar lands in the same cache)
   and the repositories its init scripts give every project, else Maven Central. The resolved
   path is recorded beside the run's log (a file repository's jar is not copied into the cache).

Only a jar of Gradle's cache (`.../caches/modules-2/files-2.1/group/artifact/version/hash/x.jar`)
has coordinates here; any other gives None.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..library import coordinates, local_sources_jar
from ..model import Limitation
from .runner import GradleRunner, find_launcher

BUILD = """// Written by pybridge: resolves one sources jar (the property pybridge.sources) and writes its path.
if (repositories.isEmpty()) {
    repositories { mavenCentral() }
}
configurations { pybridgeSources }
dependencies {
    pybridgeSources(System.getProperty('pybridge.sources') + ':sources@jar') { transitive = false }
}
task pybridgeSources {
    doLast {
        def files = configurations.pybridgeSources.resolve()
        new File(System.getProperty('pybridge.sources.out')).text = files.isEmpty() ? '' : files.iterator().next().path
    }
}
"""


def user_home_of(jar: Path) -> Path | None:
    """The Gradle user home whose cache holds `jar` (`<home>/caches/modules-2/files-2.1/g/a/v/hash/x.jar`)."""
    parents = jar.parents
    if len(parents) < 8 or [parents[i].name for i in (4, 5, 6)] != ["files-2.1", "modules-2", "caches"]:
        return None
    return parents[7]


def fetch_sources(jar: Path, state_dir: Path, *, allow_online: bool, timeout: float) -> Path | None:
    found = local_sources_jar(jar)
    coords = coordinates(jar)
    home = user_home_of(jar)
    if found is not None or not allow_online or coords is None or home is None:
        return found
    fetched = state_dir / "library-sources" / "fetched"
    tried = fetched / (coords.replace(":", "_") + ".log")
    resolved = tried.with_suffix(".path")
    if tried.exists():          # fetched or refused before: Gradle is not asked twice
        return local_sources_jar(jar) or _recorded(resolved)
    build = state_dir / "library-sources" / "gradle-fetch"
    build.mkdir(parents=True, exist_ok=True)
    (build / "build.gradle").write_text(BUILD, encoding="utf-8")
    (build / "settings.gradle").write_text("// a build of its own: Gradle looks no further up for settings\n",
                                           encoding="utf-8")
    fetched.mkdir(parents=True, exist_ok=True)
    resolved.unlink(missing_ok=True)
    launcher = find_launcher(build, os.environ, allow_online=True)
    if isinstance(launcher, Limitation):
        tried.write_text(f"# not run: {launcher.message}\n", encoding="utf-8")
        return None
    run = GradleRunner(launcher, os.environ, timeout=timeout).run(
        "sources", ["--no-daemon", "--console=plain", "--gradle-user-home", str(home), f"-Dpybridge.sources={coords}",
                    f"-Dpybridge.sources.out={resolved}", "pybridgeSources"], build)
    tried.write_text(f"$ {' '.join(run.command)}\n# exit {run.returncode}\n{run.output[-4000:]}", encoding="utf-8")
    return local_sources_jar(jar) or _recorded(resolved)


def _recorded(resolved: Path) -> Path | None:
    try:
        text = resolved.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    path = Path(text) if text else None
    return path if path is not None and path.is_file() else None
