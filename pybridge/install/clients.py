"""`pybridge init`: the MCP configuration of each agent host, for one workspace.

Each host has its own file and format (checked against each host's documentation):

- claude-code: `<root>/.mcp.json` (the project scope), servers under `mcpServers`, each with
  `type: stdio`, `command`, `args`, `env`;
- claude-desktop: `claude_desktop_config.json`, one for all workspaces: on macOS in
  `~/Library/Application Support/Claude/`, on Windows in `%APPDATA%\\Claude\\`, elsewhere in
  `$XDG_CONFIG_HOME/Claude/` (`~/.config/Claude/`); `mcpServers`, `command`, `args`, `env`;
- cursor: `<root>/.cursor/mcp.json`, `mcpServers`, `command`, `args`, `env`;
- vscode: `<root>/.vscode/mcp.json`, `servers`, each with `type: stdio`, `command`, `args`, `env`;
- codex: `<root>/.codex/config.toml` (Codex reads it in trusted projects), a table
  `[mcp_servers.NAME]` with `command`, `args`, `startup_timeout_sec`, `tool_timeout_sec` and
  an `[mcp_servers.NAME.env]` table.

The entry runs `pybridge serve --repo <root>` by the absolute path of the `pybridge` script
beside this interpreter (else this interpreter with `-m pybridge.cli`), with `JAVA_HOME`
set to the JDK the lookup finds: hosts started from a desktop do not see the shell's
environment. Claude Desktop's entry also carries the PATH `init` ran with (it starts servers
with a bare PATH, where `mvn` is not found). Codex waits 10 s for a server to start and 60 s
for a tool by default; the entry raises both (a first sync can take minutes).

The server is named `pybridge` in the project files and `pybridge-<folder>` in Claude
Desktop's file, which is one for all workspaces. An existing file is merged: other servers
and other settings stay as they were (JSON key order kept; TOML text kept, comments
included); an entry of the same name is replaced. A file that cannot be read as its
format (a JSON file with comments, say) is never overwritten: `InitError` says so and
`--print` shows what to add by hand.

`alwaysLoad`: Claude Code reads it per server (`"alwaysLoad": true` in the entry: every tool
loaded at session start) or per tool (`_meta["anthropic/alwaysLoad"]` in the tool list). The
server marks its core tools (pybridge.mcp.server.ALWAYS_LOAD), so the entry leaves the
server-wide switch off; the other hosts read neither.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pybridge.errors import PybridgeError
from pybridge.install.toml_table import TomlMergeError, replace_table

CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode", "codex")
CODEX_STARTUP_TIMEOUT_SEC = 30
CODEX_TOOL_TIMEOUT_SEC = 600


class InitError(PybridgeError):
    """A configuration file cannot be merged; the message names it and what to do."""


@dataclass(frozen=True)
class ServerSpec:
    """What every host's entry says: how to start `pybridge serve` for this workspace."""

    name: str
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ConfigFile:
    """One host's file as `init` would leave it."""

    client: str
    path: Path
    text: str            # the whole new content
    action: str          # "created", "added", "replaced" or "unchanged"


@dataclass(frozen=True)
class Configured:
    """An entry found in a host's file that serves this workspace."""

    client: str
    path: Path
    name: str
    command: str

    @property
    def command_exists(self) -> bool:
        return os.path.isfile(self.command) and os.access(self.command, os.X_OK)


def server_command() -> tuple[str, tuple[str, ...]]:
    """The absolute command that starts this pybridge: the console script beside the
    interpreter when there is one, else the interpreter with `-m pybridge.cli`."""
    script = Path(sys.executable).parent / ("pybridge.exe" if os.name == "nt" else "pybridge")
    if script.is_file() and os.access(script, os.X_OK):
        return str(script), ()
    return sys.executable, ("-m", "pybridge.cli")


def default_name(client: str, root: Path) -> str:
    """`pybridge`, except in Claude Desktop's one file for all workspaces: `pybridge-<folder>`."""
    if client != "claude-desktop":
        return "pybridge"
    return "pybridge-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", root.name).strip("-") or "workspace")


def spec_for(client: str, root: Path, *, java_home: Path | None, env: Mapping[str, str],
             name: str | None = None, command: tuple[str, tuple[str, ...]] | None = None) -> ServerSpec:
    exe, prefix = command or server_command()
    server_env = {"JAVA_HOME": str(java_home)} if java_home is not None else {}
    if client == "claude-desktop" and env.get("PATH"):
        server_env["PATH"] = env["PATH"]
    return ServerSpec(name or default_name(client, root), exe, (*prefix, "serve", "--repo", str(root)), server_env)


def config_path(client: str, root: Path, env: Mapping[str, str], home: Path | None = None,
                platform: str = sys.platform) -> Path:
    """Where `client` reads its MCP servers for the workspace at `root`."""
    home = home or Path(env.get("HOME") or Path.home())
    if client == "claude-code":
        return root / ".mcp.json"
    if client == "cursor":
        return root / ".cursor" / "mcp.json"
    if client == "vscode":
        return root / ".vscode" / "mcp.json"
    if client == "codex":
        return root / ".codex" / "config.toml"
    if client == "claude-desktop":
        if platform == "darwin":
            base = home / "Library" / "Application Support"
        elif platform == "win32":
            base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        else:
            xdg = env.get("XDG_CONFIG_HOME")
            base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".config"
        return base / "Claude" / "claude_desktop_config.json"
    raise ValueError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")


def entry(client: str, spec: ServerSpec) -> dict[str, Any]:
    """The host's entry for the server (JSON hosts), or the Codex table's data."""
    out: dict[str, Any] = {}
    if client in ("claude-code", "vscode"):
        out["type"] = "stdio"
    out["command"] = spec.command
    out["args"] = list(spec.args)
    if client == "codex":
        out["startup_timeout_sec"] = CODEX_STARTUP_TIMEOUT_SEC
        out["tool_timeout_sec"] = CODEX_TOOL_TIMEOUT_SEC
    if spec.env:
        out["env"] = dict(spec.env)
    return out


def _servers_key(client: str) -> str:
    return "servers" if client == "vscode" else "mcpServers"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InitError(f"Cannot read {path} ({exc.strerror}); fix its permissions, or use --print and add the "
                        "entry by hand.") from None


def render(client: str, path: Path, spec: ServerSpec) -> ConfigFile:
    """The file at `path` with the server's entry merged in (see the module doc)."""
    old = _read(path)
    data = entry(client, spec)
    if client == "codex":
        return _render_toml(path, old, spec.name, data)
    return _render_json(client, path, old, spec.name, data)


def _render_json(client: str, path: Path, old: str | None, name: str, data: dict[str, Any]) -> ConfigFile:
    servers_key = _servers_key(client)
    if old is None or not old.strip():
        doc: dict[str, Any] = {servers_key: {name: data}}
        return ConfigFile(client, path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n", "created")
    try:
        doc = json.loads(old)
    except ValueError as exc:
        raise InitError(f"{path} is not plain JSON ({exc}; comments are not read), so pybridge will not rewrite "
                        f"it. Add the {name!r} entry under {servers_key!r} by hand: `pybridge init --client "
                        f"{client} --print` shows it.") from None
    if not isinstance(doc, dict) or not isinstance(doc.get(servers_key, {}), dict):
        raise InitError(f"{path} does not hold a JSON object with an object {servers_key!r}; fix the file, or "
                        f"add the entry by hand (`pybridge init --client {client} --print` shows it).")
    servers = doc.setdefault(servers_key, {})
    action = "unchanged" if servers.get(name) == data else "replaced" if name in servers else "added"
    servers[name] = data
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return ConfigFile(client, path, old if action == "unchanged" else text, action)


def _render_toml(path: Path, old: str | None, name: str, data: dict[str, Any]) -> ConfigFile:
    table = ("mcp_servers", name)
    try:
        before = tomllib.loads(old or "")
        text = replace_table(old or "", table, data)
    except (tomllib.TOMLDecodeError, TomlMergeError) as exc:
        raise InitError(f"{path} cannot be merged ({exc}), so pybridge will not rewrite it. Add the "
                        f"[mcp_servers.{name}] table by hand: `pybridge init --client codex --print` shows "
                        "it.") from None
    existing = before.get("mcp_servers", {}).get(name) if isinstance(before.get("mcp_servers"), dict) else None
    if old is None or not old.strip():
        return ConfigFile("codex", path, text, "created")
    if existing == data:
        return ConfigFile("codex", path, old, "unchanged")
    return ConfigFile("codex", path, text, "replaced" if existing is not None else "added")


def write(config: ConfigFile) -> None:
    """Write the file in one step (a temporary file renamed over it), keeping an existing file's mode."""
    if config.action == "unchanged":
        return
    config.path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = config.path.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{config.path.name}.", suffix=".tmp", dir=config.path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(config.text)
        os.chmod(tmp, mode if mode is not None else 0o644)
        os.replace(tmp, config.path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _serves(args: Any, root: Path) -> bool:
    if not isinstance(args, list):
        return False
    for i, arg in enumerate(args[:-1]):
        if arg == "--repo" and isinstance(args[i + 1], str) and os.path.normpath(args[i + 1]) == str(root):
            return True
    return False


def configured(root: Path, env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Configured]:
    """The entries in the hosts' files (those `init` writes) that serve the workspace at `root`."""
    env = os.environ if env is None else env
    root = Path(root).resolve()
    found = []
    for client in CLIENTS:
        path = config_path(client, root, env, home)
        try:
            text = path.read_text(encoding="utf-8")
            doc = tomllib.loads(text) if client == "codex" else json.loads(text)
        except (OSError, ValueError):
            continue
        servers = doc.get("mcp_servers" if client == "codex" else _servers_key(client)) if isinstance(doc, dict) \
            else None
        if not isinstance(servers, dict):
            continue
        for name, server in servers.items():
            if (isinstance(server, dict) and _serves(server.get("args"), root)
                    and isinstance(server.get("command"), str)):
                found.append(Configured(client, path, name, server["command"]))
    return found
