"""SVG snapshots of what a user sees of usage limits (issue 10), at a fixed 100x30: the
Agents panel with a limited agent's badge and countdown (and a suspected one, and one on
its fallback profile), the "suspected" prompt that arms the resume, and the fallback choice.
Stored under `snapshots/test_limit_snapshots/`; see snapshots/README.md to update them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.limit_flows import (
    fallback_options,
    fallback_question,
    limit_question,
)
from idea_tui.screens.prompt import PromptScreen
from tests.helpers.pilot import SIZE
from tests.tui.agent_data import PROFILES
from tests.tui.test_agent_snapshots import app, showing

SnapCompare = Callable[..., bool]

LIMITED: dict[str, Any] = {
    "id": "b1", "name": "Backend", "mdPath": "agents/backend.md", "profileId": "claude-code",
    "state": "running", "cell": "cell-1", "target": "web:Default.1", "background": False,
    "synchronized": False, "template": None,
    "limit": {"state": "limited", "text": "rate_limited (until 17:00)", "level": 2,
              "source": "screen", "message": "You've hit your limit · resets 5pm (UTC)",
              "since": "2026-12-01T16:02:11+00:00", "resetsAt": "2026-12-01T17:00:00+00:00",
              "resumeAt": "2026-12-01T17:01:00+00:00", "armedBy": "auto",
              "resumeIn": 251.0, "countdown": "4m 11s"},
}
SUSPECTED: dict[str, Any] = {
    "id": "b2", "name": "Frontend", "mdPath": "agents/frontend.md", "profileId": "codex",
    "state": "running", "background": True, "synchronized": False, "template": None,
    "limit": {"state": "suspected", "text": "limit suspected", "level": 3, "source": "stall",
              "message": "no output for 600 s during a task, and no limit message recognised",
              "since": "2026-12-01T16:10:00+00:00", "resetsAt": None, "resumeAt": None,
              "armedBy": None},
}
SWAPPED: dict[str, Any] = {
    "id": "b3", "name": "Reviewer", "mdPath": "agents/reviewer.md", "profileId": "codex",
    "state": "running", "background": True, "synchronized": False, "template": None,
    "limit": {"state": "swapped", "text": "on fallback codex until 17:01", "level": 2,
              "source": "screen", "message": "You've hit your limit · resets 5pm (UTC)",
              "since": "2026-12-01T16:02:11+00:00", "resetsAt": "2026-12-01T17:00:00+00:00",
              "resumeAt": "2026-12-01T17:01:00+00:00", "armedBy": "auto", "resumeIn": 3725.0,
              "countdown": "1h 02m 05s", "swappedFrom": "claude-code", "swappedTo": "codex"},
}
PLAIN: dict[str, Any] = {
    "id": "b4", "name": "Docs", "mdPath": "agents/docs.md", "profileId": "claude-code",
    "state": "stopped", "synchronized": False, "template": None,
}


def frozen_panel(agents: list[dict[str, Any]]) -> AgentsScreen:
    """The panel with a clock that does not move: the countdown reads as fetched."""
    screen = AgentsScreen(None, agents, project="web")
    screen.clock = lambda: screen.read_at
    return screen


def test_limited_badge_with_countdown(snap_compare: SnapCompare) -> None:
    """Backend selected: its limit, the countdown, the message and the keys."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: frozen_panel([LIMITED, SUSPECTED, SWAPPED, PLAIN])))


def test_countdown_runs_between_reads() -> None:
    screen = frozen_panel([LIMITED])
    from idea_tui.screens.agents import status_text

    assert "resumes in 4m 11s" in status_text(LIMITED).plain
    assert "resumes in 3m 50s" in status_text(LIMITED, elapsed=20.4).plain
    assert "resumes in 0s" in status_text(LIMITED, elapsed=900).plain  # clamped at 0
    assert screen._elapsed() == 0.0


def test_suspected_prompt(snap_compare: SnapCompare) -> None:
    """Asking = arming: the question for an agent that stalled with no limit message."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: PromptScreen(limit_question(SUSPECTED), ""), *"03:40"))


def test_fallback_choice(snap_compare: SnapCompare) -> None:
    """Continue a limited agent on another profile (its own is not offered)."""
    options = fallback_options(LIMITED, PROFILES)
    assert [value for value, _label in options] == ["codex", "gemini", "aider"]

    async def run_before(pilot: Pilot[str]) -> None:
        await showing(lambda: ChoiceScreen(fallback_question(LIMITED), options))(pilot)

    assert snap_compare(app(), terminal_size=SIZE, run_before=run_before)
