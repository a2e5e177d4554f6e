"""The SQLite store of pybridge: facts per file version, generations as manifests.

Layout (DESIGN section 5). A *file version* is one source file's facts,
content-addressed by the sha256 of (module, scope, workspace-relative path,
content sha256, canonical facts): an unchanged file whose facts did not
change maps to the same version and is stored once, however many
generations list it; a file whose facts changed (a dependency changed) gets
a new version. A *generation* is a manifest of file versions plus its
snapshot fingerprint and metadata, numbered 1, 2, 3… per store. *Symbols*
are append-only: a symbol id names one JDT binding key forever, so an old
key can always be explained; library/JDK declarations that project code
references get symbol rows too.

*Checkouts*: one store can serve the checkouts of one repository (git
worktrees; the sync layer decides, `pybridge.sync.state`). Each checkout has
its own generations, numbered 1, 2, 3… per checkout, and its own current
pointer (table `checkouts`; a store of one workspace has the one checkout
named '', `OWN`); file versions, facts and symbols are shared.
`Store.open(path, checkout=NAME)` reads and writes as that checkout;
`siblings()` lists the others with their current generations, and
`reader(number, checkout=NAME)` pins a sibling's generation (a first sync
plans from it); `forget(names)` removes checkouts that are gone.

Writing (one writer at a time, guarded by a `flock` on `<store>.lock`)::

    store = Store.open(state_dir / "store.sqlite")          # migrates, collects debris
    with store.stage(snapshot, meta) as staging:            # an unpublished generation
        for f in files:
            fv_id, reused = staging.add_file(module, scope, relpath, sha256, size, facts)
        number = staging.publish({"duration": 12.3})        # one short transaction
    # leaving the block without publish() discards the generation

Staged rows go out in batches (one transaction per ~50,000 rows, always at
a file boundary); readers never see them, because readers only open
published generations. `publish` marks the generation published and moves
the `current` pointer in one transaction committed with `synchronous=FULL`,
then GC keeps each checkout's newest `keep` (default 3) published
generations, deletes every file version no kept generation of any checkout
lists (with its rows), and never deletes symbols. A crash or SIGKILL at any point leaves the last published
generation current and complete; the unpublished debris is collected on the
next `Store.open` or `stage` (whoever can take the writer lock).

Other `Store` methods: `current_generation()`, `generations()` (kept,
newest first), `gc()`, `applied_migrations()`, `stats()` (row counts and
bytes in use), `close()`. `Store.open(path, keep=None, batch_rows=50_000,
readonly=False)`: `keep` defaults to PYBRIDGE_KEEP_GENERATIONS or 3.
Readers open with `readonly=True`: read-only file, no GC, no writes (they
answer on a full disk); only a writer (a sync) collects, under its lock.

Reading (any number of readers, in any process; WAL)::

    store = Store.open(state_dir / "store.sqlite", readonly=True)   # never writes, never collects
    with store.reader() as r:               # pinned: a read transaction on one snapshot
        r.generation                        # GenerationInfo (number, snapshot, meta, …)
        r.files(module=, scope=) / r.file(path) / r.module_scopes()
        r.symbol(id_or_key) / r.symbols(ids)
        r.declarations(symbol= | key= | name= | dotted= | scip=, kinds=, module=, scope=, limit=)
        r.at(path, line, char)              # declarations and references at a position, best first
        r.references(symbol_ids, kinds=, module=, scope=, after=, limit=)
        r.count_references(symbol_ids, kinds=, module=, scope=)
        r.calls_from(symbol_ids, module=, scope=, after=, limit=)   # outgoing calls
        r.relations(symbol_ids, direction="both"|"from"|"to", kinds=)
        r.problems(path=, module=, scope=, names=, kinds=, errors_only=, limit=) / r.count_problems(…)
        r.blocked(names, module=, scope=, path=, limit=) / r.count_blocked(…)   # coverage
        r.unaccounted_files(module=, scope=, path=)                            # files that block every name

How the query layer maps on it (DESIGN section 7): `find_symbol` is
`declarations(dotted=… or name=… or scip=…)`; `symbol_at` is `at`;
`goToDefinition` is `declarations(symbol=…)`; `find_references` /
`findReferences` are `references` + `count_references` + `relations`, paged
by passing the last row's `sort_key` as `after`; incoming calls and
`get_callers` are `references(kinds=CALL_KINDS)`, outgoing calls
`calls_from`; coverage reads `blocked(names=…)` (the names each file leaves
unaccounted for, `blocked_names`) and `unaccounted_files`. The source line is not stored: read the file.

Durability: WAL with `synchronous=NORMAL` for staging (a process crash
loses nothing committed; a power loss may lose the last staging batches,
which are unpublished anyway) and `synchronous=FULL` for the publish commit
(a published generation survives power loss, and FULL syncs the WAL frames
of the batches before it).

Schema (numbered migrations in `schema.py`, recorded in `migrations`):
`symbols` (append-only), `checkouts` (each checkout's current pointer and
last number), `generations` (per checkout), `file_versions` (digest-unique), `manifest` (generation, file
version), and per file version `declarations`, `refs`, `relations`,
`problems`, keyed (file_version_id, ord) WITHOUT ROWID, and `blocked_names`
keyed (file_version_id, name, line, col) (one row per blocked token), kinds as small
integers, spans as four integers.

Positions are 0-based line and UTF-16 character, end exclusive (as in
`pybridge.facts`). Every failure is a `StoreError` that says what to do.
The store imports nothing of pybridge but `pybridge.facts` and
`pybridge.errors`.
"""

from .gc import Collected
from .reader import Reader, scope_matches
from .rows import (
    BlockedRow,
    CallSite,
    DeclRow,
    FileInfo,
    FileRows,
    GenerationInfo,
    ModuleScope,
    ProblemRow,
    RefRow,
    RelationRow,
    SymbolInfo,
)
from .schema import CALL_KINDS
from .staging import Staging
from .store import DEFAULT_KEEP, Store

__all__ = [
    "BlockedRow", "CALL_KINDS", "CallSite", "Collected", "DEFAULT_KEEP", "DeclRow", "FileInfo", "FileRows",
    "GenerationInfo", "ModuleScope", "ProblemRow", "Reader", "RefRow", "RelationRow", "Staging", "Store",
    "scope_matches",
    "SymbolInfo",
]
