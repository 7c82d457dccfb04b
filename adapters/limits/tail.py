"""Reading what a CLI appended to its JSONL file since the last look.

A CLI's transcript grows for as long as the conversation lasts (Claude Code's lines carry
whole system prompts: megabytes after a day), and the daemon looks at it each time an agent
goes quiet. `JsonlTail` remembers how far it read and reads only the bytes added since; a
line still being written (no newline yet) waits for the next look; a line that is not JSON
(torn by a crash, or garbage) is skipped; a file replaced or truncated is read again from its
start. Lines are handed out as bytes: readers test a few needles before paying for
`json.loads` on a line that cannot matter to them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIRST_LOOK_BYTES = 4 << 20
"""On the first look at a file that is already big (a resumed conversation), only its last
bytes are read: what matters is what the CLI wrote lately, not the conversation's history."""

MAX_LINE_BYTES = 16 << 20
"""Longer lines are skipped whole (bounded memory whatever the file holds)."""

CHUNK = 1 << 20


@dataclass
class JsonlTail:
    """The position of one reader in one file. Not thread-safe: one caller at a time."""

    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None
    """(st_dev, st_ino) of the file read so far: another file at the path starts over."""
    partial: bytes = b""
    skipping: bool = False
    """Inside a line longer than MAX_LINE_BYTES (or cut by the first look): drop to its end."""
    bytes_read: int = 0
    """Total bytes read from the file (what the tests check to prove nothing is re-read)."""

    def new_lines(self) -> Iterator[bytes]:
        """The complete lines appended since the last call (without their newline).

        A missing or unreadable file yields nothing and keeps the position for later.
        """
        try:
            with self.path.open("rb") as file:
                stat = os.fstat(file.fileno())
                identity = (stat.st_dev, stat.st_ino)
                if identity != self.identity or stat.st_size < self.offset:
                    self._restart(identity, stat.st_size)
                file.seek(self.offset)
                while block := file.read(CHUNK):
                    self.offset += len(block)
                    self.bytes_read += len(block)
                    yield from self._split(block)
        except OSError:
            return

    def _restart(self, identity: tuple[int, int], size: int) -> None:
        first_look = self.identity is None
        self.identity = identity
        self.partial = b""
        self.skipping = False
        self.offset = 0
        if first_look and size > FIRST_LOOK_BYTES:
            self.offset = size - FIRST_LOOK_BYTES
            self.skipping = True  # the line the window starts in is cut: not a line

    def _split(self, block: bytes) -> Iterator[bytes]:
        start = 0
        while (end := block.find(b"\n", start)) != -1:
            piece = block[start:end]
            start = end + 1
            if self.skipping:
                self.skipping = False
                self.partial = b""
                continue
            line = self.partial + piece if self.partial else piece
            self.partial = b""
            if line.strip() and len(line) <= MAX_LINE_BYTES:
                yield line
        rest = block[start:]
        if self.skipping or not rest:
            return
        if len(self.partial) + len(rest) > MAX_LINE_BYTES:
            self.partial = b""
            self.skipping = True
        else:
            self.partial += rest


def json_object(line: bytes) -> dict[str, Any] | None:
    """The line as a JSON object, or None when it is not one (torn, garbage, a list)."""
    try:
        found = json.loads(line)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both are
        return None
    return found if isinstance(found, dict) else None
