"""Real Claude Code and Codex agents launched by idea hit their provider's usage limit, and idea
resumes their conversation at the reset (issue 10), offline.

The scripted model server answers as each provider does at a usage limit (a `LimitWindow`:
Anthropic's 429 with the `anthropic-ratelimit-unified-*` headers, OpenAI's 429 with a
`usage_limit_reached` body and the `x-codex-primary-*` headers) from the moment the user's
line is typed until the reset, 2 h 37 min ahead on a whole minute. The daemon runs on a test
clock (IDEA_TEST_CLOCK, moved only by the `test_clock` command), so "the reset" comes
without waiting hours; the server's window is lifted at the same moment, as the provider's
would be.

What is checked, per CLI: the CLI's own message is on the cell's screen (what level 2
reads); idea knows the agent is limited with the exact reset instant and says level 1 (the
transcript / session file the CLI wrote) caught it; at the reset idea restarts the CLI on its
conversation (`claude --resume ID`, `codex resume ID`) and types its resume prompt; the
model receives it with the earlier turns of the conversation, and its answer shows in the
cell; the agent is no longer limited.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.agents.catalogue import builtin_profiles
from core.session_limits import parse_reset
from core.session_limits.prompts import RESUME_PROMPT
from idea_tui.control import ControlClient
from tests.agents_cli.clis import profile
from tests.agents_cli.in_idea import PROFILES, PROMPTS, WAIT, RealTeam
from tests.agents_cli.model_server import ModelServer, Script, Text, model_server
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

MARGIN = 60
"""`[session_limits] resume_margin`: seconds after the reset the resume fires."""
LIMITS = f"""
[session_limits]
resume_margin = {MARGIN}
stall_after = 0
"""
# What each CLI prints at the limit (the built-in profile's pattern must match it; the TUI
# wraps it in a narrow cell).
MESSAGES = {"claude": "You've hit your limit", "codex": "You’ve hit your usage limit"}


@pytest.fixture
def start() -> datetime:
    """The test clock's start: now, on a whole minute (the CLIs show minutes)."""
    return datetime.fromtimestamp(int(time.time()) // 60 * 60, UTC)


@pytest.fixture
def clocked(tmp_path: Path, test_shell: Path, start: datetime) -> Iterator[IdeaEnv]:
    env = IdeaEnv(tmp_path, test_shell,
                  extra_env={"IDEA_TEST_CLOCK": start.isoformat(), "TZ": "UTC"})
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def server(script: Script) -> Iterator[ModelServer]:
    with model_server(script) as running:
        yield running


def set_clock(idea: IdeaEnv, at: datetime) -> None:
    with ControlClient.connect(idea.locations) as client:
        client.call("test_clock", at=at.isoformat())


def limit_seen(team: RealTeam, name: str, levels: list[int],
               wanted: Any) -> dict[str, Any]:
    """The agent's `limit` block of `idea agent list --json` once `wanted(block)` holds;
    every level shown on the way is appended to `levels` (which level caught it first)."""
    def found() -> dict[str, Any] | None:
        block = team.team.info(name).get("limit")
        if isinstance(block, dict):
            if not levels or levels[-1] != block["level"]:
                levels.append(block["level"])
            if wanted(block):
                return block
        return None

    return retry_until(found, WAIT, interval=0.2,
                       describe=lambda: json.dumps(team.team.info(name)) + "\n"
                       + team.server.describe())


def not_limited(team: RealTeam, name: str) -> dict[str, Any] | None:
    info = team.team.info(name)
    return info if "limit" not in info else None


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_real_cli_at_its_usage_limit_is_resumed_at_the_reset(
        clocked: IdeaEnv, server: ModelServer, script: Script, start: datetime,
        cli: str) -> None:
    reset = start + timedelta(hours=2, minutes=37)
    config = clocked.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(LIMITS)
    team = RealTeam(clocked, server, subscription=cli == "claude")
    team.project()
    script.add(f"WARM-UP-{cli}", [Text(f"WARM-ANSWER-{cli}")])
    script.add(re.escape(RESUME_PROMPT[:40]), [Text(f"RESUMED-ANSWER-{cli}")], name="resume")
    team.new("Rev", cli)
    target = team.launch("Rev", cli)["target"]
    # A first turn before the limit: the conversation exists (Codex's id is discovered
    # from its session file) and has history a resume must bring back.
    team.type_line(target, f"WARM-UP-{cli}")
    team.wait_marker(target, f"WARM-ANSWER-{cli}")
    retry_until(lambda: team.team.info("Rev").get("conversationId"), WAIT,
                describe=lambda: json.dumps(team.team.info("Rev")))

    window = script.limit_until(int(reset.timestamp()), "LIMIT-BODY-MESSAGE")
    team.type_line(target, f"HELLO-LIMIT-{cli}")
    levels: list[int] = []
    block = limit_seen(team, "Rev", levels, lambda b: b["level"] == 1)
    assert block["state"] == "limited", block
    assert block["resetsAt"] == reset.isoformat(), block
    assert block["resumeAt"] == (reset + timedelta(seconds=MARGIN)).isoformat(), block
    assert block["source"].endswith(".jsonl"), block  # the CLI's transcript / session file
    assert block["text"] == f"rate_limited (until {reset:%H:%M})", block
    screen = team.wait_marker(target, re.sub(r"\s", "", MESSAGES[cli]))
    # Level 2 reads the same reset off the cell's screen (the daemon's log shows it fire
    # first, level 1 refining it within a second).
    pattern = profile(PROFILES[cli]).rate_limit_pattern
    assert pattern is not None
    match = re.search(pattern, screen)
    assert match is not None and match["reset"], screen
    assert parse_reset(match["reset"], start, UTC) == reset, match["reset"]
    print(f"\n{cli}: levels seen {levels}; limit {block}\nscreen:\n{screen}")

    # The reset: the provider answers again, idea's clock passes the resume time.
    window.lift()
    set_clock(clocked, reset + timedelta(seconds=MARGIN + 1))
    team.wait_marker(target, f"RESUMED-ANSWER-{cli}")
    [resumed] = [r for r in server.turns() if r.rule == "resume"]
    # The same conversation: the turns before the limit come with the resume prompt.
    assert f"WARM-UP-{cli}" in resumed.text and f"WARM-ANSWER-{cli}" in resumed.text
    assert f"HELLO-LIMIT-{cli}" in resumed.text
    info = retry_until(lambda: not_limited(team, "Rev"), WAIT,
                       describe=lambda: json.dumps(team.team.info("Rev")))
    assert info["state"] == "running" and info["conversationId"], info
    assert window.refused >= 1


def test_claude_code_continuing_by_itself_at_the_reset_is_not_resumed_again(
        idea: IdeaEnv, server: ModelServer, script: Script) -> None:
    """Claude Code continues the conversation by itself at the reset (its setting
    `autoContinueAtUsageLimit`, on by default): idea sees the agent answer again and does not
    resume it a second time. Real clock: the reset is a minute and a half away; idea's own
    resume would come 15 minutes after it, past this test's timeout, so an agent no longer
    limited within the test was not resumed by idea."""
    margin = 900
    config = idea.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(LIMITS.replace(f"resume_margin = {MARGIN}", f"resume_margin = {margin}"))
    team = RealTeam(idea, server, subscription=True)
    team.project()
    script.fallback = "AUTO-CONTINUED-ANSWER"
    script.add("WARM-UP", [Text("WARM-ANSWER")])
    team.new("Rev", "claude")
    target = team.launch("Rev", "claude")["target"]
    team.type_line(target, "WARM-UP")
    team.wait_marker(target, "WARM-ANSWER")
    reset = int(time.time()) + 90
    window = script.limit_until(reset, "LIMIT-BODY-MESSAGE")
    team.type_line(target, "HELLO-LIMIT")
    limit_seen(team, "Rev", [], lambda b: b["level"] == 1)
    team.wait_marker(target, "Continuingautomatically")
    # The window closes by the wall clock; Claude Code sends the conversation again.
    team.wait_marker(target, "AUTO-CONTINUED-ANSWER", timeout=WAIT + 90)
    assert not window.open
    # No longer limited, so nothing is armed: idea's own resume will not come.
    retry_until(lambda: not_limited(team, "Rev"), WAIT,
                describe=lambda: json.dumps(team.team.info("Rev")))
    assert not [r for r in server.turns() if RESUME_PROMPT[:40] in r.text]


def test_codex_s_limit_dialog_is_closed_not_typed_into_when_it_resumes_in_place(
        clocked: IdeaEnv, server: ModelServer, script: Script, start: datetime) -> None:
    """At its limit Codex opens "Approaching rate limits · Switch to <model> for lower credit
    usage?" with `› 1. Switch to <model>` highlighted. An agent whose profile cannot resume a
    conversation by id (a user's Codex profile without session templates) is resumed in the
    same CLI: the resume prompt must not be typed into that dialog (Enter would switch the
    user's model and the prompt would be lost). idea closes it (Esc) and types the prompt
    into the composer once the dialog is gone; the model is the one the user had."""
    reset = start + timedelta(hours=2, minutes=37)
    config = clocked.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(LIMITS)
    team = RealTeam(clocked, server)
    agents = team.project()
    same = next(p for p in builtin_profiles() if p["id"] == "codex")
    same.pop("session")
    same.update(id="codex-in-place", name="Codex (no resume by id)")
    agents.add_profile(same)
    script.add("WARM-UP-in-place", [Text("WARM-ANSWER-in-place")])
    script.add(re.escape(RESUME_PROMPT[:40]), [Text("RESUMED-ANSWER-in-place")], name="resume")
    agents.new("Rev", "codex-in-place")
    target = agents.launch("Rev")["target"]
    team.wait_screen(target, PROMPTS["codex"])
    team.type_line(target, "WARM-UP-in-place")
    team.wait_marker(target, "WARM-ANSWER-in-place")
    window = script.limit_until(int(reset.timestamp()), "LIMIT-BODY-MESSAGE")
    team.type_line(target, "HELLO-LIMIT-in-place")
    limit_seen(team, "Rev", [], lambda b: b["resetsAt"] == reset.isoformat())
    dialog = team.wait_marker(target, "Approachingratelimits")
    assert "Keep current model" in dialog, dialog
    print(f"\ncodex at its limit, in place:\n{dialog}")

    window.lift()
    set_clock(clocked, reset + timedelta(seconds=MARGIN + 1))
    after = team.wait_marker(target, "RESUMED-ANSWER-in-place")
    assert "Approaching rate limits" not in after, after
    [resumed] = [r for r in server.turns() if r.rule == "resume"]
    [warm] = [r for r in server.turns() if "WARM-UP-in-place" in r.latest]
    # The same CLI and conversation, on the user's model (the dialog's first choice would
    # have switched it).
    assert resumed.body["model"] == warm.body["model"], (resumed.body["model"],
                                                         warm.body["model"])
    assert "HELLO-LIMIT-in-place" in resumed.text and "WARM-ANSWER-in-place" in resumed.text
    info = retry_until(lambda: not_limited(team, "Rev"), WAIT,
                       describe=lambda: json.dumps(team.team.info("Rev")))
    assert info["state"] == "running"
