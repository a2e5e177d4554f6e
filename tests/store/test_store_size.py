"""How compact the store is: bytes per reference on a synthetic generation.

Prints the numbers (run with `-s` to see them); asserts only what must hold
whatever the machine: the generation is stored, and a second identical
generation costs almost nothing.
"""

from __future__ import annotations

import sqlite3

from pybridge.store import Store
from tests.support.store_factories import stage_synthetic

N_FILES = 500
REFS_PER_FILE = 200   # 100,000 references, 16,500 declarations


def test_bytes_per_reference_on_a_generation_of_100000_references(tmp_path):
    path = tmp_path / "store.sqlite"
    with Store.open(path) as store:
        stage_synthetic(store, N_FILES, REFS_PER_FILE)
        first = store.stats()
        stage_synthetic(store, N_FILES, REFS_PER_FILE)   # unchanged: every version reused
        second = store.stats()
    refs = first["refs"]
    assert refs == N_FILES * REFS_PER_FILE

    conn = sqlite3.connect(path)
    sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"))
    conn.close()
    reference_part = sum(sizes[n] for n in ("refs", "refs_by_target", "refs_calls_by_container"))
    symbol_part = sum(size for name, size in sizes.items()
                      if name.startswith("symbols") or name == "sqlite_autoindex_symbols_1")
    print(f"\nstore: {first['bytes']:,} bytes for {refs:,} references, "
          f"{first['declarations']:,} declarations, {first['symbols']:,} symbols "
          f"= {first['bytes'] / refs:.1f} bytes per reference in all")
    print(f"  references and their indexes: {reference_part / refs:.1f} bytes per reference")
    print(f"  symbols and their indexes:     {symbol_part / refs:.1f} bytes per reference")
    for name, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {name:32} {size:>10,} bytes  {size / refs:6.1f} per reference")
    print(f"  a second, unchanged generation added "
          f"{second['bytes'] - first['bytes']:,} bytes")
    assert second["refs"] == refs
    assert second["bytes"] - first["bytes"] < first["bytes"] / 50
