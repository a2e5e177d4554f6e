"""Installing pybridge into a user's tools: `pybridge doctor` and `pybridge init`.

The CLI's `doctor` and `init` commands are shells over this package, as the other commands
are over `pybridge.query`: it may look at the JDK lookup (`pybridge.worker.jdk`), the
workspace model and the state folder, which the CLI itself never imports.
"""

from pybridge.install.clients import (
    CLIENTS,
    ConfigFile,
    Configured,
    InitError,
    ServerSpec,
    config_path,
    configured,
    render,
    server_command,
    spec_for,
    write,
)
from pybridge.install.doctor import NOTE, OK, PROBLEM, Check, Report, doctor
from pybridge.worker.jdk import Jdk, JdkNotFoundError, find_jdk, inspect_home

__all__ = [
    "CLIENTS", "NOTE", "OK", "PROBLEM", "Check", "ConfigFile", "Configured", "InitError", "Jdk", "JdkNotFoundError",
    "Report", "ServerSpec", "config_path", "configured", "doctor", "find_jdk", "inspect_home", "render",
    "server_command", "spec_for", "write",
]
