"""The first run (issue 25, item 4): `pybridge serve` with no `--repo` finds the workspace root upward from
its working directory, answers `initialize` before anything slow, syncs a never-synced workspace in the
background, and meanwhile answers `indexing` (files done and total, an ETA) or waits, never `not_synced`;
`status` says `ready`, `indexing` or `failed`. Real `serve` processes through the MCP SDK's client; every wait
polls with a bounded deadline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest

from pybridge.errors import WorkspaceError
from pybridge.workspace.root import find_root
from tests.support.mcp_session import checked_call, serve

DEADLINE = 300      # seconds: a bound for waits on a loaded machine, never a measured time

# Runs the CLI with the sync's `sync.indexing` point held until the file named by PYBRIDGE_TEST_GATE exists:
# the first sync stops once its files are listed and the first progress is reported, so the test sees it running.
GATED = """
import os, sys, time
from pybridge.sync import faults
gate = os.environ["PYBRIDGE_TEST_GATE"]
def hit(point):
    while point == "sync.indexing" and not os.path.exists(gate):
        time.sleep(0.05)
faults.hit = hit
from pybridge.cli import main
main(sys.argv[1:], prog_name="pybridge")
"""


@pytest.fixture
def reactor(tmp_path, samples):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    return root, tmp_path / "state-home"


def _call(client, name, args, schemas):
    payload, is_error, _text = checked_call(client, name, args, schemas)
    return payload, is_error


def _poll(what, until, deadline=DEADLINE):
    """`what()` until `until(value)` holds; the last value (the test fails when the deadline passes first)."""
    end = time.monotonic() + deadline
    while True:
        value = what()
        if until(value) or time.monotonic() > end:
            return value
        time.sleep(0.1)


def _status(client, schemas):
    payload, is_error = _call(client, "status", {}, schemas)
    assert not is_error, payload
    return payload


def test_find_root_walks_up_to_the_reactor_that_lists_the_module(reactor, tmp_path):
    root, _ = reactor
    assert find_root(root / "core" / "src" / "main" / "java") == root
    assert find_root(root) == root
    lone = tmp_path / "lone"       # a module copied out of its reactor is a workspace of its own
    shutil.copytree(root / "core", lone)
    assert find_root(lone / "src") == lone
    with pytest.raises(WorkspaceError, match="No workspace found.*--repo PATH"):
        find_root(tmp_path)


def test_serve_without_repo_outside_a_workspace_says_what_to_do(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pybridge.cli", "serve"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert "No workspace found" in done.stderr and "--repo PATH" in done.stderr


def test_a_never_synced_workspace_is_indexed_in_the_background_and_tools_say_indexing_meanwhile(reactor):
    root, home = reactor
    gate = home.parent / "gate"
    with serve([], home, {"PYBRIDGE_TEST_GATE": str(gate)}, options=["--fresh-wait", "0.5"],
               cwd=root / "core" / "src", launcher=["-c", GATED]) as client:
        schemas = {t.name: t.output_schema for t in client.list_tools()}
        status = _poll(lambda: _status(client, schemas),
                       lambda s: s.get("indexing", {}).get("filesTotal") is not None)
        assert status["repo"] == "reactor" and status["root"] == str(root)      # found from core/src
        assert status["state"] == "indexing" and status["synced"] is False, status
        progress = status["indexing"]
        assert progress["filesTotal"] > 0 and 0 <= progress["filesDone"] <= progress["filesTotal"]
        assert progress["phase"] == "index" and "etaSeconds" in progress

        for tool, args in (("findReferences", {"symbol": "Names.normalize"}), ("find_symbol", {"query": "Names"})):
            answer, is_error = _call(client, tool, args, schemas)      # waits 0.5 s, then says how far it got
            assert is_error and answer["code"] == "indexing", answer
            assert answer["filesTotal"] == progress["filesTotal"] and answer["filesDone"] >= 0
            assert "etaSeconds" in answer and "indexed for the first time" in answer["error"]

        gate.touch()
        status = _poll(lambda: _status(client, schemas), lambda s: s["state"] != "indexing")
        assert status["state"] == "ready" and status["synced"] is True and "indexing" not in status, status
        answer, is_error = _call(client, "findReferences", {"symbol": "Names.normalize"}, schemas)
        assert not is_error and len(answer["references"]) == 5, answer


def test_the_first_exact_call_waits_for_the_first_sync_or_says_indexing_then_the_tools_answer(reactor):
    root, home = reactor
    with serve([], home, cwd=root) as client:      # no --repo: the working directory is the root
        schemas = {t.name: t.output_schema for t in client.list_tools()}
        first, is_error = _call(client, "findReferences", {"symbol": "Names.normalize"}, schemas)
        assert not is_error or first["code"] == "indexing", first       # never not_synced
        answer, is_error = _poll(lambda: _call(client, "findReferences", {"symbol": "Names.normalize"}, schemas),
                                 lambda r: not r[1] or r[0]["code"] != "indexing")
        assert not is_error and len(answer["references"]) == 5, answer
        assert _status(client, schemas)["state"] == "ready"


def test_no_auto_sync_leaves_a_never_synced_workspace_not_synced(reactor):
    root, home = reactor
    with serve([root], home, options=["--no-auto-sync"]) as client:
        schemas = {t.name: t.output_schema for t in client.list_tools()}
        status = _status(client, schemas)
        assert status["state"] == "not_synced" and status["synced"] is False, status
        answer, is_error = _call(client, "findReferences", {"symbol": "Names.normalize"}, schemas)
        assert is_error and answer["code"] == "not_synced", answer
        assert _status(client, schemas)["state"] == "not_synced"
    assert not any(home.rglob("*.sqlite*")), "a sync ran"


def test_a_failed_first_sync_makes_status_failed_with_the_error(reactor):
    root, home = reactor
    (root / "pom.xml").write_text("<project>", encoding="utf-8")        # malformed: the sync cannot read it
    with serve([root], home) as client:
        schemas = {t.name: t.output_schema for t in client.list_tools()}
        status = _poll(lambda: _status(client, schemas), lambda s: s["state"] != "indexing")
        assert status["state"] == "failed", status
        assert status["syncError"]["code"] == "sync_failed" and "first sync" in status["syncError"]["error"]
        answer, is_error = _call(client, "findReferences", {"symbol": "Names.normalize"}, schemas)
        assert is_error and answer["code"] == "not_synced" and answer["syncError"] == status["syncError"], answer
