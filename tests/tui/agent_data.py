"""Canned daemon answers for the agents, templates and profiles screens (tests and
snapshots): shaped like `idea profile list --json`, `idea agent list --json`, ..."""

from __future__ import annotations

from typing import Any

PROFILES: list[dict[str, Any]] = [
    {"id": "claude-code", "name": "Claude Code", "command": "claude", "args": [],
     "contextInjection": {"strategy": "flag", "flag": "--append-system-prompt {content}"},
     "detect": "claude --version", "cwd": "{projectRoot}",
     "session": {"startArgs": ["--session-id", "{conversationId}"],
                 "resumeArgs": ["--resume", "{conversationId}"], "idKnownAtLaunch": True},
     "source": "built-in"},
    {"id": "codex", "name": "Codex CLI", "command": "codex", "args": [],
     "contextInjection": {"strategy": "flag", "flag": "-c developer_instructions={content}"},
     "detect": "codex --version", "cwd": "{projectRoot}", "source": "built-in"},
    {"id": "gemini", "name": "Gemini CLI", "command": "gemini", "args": [],
     "contextInjection": {"strategy": "conventionFile", "target": "GEMINI.md"},
     "cwd": "{projectRoot}", "source": "built-in"},
    {"id": "aider", "name": "Aider", "command": "aider", "args": ["--no-gitignore"],
     "contextInjection": {"strategy": "flag", "flag": "--read {path}"},
     "detect": "aider --version", "cwd": "{projectRoot}", "source": "built-in"},
]

DETECTION: list[dict[str, Any]] = [
    {"id": "claude-code", "name": "Claude Code", "found": True,
     "detail": "2.0.14 (Claude Code)"},
    {"id": "codex", "name": "Codex CLI", "found": True, "detail": "codex-cli 0.46.0"},
    {"id": "gemini", "name": "Gemini CLI", "found": None, "detail": "no detect command"},
    {"id": "aider", "name": "Aider", "found": False,
     "detail": "aider: No such file or directory"},
]

AGENTS: list[dict[str, Any]] = [
    {"id": "a1", "name": "Conductor", "mdPath": "agents/conductor.md",
     "profileId": "claude-code", "state": "running", "cell": "cell-0", "target": "web:Default.0",
     "background": False, "synchronized": True, "template": "conductor"},
    {"id": "a2", "name": "Architect", "mdPath": "agents/architect.md", "profileId": "codex",
     "state": "running", "background": True, "synchronized": True, "template": "architect",
     "updateAvailable": {"from": 1, "to": 3}},
    {"id": "a3", "name": "Developer", "mdPath": "agents/developer.md",
     "profileId": "claude-code", "state": "exited", "exitCode": 2, "synchronized": False,
     "template": "developer"},
    {"id": "a4", "name": "QA", "mdPath": "agents/qa.md", "profileId": "aider",
     "state": "failed", "synchronized": False, "template": None,
     "error": "aider: No such file or directory — agent QA uses profile 'Aider': install "
              "`aider` or change the agent's profile"},
    {"id": "a5", "name": "Git Keeper", "mdPath": "agents/git-keeper.md",
     "profileId": "claude-code", "state": "resumable", "synchronized": True,
     "template": "git-keeper"},
    {"id": "a6", "name": "Docs Writer", "mdPath": "agents/docs-writer.md",
     "profileId": "gemini", "state": "stopped", "synchronized": False, "template": None},
]

TEMPLATES: dict[str, Any] = {
    "templates": [
        {"id": "conductor", "name": "Conductor", "version": 3, "defaultProfileId": "claude-code",
         "contentHash": "sha256:1", "lines": 57},
        {"id": "architect", "name": "Architect", "version": 1,
         "defaultProfileId": "claude-code", "contentHash": "sha256:2", "lines": 49},
        {"id": "developer", "name": "Developer", "version": 2, "defaultProfileId": "codex",
         "contentHash": "sha256:3", "lines": 47},
        {"id": "reviewer", "name": "Reviewer", "version": 5, "defaultProfileId": "claude-code",
         "contentHash": "sha256:4", "lines": 12},
    ],
    "editedOutside": ["reviewer"],
    "problems": [],
}

PERSONA = """# Developer

You are the team's **developer**. You write the code the architect designed.

## Duties
- implement one ticket at a time
- run `pytest` before saying it is done
"""
