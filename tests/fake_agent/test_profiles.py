"""The fake agent stands in for Claude Code and Codex: the built-in profiles' own argument
templates, rendered by idea's argv renderer with the fake agent as the command, deliver the
context and drive sessions the way the real CLIs expect (tests/agents_cli checks those)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from adapters.agents.catalogue import CLAUDE_CODE, CODEX
from adapters.store.profiles_codec import decode_profile
from core.agents.argv import render_args
from core.agents.profile import AgentProfile, SessionMode
from tests.fake_agent.conftest import StartAgent
from tests.fake_agent.driver import read_report

CONTEXT = "# Project root\n\n/srv/app\n\n# Persona\nCarefully — «always».\n"
CONVERSATION = "0f8fad5b-d9cb-469f-a165-70867728950e"


def words(data: dict[str, object], tmp_path: Path, mode: SessionMode,
          conversation: str = CONVERSATION) -> list[str]:
    profile: AgentProfile = decode_profile(data, "catalogue")
    values = {"projectRoot": str(tmp_path), "runDir": str(tmp_path / "run"),
              "path": str(tmp_path / "run" / "context.md"), "content": CONTEXT,
              "conversationId": conversation}
    mcp = tmp_path / "run" / "mcp.json"
    mcp.parent.mkdir(exist_ok=True)
    mcp.write_text('{"mcpServers": {"idea": {"command": "idea"}}}')
    return render_args(profile, values, session=mode, mcp_path=str(mcp))


def test_claude_code_arguments(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    first = start(*words(CLAUDE_CODE, tmp_path, SessionMode.START), "--report", str(report),
                  "--exit-after", "1")
    first.expect_exact(f"SESSION {CONVERSATION}")
    first.line("hello")
    assert first.wait_exit() == 0
    data = read_report(report)
    assert [(c["strategy"], c["content"]) for c in data["contexts"]] == [("flag", CONTEXT)]
    assert data["mcpConfigs"][0]["servers"] == ["idea"] and data["strictMcpConfig"]

    resumed = start(*words(CLAUDE_CODE, tmp_path, SessionMode.RESUME), "--report", str(report))
    resumed.expect_exact(f"RESUMED {CONVERSATION} messages=1")
    sha = hashlib.sha256(CONTEXT.encode()).hexdigest()
    assert f"CONTEXT[flag] sha256={sha}" in resumed.text
    resumed.prompt()
    assert read_report(report)["systemPromptSnapshot"] == "off"


def test_codex_arguments_and_discovery(
    start: StartAgent, tmp_path: Path, agent_env: dict[str, str]
) -> None:
    report = tmp_path / "report.json"
    agent = start("--session-style", "codex", *words(CODEX, tmp_path, SessionMode.START),
                  "--report", str(report), "--exit-after", "1")
    agent.prompt()
    agent.line("first task")
    assert agent.wait_exit() == 0
    data = read_report(report)
    assert data["contexts"][0]["content"] == CONTEXT
    assert any(o.startswith("mcp_servers.idea.args=") for o in data["configOverrides"])
    # The same discovery rule as for Codex: the id is in the session file's name.
    discover = CODEX["session"]["discover"]
    files = sorted(Path(agent_env["FAKE_AGENT_HOME"]).glob(discover["glob"]))
    [found] = [m.group(1) for f in files if (m := re.search(discover["idPattern"], f.name))]
    assert found == data["session"]["id"]

    resumed = start("--session-style", "codex",
                    *words(CODEX, tmp_path, SessionMode.RESUME, conversation=found))
    resumed.expect_exact(f"RESUMED {found} messages=1")
