"""The live-state rows and their bounds (FEATURES.md LIV-2, §3.13, DECISIONS D13).

One row per agent, keyed by its id, last writer wins: a row is replaced, never appended to.
Free text is bounded twice: what an agent reads is a 160-character preview of each field,
and a row whose encoded size is above 2 KiB is refused outright, with the limit in the
message, so nobody can grow `.ideai/live-state.json` (or the others' contexts) at will.
"""

from __future__ import annotations

import enum

import msgspec

from core.errors import IdeaError
from core.safe_text import clean

LIVE_STATE_VERSION = 1
PREVIEW_MAX_CHARS = 160
"""A free-text field as an agent or the Work panel reads it (FIELD_PREVIEW_MAX_CHARS)."""
ROW_MAX_BYTES = 2048
"""The hard limit of one row, encoded as JSON (FIELD_MAX_BYTES, 2 KiB)."""
TTL_MS = 24 * 3600 * 1000
"""A row not updated for this long is gone on the next read (D13)."""
MAX_ROWS = 50
"""At most this many rows are kept, the most recently updated (D13)."""


class WorkStatus(enum.Enum):
    IDLE = "idle"
    WORKING = "working"
    BLOCKED = "blocked"
    WAITING = "waiting"
    DONE = "done"


STATUS_NAMES = tuple(status.value for status in WorkStatus)


class LiveStateError(IdeaError):
    """A value refused by the live-state rules; `code` is stable for programs."""

    code = "live_state"


class UnknownStatus(LiveStateError):
    code = "bad_status"

    def __init__(self, value: str) -> None:
        shown = value if len(value) <= 40 else value[:40] + "…"
        super().__init__(
            f"{shown!r} is not a work status; use one of {', '.join(STATUS_NAMES)}."
        )
        self.value = value


class RowTooLarge(LiveStateError):
    code = "too_large"

    def __init__(self, size: int) -> None:
        super().__init__(
            f"This work-state row is {size} bytes; the limit is {ROW_MAX_BYTES} bytes (2 KiB) "
            f"per row. Keep task and note short: others read only their first "
            f"{PREVIEW_MAX_CHARS} characters."
        )
        self.size = size


class Delegation(msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True):
    """The last task an agent was given through idea: who asked, the ticket, when."""

    from_: str = msgspec.field(name="from")
    """The requester's agent id, or "user"."""
    ticket: str
    at_ms: int = 0


class LiveRow(msgspec.Struct, frozen=True, kw_only=True, rename="camel", omit_defaults=True):
    """One agent's row. `task` is what it works on, `note` anything worth a glance."""

    status: WorkStatus
    task: str | None = None
    note: str | None = None
    last_delegation: Delegation | None = None
    updated_at_ms: int = 0


class LiveStateFile(msgspec.Struct, kw_only=True, rename="camel"):
    """The document of `.ideai/live-state.json`."""

    version: int = LIVE_STATE_VERSION
    entries: dict[str, LiveRow] = msgspec.field(default_factory=dict)


def parse_status(value: str) -> WorkStatus:
    """Raises: UnknownStatus (the message lists the five statuses)."""
    try:
        return WorkStatus(value.strip().lower())
    except ValueError:
        raise UnknownStatus(value) from None


def row_size(row: LiveRow) -> int:
    return len(msgspec.json.encode(row))


def check_row(row: LiveRow) -> LiveRow:
    """The row itself, when it fits the 2 KiB limit.

    Raises:
        RowTooLarge: It does not (nothing is truncated silently: the writer is told).
    """
    size = row_size(row)
    if size > ROW_MAX_BYTES:
        raise RowTooLarge(size)
    return row


def preview(text: str | None, limit: int = PREVIEW_MAX_CHARS) -> str | None:
    """The first `limit` characters on one line, an ellipsis when cut; None stays None.

    Control characters go too (`core.safe_text`): a preview is drawn in the Work panel and
    typed into other agents' contexts.
    """
    if text is None:
        return None
    # Only a head of the text is looked at (a task can be megabytes): the preview of a head
    # is a prefix of the whole text's, so once it is longer than `limit` it decides.
    take = limit * 2 + 16
    while True:
        head = text[:take]
        flat = " ".join(clean(head, len(head)).split())
        if len(head) == len(text) or len(flat) > limit:
            break
        take *= 4
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"
