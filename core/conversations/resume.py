"""The `# Conversation resume` section of an agent's context (LOG-2, SWP-2, LOG-8).

An agent launched, resumed or moved to another profile gets the handoffs of its most recent
conversations, bounded again here (a legacy or hand-edited `handoff.md` may be any size):
this is what lets a thread continue on another vendor's CLI, which knows nothing of the
previous one's session. The transcript itself is never injected.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.conversations.handoff import HANDOFF_MAX_CHARS, Handoff, body, bound

RESUME_MAX_THREADS = 3
"""Conversations an agent is reminded of at launch, most recent first."""

INTRO = (
    "Summaries of your conversations before this launch (most recent first; the CLI you "
    "run in may have changed since). `Prompt` is a task one side gave the other, "
    "`Response` its reply."
)


@dataclass(frozen=True, slots=True)
class Thread:
    """One conversation as seen by the agent being launched.

    Attributes:
        peer: Who is on the other side, for the heading (an agent's name, or "the user").
        handoff: Its handoff, as read (bounded here).
        at_ms: When it last changed (orders the threads).
    """

    peer: str
    handoff: Handoff
    at_ms: int


def resume_section(
    threads: list[Thread],
    max_chars: int = HANDOFF_MAX_CHARS,
    max_threads: int = RESUME_MAX_THREADS,
) -> str | None:
    """The section's text, at most `max_chars` characters, or None with nothing to resume."""
    useful = [t for t in threads if t.handoff.lines or t.handoff.objective]
    chosen = sorted(useful, key=lambda t: t.at_ms, reverse=True)[:max_threads]
    if not chosen:
        return None
    parts = [INTRO]
    budget = max_chars - len(INTRO)
    share = budget // len(chosen)
    for thread in chosen:
        heading = f"## With {_one_line(thread.peer)[:80]}\n\n"
        # Each part is `\n\n` + heading + body; the body gets what is left of its share.
        room = max(0, share - len(heading) - 2)
        handoff = bound(thread.handoff, room, frontmatter=False)
        text = body(handoff).rstrip("\n")
        if len(text) > room:  # a room smaller than the objective alone
            text = text[:room]
        if text:
            parts.append(heading + text)
    if len(parts) == 1:
        return None
    return "\n\n".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())
