"""What the Agents panel and `idea agent list` show for one agent (its own module so that
the agent runtime and its helpers, such as resuming, share it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass

from core.agents.agent import Agent


@dataclass(frozen=True, slots=True)
class AgentStatus:
    """What the Agents panel and `idea agent list` show for one agent."""

    agent: Agent
    state: str
    """"stopped", "running", "exited", "failed" or "resumable"."""
    cell: str | None = None
    background: bool = False
    exit_code: int | None = None
    error: str | None = None
    conversation_id: str | None = None
