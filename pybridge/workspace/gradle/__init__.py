"""Gradle workspaces (DESIGN section 4): the model from one run of the project's own Gradle.

- `owns(root)`: whether `root` is a Gradle workspace (`fingerprint.py`).
- `resolve_gradle(root, state_dir, ...) -> GradleModel`: modules, scopes,
  classpaths, sourcepaths, release, encoding, processor path, agents and
  limitations, from the init script (`pybridge-model.gradle`, run by
  `runner.py`, read by `script.py`, mapped by `mapping.py`), cached by every
  input (`fingerprint.py`).
- `GRADLE`: the `BuildSystem` (`system.py`), registered after Maven.
- `inputs(root, env)`: the files whose change invalidates the model (what the
  live index watches); `source_places(model)`: where source roots can appear.

Tested on Debian's Gradle 4.4.1 only; the paths for Gradle 5 to 9 are behind
version checks in the init script and untested here.
"""

from .fingerprint import inputs, owns
from .mapping import CompileEntry, GradleModel, GradleScope, build_model, source_places
from .resolve import resolve_gradle
from .system import GRADLE, GradleBuildSystem

__all__ = ["GRADLE", "CompileEntry", "GradleBuildSystem",
           "GradleModel", "GradleScope", "build_model", "inputs", "owns", "resolve_gradle",
           "source_places"]
