"""The documentation says what exists, and all of it.

- docs/configuration.md lists every option of every command (the click tree of `pybridge.cli`), in
  a table under the command's heading, and no option that does not exist;
- docs/install.md names every option of `doctor`, `init` and the global `--java`, and no option
  that does not exist;
- every `PYBRIDGE_*` variable the code reads (a string literal in `pybridge/`) is in
  configuration.md or install.md, and every one the docs or the README name is read by the code
  (or, for the test and benchmark variables of contributing.md, by tests/, bench/ or scripts/);
- every `--option` the docs or the README write is pybridge's, or one of its tests', benchmarks'
  or scripts';
- the README is a front door: at most 150 lines, and its first 30 lines hold one command block,
  the two set-up commands;
- every relative link of the README and docs/ points to a file (and heading) that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click

from pybridge.cli import main
from tests.support.install_support import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
VARIABLE = re.compile(r"PYBRIDGE_[A-Z0-9_]*[A-Z0-9]")
SETUP = ["scripts/demo", "scripts/test"]


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _options(command: click.Command) -> set[str]:
    """Every option name of the command, short ones included (`--help` aside)."""
    return {o for p in command.params if isinstance(p, click.Option) for o in p.opts} - {"--help"}


def _commands() -> dict[str, click.Command]:
    """The click tree: '' for `pybridge` itself, else the command's path ('sync', ...)."""
    found: dict[str, click.Command] = {}

    def walk(command: click.Command, path: str) -> None:
        found[path] = command
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}".strip())

    walk(main, "")
    return found


def _all_options() -> set[str]:
    return {o for c in _commands().values() for o in _options(c)}


def _documented_options_per_command() -> dict[str, set[str]]:
    """configuration.md's option tables, by the command named in the heading above each
    (`### \\`pybridge sync PATH\\``: 'sync'; `### \\`pybridge\\` (before the command)`: '')."""
    tables: dict[str, set[str]] = {}
    command: str | None = None
    names = set(_commands())
    for line in _text(DOCS / "configuration.md").splitlines():
        heading = re.match(r"#+ `pybridge([^`]*)`", line)
        if heading:
            words = heading.group(1).split()
            command = next((" ".join(words[:n]) for n in range(len(words), -1, -1)
                            if " ".join(words[:n]) in names), None)
            tables.setdefault("?" if command is None else command, set())
        elif line.startswith("#"):
            command = None
        elif command is not None and line.startswith("| `-"):
            cell = line.split("|")[1]
            tables[command] |= set(re.findall(r"`(--?[a-z][a-z-]*)", cell))
    return tables


def _code_variables() -> set[str]:
    """PYBRIDGE_* names in string literals of pybridge/ (comments do not count)."""
    found: set[str] = set()
    for path in (ROOT / "pybridge").rglob("*.py"):
        for node in ast.walk(ast.parse(_text(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found |= set(VARIABLE.findall(node.value))
    return found


def _source(*folders: str) -> str:
    """The tracked text of these folders (not bench/work/, where the benchmarks unpack real projects)."""
    return "\n".join(_text(p) for f in folders for p in sorted((ROOT / f).rglob("*"))
                     if p.is_file() and p.suffix in ("", ".py", ".sh") and "__pycache__" not in p.parts
                     and not p.name.startswith(".") and (ROOT / "bench" / "work") not in p.parents)


def _pages() -> dict[str, str]:
    return {p.name if p.parent == DOCS else "README.md": _text(p) for p in [README, *sorted(DOCS.glob("*.md"))]}


def test_every_option_of_every_command_is_in_configuration_and_nothing_else():
    documented = _documented_options_per_command()
    assert "?" not in documented, "a configuration.md heading names no pybridge command"
    existing = {path: _options(command) for path, command in _commands().items()}
    missing = {c: sorted(o - documented.get(c, set())) for c, o in existing.items() if o - documented.get(c, set())}
    extra = {c: sorted(o - existing[c]) for c, o in documented.items() if o - existing[c]}
    assert missing == {} and extra == {}


def test_every_option_of_doctor_init_and_the_global_java_is_in_install():
    documented = set(OPTION.findall(_text(DOCS / "install.md")))
    commands = _commands()
    wanted = (_options(main) - {"--version"}) | _options(commands["doctor"]) | _options(commands["init"])
    assert sorted(o for o in wanted if o.startswith("--") and o not in documented) == []


def test_every_option_the_docs_write_exists():
    """pybridge's, or else one its tests, benchmarks or scripts take (`--update-goldens`, `--quick`)."""
    pybridge = _all_options()
    others = _source("tests", "bench", "scripts")
    unknown = {name: sorted(o for o in set(OPTION.findall(text)) if o not in pybridge and f'"{o}' not in others
                            and f"'{o}" not in others and f" {o}" not in others)
               for name, text in _pages().items()}
    assert {name: options for name, options in unknown.items() if options} == {}


def test_every_variable_the_code_reads_is_documented():
    documented = set(VARIABLE.findall(_text(DOCS / "configuration.md") + _text(DOCS / "install.md")))
    assert sorted(_code_variables() - documented) == []


def test_every_documented_variable_is_read():
    code = _code_variables()
    others = _source("tests", "bench", "scripts")
    unknown = {name: sorted(v for v in set(VARIABLE.findall(text)) if v not in code and v not in others)
               for name, text in _pages().items()}
    assert {name: variables for name, variables in unknown.items() if variables} == {}


def test_configuration_documents_only_variables_pybridge_reads():
    documented = set(VARIABLE.findall(_text(DOCS / "configuration.md")))
    assert sorted(documented - _code_variables()) == []


def test_the_readme_is_a_front_door():
    lines = _text(README).splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move detail into docs/"
    first, fenced, blocks = lines[:30], False, []
    for line in first:
        if line.startswith("```"):
            fenced = not fenced
            if fenced:
                blocks.append([])
        elif fenced:
            blocks[-1].append(line)
    assert len(blocks) == 1, "the README's first screen holds one command block"
    assert [line.split("#")[0].strip() for line in blocks[0]] == SETUP
    assert all("# " in line for line in blocks[0]), "each set-up command says what it does"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def test_every_relative_link_resolves():
    broken = []
    for path in [README, *sorted(DOCS.glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", _text(path)):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            if not linked.exists():
                broken.append(f"{path.name}: {target}")
            elif anchor and linked.suffix == ".md":
                headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", _text(linked), re.M)}
                if anchor not in headings:
                    broken.append(f"{path.name}: {target}")
    assert broken == []
