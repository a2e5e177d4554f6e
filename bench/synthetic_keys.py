"""Keys in a store that name no declaration, and two stores compared fact by fact (bench/RESULTS.md,
"A diamond's `<factory>` binding is never a reference target").

    .venv/bin/python bench/synthetic_keys.py count STATE_DIR...
    .venv/bin/python bench/synthetic_keys.py diff BEFORE_STATE_DIR AFTER_STATE_DIR

`count` prints, per store: symbols and references naming JDT's synthetic diamond factory (`<factory>`),
references whose target is a lambda's synthetic method (`lambda$N`, not one of its locals), `access$`
keys, and the reference targets that are neither declared in the workspace nor external (with a few
examples). `diff` compares every reference, declaration, relation and symbol of two stores and prints
how many are only in one (with a few of each). The before/after stores of the figures were made by
syncing the same workspace with the jars of main (`PYBRIDGE_JARS=DIR_OF_MAIN_JARS`) and of the branch:

    pybridge sync --state-dir /tmp/factory-guava-before bench/work/guava      # PYBRIDGE_JARS=main's jars
    pybridge sync --state-dir /tmp/factory-guava-after bench/work/guava
"""

from __future__ import annotations

import sqlite3
import sys

COUNTS = {
    "symbols <factory>": "SELECT count(*) FROM symbols WHERE binding_key LIKE '%<factory>%'",
    "refs to <factory>": """SELECT count(*) FROM refs r JOIN symbols s ON s.id = r.target_id
        WHERE s.binding_key LIKE '%<factory>%'""",
    "refs to a lambda$ method": """SELECT count(*) FROM refs r JOIN symbols s ON s.id = r.target_id
        WHERE s.binding_key GLOB '*.lambda$[0-9]*' AND s.binding_key NOT GLOB '*.lambda$*#*'""",
    "symbols access$": "SELECT count(*) FROM symbols WHERE binding_key LIKE '%access$%'",
    "ref targets neither declared nor external": """SELECT count(DISTINCT r.target_id) FROM refs r
        JOIN symbols s ON s.id = r.target_id
        WHERE s.external = 0 AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.symbol_id = r.target_id)""",
    "refs to those": """SELECT count(*) FROM refs r JOIN symbols s ON s.id = r.target_id
        WHERE s.external = 0 AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.symbol_id = r.target_id)""",
    "relation ends neither declared nor external": """SELECT count(*) FROM relations x
        JOIN symbols s ON s.id IN (x.from_id, x.to_id)
        WHERE s.external = 0 AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.symbol_id = s.id)""",
}

EXAMPLES = """SELECT DISTINCT s.binding_key FROM refs r JOIN symbols s ON s.id = r.target_id
    WHERE s.external = 0 AND NOT EXISTS (SELECT 1 FROM declarations d WHERE d.symbol_id = r.target_id) LIMIT 8"""

FACTS = {
    "refs": """SELECT f.path, r.line, r.col, r.end_col, s.binding_key, r.kind, r.flags FROM refs r
        JOIN file_versions f ON f.id = r.file_version_id JOIN symbols s ON s.id = r.target_id""",
    "declarations": """SELECT f.path, x.line, x.col, s.binding_key, x.kind FROM declarations x
        JOIN file_versions f ON f.id = x.file_version_id JOIN symbols s ON s.id = x.symbol_id""",
    "relations": """SELECT f.path, x.kind, a.binding_key, b.binding_key FROM relations x
        JOIN file_versions f ON f.id = x.file_version_id
        JOIN symbols a ON a.id = x.from_id JOIN symbols b ON b.id = x.to_id""",
    "symbols": "SELECT binding_key, kind, name, display, dotted, scip, external FROM symbols",
}


def connect(state_dir: str) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{state_dir}/store.sqlite?mode=ro", uri=True)


def count(state_dirs: list[str]) -> None:
    for d in state_dirs:
        c = connect(d)
        print(d)
        for name, query in COUNTS.items():
            print(f"  {name}: {c.execute(query).fetchone()[0]}")
        for (key,) in c.execute(EXAMPLES):
            print("    e.g.", key)


def diff(before: str, after: str) -> int:
    a, b = connect(before), connect(after)
    differ = 0
    for name, query in FACTS.items():
        x, y = set(a.execute(query)), set(b.execute(query))
        differ += len(x ^ y)
        print(f"{name}: {len(x)} vs {len(y)}; only before {len(x - y)}, only after {len(y - x)}")
        for row in sorted(x - y, key=repr)[:6]:
            print("   -", row)
        for row in sorted(y - x, key=repr)[:6]:
            print("   +", row)
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "count":
        count(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "diff":
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
