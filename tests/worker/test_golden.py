"""Golden files: each sample source with every fact the indexer found marked under its line.

`pytest --update-goldens` rewrites them; every change is reviewed by hand before it is committed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pybridge.golden import build_names, render_file
from tests.support.goldens import mismatched_goldens
from tests.support.indexing import index_roots

GOLDEN = Path(__file__).parent.parent / "golden"
OWN_TESTS = {"lombok"}   # goldens rendered by their own test module (tests/workspace/test_lombok.py)

CASES = {
    "kitchen-sink": ["src/main/java"],
    "broken": ["src/main/java"],
}


@pytest.fixture(scope="module")
def rendered(worker, samples):
    out: dict[str, str] = {}
    for sample, roots in CASES.items():
        base = samples / sample
        result = index_roots(worker, [base / r for r in roots])
        names = build_names(result.files)
        for ff in result.files:
            rel = Path(ff.path).resolve().relative_to(base.resolve())
            source = Path(ff.path).read_text(encoding="utf-8")
            out[f"{sample}/{rel}"] = render_file(source, ff, names)
    return out


def test_every_sample_file_has_a_golden_that_matches_what_the_indexer_sees(rendered, update_goldens):
    mismatched = mismatched_goldens(GOLDEN, rendered, update_goldens)
    assert not mismatched, f"goldens differ (run pytest --update-goldens and review the diff): {mismatched}"


def test_no_golden_is_left_over_from_a_removed_sample_file(rendered):
    on_disk = {str(p.relative_to(GOLDEN))[: -len(".golden")] for p in GOLDEN.rglob("*.golden")
               if p.relative_to(GOLDEN).parts[0] not in OWN_TESTS}
    assert on_disk <= set(rendered), sorted(on_disk - set(rendered))
