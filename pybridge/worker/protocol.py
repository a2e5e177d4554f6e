"""Framing between the parent and the worker child: a 4-byte big-endian
length, then a pickled message. Both ends are pybridge's own code, so
pickle is safe here; nothing else ever writes to these pipes.

Messages from parent to child: ("index", request_dict) | ("ping",) | ("exit",)
Messages from child to parent: ("ready", info) | ("progress", done, total)
| ("result", payload) | ("error", kind, message)
"""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any

_HEADER = struct.Struct(">I")


def send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def _read_exact(stream: IO[bytes], n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(stream: IO[bytes]) -> Any | None:
    """The next message, or None at end of stream (the other side is gone)."""
    header = _read_exact(stream, _HEADER.size)
    if header is None:
        return None
    body = _read_exact(stream, _HEADER.unpack(header)[0])
    if body is None:
        return None
    return pickle.loads(body)
