"""The built-in AI profiles (D6, PRF-2): pre-filled, editable, in `profiles.json`'s JSON shape.

The first-run wizard offers these; `idea profile list` shows them. They are plain JSON data
(`adapters.store.profiles_codec.decode_profile` turns one into an `AgentProfile`), so this
module depends on no Python class and a user's edited copy has the same form.

The Claude Code (2.1.332) and Codex (0.171.0) values were tried on the real CLIs, offline;
the Gemini CLI (0.61.0) and Aider (0.86.2) ones come from their `--help` and code.
docs/profiles.md says how and where; tests/agents_cli/ re-checks the flags against whatever
version is installed. In short:

- Nothing is written into the user's files (D19): Claude Code and Codex receive the composed
  context on their command line, as text, and work in the project root.
- Both reference CLIs keep the instructions a conversation started with when it is resumed
  (Claude Code's system-prompt snapshot, Codex's recorded developer message), so a resumed
  conversation needs something more for fresh context: Claude Code's resume turns the
  snapshot off; for Codex idea sends it as a first message (`resumeKeepsInstructions`).
- Codex has no way to start with a chosen session id: the daemon discovers it from the
  session file Codex writes at the first submitted message (`session.discover`).
"""

from __future__ import annotations

import copy
from typing import Any

UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

CLAUDE_CODE: dict[str, Any] = {
    "id": "claude-code",
    "name": "Claude Code",
    "command": "claude",
    "args": [],
    # Appended to Claude Code's own system prompt; CLAUDE.md files keep working as usual.
    "contextInjection": {"strategy": "flag", "flag": "--append-system-prompt {content}"},
    "detect": "claude --version",
    "cwd": "{projectRoot}",
    "session": {
        "startArgs": ["--session-id", "{conversationId}"],
        # Without "--system-prompt-snapshot off" a resumed conversation gets the system
        # prompt recorded at its first request, whatever --append-system-prompt says now.
        "resumeArgs": ["--resume", "{conversationId}", "--system-prompt-snapshot", "off"],
        "idKnownAtLaunch": True,
    },
    "mcp": {
        # --strict-mcp-config: the agent sees idea's server only, not the user's own ones,
        # and no project .mcp.json waits for an approval the agent cannot give.
        # --allowedTools mcp__idea: idea's own tools never wait on a permission question
        # (the default "auto" mode asks the vendor's servers about an unlisted tool, and a
        # delegated agent would sit "blocked"), without touching the user's settings.
        "config": {
            "strategy": "flag",
            "flag": "--mcp-config {path} --strict-mcp-config --allowedTools mcp__idea",
        },
        "transport": "stdio",
    },
    # The input box's prompt character, alone or followed by typed text.
    "promptReadyPattern": "(?m)^❯(?: |$)",
    # Seen on its screen against a provider stub: "You've hit your limit · resets 6:57pm
    # (UTC)", "… resets Dec 2, 10:33pm (UTC)" past a day, in the CLI's own zone; the bundle
    # also has "5-hour", "weekly", … limits and a " · progress saved" tail. A cell is narrow
    # and the TUI wraps at blanks: words may be split by a newline and an indent (the time
    # parser takes any blanks in the capture).
    "rateLimitPattern": (
        "You['’]ve\\s+hit\\s+your\\s+(?:[\\w'’-]+\\s+){0,4}?limit(?:\\s+·\\s+resets\\s+"
        "(?P<reset>(?:[A-Z][a-z]{2}\\s+\\d{1,2},\\s+)?\\d{1,2}(?::\\d{2})?\\s*[ap]m"
        "(?:\\s+\\([\\w/+:.-]{1,64}\\))?))?"
    ),
    "submitSequence": "\r",
    "submitDelayMs": 60,
    # When is it free? (core.agents.state_rules; `idea agent state NAME --explain`.) Claude
    # Code puts a braille spinner in its title and "esc to interrupt" under its input box
    # while it works, and asks before a tool runs. Seen in a cell with permissions on
    # (tests/agents_cli/test_real_permission.py): "Bash command", the command, "Do you want
    # to proceed?", "❯ 1. Yes" … "4. No", then "Esc to cancel · Tab to amend" — that last
    # line catches the question when a narrow cell wrapped it ("❯ 1. Yes" also matches the
    # idle prompt: blocked is looked at first).
    "state": {
        "version": 1,
        "workingTitle": ["^[⠁-⣿]"],
        "workingScreen": ["esc to interrupt"],
        "blockedScreen": [
            "Do you want to (?:proceed|make this edit|create|allow)",
            "Esc to cancel · Tab to amend",
            "I trust this folder",
        ],
        "idleScreen": ["^\\s*[│ ]?\\s*❯(?: |$)"],
        "quietMs": 800,
    },
    "interruptSequence": "\x1b",
    "env": {},
}

CODEX: dict[str, Any] = {
    "id": "codex",
    "name": "Codex CLI",
    "command": "codex",
    "args": [],
    # A developer message placed before the conversation; the user's AGENTS.md files are
    # still read. The value is not valid TOML (the composed context starts with a "#"
    # heading), so Codex takes it as a literal string.
    "contextInjection": {"strategy": "flag", "flag": "-c developer_instructions={content}"},
    "detect": "codex --version",
    "cwd": "{projectRoot}",
    "session": {
        "startArgs": [],
        # `resume` is a subcommand: idea puts session words first.
        "resumeArgs": ["resume", "{conversationId}"],
        "idKnownAtLaunch": False,
        # `codex resume ID` replays the developer message the session started with and
        # ignores `-c developer_instructions` (checked with 0.171.0): idea sends the fresh
        # context, the conversation resume first, as the resumed agent's first message.
        "resumeKeepsInstructions": True,
        # Where the daemon finds the id after launch: Codex writes
        # $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl at the first submitted
        # message; its first line is {"type": "session_meta", "payload": {"id", "cwd", ...}}.
        "discover": {
            "homeEnv": "CODEX_HOME",
            "defaultHome": "~/.codex",
            "glob": "sessions/*/*/*/rollout-*.jsonl",
            "idPattern": f"rollout-.*-({UUID_PATTERN})\\.jsonl$",
            "appearsAt": "firstMessage",
        },
    },
    "mcp": {
        # Codex reads no MCP file from its command line: the server is declared with config
        # overrides. The stdio bridge reads its endpoint and secret from the file idea
        # wrote at {path}, so the secret stays out of the process list. Without
        # default_tools_approval_mode every call of idea's tools waits for an approval (and
        # fails at once under approval_policy "never": "MCP tool call requires approval").
        # Not `required = true`: Codex would refuse to start at all when the bridge cannot
        # run, where without it the agent still starts and says the server failed.
        "config": {
            "strategy": "flag",
            "flag": (
                "-c 'mcp_servers.idea.command=\"idea\"'"
                " -c 'mcp_servers.idea.args=[\"mcp-server\", \"--config\", \"{path}\"]'"
                " -c mcp_servers.idea.tool_timeout_sec=600"
                " -c 'mcp_servers.idea.default_tools_approval_mode=\"approve\"'"
            ),
        },
        "transport": "stdio",
    },
    # The composer's prompt character: "› Ask Codex to do anything" when empty.
    "promptReadyPattern": "(?m)^›(?: |$)",
    # Seen on its screen against a provider stub: "■ You’ve hit your usage limit. Upgrade to
    # Pro (…), visit … to purchase more credits or try again at 6:58 PM." (a typographic
    # apostrophe), "… try again at Dec 2nd, 2026 10:33 PM." past a day; local time, no zone.
    # The message wraps over several rows of a cell, between any two words.
    "rateLimitPattern": (
        "You['’]ve\\s+hit\\s+your\\s+usage\\s+limit(?:[\\s\\S]{0,400}?[Tt]ry\\s+again\\s+at\\s+"
        "(?P<reset>(?:[A-Z][a-z]{2}\\s+\\d{1,2}(?:st|nd|rd|th)?,\\s+\\d{4}\\s+)?"
        "\\d{1,2}:\\d{2}\\s*[AP]M))?"
    ),
    "submitSequence": "\r",
    # Codex treats keys arriving within ~10 ms of each other as a paste, where Enter inserts
    # a newline instead of submitting; 20 ms was enough when measured, 100 leaves headroom.
    "submitDelayMs": 100,
    # "• Working (12s • esc to interrupt)" while it works. With approvals on it asks
    # (test_real_permission.py): "Would you like to run the following command?" (wrapped in a
    # cell), "Reason: …", "$ COMMAND", "› 1. Yes, proceed (y)", "2. Yes, and don't ask again
    # …", "3. No, and tell Codex what to do differently (esc)"; the binary also has "Would
    # you like to make the following edits?", "… grant these permissions?" and "… send input
    # to the existing terminal?". "Yes, proceed (y)" catches a question a narrow cell
    # wrapped before its verb.
    "state": {
        "version": 1,
        "workingScreen": ["esc to interrupt", "^• Working"],
        "blockedScreen": [
            "Would you like to (?:run|make|apply|grant|send)",
            "Yes, proceed \\(y\\)",
            "Allow (?:command|Codex)",
            "Do you trust the contents",
            # At a usage limit: "Approaching rate limits / Switch to <model> for lower credit
            # usage?" over "› 1. Switch to <model>": not a composer (Enter switches models).
            "Approaching rate limits",
            "Keep current model",
        ],
        "idleScreen": ["^\\s*›(?: |$)"],
        "quietMs": 800,
    },
    # The same dialog: a resume into the same CLI closes it first (Esc: "esc back").
    "limitDialog": {"screen": ["Approaching rate limits", "Keep current model"],
                    "dismiss": "\x1b"},
    "interruptSequence": "\x1b",
    "env": {},
}

GEMINI: dict[str, Any] = {
    "id": "gemini",
    "name": "Gemini CLI",
    "command": "gemini",
    "args": [],
    # Gemini can only replace its system prompt (GEMINI_SYSTEM_MD), not add to it, and reads
    # GEMINI.md from the project: the context goes in as the first prompt of the session.
    "contextInjection": {"strategy": "flag", "flag": "--prompt-interactive {content}"},
    "detect": "gemini --version",
    "cwd": "{projectRoot}",
    "session": {
        "startArgs": ["--session-id", "{conversationId}"],
        "resumeArgs": ["--resume", "{conversationId}"],
        "idKnownAtLaunch": True,
    },
    "mcp": {
        # The lowest settings layer (system defaults); mcpServers merge with the user's.
        "config": {"strategy": "env", "var": "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"},
        "transport": "stdio",
    },
    "promptReadyPattern": "Type your message",
    # "Usage limit reached for gemini-2.5-pro.\nAccess resets at 3:40 PM PST."
    "rateLimitPattern": (
        "Usage limit reached for \\S+(?:\\s+Access resets at "
        "(?P<reset>\\d{1,2}:\\d{2}\\s?[AP]M(?: [A-Z]{2,5}(?:[+-]\\d{1,2})?)?))?"
        "|You have exhausted your daily quota"
    ),
    "submitSequence": "\r",
    "submitDelayMs": 60,
    "env": {},
}

AIDER: dict[str, Any] = {
    "id": "aider",
    "name": "Aider",
    "command": "aider",
    # Aider's history files default to the project root and it adds .aider* to the user's
    # .gitignore; keep both in the agent's run dir instead.
    "args": [
        "--no-gitignore",
        "--chat-history-file",
        "{runDir}/aider.chat.history.md",
        "--input-history-file",
        "{runDir}/aider.input.history",
    ],
    # A read-only file in the chat (--message-file would send one message and exit).
    "contextInjection": {"strategy": "flag", "flag": "--read {path}"},
    "detect": "aider --version",
    "cwd": "{projectRoot}",
    "session": {
        # No conversation ids: resuming reloads the chat history file of the run dir.
        "startArgs": [],
        "resumeArgs": ["--restore-chat-history"],
        "idKnownAtLaunch": False,
    },
    # "> ", "ask> ", "architect> ", "diff multi> ".
    "promptReadyPattern": "(?m)^(?:[\\w-]+ )*[\\w-]*>(?: |$)",
    "rateLimitPattern": "The API provider has rate limited you",
    "submitSequence": "\r",
    "submitDelayMs": 60,
    "env": {},
}

_BUILTIN = (CLAUDE_CODE, CODEX, GEMINI, AIDER)


def builtin_profiles() -> list[dict[str, Any]]:
    """The built-in profiles, Claude Code and Codex first (the reference profiles, D6).

    Each call returns fresh copies: callers (the wizard) edit them in place.
    """
    return [copy.deepcopy(profile) for profile in _BUILTIN]
