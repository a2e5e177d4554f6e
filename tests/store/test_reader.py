"""`Reader.files_by_path` patched from another generation's (PYBRIDGE_FILES_PATCH): the same files, in
the same order, as read whole."""

from __future__ import annotations

import time

from pybridge.store import Store
from pybridge.store import reader as reader_module
from tests.support.store_factories import decl, facts, sha

MODULE = "core"


def publish(store: Store, files: dict[str, object], stamp: int) -> int:
    with store.stage({"files": sorted(files), "taken_ns": stamp}, {"commit": "abc"}) as staging:
        for path, ff in files.items():
            staging.add_file(MODULE, "main", path, sha(repr(ff)), 100, ff)
        return staging.publish({})


def by_path(store: Store, number: int, monkeypatch, patch: bool) -> list:
    if patch:
        monkeypatch.delenv("PYBRIDGE_FILES_PATCH", raising=False)
    else:
        monkeypatch.setenv("PYBRIDGE_FILES_PATCH", "0")
    with store.reader(number) as r:
        return list(r.files_by_path().items())


def test_files_by_path_patched_from_another_generation_equal_them_read_whole(tmp_path, monkeypatch):
    reader_module._BY_PATH.clear()
    files = {f"src/P{i}.java": facts(f"/ws/src/P{i}.java", decls=[decl(f"LP{i};", "CLASS")]) for i in range(8)}
    with Store.open(tmp_path / "store.sqlite", keep=10) as store:
        numbers = [publish(store, files, time.time_ns())]
        files["src/P3.java"] = facts("/ws/src/P3.java", decls=[decl("LP3;", "CLASS"), decl("LP3;.m()V")])
        numbers.append(publish(store, files, time.time_ns()))         # one edited
        files["src/A0.java"] = facts("/ws/src/A0.java")                 # one new, sorted first
        del files["src/P5.java"]                                        # one gone
        numbers.append(publish(store, files, time.time_ns()))
        files["src/P3.java"] = facts("/ws/src/P3.java", decls=[decl("LP3;", "CLASS")])   # back as it was
        numbers.append(publish(store, files, time.time_ns()))
        for number in numbers + numbers[::-1]:      # each patched from the one read before it
            patched = by_path(store, number, monkeypatch, patch=True)
            assert patched == by_path(store, number, monkeypatch, patch=False), number
            assert [path for path, _f in patched] == sorted(path for path, _f in patched)


def test_a_patched_read_makes_rows_only_of_the_files_that_differ(tmp_path, monkeypatch):
    reader_module._BY_PATH.clear()
    monkeypatch.delenv("PYBRIDGE_FILES_PATCH", raising=False)
    made: list[str] = []
    real = reader_module.Reader._file

    def counted(row):
        made.append(row[0])
        return real(row)

    files = {f"src/P{i}.java": facts(f"/ws/src/P{i}.java") for i in range(30)}
    with Store.open(tmp_path / "store.sqlite", keep=10) as store:
        first = publish(store, files, time.time_ns())
        files["src/P7.java"] = facts("/ws/src/P7.java", decls=[decl("LP7;", "CLASS")])
        second = publish(store, files, time.time_ns())
        monkeypatch.setattr(reader_module.Reader, "_file", staticmethod(counted))
        by_path(store, first, monkeypatch, patch=True)
        assert len(made) == 30
        made.clear()
        by_path(store, second, monkeypatch, patch=True)
        assert made == ["src/P7.java"]
        made.clear()
        reader_module._BY_PATH.clear()
        by_path(store, second, monkeypatch, patch=False)
        assert len(made) == 30


def test_a_generation_collected_since_is_not_patched_from(tmp_path, monkeypatch):
    reader_module._BY_PATH.clear()
    monkeypatch.delenv("PYBRIDGE_FILES_PATCH", raising=False)
    files = {f"src/P{i}.java": facts(f"/ws/src/P{i}.java") for i in range(5)}
    with Store.open(tmp_path / "store.sqlite", keep=1) as store:
        first = publish(store, files, time.time_ns())
        by_path(store, first, monkeypatch, patch=True)
        del files["src/P2.java"]
        second = publish(store, files, time.time_ns())      # collects the first: its manifest is gone
        patched = dict(by_path(store, second, monkeypatch, patch=True))
        assert "src/P2.java" not in patched
        assert list(patched.items()) == by_path(store, second, monkeypatch, patch=False)
