"""docs/install.md says what `doctor`, `init` and `--java` take: every option it names exists, and every
option of those commands is named there; every PYBRIDGE_ variable it names is read by the code."""

from __future__ import annotations

import re

import click

from pybridge.cli import main
from tests.install_support import ROOT

DOC = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")


def _options(command: click.Command) -> set[str]:
    return {o for p in command.params if isinstance(p, click.Option) for o in p.opts if o.startswith("--")}


def test_every_option_of_doctor_init_and_the_global_java_is_documented():
    documented = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", DOC))
    wanted = (_options(main) - {"--version", "--help"}) | _options(main.commands["doctor"]) \
        | _options(main.commands["init"])
    assert sorted(wanted - documented) == []


def test_every_documented_option_exists():
    existing = _options(main) | {o for c in main.commands.values() for o in _options(c)}
    documented = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", DOC))
    assert sorted(documented - existing) == []


def test_every_documented_pybridge_variable_is_read_by_the_code():
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "pybridge").rglob("*.py"))
    documented = set(re.findall(r"PYBRIDGE_[A-Z_]+", DOC))
    assert documented and sorted(v for v in documented if v not in source) == []
