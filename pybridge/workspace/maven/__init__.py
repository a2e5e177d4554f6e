"""Maven, the first `BuildSystem` (`pybridge.workspace.buildsystem`).

- `system.py`: `MAVEN`, the seam's methods;
- `discovery.py`: `load_workspace`, the model from the POMs (`pom.py` reads
  them, `compiler.py` reads maven-compiler-plugin, `xmlread.py` parses XML
  safely), no Maven run;
- `classpath.py`: `resolve_classpaths` through Maven (`runner.py` runs it,
  `fallback.py` rebuilds what does not resolve, `nomaven.py` skips Maven
  when no classpath can hold anything, `mvnconfig.py` reads `.mvn`, the
  settings and the local repository, `mavencds.py` speeds Maven's JVM up,
  `cachekey.py` keys the classpath cache);
- `terms.py`: Maven's names (the build file, scopes, wording).
"""

from .classpath import resolve_classpaths, sourcepath
from .discovery import load_workspace
from .system import MAVEN, MavenBuildSystem
from .xmlread import PomError

__all__ = ["MAVEN", "MavenBuildSystem", "PomError", "load_workspace", "resolve_classpaths", "sourcepath"]
