"""The name list of a file version: every identifier of its text (`pybridge.sync.summary.names`),
stored as one value in `file_summaries.names`, and the search that finds the versions holding a
name (`Reader.paths_mentioning`, which plans incremental sync and edit checks).

The format: UTF-8, the names in code-point order, each between line feeds (`b"\\nA\\nb\\n"`; no
names is `b"\\n\\n"`). A name holds no line feed, so `b"\\n" + name + b"\\n"` occurs in a list
exactly when the name is one of its entries, and never across two lists written one after
another (that would need an empty name).

Until schema migration 0006 the names were rows of a table `file_names` (name, file version),
about 110 per file: a hibernate-core first sync inserted 682,489 of them, 1.1 s of the parent's
CPU. One value per version costs almost nothing to write; a search reads the lists of the
generation's files instead of an index (bench/RESULTS.md, "Name lists"), tens of milliseconds on
6,000 files.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

EMPTY = b"\n\n"

# Up to this many names, search the generation's lists joined into one value once per name
# (`bytes.find`, C speed); more, and split each list once and test it against the set of names.
FIND_MAX = 12


def pack(names: Iterable[str]) -> bytes:
    """The stored list of `names` (identifiers: no line feed, none empty)."""
    return ("\n" + "\n".join(sorted(names)) + "\n").encode("utf-8", "surrogatepass")


def holding(rows: Sequence[tuple[Any, ...]], names: Iterable[str]) -> set[str]:
    """The first items of `rows` (path, stored list) whose list holds one of `names`."""
    wanted = {name.encode("utf-8", "surrogatepass") for name in names if name and "\n" not in name}
    if not wanted or not rows:
        return set()
    if len(wanted) > FIND_MAX:
        return {path for path, packed in rows if not wanted.isdisjoint(packed.split(b"\n"))}
    starts = []
    at = 0
    for _path, packed in rows:
        starts.append(at)
        at += len(packed)
    joined = b"".join(packed for _path, packed in rows)
    out: set[str] = set()
    for name in wanted:
        key = b"\n" + name + b"\n"
        pos = joined.find(key)
        while pos >= 0:
            row = bisect_right(starts, pos) - 1
            out.add(rows[row][0])
            # The rest of this list cannot add its path again.
            pos = joined.find(key, starts[row + 1]) if row + 1 < len(rows) else -1
    return out
