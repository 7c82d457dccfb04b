"""`idea_launch_agent` from a real CLI (issue 8, MCP-5 #4): a real Claude Code Lead, launched
by `idea` in a cell, calls `idea_launch_agent(target="Dev", visibility="visible", task=…)`
(its scripted model does, against the loopback model server); the Dev, a real CLI too,
opens in a new cell of the user's screen, gets the task typed in with the D8 prefix and
answers it with `idea_reply`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agents_cli.delegation import answers, concludes, marker, persona
from tests.agents_cli.in_idea import WAIT, RealTeam
from tests.agents_cli.model_server import McpCall, ModelServer, Script, Text
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


@pytest.mark.parametrize("dev_cli", ["claude", "codex"])
def test_a_real_agent_launches_another_in_a_visible_cell_with_its_first_task(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, dev_cli: str) -> None:
    agents = team.project()
    team.new("Lead", "claude", persona("lead"))
    team.new("Dev", dev_cli, persona("dev"))
    script.add("START-LAUNCH", [
        Text("Launching Dev."),
        McpCall("idea", "idea_launch_agent", {
            "target": "Dev", "visibility": "visible",
            "task": "VISIBLE-TASK: what is 2 plus 2?"}),
    ], system=marker("lead"), name="lead launches dev")
    concludes(script, "lead", "launched agent Dev", "LEAD-LAUNCHED-DEV")
    answers(script, "dev", "VISIBLE-TASK", "VISIBLE-RESULT: 4")

    lead = team.launch("Lead", "claude")
    before = {cell["id"] for cell in idea.json("list-cells")}
    team.type_line(lead["target"], "START-LAUNCH")
    team.wait_marker(lead["target"], "LEAD-LAUNCHED-DEV")

    dev = agents.info("Dev")
    assert dev["state"] == "running" and dev["background"] is False
    new = [cell for cell in idea.json("list-cells") if cell["id"] not in before]
    assert [cell["id"] for cell in new] == [dev["cell"]]
    # The task idea typed into the new cell, and its answer through idea_reply.
    team.wait_marker(dev["target"], "VISIBLE-TASK")

    def replied() -> dict[str, Any] | None:
        listed: list[dict[str, Any]] = idea.json("agent", "tickets")
        found = [t for t in listed if t["target"] == "Dev" and t["requester"] == "Lead"]
        return found[0] if found and found[0]["state"] == "replied" else None

    ticket = retry_until(replied, WAIT, describe=lambda: server.describe())
    assert ticket["reply"] == "VISIBLE-RESULT: 4"
