"""The client's questions about usage limits (issue 10), on a runner that records what it
is asked and sends (tests/fakes.py style): a resume missed while idea was not running is
asked about at attach, and the answer goes to the daemon for the right project."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.screen import Screen

from idea_tui.limit_words import limit_words
from idea_tui.screens.choice import ChoiceScreen
from idea_tui.screens.limit_flows import MISSED_OPTIONS, ask_missed_resumes
from idea_tui.screens.prompt import PromptScreen

MISSED = "erin's resume was due at 10:30 while idea was not running (7h 29m ago)"
# What every limit row carries (`LimitRow`: the daemon always sends these).
SEEN: dict[str, Any] = {"level": 1, "source": "data", "message": "usage limit reached",
                        "since": "2026-12-01T03:00:00+00:00", "armedBy": "auto"}
ERIN: dict[str, Any] = {
    **SEEN,
    "agent": "erin", "id": "e1", "project": "web", "root": "/src/web", "state": "limited",
    "text": "rate_limited (until 10:30)", "resetsAt": "2026-12-01T10:30:00+00:00",
    "resumeAt": None, "overdue": "2026-12-01T10:31:00+00:00", "missed": MISSED,
    "question": MISSED + ": resume it now? `idea agent resume erin --now` resumes it, …",
}
BOB: dict[str, Any] = {**SEEN, "agent": "bob", "id": "b1", "project": "api", "root": "/src/api",
                       "state": "limited", "text": "rate_limited (until 11:00)",
                       "resetsAt": "2026-12-01T11:00:00+00:00",
                       "resumeAt": "2026-12-01T11:01:00+00:00"}
LIMIT: dict[str, Any] = {key: value for key, value in ERIN.items()
                         if key not in ("agent", "id", "project", "root")}


class RecordingRunner:
    """Answers `limit_status` with `listed`, each question with the next of `answers`."""

    def __init__(self, listed: list[dict[str, Any]], answers: list[Any]) -> None:
        self.listed = listed
        self.answers = answers
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.asked: list[Screen[Any]] = []
        self.reports: list[str] = []

    @property
    def app(self) -> Any:
        raise AssertionError("the flow needs no app")

    async def call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        if method == "limit_status":
            return self.listed
        if method == "cancel_resume":
            return {"agent": "erin", "cancelled": True, "limit": LIMIT}
        return {"agent": "erin", "limit": {**LIMIT, "countdown": "5m 00s"}}

    async def attempt(self, method: str, **params: Any) -> Any:
        raise AssertionError("not used")

    def report(self, message: str, level: str = "info") -> None:
        self.reports.append(message)

    async def ask(self, screen: Screen[Any]) -> Any:
        self.asked.append(screen)
        return self.answers.pop(0)

    def focused_target(self) -> str | None:
        return None


def run(runner: RecordingRunner) -> None:
    asyncio.run(ask_missed_resumes(runner))


def test_a_missed_resume_is_asked_about_and_now_resumes_it_in_its_project() -> None:
    runner = RecordingRunner([ERIN, BOB], ["now"])
    run(runner)
    assert runner.calls[0] == ("limit_status", {"all": True})
    [question] = runner.asked  # bob's resume is armed: nothing to ask about him
    assert isinstance(question, ChoiceScreen)
    assert question.question.startswith(MISSED) and question.options == MISSED_OPTIONS
    assert runner.calls[1:] == [("resume_now", {"agent": "e1", "project": "/src/web"})]
    assert runner.reports == ["erin resumed"]


def test_later_asks_for_a_time_and_keep_cancels_and_escape_leaves_it_asked() -> None:
    later = RecordingRunner([ERIN], ["later", "11:15"])
    run(later)
    assert isinstance(later.asked[1], PromptScreen)
    assert later.calls[1:] == [("set_resume_at", {"agent": "e1", "at": "11:15",
                                                  "project": "/src/web"})]
    keep = RecordingRunner([ERIN], ["keep"])
    run(keep)
    assert keep.calls[1:] == [("cancel_resume", {"agent": "e1", "project": "/src/web"})]
    escaped = RecordingRunner([ERIN], [None])
    run(escaped)
    assert escaped.calls == [("limit_status", {"all": True})]


def test_the_panel_and_agent_list_say_the_resume_was_missed() -> None:
    words = limit_words({"limit": ERIN})
    assert words is not None and words.startswith("rate_limited (until 10:30)")
    assert "resume was missed: N resumes now, m sets a time, X keeps it stopped" in words
