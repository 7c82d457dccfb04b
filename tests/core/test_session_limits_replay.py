"""A CLI resumed on its conversation replays its history, the limit message included
(seen with Claude Code 2.1.332's `--resume`): level 2 must not take that replay for a new
limit, or the agent would be resumed again and again (tests/agents_cli/
test_real_session_limits.py is the real-CLI regression test)."""

from __future__ import annotations

from datetime import UTC, datetime

from adapters.agents.catalogue import builtin_profiles
from core.session_limits.detector import ScreenWatch, compile_pattern

NOW = datetime(2026, 12, 1, 19, 28, 1, tzinfo=UTC)
PATTERN = compile_pattern(next(p for p in builtin_profiles()
                               if p["id"] == "claude-code")["rateLimitPattern"])
OLD = ["❯ HELLO", "  ⎿  You've hit your limit · resets", "     7:27pm (UTC)"]
NEW = ["❯ HELLO", "  ⎿  You've hit your limit · resets", "     11:55pm (UTC)"]


def test_a_message_an_earlier_session_showed_is_not_a_new_limit() -> None:
    assert PATTERN is not None
    first = ScreenWatch(PATTERN)
    seen = first.check(OLD, NOW, UTC, 39)
    assert seen is not None and seen.text == "You've hit your limit · resets 7:27pm (UTC)"
    resumed = ScreenWatch(PATTERN, old=frozenset({seen.text}))
    assert resumed.check([""] * 3, NOW, UTC, 39) is None  # the TUI draws the replay later
    assert resumed.check(OLD, NOW, UTC, 39) is None
    fresh = resumed.check(OLD + NEW, NOW, UTC, 39)  # a new limit, another reset: new
    assert fresh is not None and fresh.resets_at == datetime(2026, 12, 1, 23, 55, tzinfo=UTC)
