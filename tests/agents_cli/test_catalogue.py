"""The built-in profiles as data: they load through idea's codec, render into the argv the
research found (docs/profiles.md), and their screen patterns match what the CLIs print.

The sample messages are built from the templates found in the CLIs' own code (Claude Code
2.1.332, Codex 0.171.0, Gemini CLI 0.61.0, Aider 0.86.2); test_real_cli_messages.py checks
that the installed CLIs still carry those templates.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from adapters.agents.catalogue import builtin_profiles
from adapters.store.profiles_codec import decode_profile, encode_profile
from core.agents.argv import command_line, render_env
from core.agents.profile import SEED_CLAUDE_ID, SessionMode, find_profile
from core.session_limits import parse_reset

VALUES = {
    "projectRoot": "/srv/app",
    "runDir": "/srv/app/.ideai/run/a1",
    "path": "/srv/app/.ideai/run/a1/context.md",
    "content": "# Project root\n\n/srv/app\n",
    "conversationId": "0f8fad5b-d9cb-469f-a165-70867728950e",
}
MCP = "/srv/app/.ideai/run/a1/mcp.json"
PATTERNS = {p["id"]: p for p in builtin_profiles()}


def test_every_profile_loads_and_saves_back_unchanged() -> None:
    for data in builtin_profiles():
        loaded = decode_profile(data, "catalogue")
        saved = encode_profile(loaded)
        assert decode_profile(saved, "saved") == loaded
        # The codec leaves out values equal to its defaults; everything else is as written,
        # the keys it does not know (session.discover) included.
        assert {key: data[key] for key in saved} == saved, data["id"]


def test_reference_profiles_first_and_the_seed_alias() -> None:
    profiles = [decode_profile(p, "catalogue") for p in builtin_profiles()]
    assert [p.id for p in profiles] == ["claude-code", "codex", "gemini", "aider"]
    found = find_profile(profiles, SEED_CLAUDE_ID)
    assert found is not None and found.id == "claude-code"


def test_each_call_returns_copies() -> None:
    first = builtin_profiles()
    first[0]["args"].append("--edited")
    assert builtin_profiles()[0]["args"] == []


def test_nothing_is_written_into_the_project() -> None:
    """D19: no profile injects through a convention file in the project root."""
    for data in builtin_profiles():
        assert data["contextInjection"]["strategy"] != "conventionFile"
        assert data["cwd"] == "{projectRoot}"


def argv(profile_id: str, session: SessionMode) -> list[str]:
    profile = decode_profile(PATTERNS[profile_id], "catalogue")
    return command_line(profile, VALUES, session=session, mcp_path=MCP)


def test_claude_code_command_lines() -> None:
    tail = ["--append-system-prompt", VALUES["content"], "--mcp-config", MCP,
            "--strict-mcp-config", "--allowedTools", "mcp__idea"]
    conversation = VALUES["conversationId"]
    assert argv("claude-code", SessionMode.START) == [
        "claude", "--session-id", conversation, *tail]
    assert argv("claude-code", SessionMode.RESUME) == [
        "claude", "--resume", conversation, "--system-prompt-snapshot", "off", *tail]


def test_codex_command_lines() -> None:
    tail = [
        "-c", "developer_instructions=" + VALUES["content"],
        "-c", 'mcp_servers.idea.command="idea"',
        "-c", f'mcp_servers.idea.args=["mcp-server", "--config", "{MCP}"]',
        "-c", "mcp_servers.idea.tool_timeout_sec=600",
        "-c", 'mcp_servers.idea.default_tools_approval_mode="approve"',
    ]
    assert argv("codex", SessionMode.START) == ["codex", *tail]
    assert argv("codex", SessionMode.RESUME) == ["codex", "resume", VALUES["conversationId"],
                                                 *tail]


def test_gemini_and_aider_command_lines() -> None:
    assert argv("gemini", SessionMode.START) == [
        "gemini", "--session-id", VALUES["conversationId"], "--prompt-interactive",
        VALUES["content"]]
    gemini = decode_profile(PATTERNS["gemini"], "catalogue")
    assert render_env(gemini, VALUES, mcp_path=MCP) == {"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": MCP}
    assert argv("aider", SessionMode.RESUME) == [
        "aider", "--restore-chat-history", "--no-gitignore",
        "--chat-history-file", "/srv/app/.ideai/run/a1/aider.chat.history.md",
        "--input-history-file", "/srv/app/.ideai/run/a1/aider.input.history",
        "--read", VALUES["path"]]


# Exact screens of the real CLIs at a usage limit, as captured from idea's cells (39 columns)
# and from `claude -p` / `codex exec` against the scripted model server (test_real_limits.py).
SEEN_ON_SCREEN = [
    ("claude-code", "❯ HELLO\n  ⎿  You've hit your limit · resets\n     6:57pm (UTC)\n\n"
                    "● Usage limit reached · set to\n  continue automatically at\n  6:57pm",
     "6:57pm (UTC)"),
    ("claude-code", "You've hit your limit · resets Dec 2, 10:33pm (UTC)", "Dec 2, 10:33pm (UTC)"),
    ("claude-code", "You've hit your limit · resets 6:16pm (Europe/Paris)",
     "6:16pm (Europe/Paris)"),
    ("claude-code", "You've hit your limit · resets Dec 7, 11:31am (America/New_York)",
     "Dec 7, 11:31am (America/New_York)"),
    ("codex", "› HELLO\n\n\n■ You’ve hit your usage limit. Upgrade\nto Pro (https://chatgpt.co"
              "m/explore/\npro), visit https://chatgpt.com/\nsettings/usage to purchase more "
              "credits\nor try again at 6:58 PM.\n\n\n  Approaching rate limits", "6:58 PM"),
    ("codex", "ERROR: You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/"
              "pro), visit https://chatgpt.com/settings/usage to purchase more credits or try "
              "again at Dec 2nd, 2026 10:33 PM.", "Dec 2nd, 2026 10:33 PM"),
    ("codex", "■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro),"
              " visit https://chatgpt.com/settings/usage to purchase more credits or try again"
              " at Dec\n7th, 2026 11:31\nAM.", "Dec\n7th, 2026 11:31\nAM"),
]

RATE_LIMITS = [
    *SEEN_ON_SCREEN,
    ("claude-code", "You've hit your limit · resets 3:40am (Europe/Paris)",
     "3:40am (Europe/Paris)"),
    ("claude-code", "You've hit your 5-hour limit · resets 3am", "3am"),
    ("claude-code", "You’ve hit your weekly limit · resets Dec 3, 3:40am · progress saved",
     "Dec 3, 3:40am"),
    ("claude-code", "You've hit your org's monthly usage limit", None),
    ("claude-code", "You've hit your\n  5-hour limit ·\n  resets 3:40am", "3:40am"),
    ("codex", "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), "
              "visit https://chatgpt.com/settings/usage to purchase more credits or try\n"
              "again at 3:40 PM.", "3:40 PM"),
    ("codex", "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), "
              "visit https://chatgpt.com/settings/usage to purchase more credits or try "
              "again at 3:40 PM.", "3:40 PM"),
    ("codex", "You've hit your usage limit. Try again at Dec 3rd, 2026 3:40 PM.",
     "Dec 3rd, 2026 3:40 PM"),
    ("codex", "You've hit your usage limit for gpt-5.2-codex. Switch to another model now, or "
              "try again at 9:05 AM.", "9:05 AM"),
    ("codex", "You've hit your usage limit. To get more access now, send a request to your "
              "admin", None),
    ("gemini", "Usage limit reached for gemini-2.5-pro.\nAccess resets at 3:40 PM PST.\n"
               "/stats model for usage details", "3:40 PM PST"),
    ("gemini", "You have exhausted your daily quota on this model.", None),
    ("aider", "The API provider has rate limited you. Try again later or check your quotas.",
     None),
]


@pytest.mark.parametrize(("profile_id", "screen", "reset"), RATE_LIMITS)
def test_rate_limit_patterns(profile_id: str, screen: str, reset: str | None) -> None:
    match = re.search(PATTERNS[profile_id]["rateLimitPattern"], screen)
    assert match is not None
    groups = match.groupdict()
    assert groups.get("reset") == reset


@pytest.mark.parametrize("profile_id", list(PATTERNS))
def test_rate_limit_patterns_ignore_ordinary_text(profile_id: str) -> None:
    screen = "I hit a limit case in the parser; the rate limiter resets at 3am. Try again?"
    assert re.search(PATTERNS[profile_id]["rateLimitPattern"], screen) is None


READY = [
    ("claude-code", "─────\n❯\n─────\n  ⏵⏵ auto mode on (shift+tab to cycle)", True),
    ("claude-code", "─────\n❯ hello there\n─────", True),
    ("claude-code", "  Do you want to use this API key?\n\n    Yes\n  ❯ No (recommended)", False),
    ("codex", "› Ask Codex to do anything\n\n  ? for shortcuts", True),
    ("codex", "  Choose how you want to use Codex.\n\n> 1. Sign in with ChatGPT", False),
    ("gemini", "│ >   Type your message or @path/to/file                    │", True),
    ("gemini", "  Do you trust this folder?", False),
    ("aider", "Aider v0.86.2\nMain model: x\n>", True),
    ("aider", "ask> ", True),
    ("aider", "diff multi> ", True),
    ("aider", "Aider v0.86.2\nMain model: x", False),
]


@pytest.mark.parametrize(("profile_id", "screen", "ready"), READY)
def test_prompt_ready_patterns(profile_id: str, screen: str, ready: bool) -> None:
    assert (re.search(PATTERNS[profile_id]["promptReadyPattern"], screen) is not None) is ready


# The exact screens above, captured by the profile's pattern and read by the one time parser
# (core.session_limits.parse_reset), as level 2 does: (screen index, CLI's zone, instant).
SEEN_AT = datetime(2026, 12, 1, 16, 21, tzinfo=UTC)
SEEN_RESETS = [
    (0, "UTC", datetime(2026, 12, 1, 18, 57, tzinfo=UTC)),
    (1, "UTC", datetime(2026, 12, 2, 22, 33, tzinfo=UTC)),
    (2, "UTC", datetime(2026, 12, 1, 17, 16, tzinfo=UTC)),  # "(Europe/Paris)" wins over UTC
    (3, "UTC", datetime(2026, 12, 7, 16, 31, tzinfo=UTC)),
    (4, "UTC", datetime(2026, 12, 1, 18, 58, tzinfo=UTC)),
    (5, "UTC", datetime(2026, 12, 2, 22, 33, tzinfo=UTC)),
    (6, "America/New_York", datetime(2026, 12, 7, 16, 31, tzinfo=UTC)),
]


@pytest.mark.parametrize(("index", "zone", "instant"), SEEN_RESETS)
def test_captured_reset_times_parse_to_the_instant(index: int, zone: str,
                                                   instant: datetime) -> None:
    profile_id, screen, _ = SEEN_ON_SCREEN[index]
    match = re.search(PATTERNS[profile_id]["rateLimitPattern"], screen)
    assert match is not None and match["reset"] is not None
    assert parse_reset(match["reset"], SEEN_AT, ZoneInfo(zone)) == instant


# Codex 0.171.0 in a 39-column cell at its usage limit, against the scripted model server
# with a limit window (tests/agents_cli/test_real_session_limits.py prints it).
CODEX_LIMIT_DIALOG = """\
› HELLO-LIMIT-codex


■ You’ve hit your usage limit. Upgrade
to Pro (https://chatgpt.com/explore/
pro), visit https://chatgpt.com/
settings/usage to purchase more credits
or try again at 10:25 PM.


  Approaching rate limits
  Switch to gpt-6-luna for lower
  credit usage?


› 1. Switch to gpt-6-luna
  2. Keep current model
  3. Keep current model (never show
     again)

  enter select · esc back
""".splitlines()
CODEX_AFTER_ESC = [*CODEX_LIMIT_DIALOG[:9], "", "› Ask Codex to do anything", "",
                   "  gpt-5.5 default · ~/proj"]


def test_codex_s_limit_dialog_is_not_an_idle_composer() -> None:
    """Its highlighted choice starts with Codex's prompt character: idea must not take it
    for the composer and type a task (or the resume prompt) into it, where Enter switches
    the user's model. The profile's state rules say blocked; its `limitDialog` names it and
    the keys that close it."""
    from core.agents.state_rules import Observation, detect, parse_rules
    from core.session_limits.dialog import limit_dialog

    codex = PATTERNS["codex"]
    rules = parse_rules(codex["state"], codex["promptReadyPattern"])
    seen = Observation(title="", lines=CODEX_LIMIT_DIALOG, quiet_for=5.0, running=True)
    assert detect(rules, seen).state == "blocked"
    after = Observation(title="", lines=CODEX_AFTER_ESC, quiet_for=5.0, running=True)
    assert detect(rules, after).state == "idle"
    dialog = limit_dialog(codex)
    assert dialog is not None and dialog.dismiss == "\x1b"
    assert dialog.shown(CODEX_LIMIT_DIALOG) == "Approaching rate limits"
    assert dialog.shown(CODEX_AFTER_ESC) is None
    # The limit message above it still gives level 2 its reset time.
    match = re.search(codex["rateLimitPattern"], "\n".join(CODEX_LIMIT_DIALOG))
    assert match is not None and match["reset"] == "10:25 PM"


def test_a_limit_dialog_entry_that_cannot_be_used_is_ignored() -> None:
    from core.session_limits.dialog import limit_dialog

    assert limit_dialog({}) is None
    assert limit_dialog({"limitDialog": {"screen": ["("], "dismiss": "\x1b"}}) is None
    assert limit_dialog({"limitDialog": {"screen": ["x"], "dismiss": ""}}) is None
    assert limit_dialog({"limitDialog": ["x"]}) is None
    found = limit_dialog({"limitDialog": {"screen": ["(", "Keep"], "dismiss": "q"}})
    assert found is not None and found.shown(["  2. Keep current model"]) is not None
