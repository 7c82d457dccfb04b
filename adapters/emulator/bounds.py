"""The bounds both backends put on what a program can make the terminal hold, and the one
policy for the event queue. Free of pyte, so the ghostty backend loads without it."""

from __future__ import annotations

from core.terminal import TerminalEvent, TerminalEventKind

MAX_STRING = 65_536
"""The longest control string (OSC, DCS…) kept; the rest is dropped."""
MAX_EVENTS = 256
MAX_REPLY_CHARS = 65_536


def queue_event(events: list[TerminalEvent], event: TerminalEvent) -> None:
    """Add `event` to a bounded event queue (both backends use this one policy)."""
    if event.kind == TerminalEventKind.BELL and events and events[-1] == event:
        return  # a burst of BELs is one bell
    if event.kind == TerminalEventKind.TITLE:
        # Only the latest title matters: a program retitling itself in a loop must not
        # fill the events (the last title would be dropped, and shown never).
        events[:] = [e for e in events if e.kind != TerminalEventKind.TITLE]
    if len(events) < MAX_EVENTS:
        events.append(event)
