"""The name list of a file version, and the search `Reader.paths_mentioning` runs over them."""

from __future__ import annotations

import random

import pytest

from pybridge.store import namelist


def test_a_list_is_its_names_in_code_point_order_between_line_feeds() -> None:
    assert namelist.pack({"getAll", "é", "Σ", "_", "get", "$x"}) == "\n$x\n_\nget\ngetAll\né\nΣ\n".encode()
    assert namelist.pack({"a\ud800"}) == b"\na\xed\xa0\x80\n"     # a lone surrogate, as Python reads it
    assert namelist.pack(()) == namelist.EMPTY == b"\n\n"


ROWS = [("A.java", namelist.pack({"get", "getAll", "List"})),
        ("B.java", namelist.pack(())),
        ("C.java", namelist.pack({"List", "é"})),
        ("D.java", namelist.pack({"size"}))]


@pytest.mark.parametrize("find_max", [0, namelist.FIND_MAX])
def test_a_search_finds_a_whole_name_and_never_a_part_of_one(monkeypatch, find_max) -> None:
    monkeypatch.setattr(namelist, "FIND_MAX", find_max)   # 0: every search splits the lists
    assert namelist.Lists(ROWS).holding(["get"]) == {"A.java"}
    assert namelist.Lists(ROWS).holding(["List"]) == {"A.java", "C.java"}
    assert namelist.Lists(ROWS).holding(["é", "size"]) == {"C.java", "D.java"}
    # a prefix, a suffix, a name across two entries or two lists, and no name at all
    assert namelist.Lists(ROWS).holding(["ge", "All", "getAll\nList", "List\n\nList", "", "ist"]) == set()
    assert namelist.Lists(ROWS).holding([]) == set()
    assert namelist.Lists([]).holding(["get"]) == set()


def test_both_searches_find_what_a_set_of_every_files_names_finds() -> None:
    # The two ways (`bytes.find` over the joined lists, a split list against a set) against the
    # plain definition, on random lists of short names that are often prefixes of each other.
    rnd = random.Random(7)
    alphabet = "abAé_"
    files = {f"F{i}.java": {"".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 3)))
                           for _ in range(rnd.randint(0, 12))} for i in range(60)}
    rows = [(path, namelist.pack(names)) for path, names in files.items()]
    every = set().union(*files.values())
    for size in (1, 2, 5, namelist.FIND_MAX, namelist.FIND_MAX + 1, 40):
        wanted = set(rnd.sample(sorted(every), size)) | {"zz"}
        expected = {path for path, names in files.items() if names & wanted}
        assert namelist.Lists(rows).holding(wanted) == expected
