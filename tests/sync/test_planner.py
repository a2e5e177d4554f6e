"""The placement of an incremental sync's files (pybridge.sync.planner.placement): patched from the
last one of the same roots (PYBRIDGE_PLACEMENT_PATCH) exactly as built over every file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from pybridge.sync import planner
from pybridge.sync.planner import FileEntry, forget_placements, placement

MAIN = ("core", "main")
TEST = ("core", "test")


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _inputs(root: Path, rels: list[str]) -> tuple[dict[str, FileEntry], dict[str, str]]:
    files = {rel: FileEntry(rel, *(TEST if "/test/" in rel else MAIN), str(root / rel)) for rel in rels}
    digests = {rel: hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in rels if (root / rel).exists()}
    return files, digests


def _both(monkeypatch, root: Path, rels: list[str]):
    """(patched, built over every file) placements of the same files."""
    roots = {MAIN: [root / "src/main/java", root / "gen"], TEST: [root / "src/test/java"]}
    encodings = {MAIN: "UTF-8", TEST: "UTF-8"}
    files, digests = _inputs(root, rels)
    monkeypatch.delenv("PYBRIDGE_PLACEMENT_PATCH", raising=False)
    patched = placement(files, roots, encodings, digests)
    monkeypatch.setenv("PYBRIDGE_PLACEMENT_PATCH", "0")
    whole = placement(files, roots, encodings, digests)
    monkeypatch.delenv("PYBRIDGE_PLACEMENT_PATCH")
    return patched, whole


def test_a_patched_placement_equals_one_built_over_every_file_through_a_run_of_edits(tmp_path, monkeypatch):
    forget_placements()
    root = tmp_path
    rels = []
    for i in range(6):
        rel = f"src/main/java/p/A{i}.java"
        _write(root, rel, f"package p;\nclass A{i} {{}}\n")
        rels.append(rel)
    _write(root, "src/test/java/p/ATest.java", "package p;\nclass ATest {}\n")
    rels.append("src/test/java/p/ATest.java")
    steps = []

    def step(what: str) -> None:
        patched, whole = _both(monkeypatch, root, rels)
        steps.append((what, patched.misplaced, patched.along))
        assert patched == whole, what

    step("all placed")
    _write(root, "src/main/java/p/A1.java", "package q;\nclass A1 {}\nclass Extra {}\n")
    step("a file declares another package: misplaced")
    _write(root, "gen/p/A2.java", "package p;\nclass A2 {}\n")
    rels.append("gen/p/A2.java")
    step("a second root declares the same type: both along")
    rels.remove("gen/p/A2.java")
    step("the copy left the files")
    _write(root, "src/main/java/p/A3.java", "/* open comment\nclass A3 {}\n")
    step("a beginning that says no package")
    _write(root, "src/main/java/p/A1.java", "package p;\nclass A1 {}\n")
    step("back in its package")
    _write(root, "src/main/java/q/Extra.java", "package q;\nclass Extra {}\n")
    _write(root, "src/main/java/p/A4.java", "package q;\nclass A4 {}\nclass Extra {}\n")
    rels.append("src/main/java/q/Extra.java")
    step("a misplaced file declares a type that a placed one declares too")
    os.remove(root / "src/main/java/p/A5.java")
    step("a listed file gone from the disk")
    _write(root, "src/main/java/p/A5.java", "package p;\nclass A5 {}\n")
    step("and back")
    assert any(misplaced for _what, misplaced, _along in steps[1:])
    assert any(MAIN in along and "gen/p/A2.java" in along[MAIN] for _what, _m, along in steps)


def test_a_patched_placement_looks_again_only_at_the_files_that_changed(tmp_path, monkeypatch):
    forget_placements()
    rels = [f"src/main/java/p/A{i}.java" for i in range(20)]
    for i, rel in enumerate(rels):
        _write(tmp_path, rel, f"package p;\nclass A{i} {{}}\n")
    roots = {MAIN: [tmp_path / "src/main/java"]}
    placed: list[str] = []
    real = planner._place

    def counted(entry, *args):
        placed.append(entry.rel)
        return real(entry, *args)

    monkeypatch.setattr(planner, "_place", counted)
    files, digests = _inputs(tmp_path, rels)
    placement(files, roots, {MAIN: "UTF-8"}, digests)
    assert len(placed) == 20
    _write(tmp_path, rels[3], "package p;\nclass A3 { int edited; }\n")
    files, digests = _inputs(tmp_path, rels)
    placed.clear()
    placement(files, roots, {MAIN: "UTF-8"}, digests)
    assert placed == [rels[3]]
    monkeypatch.setenv("PYBRIDGE_PLACEMENT_PATCH", "0")
    placed.clear()
    placement(files, roots, {MAIN: "UTF-8"}, digests)
    assert len(placed) == 20


@pytest.mark.parametrize("switch", ["0", "1"])
def test_a_file_without_a_digest_is_placed_again_every_time(tmp_path, monkeypatch, switch):
    forget_placements()
    monkeypatch.setenv("PYBRIDGE_PLACEMENT_PATCH", switch)
    rel = "src/main/java/p/A.java"
    _write(tmp_path, rel, "package p;\nclass A {}\n")
    files = {rel: FileEntry(rel, *MAIN, str(tmp_path / rel))}
    roots = {MAIN: [tmp_path / "src/main/java"]}
    assert not placement(files, roots, {MAIN: "UTF-8"}, {}).misplaced
    _write(tmp_path, rel, "package q;\nclass A {}\n")
    assert placement(files, roots, {MAIN: "UTF-8"}, {}).misplaced == {MAIN: {rel}}
