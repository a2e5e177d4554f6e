"""The cyclic GC of a serving process runs between answers, not inside them.

Python's collector starts whenever enough container objects were allocated,
which is in the middle of building a large answer: it then walks every young
object that answer holds, and on guava a collection inside an `outline` or a
depth-3 `call_graph` added 5 to 10 ms to the slowest answers (p99 32 ms with
it, 22 ms with the collector off, over MCP stdio). pybridge's own answers
leave no cycles (tests/query/test_query_garbage.py), so the collector's work is the
SDK's and asyncio's few cycles.

`GcPacer` therefore:
- moves what start-up allocated out of the collector's reach (`gc.freeze`);
- turns automatic collection off and collects the young generations itself,
  every `interval` seconds when no tool call is in flight, and at the latest
  after `max_wait` seconds even under uninterrupted load (then it collects
  between two calls on the event loop, still never inside one);
- runs a full collection every `full_every` seconds the same way.

`PYBRIDGE_GC_PACE=0` leaves the collector as Python sets it (after the freeze).

Only stdio paces (one client, calls one after another: there is idle time between
them). Under HTTP load the pacer made paced clients' p99 worse in
bench/http_load.py (50 clients, 1 s think: 86 to 98 ms against 41 to 62 ms
without it), so the HTTP server only freezes (`freeze_startup`).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import anyio


class GcPacer:
    def __init__(self, interval: float = 0.2, max_wait: float = 2.0, full_every: float = 60.0) -> None:
        self.interval = interval
        self.max_wait = max_wait
        self.full_every = full_every
        self.in_flight = 0
        self.collections = 0
        self.enabled = os.environ.get("PYBRIDGE_GC_PACE", "1") != "0"
        self._last = self._last_full = time.monotonic()

    def start(self) -> None:
        """Freeze what start-up allocated and take over the young collections."""
        freeze_startup()
        if self.enabled:
            gc.disable()

    def stop(self) -> None:
        gc.enable()

    @contextmanager
    def call(self) -> Iterator[None]:
        """Around one tool call: the pacer does not collect while any is in flight."""
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1

    def tick(self) -> bool:
        """Collect now if it is time (called on the event loop between calls); whether it did."""
        if not self.enabled:
            return False
        now = time.monotonic()
        idle = self.in_flight == 0
        if not idle and now - self._last < self.max_wait:
            return False
        if now - self._last_full >= self.full_every:
            gc.collect()
            self._last_full = now
        else:
            gc.collect(1)
        self._last = now
        self.collections += 1
        return True

    async def run(self) -> None:
        """The pacing loop; cancel it to stop."""
        try:
            while True:
                await anyio.sleep(self.interval)
                self.tick()
        finally:
            self.stop()


def freeze_startup() -> None:
    """Move every object alive now (modules, classes, schemas) out of the cyclic GC's reach, so a
    full collection walks only what serving allocated."""
    gc.collect()
    gc.freeze()


PACER = GcPacer()
"""The process's pacer: the MCP server counts its tool calls on it."""
