"""Fake agents that speak MCP to the real daemon (issue 8): profiles and helpers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.e2e_agents.helpers import FAKE_AGENT, PROMPT_READY, Agents, fake_profile
from tests.helpers.idea import IdeaEnv

FAST_BOUNDS = """
[delegation]
turn_timeout = 120
queue_wait_cap = 240
poll_max = 8
progress_every = 0.5
"""


def mcp_profile(profile_id: str = "fake-mcp", transport: str = "stdio") -> dict[str, Any]:
    """The fake agent, run by this interpreter (it needs the mcp SDK), connecting to idea's
    MCP server from the config idea gives it, with declarative state rules."""
    profile = fake_profile(profile_id, "flag", session=False, command=sys.executable)
    profile["args"] = [str(FAKE_AGENT), *profile["args"], "--mcp-connect", "--no-paste-context"]
    profile["mcp"] = {"config": {"strategy": "flag", "flag": "--mcp-config {path}"},
                      "transport": transport}
    profile["state"] = {
        "version": 1,
        "workingTitle": ["working"],
        "idleScreen": [PROMPT_READY],
        "quietMs": 200,
    }
    return profile


def team(idea: IdeaEnv, names: tuple[str, ...], bounds: str = FAST_BOUNDS,
         transport: str = "stdio") -> Agents:
    config = idea.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(bounds)
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(mcp_profile(transport=transport))
    for name in names:
        agents.new(name, "fake-mcp")
    return agents


def journal(agents: Agents) -> Path:
    return agents.ideai / "run" / "tickets.json"
