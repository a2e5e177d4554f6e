"""The inotify barrier (`pybridge.live.barrier`): the event counter that lets an exact query under the
live index skip its `stat` sweep. Real inotify on a real folder; every edit is checked with no sleep
in between, since the kernel queues the event inside the call that changes the file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pybridge.live.barrier import Barrier

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux only")

ROOTS = ["core/src/main/java", "core/src/test/java"]
POMS = ["pom.xml", "core/pom.xml"]


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "core/src/main/java/com/acme").mkdir(parents=True)
    (tmp_path / "core/src/main/java/com/acme/A.java").write_text("class A {}\n")
    (tmp_path / "pom.xml").write_text("<project/>\n")
    (tmp_path / "core/pom.xml").write_text("<project/>\n")
    barrier = Barrier.create()
    assert barrier is not None
    yield tmp_path, barrier
    barrier.close()


def epoch(tree) -> int | None:
    root, barrier = tree
    return barrier.epoch(str(root), ROOTS, POMS)


def test_no_event_no_change(tree):
    first = epoch(tree)
    assert first is not None and epoch(tree) == first == epoch(tree)


def test_an_edit_of_a_source_file_moves_the_epoch_at_once(tree):
    root, _ = tree
    first = epoch(tree)
    (root / "core/src/main/java/com/acme/A.java").write_text("class A { int x; }\n")
    second = epoch(tree)
    assert second != first
    assert epoch(tree) == second                       # drained: quiet again


@pytest.mark.parametrize("change", ["touch", "delete", "rename", "create", "pom"])
def test_every_kind_of_input_change_moves_it(tree, change):
    root, _ = tree
    a = root / "core/src/main/java/com/acme/A.java"
    first = epoch(tree)
    if change == "touch":
        os.utime(a, ns=(1, 1))
    elif change == "delete":
        a.unlink()
    elif change == "rename":
        a.rename(a.with_name("B.java"))
    elif change == "create":
        (a.parent / "C.java").write_text("class C {}\n")
    else:
        (root / "core/pom.xml").write_text("<project><x/></project>\n")
    assert epoch(tree) != first


def test_files_that_are_not_inputs_leave_it_alone(tree):
    root, _ = tree
    first = epoch(tree)
    (root / "core/src/main/java/com/acme/notes.txt").write_text("x")
    (root / "core/src/main/java/com/acme/.A.java.swp").write_text("x")
    (root / "core/README.md").write_text("x")
    assert epoch(tree) == first


def test_a_new_folder_is_watched_and_a_missing_source_root_is_seen_when_it_appears(tree):
    root, _ = tree
    first = epoch(tree)
    new = root / "core/src/main/java/com/acme/deep/er"
    new.mkdir(parents=True)
    second = epoch(tree)
    assert second != first
    (new / "D.java").write_text("class D {}\n")        # in a folder created after the first watch
    third = epoch(tree)
    assert third != second
    (root / "core/src/test/java/com").mkdir(parents=True)  # a source root that did not exist
    fourth = epoch(tree)
    assert fourth != third
    (root / "core/src/test/java/com/T.java").write_text("class T {}\n")
    assert epoch(tree) != fourth


def test_a_symbolic_link_among_the_inputs_gives_no_proof(tree, tmp_path_factory):
    root, _ = tree
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "E.java"
    elsewhere.write_text("class E {}\n")
    assert epoch(tree) is not None
    (root / "core/src/main/java/com/acme/E.java").symlink_to(elsewhere)
    assert epoch(tree) is None          # an edit of the link's target raises no event here
    (root / "core/src/main/java/com/acme/E.java").unlink()
    assert epoch(tree) is not None


@pytest.mark.parametrize("linked", ["before", "while watching"])
def test_an_edit_through_a_hard_link_made_outside_moves_it(tree, tmp_path_factory, linked):
    """Issue 22 D2: a write raises its event in the folder of the name it was opened by; the file's own
    watch sees a write through any name, and the link's creation too."""
    root, _ = tree
    link = tmp_path_factory.mktemp("elsewhere") / "A-link.java"
    if linked == "before":
        os.link(root / "core/src/main/java/com/acme/A.java", link)
    first = epoch(tree)
    assert first is not None
    if linked == "while watching":
        os.link(root / "core/src/main/java/com/acme/A.java", link)
        first = epoch(tree)
        assert first is not None
    with open(link, "r+") as f:
        f.write("class A { int y; }\n")
    second = epoch(tree)
    assert second is not None and second != first
    os.utime(link, ns=(1, 1))
    assert epoch(tree) != second


def test_an_edit_through_a_hard_link_of_a_new_file_moves_it(tree, tmp_path_factory):
    root, _ = tree
    first = epoch(tree)
    new = root / "core/src/main/java/com/acme/B.java"
    new.write_text("class B {}\n")
    link = tmp_path_factory.mktemp("elsewhere") / "B-link.java"
    os.link(new, link)
    second = epoch(tree)
    assert second != first
    link.write_text("class B { int z; }\n")
    assert epoch(tree) != second


def test_a_place_where_a_root_can_appear_is_watched_before_it_exists(tree):
    """Issue 22 D1: a root no build-file change announces (a generated one here, under target/)."""
    root, barrier = tree
    (root / "core/target/generated-sources").mkdir(parents=True)
    places = ["core/src/test/java", "core/target/generated-sources/*"]
    first = barrier.epoch(str(root), ROOTS[:1], POMS, places)
    assert first is not None
    (root / "core/target/generated-sources/annotations").mkdir()
    second = barrier.epoch(str(root), ROOTS[:1], POMS, places)
    assert second != first
    (root / "core/src/test/java").mkdir(parents=True)
    assert barrier.epoch(str(root), ROOTS[:1], POMS, places) != second


def test_a_symbolic_link_made_where_a_root_can_appear_moves_it(tree):
    """Issue 22 D5: a source folder moved away and a link made in its place; the link's creation is no
    directory event, only the place's name says it matters."""
    root, barrier = tree
    (root / "core/src/test").mkdir(parents=True)
    places = ["core/src/main/java", "core/src/test/java"]
    first = barrier.epoch(str(root), ROOTS[:1], POMS, places)
    assert first is not None
    (root / "core/src/test/java").symlink_to("../main/java")
    second = barrier.epoch(str(root), ROOTS[:1], POMS, places)
    assert second is not None and second != first
    folder = root / "core/src/main/java"
    folder.rename(folder.with_name("java-real"))
    third = barrier.epoch(str(root), ROOTS[:1], POMS, places)
    assert third is not None and third != second
    folder.symlink_to("java-real")
    assert barrier.epoch(str(root), ROOTS[:1], POMS, places) is None    # the root is a link now: no proof


def test_other_inputs_make_a_new_epoch(tree):
    root, barrier = tree
    first = epoch(tree)
    assert barrier.epoch(str(root), ROOTS[:1], POMS) != first


def test_a_closed_barrier_proves_nothing(tree):
    _, barrier = tree
    barrier.close()
    assert epoch(tree) is None


def test_unwatchable_root_gives_no_proof(tmp_path):
    barrier = Barrier.create()
    assert barrier is not None
    try:
        assert barrier.epoch(str(tmp_path / "missing"), ROOTS, POMS) is None
        assert Path(tmp_path).exists()
    finally:
        barrier.close()
