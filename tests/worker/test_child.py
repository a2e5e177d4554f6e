"""The worker child's own helpers (child.py), apart from the JVM it embeds."""

from __future__ import annotations

import os

from pybridge.worker import child, protocol


def test_a_request_is_waiting_exactly_when_the_parent_has_written_one():
    """The child collects a warm worker's heap only when no request waits (`_waiting`); its input is
    unbuffered, so a message read whole leaves nothing hidden in a buffer that select would miss."""
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb", buffering=0) as stream, os.fdopen(write_fd, "wb") as out:
        assert not child._waiting(stream)
        protocol.send(out, ("index", {"files": []}))
        protocol.send(out, ("ping",))
        assert child._waiting(stream)
        assert protocol.receive(stream) == ("index", {"files": []})
        assert child._waiting(stream)
        assert protocol.receive(stream) == ("ping",)
        assert not child._waiting(stream)


def test_a_stream_that_cannot_be_polled_counts_as_a_request_waiting():
    """Where select cannot poll the child's input (a closed stream here; a pipe on Windows), the child
    takes a request to be waiting, and so never collects the heap instead of failing."""
    read_fd, write_fd = os.pipe()
    os.close(write_fd)
    stream = os.fdopen(read_fd, "rb", buffering=0)
    stream.close()
    assert child._waiting(stream)
