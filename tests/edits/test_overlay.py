"""The overlay a check compiles (pybridge/edits/overlay.py): a kept shadow of a source root shows each
check's files, and the source root as it is now, with links made only for what changed in between."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from pybridge.edits import overlay as overlay_module
from pybridge.edits.overlay import MIRRORS_ENV, Overlay, forget_mirrors


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _seen(overlay: Overlay, root: Path) -> dict[str, str]:
    """What the compiler sees under the shadow of `root`: relpath -> text, links followed."""
    shadow = overlay.roots[root]
    out = {}
    for folder, _dirs, names in os.walk(shadow, followlinks=True):
        for name in names:
            path = Path(folder) / name
            out[path.relative_to(shadow).as_posix()] = path.read_text(encoding="utf-8")
    return out


@pytest.fixture
def source(tmp_path, monkeypatch):
    monkeypatch.delenv(MIRRORS_ENV, raising=False)
    forget_mirrors()
    root = tmp_path / "src"
    _tree(root, {f"p/q/F{i}.java": f"class F{i} {{}}" for i in range(20)} | {"p/A.java": "class A {}",
                                                                                 "r/B.java": "class B {}"})
    yield root.resolve()
    forget_mirrors()


def _check(root: Path, changes: dict[str, str | None]) -> tuple[dict[str, str], Counter[str], Path]:
    with Overlay({root / rel: text for rel, text in changes.items()}, [root], {root: "utf-8"}) as overlay:
        seen = _seen(overlay, root)
        shadow = overlay.roots[root]
        assert overlay.shadow(str(root / "p/q/F1.java")) == str(shadow / "p/q/F1.java")
        assert overlay.shadow("/elsewhere/X.java") == "/elsewhere/X.java"
    return seen, overlay.counts, shadow


def test_a_kept_shadow_links_only_what_changed_since_the_last_check(source):
    expected = {p.relative_to(source).as_posix(): p.read_text(encoding="utf-8")
                for p in source.rglob("*.java")}
    seen, counts, shadow = _check(source, {"p/q/F1.java": "class F1 { int x; }"})
    assert seen == expected | {"p/q/F1.java": "class F1 { int x; }"}
    first = counts["linked"]
    assert first >= 20                      # the root's, p's and p/q's entries: p/q alone has 20 files

    # Another file of the same folder, a new file, a deleted one; the source root meanwhile gained a
    # file and lost one. The same shadow serves, brought up to date: no folder is linked again.
    (source / "p/q/F7.java").unlink()
    (source / "p/q/New.java").write_text("class New {}", encoding="utf-8")
    expected = {p.relative_to(source).as_posix(): p.read_text(encoding="utf-8") for p in source.rglob("*.java")}
    seen, counts, again = _check(source, {"p/q/F2.java": "class F2 { int y; }", "p/q/Added.java": "class Added {}",
                                          "p/A.java": None})
    assert again == shadow
    assert seen == {k: v for k, v in expected.items() if k != "p/A.java"} | {
        "p/q/F2.java": "class F2 { int y; }", "p/q/Added.java": "class Added {}"}
    assert counts["linked"] == 2            # New.java, and F1.java again (the last check's file was removed)
    assert counts["written"] == 2

    # After a check its files are gone from the shadow: the next one sees the source root itself.
    seen, counts, _ = _check(source, {"r/B.java": "class B { }"})
    assert seen == expected | {"r/B.java": "class B { }"}


def test_without_kept_shadows_each_check_links_every_entry_again(source, monkeypatch):
    monkeypatch.setenv(MIRRORS_ENV, "0")
    counts = [_check(source, {"p/q/F1.java": "class F1 { int x; }"})[1] for _ in range(2)]
    assert counts[0]["linked"] == counts[1]["linked"] >= 20
    assert counts[1]["removed"] >= counts[1]["linked"]
    assert not overlay_module._KEPT


def test_checks_at_once_get_shadows_of_their_own(source):
    """Two checks of one source root at the same time (serve answers calls concurrently): each sees
    its own change only; both shadows are kept for later checks."""
    one = Overlay({source / "p/A.java": "class A { int one; }"}, [source], {source: "utf-8"})
    two = Overlay({source / "p/A.java": "class A { int two; }"}, [source], {source: "utf-8"})
    with one, two:
        assert one.roots[source] != two.roots[source]
        assert _seen(one, source)["p/A.java"] == "class A { int one; }"
        assert _seen(two, source)["p/A.java"] == "class A { int two; }"
    assert len(overlay_module._KEPT[source]) == 2
    seen, counts, _ = _check(source, {"r/B.java": "class B { }"})
    assert seen["p/A.java"] == "class A {}" and seen["r/B.java"] == "class B { }"
    assert counts["linked"] == 2          # A.java's link again; r/ made a real folder: its one entry
