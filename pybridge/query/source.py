"""Paths, positions and source lines: the one place that checks them.

- `workspace_path` turns a path argument (relative to the root, or absolute
  inside it) into a workspace-relative POSIX path without touching the file
  system; a path outside the workspace is an `invalid_argument` error and is
  never read.
- `check_position` validates an LSP position (0-based line, 0-based UTF-16
  character) against a file's lines; its message names the valid range.
- `snippet` is a source line as reference and call rows show it: without its
  indentation, and cut around the reference when it is long.
- `Sources` reads the lines of source files that the published generation
  lists (never anything else), decoded with the module's encoding, split on
  `\\n`, `\\r\\n` and `\\r` as the compiler counts lines, and caches a few.
  A file's lines are a tuple of strings: the collector stops tracking a tuple
  of strings, so the cache (all of a 1,700-file reactor's 600,000 lines) adds
  nothing to a full collection, which walked every line of a list in 66 ms.
  A cached file is checked by `stat` (size, mtime) before it is used, except
  under a freshness proof (`freshness.Check.proof`, PYBRIDGE_LINES_BY_EVENTS):
  the live index's inotify counter has not moved since the sweep that proved
  the workspace unchanged, and the entry was checked by `stat` under that same
  proof, so the file is as the `stat` found it (a find_references page of 100
  rows made a `stat` per file it shows). An edit moves the counter, and the
  next call's proof is a new one: the entry is checked by `stat` again.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
from collections import OrderedDict
from pathlib import Path

from pybridge import switches
from pybridge.facts import codepoints, utf16_len

from .errors import invalid, show

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CACHE_FILES = 2048
_CACHE_BYTES = 48 * 2**20   # source bytes kept at most (the lines take about twice that in memory)
MAX_CONTEXT = 1000   # characters of a source line shown as context
SNIPPET_MAX = 100    # characters of a source line shown in a reference or call row
Lines = tuple[str, ...]     # a file's lines, without line breaks
LINES_BY_EVENTS_ENV = "PYBRIDGE_LINES_BY_EVENTS"


def trusted(proof: object | None) -> object | None:
    """The freshness proof `Sources.lines` may use (`freshness.Check.proof`), or None when
    PYBRIDGE_LINES_BY_EVENTS is 0 (read once per call, not once per file)."""
    if proof is None or not switches.enabled(
            LINES_BY_EVENTS_ENV, "check every cached source file by stat on every call, even under the "
                                 "live index's proof that no file changed"):
        return None
    return proof


def workspace_path(roots: tuple[str, ...], text: str) -> str:
    """The workspace-relative path named by `text`; `roots` are the root's spellings
    (as given, resolved), absolute and normalized."""
    if "\0" in text or not text.strip():
        raise invalid(f"path {show(text)} is not a file path; pass a path relative to the workspace "
                      f"root, e.g. src/main/java/com/acme/Greeter.java.", field="path")
    if os.path.isabs(text):
        absolute = os.path.normpath(text)
        for root in roots:
            if absolute.startswith(root.rstrip("/") + "/"):
                return posixpath.normpath(os.path.relpath(absolute, root))
        raise invalid(f"path {show(text)} is outside the workspace {roots[0]}; pass a path inside it "
                      f"(relative to the root, or absolute under it).", field="path")
    rel = posixpath.normpath(text)
    if rel == "." or rel == ".." or rel.startswith("../"):
        raise invalid(f"path {show(text)} is outside the workspace {roots[0]}; pass a path inside it "
                      f"(relative to the root, or absolute under it).", field="path")
    return rel


def check_position(path: str, lines: Lines | None, line: int, character: int) -> None:
    """The one check of an LSP position; raises invalid_argument naming the valid range."""
    if lines is None:
        if line < 0 or character < 0 or line > 2**31 or character > 2**31:
            raise invalid(f"line and character are 0-based and non-negative (got line {line}, "
                          f"character {character}).", field="line" if line < 0 or line > 2**31
                          else "character")
        return
    if not 0 <= line < len(lines):
        raise invalid(f"line {line} is outside {path}: lines are 0-based, from 0 to "
                      f"{len(lines) - 1} in this file.", field="line")
    width = utf16_len(lines[line])
    if not 0 <= character <= width:
        raise invalid(f"character {character} is outside line {line} of {path}: characters are "
                      f"0-based UTF-16 code units, from 0 to {width} on this line.", field="character")


class Sources:
    """Source lines of the generation's files, read from the workspace."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        # rel -> ((size, mtime_ns), lines, the freshness proof under which the stamp was last checked)
        self._cache: OrderedDict[str, tuple[tuple[int, int], Lines, object | None]] = OrderedDict()
        self._bytes = 0        # the file sizes of what the cache holds
        self._real: dict[str, Path] = {}
        self.stats = 0         # the `stat` calls made (the tests count them)

    def lines(self, rel: str, encoding: str = "UTF-8", proof: object | None = None) -> Lines | None:
        """The file's lines without line breaks; None when it cannot be read or
        resolves outside the workspace (a symlink pointing away). `proof`: the current freshness
        proof of the workspace (`Check.proof`), under which a file checked once needs no `stat`."""
        if proof is not None:
            with self._lock:
                hit = self._cache.get(rel)
                if hit is not None and hit[2] is proof:
                    self._cache.move_to_end(rel)
                    return hit[1]
        real = self._real.get(rel)
        if real is None:
            try:
                real = (self.root / rel).resolve()
            except (OSError, RuntimeError, ValueError):
                return None
            if not real.is_relative_to(self.root):
                return None
            with self._lock:
                if len(self._real) > 100_000:
                    self._real.clear()
                self._real[rel] = real   # resolved once per path: realpath costs a dozen lstat calls
        self.stats += 1
        try:
            st = os.stat(real)
        except (OSError, ValueError):
            return None
        stamp = (st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._cache.get(rel)
            if hit and hit[0] == stamp:
                if hit[2] is not proof:
                    self._cache[rel] = (stamp, hit[1], proof)
                self._cache.move_to_end(rel)
                return hit[1]
        try:
            data = real.read_bytes()
        except OSError:
            return None
        try:
            text = data.decode(encoding, errors="replace")
        except LookupError:   # an encoding Python does not know
            text = data.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        # without a carriage return the compiler's line breaks are the newlines: str.split is 2.5
        # times faster than the pattern (a cold find_references page reads 30 files)
        lines = tuple(text.split("\n") if "\r" not in text else _LINE_BREAK.split(text))
        with self._lock:
            old = self._cache.pop(rel, None)
            if old is not None:
                self._bytes -= old[0][0]
            self._cache[rel] = (stamp, lines, proof)
            self._bytes += stamp[0]
            while len(self._cache) > _CACHE_FILES or (self._bytes > _CACHE_BYTES and len(self._cache) > 1):
                _rel, ((size, _mtime), _lines, _proof) = self._cache.popitem(last=False)
                self._bytes -= size
        return lines

    def line(self, rel: str, line: int, encoding: str = "UTF-8") -> str | None:
        lines = self.lines(rel, encoding)
        if lines is None or not 0 <= line < len(lines):
            return None
        return lines[line]


def context(text: str | None) -> str | None:
    """A source line as shown in answers: verbatim, cut at MAX_CONTEXT characters."""
    if text is None or len(text) <= MAX_CONTEXT:
        return text
    return text[:MAX_CONTEXT] + "…"


def snippet(text: str | None, character: int = 0) -> str | None:
    """A source line as a reference or call row shows it: without its indentation and trailing
    blanks; a line longer than SNIPPET_MAX characters is cut to SNIPPET_MAX around `character`
    (the reference's 0-based UTF-16 start in the line), with `…` where it was cut. Rows of 100
    references stay near 32 KB this way (bench/RESULTS.md, "Answer sizes")."""
    if text is None:
        return None
    body = text.strip()
    if len(body) <= SNIPPET_MAX:
        return body
    at = codepoints(text, character) - (len(text) - len(text.lstrip()))
    begin = max(0, min(at - SNIPPET_MAX // 4, len(body) - SNIPPET_MAX))
    cut = body[begin:begin + SNIPPET_MAX].strip()
    return ("…" if begin > 0 else "") + cut + ("…" if begin + SNIPPET_MAX < len(body) else "")
