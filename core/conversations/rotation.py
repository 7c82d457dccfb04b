"""The rotation plan of a conversation log (FEATURES.md LOG-5, INV-LS6).

The active `log.jsonl` grows by appends only; rotation, off the hot path (at project open
and at resume), moves its older turns into a new archive segment `log.<N>.jsonl` (N grows
with time: the highest N is the most recent archive) and prunes the oldest segments beyond
`MAX_SEGMENTS`. This module decides; the store does the file work.

INV-LS6: no turn at or after the handoff's `upTo` is moved or pruned, so the incremental
fold (which reads the log from `upTo` on) and resume stay right. Without a handoff (or with
an `upTo` the active log does not hold) nothing rotates.

A rotation writes the new segment first, then rewrites the active log without the moved
lines. A crash between the two leaves those lines in both; the next plan sees that the
newest segment ends with a line the active log holds and drops the active copies first.
"""

from __future__ import annotations

from dataclasses import dataclass

ROTATE_AFTER_TURNS = 500
ROTATE_AFTER_BYTES = 1024 * 1024
MAX_SEGMENTS = 20


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the active log: the turn's id (None when unreadable) and its size in
    bytes, newline included."""

    id: str | None
    size: int


@dataclass(frozen=True, slots=True)
class RotationPlan:
    """What to do, in this order.

    Attributes:
        drop: Leading active lines already in the newest segment (an interrupted rotation):
            removed from the active log, archived nowhere.
        move: The next active lines (after `drop`), written to segment `new_segment`.
        new_segment: The number of the segment to create (None when `move` is 0).
        prune: Segment numbers to delete, oldest first.
    """

    drop: int = 0
    move: int = 0
    new_segment: int | None = None
    prune: tuple[int, ...] = ()

    @property
    def nothing(self) -> bool:
        return not (self.drop or self.move or self.prune)


def rotation_plan(
    active: list[Line],
    up_to: str | None,
    segments: list[int],
    newest_archived: str | None = None,
    *,
    max_turns: int = ROTATE_AFTER_TURNS,
    max_bytes: int = ROTATE_AFTER_BYTES,
    max_segments: int = MAX_SEGMENTS,
) -> RotationPlan:
    """The plan for one conversation.

    Args:
        active: The active log's lines, in order.
        up_to: The handoff's `upTo` (None: no handoff).
        segments: Existing segment numbers, in any order.
        newest_archived: The id of the last line of the newest segment, if readable.
    """
    ids = [line.id for line in active]
    limit = ids.index(up_to) if up_to is not None and up_to in ids else None
    drop = 0
    if limit is not None and newest_archived is not None and newest_archived in ids[:limit]:
        drop = ids.index(newest_archived) + 1
    kept = active[drop:]
    move = 0
    if limit is not None and (
        len(kept) > max_turns or sum(line.size for line in kept) > max_bytes
    ):
        move = limit - drop
    new_segment = (max(segments, default=0) + 1) if move else None
    after = sorted(segments) + ([new_segment] if new_segment is not None else [])
    excess = max(0, len(after) - max_segments)
    return RotationPlan(drop, move, new_segment, tuple(after[:excess]))
