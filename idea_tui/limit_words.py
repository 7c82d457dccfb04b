"""How a usage limit reads for the user (the `limit` block of `agent_list`, issue 10)."""

from __future__ import annotations

from typing import Any

from core.session_limits.book import countdown_words as countdown


def limit_words(agent: dict[str, Any], elapsed: float = 0.0) -> str | None:
    """"rate_limited (until 17:00) · resumes in 4m 09s", or None when not limited.

    `elapsed`: seconds since `agent` was read, so a panel's countdown runs between reads.
    """
    limit = agent.get("limit")
    if not isinstance(limit, dict):
        return None
    words = str(limit.get("text") or "rate_limited")
    resume_in = limit.get("resumeIn")
    if isinstance(resume_in, int | float):
        verb = "back" if limit.get("state") == "swapped" else "resumes"
        words += f" · {verb} in {countdown(resume_in - elapsed)}"
    elif limit.get("overdue"):
        words += " · its resume was missed: N resumes now, m sets a time, X keeps it stopped"
    elif limit.get("state") == "suspected":
        words += " · when should it resume? (m sets a time, o: not a limit)"
    elif limit.get("state") == "limited":
        words += " · resume time unknown (m sets one)"
    return words
