"""Detector levels 2 and 3 (SLM-3, SLM-4), pure: the daemon feeds them what it sees.

Level 2 matches the profile's `rateLimitPattern` on the cell's screen; the named group
`reset` (else the first group) is the reset time, read by `parse_reset`. A message stays on
screen after the limit is dealt with, so a `ScreenWatch` reports a match only when it is new:
a message text that was not there at the last look, or that appears more often than before.

Level 3 is a stall: a turn is running (a task was delivered) and the CLI has printed nothing
for `stall_after` seconds, with no level-1 or level-2 signal. The agent is then "limit
suspected" and the user is asked for a time (SLM-4).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from core.session_limits.signal import LimitLevel, LimitSignal, bounded_text
from core.session_limits.timeparse import parse_reset

SCREEN_SOURCE = "screen"


def compile_pattern(text: str | None) -> re.Pattern[str] | None:
    """A profile's pattern compiled, or None when absent or invalid (the profile check
    reports invalid ones when the profile is saved)."""
    if not text:
        return None
    try:
        return re.compile(text)
    except re.error:
        return None


def screen_texts(lines: Sequence[str], cols: int | None = None) -> list[str]:
    """The screen as texts to match: when the width is known, full rows joined to the next
    without a break first (a long message wraps in a narrow cell and a time may be cut at
    the edge: "4:3" / "8 PM", "(UTC" / ")"), then rows joined by newlines."""
    rows = [line.rstrip() for line in lines]
    texts = ["\n".join(rows)]
    if cols:
        parts: list[str] = []
        for index, line in enumerate(lines):
            parts.append(line.rstrip() if len(line.rstrip()) < cols else line)
            if index + 1 < len(lines) and len(line.rstrip()) < cols:
                parts.append("\n")
        unwrapped = "".join(parts)
        if unwrapped != texts[0]:
            texts.insert(0, unwrapped)
    return texts


def _reset_text(pattern: re.Pattern[str], match: re.Match[str]) -> str | None:
    if "reset" in pattern.groupindex:
        return match.group("reset")
    return match.group(1) if pattern.groups else None


def match_screen(
    pattern: re.Pattern[str],
    lines: Sequence[str],
    now: datetime,
    local_tz: tzinfo | None = None,
    cols: int | None = None,
) -> list[LimitSignal]:
    """Every limit message on the screen, in screen order, as level-2 signals."""
    for text in screen_texts(lines, cols):
        found = []
        for match in pattern.finditer(text):
            if not match.group(0).strip():
                continue
            reset = _reset_text(pattern, match)
            resets_at = parse_reset(reset, now, local_tz) if reset else None
            found.append(
                LimitSignal(
                    LimitLevel.PATTERN,
                    resets_at,
                    SCREEN_SOURCE,
                    bounded_text(match.group(0)),
                    observed_at=now,
                )
            )
        if found:
            return found
    return []


@dataclass
class ScreenWatch:
    """Level 2 for one session: which limit messages are already accounted for."""

    pattern: re.Pattern[str]
    seen: Counter[str] = field(default_factory=Counter)
    old: frozenset[str] = frozenset()
    """Messages an earlier session of the agent already showed: a CLI resumed on its
    conversation (`claude --resume`) replays its history, limit message included, and that
    replay is not a new limit (it would resume the agent again and again)."""

    def check(
        self,
        lines: Sequence[str],
        now: datetime,
        local_tz: tzinfo | None = None,
        cols: int | None = None,
    ) -> LimitSignal | None:
        """The newest limit message not yet accounted for, or None; what is on screen
        becomes accounted for (a message that scrolled away and comes back is new)."""
        found = match_screen(self.pattern, lines, now, local_tz, cols)
        current = Counter(signal.text for signal in found)
        fresh = [s for s in found
                 if current[s.text] > self.seen[s.text] and s.text not in self.old]
        self.seen = current
        return fresh[-1] if fresh else None

    def acknowledge(self, lines: Sequence[str], now: datetime, cols: int | None = None) -> None:
        """What the screen shows now is old news (after a resume into the same CLI)."""
        found = match_screen(self.pattern, lines, now, None, cols)
        self.seen = Counter(signal.text for signal in found)


def stalled(
    *,
    turn_running: bool,
    quiet_for: float,
    stall_after: float,
) -> bool:
    """Level 3: a running turn with no output for `stall_after` seconds (0 disables)."""
    return stall_after > 0 and turn_running and quiet_for >= stall_after


def suspected_signal(now: datetime, quiet_for: float) -> LimitSignal:
    """What a stall reports: no time; the user is asked for one."""
    return LimitSignal(
        LimitLevel.HUMAN,
        None,
        "stall",
        f"no output for {quiet_for:.0f} s during a task, and no limit message recognised",
        observed_at=now,
    )
