"""Conversations with the real Claude Code and Codex CLIs launched by `idea`, offline
(issue 9).

The user asks the agent through `idea ask`; its scripted model answers with `idea_reply`;
the exchange lands in the user↔agent conversation (log and handoff) and the session id the
CLI runs under is kept in its `providers.json` (Claude Code's is chosen by idea at launch,
Codex's is found in its rollout file after the first message). The agent is then restarted
with resume: the CLI continues its own session (`--resume ID`, `codex resume ID`), and its
first request after the resume carries `# Conversation resume`, the bounded handoff.

Where it is carried differs: Claude Code renders the freshly composed system prompt (its
snapshot off); `codex resume` replays the developer message the session started with and
ignores the new one, so idea sends the fresh sections as the agent's first message.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.conversations.ids import USER, conversation_id
from idea_daemon.orchestration.refresh import RESUME_HEADER
from tests.agents_cli.delegation import answers, marker, persona
from tests.agents_cli.in_idea import PROFILES, PROMPTS, WAIT, RealTeam
from tests.agents_cli.model_server import ModelRequest, ModelServer, Script, Text
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

HISTORY = {"claude": "messages", "codex": "input"}
"""Where each wire carries the conversation so far (Messages API, Responses API)."""


def carried(request: ModelRequest, cli: str) -> str:
    """The text of the request that should carry the resume: the system prompt (Claude
    Code), the message idea typed in (Codex)."""
    return request.system if cli == "claude" else request.latest


def asked_once(idea: IdeaEnv, team: RealTeam, cli: str,
               agent_id: str) -> tuple[Path, dict[str, Any]]:
    """Launch Dev on `cli`, have the user ask it once (its scripted model answers with
    idea_reply) and wait for the exchange in its user conversation's handoff: the folder,
    and the launch's answer (its cell)."""
    launched = team.launch("Dev", cli)
    done = idea.run("ask", "Dev", "TASK-FOR-DEV: what is 6 times 7?", "--json",
                    timeout=WAIT * 2)
    assert json.loads(done.stdout)["reply"] == "RESULT-FROM-DEV-42"
    folder = team.team.ideai / "conversations" / conversation_id(USER, agent_id)

    def handoff() -> str | None:
        path = folder / "handoff.md"
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        return text if "- **Response:** RESULT-FROM-DEV-42" in text else None

    retry_until(handoff, WAIT, describe=lambda: str(list(folder.glob("*"))))
    return folder, launched


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_a_resumed_agents_first_request_carries_the_handoff(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, cli: str) -> None:
    agents = team.project()
    created = team.new("Dev", cli, persona("dev"))
    answers(script, "dev", "TASK-FOR-DEV", "RESULT-FROM-DEV-42")
    script.add(re.escape(RESUME_HEADER[:30]), [Text("CONTEXT-TAKEN")], system=marker("dev"),
               name="resume message")
    script.add("LINE-AFTER-RESUME", [Text("RESUMED-AND-READY")], system=marker("dev"),
               name="after resume")
    folder, _ = asked_once(idea, team, cli, created["id"])

    def recorded() -> dict[str, Any] | None:
        path = folder / "providers.json"
        found: dict[str, Any] = json.loads(path.read_text("utf-8")) if path.exists() else {}
        return found if found.get("providers") else None

    providers = retry_until(recorded, WAIT, describe=lambda: str(list(folder.glob("*"))))
    session = agents.info("Dev")["conversationId"]
    assert session
    assert providers["providers"] == {PROFILES[cli]: {"resumableId": session}}
    before = len(server.turns())

    restarted = idea.json("agent", "restart", "Dev", "--resume")
    team.wait_screen(restarted["target"], PROMPTS[cli])
    if cli == "codex":
        team.wait_marker(restarted["target"], "CONTEXT-TAKEN")
    team.type_line(restarted["target"], "LINE-AFTER-RESUME")
    team.wait_marker(restarted["target"], "RESUMED-AND-READY")
    first = next(r for r in server.turns()[before:] if r.rule in ("resume message",
                                                                   "after resume"))
    text = carried(first, cli)
    section = text[text.index("# Conversation resume"):]
    assert "## With the user" in section
    assert "- **Prompt:** [idea · task from user" not in section  # the task, not its prefix
    assert "- **Prompt:** TASK-FOR-DEV: what is 6 times 7?" in section
    assert "- **Response:** RESULT-FROM-DEV-42" in section
    # The CLI continued its own session too: the earlier exchange is in the history.
    assert "TASK-FOR-DEV" in json.dumps(first.body[HISTORY[cli]])
    assert agents.info("Dev")["conversationId"] == session
    # The message idea sent is not a turn of the conversation (it is made of them).
    log = (folder / "log.jsonl").read_text(encoding="utf-8")
    assert RESUME_HEADER[:30] not in log


@pytest.mark.parametrize(("first", "second"), [("claude", "codex"), ("codex", "claude")])
def test_a_thread_continues_on_the_other_vendors_cli(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script,
        first: str, second: str) -> None:
    """Hot swap across vendors (SWP, LOG-2): the new CLI has no session of the old one (no
    provider resume id can cross), so the thread reaches its model through the handoff in
    `# Conversation resume`, in the fresh launch's system prompt / instructions."""
    agents = team.project()
    created = team.new("Dev", first, persona("dev"))
    answers(script, "dev", "TASK-FOR-DEV", "RESULT-FROM-DEV-42")
    script.add("LINE-AFTER-SWAP", [Text("SWAPPED-AND-READY")], system=marker("dev"),
               name="after swap")
    _, launched = asked_once(idea, team, first, created["id"])
    old_session = agents.info("Dev").get("conversationId")  # Codex's: once discovered
    before = len(server.turns())

    swapped = idea.json("agent", "set-profile", "Dev", PROFILES[second], "-f")
    assert swapped["profileId"] == PROFILES[second] and swapped["cell"] == launched["cell"]
    team.wait_screen(launched["target"], PROMPTS[second])
    team.type_line(launched["target"], "LINE-AFTER-SWAP")
    team.wait_marker(launched["target"], "SWAPPED-AND-READY")
    request = next(r for r in server.turns()[before:] if r.rule == "after swap")
    assert request.api == ("openai" if second == "codex" else "anthropic")
    section = request.system[request.system.index("# Conversation resume"):]
    assert "## With the user" in section
    assert "- **Prompt:** TASK-FOR-DEV: what is 6 times 7?" in section
    assert "- **Response:** RESULT-FROM-DEV-42" in section
    # Only the handoff carried it: the new CLI's own history starts at the swap.
    assert "RESULT-FROM-DEV-42" not in json.dumps(
        [item for item in request.body[HISTORY[second]] if item.get("role") != "developer"])
    assert agents.info("Dev").get("conversationId") != old_session
