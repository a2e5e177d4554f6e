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
generation's files instead of an index, once per reader (`Lists`; 15-35 ms on hibernate-core's 6,238
files), then scans them: 2-40 ms per search, against 0.1-14 ms from the index (bench/RESULTS.md,
"Name lists").
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Any

EMPTY = b"\n\n"

# Up to this many names, search the generation's lists joined into one value once per name
# (`bytes.find`, C speed); more, and split each list once and test it against the set of names.
FIND_MAX = 12


def pack(names: Iterable[str]) -> bytes:
    """The stored list of `names` (identifiers: no line feed, none empty)."""
    return ("\n" + "\n".join(sorted(names)) + "\n").encode("utf-8", "surrogatepass")


class Lists:
    """The name lists of a generation's files (rows of path, stored list), joined into one value
    once: a reader keeps it for every search of its generation (an edit check searches a name at a
    time), and each search then costs a scan of that value per name."""

    def __init__(self, rows: Sequence[tuple[Any, ...]]) -> None:
        self.paths = [row[0] for row in rows]
        self.starts = list(accumulate((len(row[1]) for row in rows), initial=0))
        self.joined = b"".join(row[1] for row in rows)

    def holding(self, names: Iterable[str]) -> set[str]:
        """The paths whose list holds one of `names`."""
        wanted = {name.encode("utf-8", "surrogatepass") for name in names if name and "\n" not in name}
        if not wanted or not self.paths:
            return set()
        joined, starts, paths = self.joined, self.starts, self.paths
        if len(wanted) > FIND_MAX:
            return {paths[i] for i in range(len(paths))
                    if not wanted.isdisjoint(joined[starts[i]:starts[i + 1]].split(b"\n"))}
        out: set[str] = set()
        for name in wanted:
            key = b"\n" + name + b"\n"
            pos = joined.find(key)
            while pos >= 0:
                row = bisect_right(starts, pos) - 1
                out.add(paths[row])
                pos = joined.find(key, starts[row + 1])     # the rest of this list cannot add its path
        return out
