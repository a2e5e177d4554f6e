"""The GC pacer of the MCP server (`pybridge.mcp.gcpace`): collections between answers, never inside."""

from __future__ import annotations

import gc

from pybridge.mcp.gcpace import GcPacer


def test_the_pacer_turns_automatic_collection_off_and_collects_only_between_calls():
    pacer = GcPacer(interval=0.01, max_wait=3600.0, full_every=3600.0)
    pacer.enabled = True
    try:
        pacer.start()
        assert not gc.isenabled()
        with pacer.call():
            assert not pacer.tick()              # a call in flight: no collection
        assert pacer.tick() and pacer.collections == 1
        pacer._last -= 7200                      # under load for longer than max_wait
        with pacer.call():
            assert pacer.tick()
    finally:
        pacer.stop()
        gc.unfreeze()
    assert gc.isenabled()


def test_off_leaves_pythons_collector_alone():
    pacer = GcPacer()
    pacer.enabled = False
    try:
        pacer.start()
        assert gc.isenabled() and not pacer.tick()
    finally:
        pacer.stop()
        gc.unfreeze()
