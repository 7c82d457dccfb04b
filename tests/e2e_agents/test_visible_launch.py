"""`idea_launch_agent` with `visibility: "visible"` (issue 8, MCP-5 #4): an agent launches
another, which opens in a new cell of the user's screen beside the caller's cell, and its
first task is delivered there and answered (fake agents speaking MCP to the real daemon)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def cells(idea: IdeaEnv) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = idea.json("list-cells")
    return listed


def test_an_agent_launches_another_in_a_new_visible_cell_with_a_task(idea: IdeaEnv) -> None:
    agents = team(idea, ("Lead", "Dev"))
    lead = agents.launch("Lead")  # in a split of the user's screen
    before = {cell["id"] for cell in cells(idea)}
    assert lead["cell"] in before
    call = json.dumps({"target": "Dev", "visibility": "visible", "task": "reply seen in a cell"})
    done = agents.idea.run("ask", "Lead", f"call idea_launch_agent {call}", "--json",
                           timeout=WAIT * 2)
    result = json.loads(done.stdout)
    assert result["state"] == "replied", result
    assert result["reply"].startswith("launched agent Dev; task queued as ticket "), result
    ticket = result["reply"].split("ticket ")[1].split(" ")[0]

    dev = agents.info("Dev")
    assert dev["state"] == "running" and dev["background"] is False
    new = [cell for cell in cells(idea) if cell["id"] not in before]
    assert [cell["id"] for cell in new] == [dev["cell"]]
    # The new cell is on the page the user sees, next to the caller's.
    assert new[0]["page"] == next(c for c in cells(idea) if c["id"] == lead["cell"])["page"]
    # What idea typed shows in that cell (the cell is narrow: look for the ticket only).
    idea.capture(dev["target"], wait=ticket, timeout=WAIT)

    def answered() -> dict[str, Any] | None:
        listed: list[dict[str, Any]] = agents.idea.json("agent", "tickets")
        found = [t for t in listed if t["ticket"] == ticket]
        return found[0] if found and found[0]["state"] == "replied" else None

    replied = retry_until(answered, WAIT)
    assert (replied["requester"], replied["target"]) == ("Lead", "Dev")
    report = agents.report(dev["id"], lambda r: bool(r["mcp"]["calls"]))
    assert report["messages"] == [f"[idea · task from Lead · ticket {ticket}] "
                                  "reply seen in a cell"]
    assert report["mcp"]["calls"][0]["arguments"] == {"result": "seen in a cell",
                                                      "ticket": ticket}
