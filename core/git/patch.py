"""Hunks made from two versions of a file, and one hunk applied to a file: pure functions.

Both adapters stage and unstage hunks the same way: read the index's version of the file,
apply the hunk here (forwards to stage, backwards to unstage), and write the result to the
index. Doing it on bytes, not through `git apply`, keeps paths with newlines or undecodable
bytes out of patch headers, and gives the dulwich adapter the same behaviour.

Line text is `str` decoded with `surrogateescape`, so `apply_hunk` gives back exactly the
bytes git had.
"""

from __future__ import annotations

import difflib

from core.git.errors import HunkOutOfDate
from core.git.model import DiffLine, Hunk, LineKind

BINARY_SNIFF = 8000
"""git calls content binary when its first 8000 bytes hold a NUL (`buffer_is_binary`)."""


def is_binary(content: bytes) -> bool:
    return b"\0" in content[:BINARY_SNIFF]


def split_lines(content: bytes) -> list[bytes]:
    """Lines with their `\\n` (only `\\n` ends a line, as for git); the last may lack it."""
    lines = content.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def _decode(line: bytes) -> tuple[str, bool]:
    ends = line.endswith(b"\n")
    return line[:-1].decode("utf-8", "surrogateescape") if ends else line.decode(
        "utf-8", "surrogateescape"
    ), not ends


def _encode(line: DiffLine) -> bytes:
    raw = line.text.encode("utf-8", "surrogateescape")
    return raw if line.no_newline else raw + b"\n"


def make_hunks(old: bytes, new: bytes, context: int = 3) -> tuple[Hunk, ...]:
    """The unified-diff hunks turning `old` into `new` (`context` lines around changes).

    >>> [h.header for h in make_hunks(b"a\\nb\\nc\\n", b"a\\nB\\nc\\n")]
    ['@@ -1,3 +1,3 @@']
    """
    a, b = split_lines(old), split_lines(new)
    hunks = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for raw in a[i1:i2]:
                    text, last = _decode(raw)
                    lines.append(DiffLine(LineKind.CONTEXT, text, last))
                continue
            for raw in a[i1:i2]:
                text, last = _decode(raw)
                lines.append(DiffLine(LineKind.REMOVED, text, last))
            for raw in b[j1:j2]:
                text, last = _decode(raw)
                lines.append(DiffLine(LineKind.ADDED, text, last))
        first, final = group[0], group[-1]
        old_count, new_count = final[2] - first[1], final[4] - first[3]
        hunks.append(
            Hunk(
                # Unified diff numbers an empty side from the line before it (0 at the top).
                old_start=first[1] + 1 if old_count else first[1],
                old_count=old_count,
                new_start=first[3] + 1 if new_count else first[3],
                new_count=new_count,
                lines=tuple(lines),
            )
        )
    return tuple(hunks)


def apply_hunk(content: bytes, hunk: Hunk, path: str, reverse: bool = False) -> bytes:
    """`content` with `hunk` applied (its old side replaced by its new side; the other way
    round with `reverse`). HunkOutOfDate when `content` does not hold the expected side.

    >>> h = make_hunks(b"a\\nb\\n", b"a\\nc\\n")[0]
    >>> apply_hunk(b"a\\nb\\n", h, "f")
    b'a\\nc\\n'
    >>> apply_hunk(b"a\\nc\\n", h, "f", reverse=True)
    b'a\\nb\\n'
    """
    drop, put = (LineKind.ADDED, LineKind.REMOVED) if reverse else (
        LineKind.REMOVED,
        LineKind.ADDED,
    )
    expected = [_encode(ln) for ln in hunk.lines if ln.kind is not put]
    replacement = [_encode(ln) for ln in hunk.lines if ln.kind is not drop]
    start, count = (hunk.new_start, hunk.new_count) if reverse else (
        hunk.old_start,
        hunk.old_count,
    )
    lines = split_lines(content)
    at = start - 1 if count else start
    if at < 0 or lines[at : at + len(expected)] != expected:
        raise HunkOutOfDate(path)
    return b"".join(lines[:at] + replacement + lines[at + len(expected) :])
