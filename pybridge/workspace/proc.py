"""One run of a build tool (Maven, Gradle) in a process group of its own, bounded by a timeout.

`run_bounded` starts the command in a new session (its pid is the session's
and the process group's id), with stdout and stderr merged and no stdin, and
waits up to `timeout` seconds. Past it, the whole group is killed (a build
tool starts JVMs and shells of its own). Either way, every process still in
the session afterwards is killed too: a build tool may fork one that leaves
the group but stays in the session (Gradle's single-use daemon, when it
outlives its client). The output is decoded as UTF-8 and stripped of ANSI
colour codes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class Finished:
    """How a bounded run ended: its exit code (None: killed at the timeout), output and duration."""

    returncode: int | None
    output: str
    seconds: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_bounded(cmd: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float) -> Finished:
    """Run `cmd` in a session of its own; kill it and all it started at `timeout` seconds (see the module doc)."""
    start = time.monotonic()
    proc = subprocess.Popen(list(cmd), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=timeout)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        _signal_group(proc.pid)
        raw, _ = proc.communicate()
        code = None
    _end_session(proc.pid)
    return Finished(code, _ANSI.sub("", raw.decode("utf-8", "replace")), time.monotonic() - start)


def _end_session(sid: int, wait: float = 5.0) -> None:
    """Kill every process left in session `sid` and wait (up to `wait` seconds) until none is alive:
    a killed process stays in /proc, running, until the kernel has torn it down, so the caller could
    otherwise still find it (under load, a `sleep` the run put in the background was seen once)."""
    until = time.monotonic() + wait
    while True:
        left = session_processes(sid)
        if not left or time.monotonic() > until:
            return
        for pid in left:
            _signal(pid)
        time.sleep(0.02)


def session_processes(sid: int) -> list[int]:
    """The live processes of session `sid` (each run starts one: its id is the run's first pid), from /proc."""
    out = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = entry.read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(entry.parent.name))
    return out


def _signal_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
