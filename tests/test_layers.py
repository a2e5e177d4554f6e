"""Build systems stay behind their seam: no layer but `pybridge/workspace/` names a build file.

DESIGN section 1: nothing outside `workspace` names `pom.xml` or `build.gradle`, and nothing reads a
build file at query time. The test reads every module's code (docstrings and comments may explain,
so they do not count) for string literals that name a build file and for identifiers that speak of
POMs (`pom_path`, `poms`, `pom_changed`, ...).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pybridge"
BUILD_FILES = ("pom.xml", "build.gradle", "settings.gradle")
POM_WORD = re.compile(r"(?:^|_)poms?(?:_|$)")

# Every layer asks the BuildSystem (issue 23's second step emptied this list). Never grow it.
KNOWN: dict[str, set[str]] = {}
# The one name kept on purpose: the JSON key under which stores written before the seam hold the
# snapshot's build files (`sync/snapshot.py` reads it, never writes it: `LEGACY_BUILD_FILES_KEY`).
STORED_KEYS = {"sync/snapshot.py": {"poms"}}


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def build_names(source: str) -> set[str]:
    """The build-file literals and POM identifiers the code (not its docstrings) of one module uses."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docs:
            value = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            if isinstance(value, str):
                found.update(name for name in BUILD_FILES if name in value)
                if re.fullmatch(r"\w+", value) and POM_WORD.search(value):
                    found.add(value)
        if isinstance(node, ast.alias):
            continue
        for attr in ("id", "attr", "arg", "name"):
            value = getattr(node, attr, None)
            if isinstance(value, str) and (POM_WORD.search(value) or "pom_path" in value):
                found.add(value)
    return found


def outside_workspace() -> dict[str, set[str]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("workspace/"):
            continue
        names = build_names(path.read_text(encoding="utf-8"))
        if names:
            out[rel] = names
    return out


def test_no_layer_but_workspace_names_a_build_file_in_its_code():
    found = outside_workspace()
    allowed = {rel: KNOWN.get(rel, set()) | STORED_KEYS.get(rel, set()) for rel in found}
    beyond = {rel: names - allowed[rel] for rel, names in found.items() if names - allowed[rel]}
    assert beyond == {}, ("These modules name build files outside pybridge/workspace/; ask the BuildSystem "
                          "(pybridge.workspace) or read GenerationMeta instead: " + repr(beyond))


def test_the_checker_sees_literals_and_identifiers_but_not_docstrings():
    source = '''"""Reads pom.xml files."""
def f(module, snap):
    """Each pom.xml."""
    x = module.pom_path
    old_poms = snap.poms
    return name == b"pom.xml" or p == "build.gradle"
'''
    assert build_names(source) == {"pom_path", "old_poms", "poms", "pom.xml", "build.gradle"}


def test_no_module_outside_workspace_imports_a_build_system_package():
    pattern = re.compile(r"^\s*(?:from|import)\s+pybridge\.workspace\.maven\b", re.M)
    users = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
             if not p.relative_to(PACKAGE).as_posix().startswith("workspace/") and pattern.search(p.read_text())]
    assert users == []


def test_the_query_layer_reads_no_build_file():
    """Query answers from the generation (GenerationMeta), never from the workspace's build files."""
    readers = ("load_workspace", "resolve_classpaths", "BuildSystem")
    users = {p.relative_to(PACKAGE).as_posix(): [r for r in readers if r in p.read_text()]
             for folder in ("query", "mcp", "cli") for p in (PACKAGE / folder).rglob("*.py")}
    assert {rel: names for rel, names in users.items() if names} == {}
