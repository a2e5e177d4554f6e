"""Which system library each module and scope is indexed against: the release's API, as javac's.

javac with `--release N` binds against Java N's API (the JDK's `lib/ct.sym`, JEP 247); with
`-source`/`-target` alone, against the library of the JDK it runs on. The build system says which
(`ClasspathResult.api`); this module checks that the worker's JDK can supply that release:

- `api` equal to the worker JDK's own release: its own library (`api` None, as without a release);
- an older release its ct.sym holds: kept, the worker binds against it (`Indexer`'s `ReleaseLibrary`);
- otherwise (a newer release than the JDK, or one its ct.sym lacks): `api` None, so the module is
  indexed against the running JDK's library as before, and the named limitation
  `release_api_unavailable` says so for that module and scope.
"""

from __future__ import annotations

from dataclasses import replace

from pybridge.worker.jdk import api_releases, home_of_libjvm
from pybridge.workspace.buildsystem import Key
from pybridge.workspace.model import ClasspathResult, Limitation

UNAVAILABLE = "release_api_unavailable"


def settle_api(classpaths: dict[Key, ClasspathResult], libjvm: str) -> dict[Key, ClasspathResult]:
    """The classpaths with each `api` the worker's JDK (its JVM library `libjvm`) can supply, or
    None and a `release_api_unavailable` limitation."""
    home = home_of_libjvm(libjvm)
    running, supplied = api_releases(home)
    out: dict[Key, ClasspathResult] = {}
    for (module, scope), cp in classpaths.items():
        if cp.api is None or running is None:
            out[(module, scope)] = cp
        elif cp.api == running:
            out[(module, scope)] = replace(cp, api=None)
        elif cp.api in supplied:
            out[(module, scope)] = cp
        else:
            if cp.api > running:
                why = f"Java {cp.api} is newer than the JDK pybridge runs on (Java {running}, {home})"
                fix = (f"Run pybridge on a JDK {cp.api} or newer (--java, PYBRIDGE_JAVA_HOME or JAVA_HOME) to bind "
                       f"against Java {cp.api}'s API.")
            else:
                why = f"the JDK pybridge runs on (Java {running}, {home}) has no Java {cp.api} in its lib/ct.sym"
                fix = f"This JDK's javac rejects --release {cp.api} too; raise the module's release to bind exactly."
            lim = Limitation(UNAVAILABLE, module, (
                f"{module} compiles with --release {cp.api}, but {why}: its {scope} sources are bound against "
                f"Java {running}'s library instead, and a use of an API that differs between the two may be "
                f"bound otherwise than javac binds it. {fix}"), scope)
            out[(module, scope)] = replace(cp, api=None, limitations=(*cp.limitations, lim))
    return out
