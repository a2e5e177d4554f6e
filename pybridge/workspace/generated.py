"""Generated source folders: `target/generated-sources/*` and `target/generated-test-sources/*`.

`load_workspace` lists them as scope roots when they exist (DESIGN section 4),
so sync indexes them like the hand-written sources. Their facts are marked as
generated (`mark_generated`): every declaration gets the `DECL_GENERATED`
modifier bit and every reference the `REF_IN_GENERATED` flag, and the answers
say `generated: true`, so an agent can tell code that a build step wrote (and
will overwrite) from code a person maintains.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pybridge.facts import DECL_GENERATED, REF_IN_GENERATED, FileFacts

from .model import Workspace


def generated_roots(workspace: Workspace) -> tuple[Path, ...]:
    """Every generated source folder of every module and scope (absolute, resolved)."""
    return tuple(dict.fromkeys(r for m in workspace.modules for s in m.scopes.values() for r in s.generated_roots))


def is_generated(path: Path | str, roots: tuple[Path, ...]) -> bool:
    p = Path(path)
    return any(p.is_relative_to(r) for r in roots)


def mark_generated(ff: FileFacts) -> FileFacts:
    """The same facts with every declaration and reference marked as generated."""
    return replace(ff, declarations=[d._replace(modifiers=d.modifiers | DECL_GENERATED) for d in ff.declarations],
                   references=[r._replace(flags=r.flags | REF_IN_GENERATED) for r in ff.references],
                   signatures=None)     # the indexer's were computed with the modifiers unmarked
