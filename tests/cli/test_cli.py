"""The CLI: `pybridge tool` prints exactly the tools' JSON; the short commands print readable text."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pybridge.cli import main
from pybridge.query import Facade
from pybridge.sync import state_dir_for, sync

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def kitchen(tmp_path_factory, samples, worker):
    base = tmp_path_factory.mktemp("cli")
    root = base / "kitchen-sink"
    shutil.copytree(samples / "kitchen-sink", root)
    with pytest.MonkeyPatch.context() as mp:   # PYBRIDGE_STATE_DIR is the parent of each workspace's folder
        mp.setenv("PYBRIDGE_STATE_DIR", str(base / "states"))
        state = state_dir_for(root)
    sync(root, state_dir=state, worker=worker)
    return root, state


def run(*args: str, cwd: Path, state: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYBRIDGE_STATE_DIR": str(state.parent)}
    return subprocess.run([sys.executable, "-m", "pybridge.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _without_clock(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "checked_at"}


def test_tool_prints_exactly_the_json_result_of_the_tool(kitchen):
    root, state = kitchen
    out = run("tool", "find_symbol", '{"query": "Counter.count"}', cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    with Facade([root], {root: state}) as facade:
        expected, is_error = facade.call("find_symbol", {"query": "Counter.count"})
    assert not is_error
    assert _without_clock(json.loads(out.stdout)) == _without_clock(expected)


def test_tool_with_arguments_that_are_not_json_is_an_invalid_argument_error(kitchen):
    root, state = kitchen
    out = run("tool", "find_symbol", "{query", cwd=root, state=state)
    assert out.returncode == 1
    assert json.loads(out.stdout)["code"] == "invalid_argument"


def test_refs_prints_one_line_per_occurrence_with_editor_positions(kitchen):
    root, state = kitchen
    out = run("refs", "Counter.count", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    lines = [" ".join(line.split()) for line in out.stdout.splitlines()]
    assert lines == [
        "FIELD com.acme.kitchen.Counter.count: 7 occurrences",
        "src/main/java/com/acme/kitchen/Counter.java:12:17 definition in -",
        "src/main/java/com/acme/kitchen/Counter.java:17:9 read_write in Counter.add(int)",
        "src/main/java/com/acme/kitchen/Counter.java:40:9 read_write in Counter.step(int)",
        "src/main/java/com/acme/kitchen/Counter.java:41:9 read_write in Counter.step(int)",
        "src/main/java/com/acme/kitchen/Counter.java:42:11 read_write in Counter.step(int)",
        "src/main/java/com/acme/kitchen/Counter.java:43:21 read in Counter.step(int)",
        "src/main/java/com/acme/kitchen/Counter.java:62:16 read in Counter.getCount()",
    ]


def test_refs_and_callers_take_a_limit_and_say_when_they_cut_the_list(kitchen):
    root, state = kitchen
    out = run("refs", "Counter.count", "--limit", "2", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    lines = [" ".join(line.split()) for line in out.stdout.splitlines()]
    assert lines[0] == "FIELD com.acme.kitchen.Counter.count: 7 occurrences"
    assert len(lines) == 4 and lines[-1] == "(showing the first 2 of 7 occurrences; --limit N shows up to 500)"
    callers = run("callers", "Greeter.greet(String)", "--limit", "1", cwd=root, state=state)
    assert callers.returncode == 0, callers.stderr
    assert callers.stdout.splitlines()[0] == "4 call sites"
    assert callers.stdout.splitlines()[-1] == "(showing the first 1 of 4 call sites; --limit N shows up to 500)"
    whole = run("callers", "Greeter.greet(String)", cwd=root, state=state)
    assert "showing" not in whole.stdout
    assert run("refs", "Counter.count", "--limit", "0", cwd=root, state=state).returncode == 2


def test_an_ambiguous_name_prints_a_readable_list_of_candidates(kitchen):
    root, state = kitchen
    out = run("refs", "greet", cwd=root, state=state)
    assert out.returncode == 1 and out.stdout == ""
    lines = [" ".join(line.split()) for line in out.stderr.splitlines()]
    assert lines[0].startswith("error (ambiguous): `greet` names 2 declarations;")
    assert lines[1:] == [
        "candidates:",
        "METHOD com.acme.kitchen.Greeter.greet(String) at kitchen-sink:src/main/java/com/acme/kitchen/Greeter.java:15",
        "METHOD com.acme.kitchen.Greeter.greet(String, int) at "
        "kitchen-sink:src/main/java/com/acme/kitchen/Greeter.java:20"]   # 1-based, as editors count
    assert json.loads(run("refs", "greet", "--json", cwd=root, state=state).stdout)["code"] == "ambiguous"


def test_status_takes_the_workspace_as_path_like_sync(kitchen, tmp_path):
    root, state = kitchen
    out = run("status", str(root), cwd=tmp_path, state=state)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("kitchen-sink: generation 1 (fresh)")
    assert run("status", str(root), "--repo", str(root), cwd=tmp_path, state=state).returncode == 2


def test_the_sync_summary_counts_modules_as_its_table_shows_them(tmp_path, samples):
    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    out = run("sync", str(root), cwd=tmp_path, state=tmp_path / "state")
    assert out.returncode == 0, out.stderr
    table_modules = {line.split("│")[1].strip() for line in out.stdout.splitlines()
                     if line.startswith("│") and "dev.pybridge" in line}
    assert len(table_modules) == 3
    assert f"modules {len(table_modules)}  files" in out.stdout


def test_tool_help_lists_every_tool_from_the_registry():
    from pybridge.query import TOOLS

    out = subprocess.run([sys.executable, "-m", "pybridge.cli", "tool", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    for name, t in TOOLS.items():
        assert f"{name} " in out.stdout and t.summary[:30] in " ".join(out.stdout.split())
    assert "1-based" in out.stdout


def test_a_short_command_with_json_prints_the_tool_result_and_errors_exit_1(kitchen):
    root, state = kitchen
    out = run("def", "NoSuchSymbol", "--json", cwd=root, state=state)
    assert out.returncode == 1
    assert json.loads(out.stdout)["code"] == "not_found"


def test_the_structure_commands_print_readable_text_json_and_readable_errors(kitchen):
    root, state = kitchen
    out = run("hierarchy", "BaseShape", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "CLASS com.acme.kitchen.BaseShape  src/main/java/com/acme/kitchen/BaseShape.java:4",
        "supertypes:",
        "  implements INTERFACE com.acme.kitchen.Shape  src/main/java/com/acme/kitchen/Shape.java:7",
        "subtypes:",
        "  extends CLASS com.acme.kitchen.Circle  src/main/java/com/acme/kitchen/Circle.java:4",
        "  extends CLASS com.acme.kitchen.Kitchen.shapes.<anonymous>  src/main/java/com/acme/kitchen/Kitchen.java:41"]
    out = run("impls", "java.lang.Exception", cwd=root, state=state)
    assert out.returncode == 0 and "com.acme.kitchen.ShapeException" in out.stdout, out.stderr
    out = run("outline", "src/main/java/com/acme/kitchen/Size.java", cwd=root, state=state)
    assert out.returncode == 0 and "ENUM public enum Size" in out.stdout, out.stderr
    out = run("describe", "Circle.area", "--json", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["signature"] == "public double area()"
    for command in ("graph", "diagnostics"):
        out = run(command, *(["Counter.add(int)"] if command == "graph" else []), cwd=root, state=state)
        assert out.returncode == 0 and out.stdout.strip(), (command, out.stderr)
    out = run("graph", "greet", cwd=root, state=state)     # two overloads: readable candidates on stderr
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("error (ambiguous): ")
    assert "greet(String)  at src/main/java/com/acme/kitchen/Greeter.java:15" in out.stderr


def test_every_command_and_option_has_help_text():
    missing = []
    for name, command in main.commands.items():
        if not command.help:
            missing.append(name)
        for param in command.params:
            if isinstance(param, click.Option) and not param.help:
                missing.append(f"{name} {param.opts[0]}")
    assert missing == []


def _imports(folder: Path) -> dict[str, set[str]]:
    out = {}
    for path in folder.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        out[path.name] = names
    return out


def test_mcp_and_cli_never_touch_sql_or_jpype_and_reach_the_engine_only_through_query():
    forbidden = ("sqlite3", "jpype", "pybridge.store", "pybridge.sync", "pybridge.workspace")
    bad = []
    for layer in ("mcp", "cli"):
        for name, imports in _imports(ROOT / "pybridge" / layer).items():
            for imported in imports:
                if imported.startswith(forbidden):
                    bad.append((layer, name, imported))
                # `pybridge index` is the one debugging command that drives the worker directly;
                # `early` only starts one, before the query layer is imported (that is its point).
                if imported.startswith("pybridge.worker") and name not in ("commands_index.py", "early.py"):
                    bad.append((layer, name, imported))
    assert bad == []


def test_sync_starts_its_jvm_early_uses_it_for_an_edit_and_leaves_no_child_after_a_no_op(tmp_path, samples):
    """`pybridge sync` starts the indexer JVM while the CLI is imported (pybridge.cli.early): an
    incremental sync uses that worker; a sync that needs no JVM does not wait for its start."""
    from pybridge.cli import early

    early.start_if_syncing(["pybridge", "refs", "x"])
    assert early.take() is None                       # only `sync` starts one
    early.start_if_syncing(["pybridge", "sync", ".", "--heap", "1g"])
    assert early.take() is None                       # another heap: the sync starts its own
    early.start_if_syncing(["pybridge", "sync", "."])
    worker = early.take()
    worker.start()                                    # waits for the early start, does not repeat it
    pid = worker.pid
    assert pid is not None
    early.release(worker)
    assert worker.pid is None

    root = tmp_path / "reactor"
    shutil.copytree(samples / "reactor", root)
    state = tmp_path / "states" / "reactor"
    first = run("sync", str(root), "--json", cwd=root, state=state)
    assert first.returncode == 0 and json.loads(first.stdout)["published"] is True, first.stderr
    names = root / "core/src/main/java/com/acme/core/Names.java"
    names.write_text(names.read_text(encoding="utf-8") + "// an edit\n", encoding="utf-8")
    edit = json.loads(run("sync", str(root), "--json", cwd=root, state=state).stdout)
    assert edit["published"] is True and edit["reindexedFiles"] == 1 and edit["incremental"] is True
    noop = run("sync", str(root), "--json", cwd=root, state=state)
    assert noop.returncode == 0 and json.loads(noop.stdout)["unchanged"] is True


def test_symbol_and_def_print_a_library_symbol_s_origin_and_its_readable_source(kitchen):
    root, state = kitchen
    out = run("symbol", "java.util.List", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    assert " ".join(out.stdout.splitlines()[0].split()) == "INTERFACE java.util.List (jdk:java.base)"
    out = run("def", "java.util.List.add(E)", cwd=root, state=state)
    assert out.returncode == 0, out.stderr
    head, where = out.stdout.splitlines()[:2]
    assert head == "METHOD java.util.List.add(E)"
    path, line, _ = where.strip().rsplit(":", 2)
    assert Path(path).read_text(encoding="utf-8").splitlines()[int(line) - 1].strip() in (
        "boolean add(E e);", "public abstract boolean add(E);")        # src.zip, else the class-file view
