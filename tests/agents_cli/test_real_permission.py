"""Blocked on a permission question, with the real CLIs launched by `idea` (issue 8: "a task
is never delivered into `blocked`; the user is told instead").

The other real-CLI tests run Claude Code in its "auto" mode with idea's tools pre-allowed and
Codex with approvals off, so neither ever asks. Here the user's own settings turn permissions
on, as many users have them: Claude Code in its `default` permission mode
(`~/.claude/settings.json` `"defaultMode": "default"`), Codex with `approval_policy =
"untrusted"`. The scripted model asks for a shell command that needs the user's approval;
the CLI shows its real question, and the daemon's state detector (the built-in profile's
`blockedScreen` rules) must say `blocked`, with the rule and the line. A line the user queues
meanwhile (`idea agent send`) waits; once the question is answered the command runs, the
agent is free again and the line is delivered.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.agents_cli.delegation import marker, persona
from tests.agents_cli.in_idea import WAIT, RealTeam
from tests.agents_cli.model_server import Script, Text, ToolCall
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

PROBE = "probe-made-by-the-tool"


def state_becomes(team: RealTeam, name: str, wanted: str, target: str) -> dict[str, Any]:
    def look() -> dict[str, Any] | None:
        state: dict[str, Any] = team.idea.json("agent", "state", name)
        return state if state["state"] == wanted else None

    def why() -> str:
        offered = [r.tools for r in team.server.turns()][-1:]
        return (f"{team.idea.json('agent', 'state', name)}\n{team.idea.capture(target)}\n"
                f"model requests:\n{team.server.describe()}\ntools offered: {offered}")

    found: dict[str, Any] = retry_until(look, WAIT, interval=0.2, describe=why)
    return found


def claude_asks_first(idea: IdeaEnv) -> None:
    """The user's Claude Code settings: the classic permission dialog before a tool runs."""
    settings = idea.user_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data.setdefault("permissions", {})["defaultMode"] = "default"
    settings.write_text(json.dumps(data, indent=2))
    # A user in manual mode is offered auto mode once ("Make auto mode your default
    # permission mode?", before the prompt, not every start); this user already answered
    # it, as Claude Code records in ~/.claude.json. Without this the launch waited on it.
    state_path = idea.user_home / ".claude.json"
    state = json.loads(state_path.read_text())
    state["hasSeenAutoDefaultNudge"] = True
    state_path.write_text(json.dumps(state, indent=2))


def codex_asks_first(idea: IdeaEnv) -> None:
    """The user's Codex config: approval before any command that is not known to be safe."""
    config = idea.user_home / ".codex" / "config.toml"
    text = config.read_text()
    assert 'approval_policy = "never"' in text
    config.write_text(text.replace('approval_policy = "never"',
                                   'approval_policy = "on-request"'))


def blocked_then_answered(team: RealTeam, cli: str, tool: ToolCall, answer: list[str],
                          script: Script) -> dict[str, Any]:
    """Launch Dev on `cli`, make its model call `tool`, see it blocked with a line queued,
    answer with `answer` (keys), see the line delivered. Returns the blocked verdict."""
    team.project()
    team.new("Dev", cli, persona("dev"))
    script.add("RUN-THE-PROBE", [Text("Creating the probe file."), tool], system=marker("dev"),
               name="dev runs a command")
    script.add("QUEUED-WHILE-BLOCKED", [Text("QUEUED-LINE-SEEN")], system=marker("dev"),
               name="dev answers the queued line")
    dev = team.launch("Dev", cli)
    target = dev["target"]
    state_becomes(team, "Dev", "idle", target)
    team.type_line(target, "RUN-THE-PROBE")
    blocked = state_becomes(team, "Dev", "blocked", target)
    screen = team.idea.capture(target)
    # A line for Dev waits in its FIFO: never typed into the question.
    team.idea.json("agent", "send", "Dev", "QUEUED-WHILE-BLOCKED")
    waiting = retry_until(
        lambda: (s := team.idea.json("agent", "state", "Dev")).get("waitingFor") and s,
        WAIT, interval=0.2)
    assert "blocked" in waiting["waitingFor"], waiting
    assert not any("QUEUED-WHILE-BLOCKED" in r.latest for r in team.server.turns())
    assert (team.idea.root / "proj" / PROBE).exists() is False, "it ran without asking"
    for key in answer:
        team.idea.send_keys(target, key)
    retry_until(lambda: (team.idea.root / "proj" / PROBE).exists() or None, WAIT,
                interval=0.2, describe=lambda: team.idea.capture(target))
    team.wait_marker(target, "QUEUED-LINE-SEEN")
    state_becomes(team, "Dev", "idle", target)
    blocked["screen"] = screen
    return blocked


def test_claude_code_asking_permission_for_a_command_is_seen_blocked(
        idea: IdeaEnv, team: RealTeam, script: Script) -> None:
    claude_asks_first(idea)
    tool = ToolCall("Bash", {"command": f"touch {PROBE}", "description": "Create the probe"})
    blocked = blocked_then_answered(team, "claude", tool, ["Enter"], script)
    assert blocked["rule"].startswith("blockedScreen"), blocked
    assert re.search(r"Do you want to proceed\?", blocked["screen"]), blocked["screen"]


def test_codex_asking_approval_for_a_command_is_seen_blocked(
        idea: IdeaEnv, team: RealTeam, script: Script) -> None:
    codex_asks_first(idea)
    tool = ToolCall("exec_command", {"cmd": f"touch {PROBE}",
                                     "sandbox_permissions": "require_escalated",
                                     "justification": "Create the probe file"})
    blocked = blocked_then_answered(team, "codex", tool, ["Enter"], script)
    assert blocked["rule"].startswith("blockedScreen"), blocked
    assert re.search(r"Would you like to run", blocked["screen"]), blocked["screen"]
