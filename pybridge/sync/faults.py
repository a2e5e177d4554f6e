"""Named points in a sync where a crash test may stop the process.

`hit` does nothing; a test's child process replaces it (looked up at call
time as `faults.hit(point)`) with a function that SIGKILLs itself:

- `sync.maven`: Maven is resolving classpaths (called from its progress)
- `sync.planned`: the incremental planner chose the first round's files
- `sync.indexing`: the worker reported progress on a module
- `sync.next_round`: an incremental sync starts indexing the files a round affected
- `sync.staging`: a file's facts were just added to the staging generation
- `sync.before_publish`: everything staged, freshness checked, not published
"""

from __future__ import annotations


def hit(point: str) -> None:
    """No-op in production."""
