"""Pages of a conversation as `read_conversation_page` answers them (for the viewer's tests)."""

from __future__ import annotations

from typing import Any

BASE_MS = 1_796_140_800_000  # 2026-12-01 00:00 UTC


def turn(n: int, source: str, role: str, text: str) -> dict[str, Any]:
    return {"id": f"t{n}", "atMs": BASE_MS + n * 61_000, "source": source, "role": role,
            "text": text}


ARCHIVED: dict[str, Any] = {
    "conversation": "09b15ec3-ce2f-0af2-2903-ef699df9de41",
    "parties": ["Conductor", "Dev"],
    "segments": [1],
    "segment": 1,
    "turns": [
        turn(0, "Conductor", "prompt", "Set up the CI pipeline for the web app."),
        turn(1, "Dev", "response", "Done: .github/workflows/ci.yml runs lint, types and tests."),
    ],
    "problems": [],
}

ACTIVE: dict[str, Any] = {
    "conversation": "09b15ec3-ce2f-0af2-2903-ef699df9de41",
    "parties": ["Conductor", "Dev"],
    "segments": [1],
    "segment": None,
    "turns": [
        turn(2, "Conductor", "prompt", "Check the build and fix what fails."),
        turn(3, "Dev", "response",
             "The build failed in `test_login`:\n\n  expected 302, got 500\n\n"
             "Fixed the session secret; all 214 tests pass."),
        turn(4, "Conductor", "prompt", "Thanks. Now bump the version to 1.4.0 \x1b[31mnow"),
    ],
    "problems": ["log.jsonl line 4 skipped: cut by a crash (no end of line)"],
}

PAGES: dict[int, dict[str, Any]] = {0: ACTIVE, 1: ARCHIVED}
