"""What any detector level reports when an agent hit its provider's usage limit (SLM-1).

The domain knows only "limited, until this instant or unknown": vendor knowledge (screen
patterns, transcript fields) stays in profiles and adapters, which all speak `LimitSignal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum


class LimitLevel(IntEnum):
    """How a limit was learnt; a lower level is more trustworthy (SLM-2..4)."""

    STRUCTURED = 1
    """Machine-readable data the CLI wrote (a transcript's `resetsAt`, a session file's
    `rate_limits.primary.resets_at`): exact, no model involved."""

    PATTERN = 2
    """The profile's `rateLimitPattern` matched the cell's screen; the time is the capture."""

    HUMAN = 3
    """Nothing matched but the agent stalled: the user was asked and gave a time (or none)."""


@dataclass(frozen=True, slots=True)
class LimitSignal:
    """One observation that an agent is at a usage limit.

    Attributes:
        level: Which detector level produced it.
        resets_at: When the limit lifts (timezone-aware), or None when unknown.
        source: Where it came from, for the user and the logs: a file path, `screen`,
            `user`.
        text: The message as the CLI wrote it (bounded by the producer), shown to the user.
        observed_at: When the CLI recorded it, when the source says (a transcript line's
            timestamp); a reader uses it to return the newest signal, the detector to ignore
            one older than the agent's last (re)launch.
    """

    level: LimitLevel
    resets_at: datetime | None
    source: str
    text: str
    observed_at: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("resets_at", "observed_at"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise ValueError(f"LimitSignal.{name} must be timezone-aware")


MAX_SIGNAL_TEXT = 500
"""Characters of a limit message kept in a signal (the rest is cut: it travels in events)."""


def bounded_text(text: str) -> str:
    """`text` cut to `MAX_SIGNAL_TEXT`, whitespace runs folded (a wrapped screen message)."""
    folded = " ".join(text.split())
    return folded if len(folded) <= MAX_SIGNAL_TEXT else folded[: MAX_SIGNAL_TEXT - 1] + "…"
