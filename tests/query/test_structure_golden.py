"""Golden files of the structure facts per sample: every type's hierarchy and every file's outline,
rendered through the query facade (`pybridge.golden_structure`).

`pytest --update-goldens` rewrites them; every change is read against the sample sources before it
is committed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pybridge.golden_structure import render_hierarchy, render_outline
from pybridge.query import Facade
from pybridge.sync import sync
from tests.support.goldens import mismatched_goldens

GOLDEN = Path(__file__).parent.parent / "golden-structure"
SAMPLES = ("kitchen-sink", "reactor", "broken")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, samples, worker):
    base = tmp_path_factory.mktemp("golden-structure")
    out: dict[str, str] = {}
    for name in SAMPLES:
        root = base / name
        shutil.copytree(samples / name, root)
        state = base / f"{name}-state"
        sync(root, state_dir=state, worker=worker, allow_online=name != "broken")
        with Facade([root], state_dirs={root: state}) as facade:
            out[f"{name}.hierarchy"] = render_hierarchy(facade)
            out[f"{name}.outline"] = render_outline(facade)
    return out


def test_every_sample_has_structure_goldens_that_match(rendered, update_goldens):
    mismatched = mismatched_goldens(GOLDEN, rendered, update_goldens)
    assert not mismatched, f"goldens differ (run pytest --update-goldens and review the diff): {mismatched}"


def test_no_structure_golden_is_left_over(rendered):
    on_disk = {p.name[: -len(".golden")] for p in GOLDEN.glob("*.golden")}
    assert on_disk <= set(rendered), sorted(on_disk - set(rendered))
