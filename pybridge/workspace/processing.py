"""The limitations annotation processors bring (DESIGN section 8), for every build system.

`annotation_processing_not_run` when a module runs annotation processors that
pybridge does not run, and, for `main`, `generated_sources_absent` when a
processor other than Lombok (which generates no files) is configured but no
generated source folder exists. The build system's `Wording` says where such
folders appear and how to make them.
"""

from __future__ import annotations

from .buildsystem import Wording
from .model import Limitation, Module


def processing_limitations(m: Module, scope: str, wording: Wording,
                           indexed: frozenset[str] = frozenset()) -> list[Limitation]:
    """`annotation_processing_not_run` (and `generated_sources_absent`) for a module's processors,
    leaving out those in `indexed` (e.g. Lombok, when its agent runs in the indexer JVM)."""
    processors = [p for p in m.annotation_processors if p not in indexed]
    if not m.annotation_processing or not processors:
        return []
    names = ", ".join(processors)
    out = [Limitation("annotation_processing_not_run", m.id,
                      f"{m.id} runs annotation processors ({names}); pybridge does not run them, so members "
                      "they add (Lombok getters, builders, ...) are invisible to the compiler here.", scope)]
    file_makers = [p for p in processors if not p.startswith("org.projectlombok:")]
    if scope == "main" and file_makers and not m.scopes["main"].generated_roots:
        out.append(Limitation("generated_sources_absent", m.id,
                              f"{m.id} has annotation processors ({', '.join(file_makers)}) but no folder under "
                              f"{wording.generated_folder}; {wording.generate_sources}, then sync, "
                              "to index the sources they generate.", scope))
    return out
