"""The daemon's log never holds an agent's composed context (issue 7): with the flag
strategy the whole context is an argument of the CLI, and the spawn used to log argv."""

from __future__ import annotations

import json
import stat

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT, Agents, fake_profile
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e

MARKER = "persona-marker-7f3a91 never in the log"


def test_a_context_passed_as_an_argument_is_not_logged(idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-flag", "flag"))
    created = agents.new("Quiet", "fake-flag", f"# Quiet\n\n{MARKER}\n")
    agents.launch("Quiet", "--background")
    _report, context = agents.contexts(created["id"], "flag")
    assert MARKER in context["content"], "the context did reach the agent as an argument"
    log = idea.locations.log_file
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "spawned pid" in text and "arguments" in text
    assert MARKER not in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_agents_mcp_secret_is_never_logged(idea: IdeaEnv, transport: str) -> None:
    """The secret that is an agent's identity on idea's MCP server (D11) lives only in its
    0600 config: neither the daemon's log nor the MCP worker's lines (written into the same
    log) hold it, after a launch and a delegation that used it."""
    agents = team(idea, ("Dev",), transport=transport)
    done = idea.run("ask", "Dev", "reply secret-free", "--json", check=False, timeout=WAIT * 2)
    assert json.loads(done.stdout)["state"] == "replied", done.stderr
    dev = agents.info("Dev")
    config = agents.run_dir(dev["id"]) / "mcp.json"
    [entry] = json.loads(config.read_text())["mcpServers"].values()
    secret = (entry["env"]["IDEA_MCP_SECRET"] if transport == "stdio"
              else entry["headers"]["Authorization"].removeprefix("Bearer "))
    assert len(secret) >= 32
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    logs = sorted(idea.locations.log_file.parent.glob(idea.locations.log_file.name + "*"))
    assert logs
    for log in logs:
        assert secret not in log.read_text(encoding="utf-8", errors="replace"), log
