"""Symbol keys and cursors: short, URL-safe, authenticated tokens (DESIGN section 5).

A *symbol key* names (workspace, symbol id), not a generation: it answers in
every generation that still declares its symbol (DESIGN section 5)::

    base64url( 0x03 | tag[3] | varint(symbol id) | mac[10] )

(Keys of version 1, `0x01 | tag | varint(generation) | varint(symbol id) | mac`,
issued before keys outlived generations, are still read; their generation
is ignored.)

`tag` names the workspace: the first bytes of an HMAC of the workspace's
secret, so a key stays valid across server restarts and whatever order the
workspaces are served in. `mac` is a truncated HMAC-SHA256, keyed with the
secret, over the token's bytes *and the symbol's binding key*: a forged,
garbled or truncated key is rejected, and a key can never be misread as
another symbol (not even after the store was rebuilt with other ids).

A *cursor* names (workspace, tool, generation, arguments, position)::

    base64url( 0x02 | tag[3] | tool[1] | varint(generation) | args[6] | json(position) | mac[10] )

`args` is a hash of the tool's validated arguments without the cursor, so
a cursor used with other arguments is told apart from a garbled one.

Both are accepted in their canonical spelling only: unpadded base64url whose
unused low bits of the last character are zero. (Decoding ignores those
bits, so without the check one key had up to 16 accepted spellings.)

The secret is 32 random bytes in `<state>/secret` (mode 0600), created by
the sync (a query only reads it; it creates one only for a state folder
that no sync of this version prepared); when the state folder is not
writable a per-process secret is used, and keys then live as long as the
process.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pybridge.sync.state import load_secret as _state_secret

KEY_VERSION = 3
KEY_VERSION_WITH_GENERATION = 1
CURSOR_VERSION = 2
TAG_LEN = 3
MAC_LEN = 10
ARGS_LEN = 6
SECRET_LEN = 32
TOOL_CODES = {"find_symbol": 1, "find_references": 2, "diagnostics": 11, "check_edit": 12, "rename": 13}

_B64 = re.compile(r"[A-Za-z0-9_-]+")


class TokenError(ValueError):
    """The token is not well formed (the caller turns it into invalid_key/invalid_cursor)."""


def load_secret(state: Path) -> bytes:
    """The workspace's secret (see `pybridge.sync.state.load_secret`); a sync creates it, so a
    query only reads it, and creates it only for a workspace never synced by this version."""
    return _state_secret(state)


@functools.lru_cache(maxsize=64)
def workspace_tag(secret: bytes) -> bytes:
    return hmac.new(secret, b"pybridge workspace tag", hashlib.sha256).digest()[:TAG_LEN]


def _mac(secret: bytes, purpose: bytes, body: bytes, extra: bytes = b"") -> bytes:
    return hmac.new(secret, purpose + body + b"\0" + extra, hashlib.sha256).digest()[:MAC_LEN]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    n = shift = 0
    for _ in range(9):
        if i >= len(data):
            raise TokenError("truncated")
        byte = data[i]
        i += 1
        n |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return n, i
    raise TokenError("number too long")


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode(token: str) -> bytes:
    if not isinstance(token, str) or not _B64.fullmatch(token) or len(token) % 4 == 1:
        raise TokenError("not base64url")
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError) as exc:
        raise TokenError("not base64url") from exc
    # The last character may carry padding bits that decoding ignores; only the
    # spelling that encoding produces (padding bits zero) names the token.
    if _encode(data) != token:
        raise TokenError("not the canonical base64url spelling")
    return data


def _binding(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class ParsedKey:
    tag: bytes
    generation: int | None     # only in version-1 keys (ignored: keys outlive generations)
    symbol_id: int
    body: bytes
    mac: bytes

    def verify(self, secret: bytes, binding_key: str) -> bool:
        return hmac.compare_digest(self.mac, _mac(secret, b"K", self.body, _binding(binding_key)))


@functools.lru_cache(maxsize=65536)
def make_key(secret: bytes, symbol_id: int, binding_key: str) -> str:
    """The key of a symbol: the same in every generation that declares it (so cached: an outline
    or a call graph mints a hundred keys, two HMACs each)."""
    body = bytes([KEY_VERSION]) + workspace_tag(secret) + _varint(symbol_id)
    return _encode(body + _mac(secret, b"K", body, _binding(binding_key)))


def parse_key(token: str) -> ParsedKey:
    data = _decode(token)
    if len(data) < 1 + TAG_LEN + 1 + MAC_LEN or data[0] not in (KEY_VERSION, KEY_VERSION_WITH_GENERATION):
        raise TokenError("not a symbol key")
    body, mac = data[:-MAC_LEN], data[-MAC_LEN:]
    generation: int | None = None
    i = 1 + TAG_LEN
    if data[0] == KEY_VERSION_WITH_GENERATION:
        generation, i = _read_varint(body, i)
    symbol_id, i = _read_varint(body, i)
    if i != len(body):
        raise TokenError("trailing bytes")
    return ParsedKey(body[1:1 + TAG_LEN], generation, symbol_id, body, mac)


def args_hash(tool: str, args: dict[str, Any]) -> bytes:
    canonical = json.dumps([tool, args], sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).digest()[:ARGS_LEN]


@dataclass(frozen=True)
class ParsedCursor:
    tag: bytes
    tool: int
    generation: int
    args: bytes
    position: Any
    body: bytes
    mac: bytes

    def verify(self, secret: bytes) -> bool:
        return hmac.compare_digest(self.mac, _mac(secret, b"C", self.body))


def make_cursor(secret: bytes, tool: str, generation: int, args: bytes, position: Any) -> str:
    body = (bytes([CURSOR_VERSION]) + workspace_tag(secret) + bytes([TOOL_CODES[tool]])
            + _varint(generation) + args
            + json.dumps(position, ensure_ascii=True, separators=(",", ":")).encode("ascii"))
    return _encode(body + _mac(secret, b"C", body))


def parse_cursor(token: str) -> ParsedCursor:
    data = _decode(token)
    if len(data) < 1 + TAG_LEN + 1 + 1 + ARGS_LEN + 1 + MAC_LEN or data[0] != CURSOR_VERSION:
        raise TokenError("not a cursor")
    body, mac = data[:-MAC_LEN], data[-MAC_LEN:]
    tag, tool = body[1:1 + TAG_LEN], body[1 + TAG_LEN]
    generation, i = _read_varint(body, 2 + TAG_LEN)
    args, rest = body[i:i + ARGS_LEN], body[i + ARGS_LEN:]
    if len(args) != ARGS_LEN:
        raise TokenError("truncated")
    try:
        position = json.loads(rest.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TokenError("garbled position") from exc
    return ParsedCursor(tag, tool, generation, args, position, body, mac)
