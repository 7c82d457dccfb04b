"""Canned daemon answers for the Skills panel and the Agents panel's skill chips (tests and
snapshots), shaped like `idea skill list --json` and `idea agent list --json`."""

from __future__ import annotations

from typing import Any

from tests.tui.agent_data import AGENTS

SKILLS: dict[str, Any] = {
    "project": "web",
    "problems": [],
    "skills": [
        {"id": "release-checklist", "name": "Release checklist", "scope": "project",
         "description": "Before tagging a version: changelog, version bump, tag, push",
         "contentHash": "8daa990f386ad06c", "lines": 14, "assignedTo": ["Conductor", "QA"]},
        {"id": "a72dac60-641c-4417-b0d7-94b8539f817a", "name": "build-appimage",
         "scope": "project", "description": "Build de l'AppImage IdeA (Linux)",
         "contentHash": "77cb33b978b242f6", "lines": 32, "assignedTo": []},
        {"id": "code-review", "name": "Code review", "scope": "global",
         "description": "Read the diff, run the tests, say what you found",
         "contentHash": "0123456789abcdef", "lines": 9, "assignedTo": ["Conductor"]},
    ],
}

BROKEN_SKILLS: dict[str, Any] = {
    "project": "web",
    "skills": [SKILLS["skills"][2]],
    "problems": ["/home/me/web/.ideai/skills/index.json is damaged: skills[0].name: must "
                 "not be empty"],
}

AGENTS_WITH_SKILLS: list[dict[str, Any]] = [
    {**AGENTS[0], "skills": [{"skillId": "release-checklist", "scope": "project"},
                             {"skillId": "code-review", "scope": "global"},
                             {"skillId": "old-one", "scope": "project"}]},
    *({**agent, "skills": []} for agent in AGENTS[1:3]),
    {**AGENTS[3], "skills": [{"skillId": "release-checklist", "scope": "project"}]},
]
